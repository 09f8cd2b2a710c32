#!/usr/bin/env python3
"""The bare Python loop that tests/bench/search.sh holds parity against: the
search demo's texts (fixtures/campus-search, as parity cleans them, those
over max_tokens left out as parity rejects them) encoded one at a time by
the same model directory with the same settings: AutoModel in float32 on the
CPU, the tokenizer.json's ids without truncation or padding, input_ids,
attention_mask and token_type_ids, last_hidden_state mean-pooled over the
mask and L2-normalised in float32, torch.set_num_threads(threads), eval and
no_grad. Nothing of parity runs.

    python tests/bench/search_bare.py FIXTURE [--passes N] [--warmup N] [--threads N] [--once]

Default: after --warmup passes, prints one line per timed pass, the
milliseconds per example of that pass (tokenizing done once before, as
parity bench does). --once: load, tokenize and encode every text once and
exit (what a timed `parity run` of one environment does end to end)."""
import argparse
import os
import re
import time

import torch
import yaml
from tokenizers import Tokenizer
from transformers import AutoModel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--once", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    fx = yaml.safe_load(open(a.fixture))
    base = os.path.dirname(os.path.abspath(a.fixture))
    c = fx["contract"]
    model = AutoModel.from_pretrained(os.path.join(base, c["model"]["path"]), dtype=torch.float32).eval()
    tok = Tokenizer.from_file(os.path.join(base, c["input"]["tokenizer"]["file"]))
    tok.no_truncation()
    tok.no_padding()
    max_tokens = c["input"].get("max_tokens", 512)
    inputs = []
    for x in fx["examples"]:
        text = x["text"]
        for rule in c["input"].get("clean", []):
            text = re.sub(rule["pattern"], rule["replace"], text)
        ids = tok.encode(text).ids
        if not text or len(ids) > max_tokens:
            continue
        t = torch.tensor([ids], dtype=torch.int64)
        inputs.append((t, torch.ones_like(t), torch.zeros_like(t)))

    def encode(ids, mask, types):
        h = model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state.float()
        m = mask.unsqueeze(-1).float()
        v = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return v / v.norm(dim=-1, keepdim=True)

    with torch.no_grad():
        if a.once:
            for x in inputs:
                encode(*x)
            return
        for _ in range(a.warmup):
            for x in inputs:
                encode(*x)
        for _ in range(a.passes):
            t0 = time.perf_counter()
            for x in inputs:
                encode(*x)
            print(f"{(time.perf_counter() - t0) * 1000 / len(inputs):.4f}")


if __name__ == "__main__":
    main()
