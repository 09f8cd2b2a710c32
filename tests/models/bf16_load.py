#!/usr/bin/env python3
"""A user's own bfloat16 model, as its user loads it (issue 38, item 2):
the programs tests/test_cmd_load.c runs with the venv's interpreter.

    build/venv/bin/python tests/models/bf16_load.py make DIR
    build/venv/bin/python tests/models/bf16_load.py logits DIR IDS

make writes into DIR a tiny Qwen2 sequence classifier from a config (a
random init with a fixed seed, V 32: the ids of tests/data/gen-llama's
chars vocabulary; three labels), saved as users save one:
model/ (save_pretrained: config.json, model.safetensors, in float32), and
that model exported with torch.export, in float32 (f32.pt2) and loaded in
bfloat16 (bf16.pt2: from_pretrained(dtype=torch.bfloat16), then
torch.export.export), each taking input_ids and attention_mask and
returning the logits, exported with its inputs by name (as
fixtures/bert-formats/make_models.py exports). Prints "NAME SHA256" for each file the fixture pins.
Qwen2 computes RoPE's inv_freq, a buffer transformers keeps in float32 in
a bfloat16 model: what tells a model loaded in bfloat16 from one cast to it.

logits reads IDS (one example a line: its token ids, space-separated) and
prints for each, one line a way of loading, the bfloat16 logits a user gets
(as Python floats, exact): "user" from
AutoModelForSequenceClassification.from_pretrained(DIR/model,
dtype=torch.bfloat16); "cast" from the float32 model cast with
.to(torch.bfloat16) (what parity did before); "export" from
torch.export.load(DIR/bf16.pt2).module(). One CPU thread, inference mode,
attention_mask all ones, as parity's Python executor runs them.
"""

import hashlib
import os
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402

SEED = 38
auto = transformers.AutoModelForSequenceClassification


class Logits(torch.nn.Module):
    """forward(input_ids, attention_mask) -> logits, as an export takes it."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask).logits


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def export(model_dir, dtype, out):
    m = auto.from_pretrained(model_dir, dtype=dtype).eval()
    ids = torch.tensor([[1, 5, 6, 7, 8]])
    t = torch.export.Dim("T", min=2, max=60)
    kw = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    ep = torch.export.export(Logits(m), (), kw, dynamic_shapes={k: {1: t} for k in kw})
    torch.export.save(ep, out)


def make(d):
    transformers.utils.logging.disable_progress_bar()
    torch.manual_seed(SEED)
    cfg = transformers.Qwen2Config(vocab_size=32, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                   num_labels=3, pad_token_id=0, initializer_range=0.2, rope_theta=10000.0)
    model_dir = os.path.join(d, "model")
    transformers.Qwen2ForSequenceClassification(cfg).eval().save_pretrained(model_dir)
    export(model_dir, torch.float32, os.path.join(d, "f32.pt2"))
    export(model_dir, torch.bfloat16, os.path.join(d, "bf16.pt2"))
    for name in ("model/config.json", "model/model.safetensors", "f32.pt2", "bf16.pt2"):
        print(name, sha256(os.path.join(d, name)))


def logits(d, ids_path):
    transformers.utils.logging.disable_progress_bar()
    torch.set_num_threads(1)
    model_dir = os.path.join(d, "model")
    ways = {
        "user": auto.from_pretrained(model_dir, dtype=torch.bfloat16).eval(),
        "cast": auto.from_pretrained(model_dir, dtype=torch.float32).eval().to(torch.bfloat16),
        "export": torch.export.load(os.path.join(d, "bf16.pt2")).module(),
    }
    with open(ids_path) as f:
        examples = [[int(x) for x in line.split()] for line in f if line.strip()]
    with torch.inference_mode():
        for ids in examples:
            x = torch.tensor([ids], dtype=torch.int64)
            for name, m in ways.items():
                out = m(input_ids=x, attention_mask=torch.ones_like(x))
                out = getattr(out, "logits", out)
                print(name, " ".join(repr(v) for v in out.double().flatten().tolist()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "logits":
        logits(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
