#!/usr/bin/env python3
"""Build the training demo's tiny Llama (issue 40, item 5): the model that
fixtures/llm-train trains from scratch for about fifty steps.

Run from the repository root with the venv's Python (torch 2, transformers,
tokenizers; `make deps`), or `make training-model`:

    build/venv/bin/python src/tools/make_tiny_llama.py \\
        --corpus fixtures/llm-train/corpus.txt --out fixtures/llm-train/model

What it makes, in OUT (a Transformers model directory, save_pretrained with
safetensors, plus its tokenizer):

  tokenizer.json
           a byte-level BPE (GPT-2's scheme: the ByteLevel pre-tokenizer and
           decoder, every byte in the base alphabet, so there is no unknown
           token) trained with the `tokenizers` package on the corpus, to a
           vocabulary of VOCAB ids: id 0 is <|endoftext|> (the only special
           token; the demo's data never holds it), then the 256 bytes, then
           the merges
  config.json, generation_config.json, model.safetensors
           LlamaForCausalLM(LlamaConfig): hidden 64, 2 layers, 4 heads (head
           width 16, no grouped KV), MLP 172, 256 positions, vocabulary the
           tokenizer's, untied input and output embeddings, attention
           dropout 0; random weights from torch.manual_seed(SEED) with
           transformers' own initializer (normal, std 0.02): the demo trains
           it from scratch, so its first loss is about ln(VOCAB). Stored in
           float32 (about 0.7 MB): every environment starts from the same
           bits, and a bfloat16 one rounds them itself.

Deterministic: the BPE trainer counts pairs in any order but breaks ties by
the pair, so the same corpus gives the same merges; the weights come from
the fixed seed on the CPU. Prints the token and window counts and each
written file's sha256, to pin in fixtures/llm-train/fixture.yaml.
"""

import argparse
import hashlib
import math
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

SEED = 40
VOCAB = 512
SPECIAL = "<|endoftext|>"
SEQ_LEN = 64  # the demo recipe's, only for the printed window count


def train_tokenizer(corpus):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())  # no unk_token: every byte is in the alphabet
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, min_frequency=2, special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train([corpus], trainer)
    return tok


def config(vocab_size, special_id):
    from transformers import LlamaConfig
    return LlamaConfig(
        vocab_size=vocab_size, hidden_size=64, intermediate_size=172,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
        max_position_embeddings=256, initializer_range=0.02, rms_norm_eps=1e-6,
        attention_dropout=0.0, tie_word_embeddings=False,
        bos_token_id=special_id, eos_token_id=special_id, pad_token_id=special_id)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="fixtures/llm-train/corpus.txt")
    ap.add_argument("--out", default="fixtures/llm-train/model")
    a = ap.parse_args()

    tok = train_tokenizer(a.corpus)
    vocab_size = tok.get_vocab_size()
    special_id = tok.token_to_id(SPECIAL)
    if vocab_size != VOCAB or special_id != 0:
        sys.exit("make_tiny_llama.py: the tokenizer has %d ids (%s at %s), not %d with it at 0"
                 % (vocab_size, SPECIAL, special_id, VOCAB))
    with open(a.corpus, encoding="utf-8") as f:
        text = f.read()
    ids = tok.encode(text).ids
    if tok.decode(ids) != text:
        sys.exit("make_tiny_llama.py: the tokenizer does not give the corpus back")

    from transformers import LlamaForCausalLM
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config(vocab_size, special_id)).eval()
    os.makedirs(a.out, exist_ok=True)
    model.save_pretrained(a.out, safe_serialization=True)
    # tokenizer.json as the library writes it (its own key order: a rebuild
    # gives the same bytes).
    tok.save(os.path.join(a.out, "tokenizer.json"), pretty=True)

    n_params = sum(p.numel() for p in model.parameters())
    n_windows = (len(ids) - 1) // SEQ_LEN
    print("corpus %s: %d bytes, %d tokens (%.2f bytes a token), %d windows of %d + 1"
          % (a.corpus, len(text.encode("utf-8")), len(ids), len(text.encode("utf-8")) / len(ids),
             n_windows, SEQ_LEN))
    print("model: %d parameters, vocabulary %d (ln %d = %.3f, the first loss expected)"
          % (n_params, vocab_size, vocab_size, math.log(vocab_size)))
    for name in sorted(os.listdir(a.out)):
        path = os.path.join(a.out, name)
        print("%s  %s  (%d bytes)" % (sha256(path), os.path.relpath(path), os.path.getsize(path)))
    print("corpus sha256 %s" % sha256(a.corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
