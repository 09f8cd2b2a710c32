#!/usr/bin/env python3
"""What bfloat16 does to a search with the real MiniLM (issue 28): every
query's ranking of the documents in float32 and in bfloat16 on the CPU,
computed as parity's contract says (man/parity-fixture.5: the tokenizer.json
with no truncation and no padding, one text at a time, the model's
last_hidden_state, mean pooling over the attention mask in float32 on the
output as the model gave it, then L2 normalisation in float32; cosine = dot
product of the normalised vectors). Helps choose the texts of
fixtures/campus-search; it never writes the fixture.

    HF_HUB_OFFLINE=1 build/venv/bin/python src/tools/search_rankings.py \
        fixtures/campus-search/fixture.yaml [--top 5] [--threads 1]

Reads the fixture's examples (role document / query; queries expected to be
rejected are skipped) and the model directory named by contract.model.path.
Prints, per query, the first documents with their cosines in both dtypes, the
margin between ranks k and k+1, and whether the order or the set of the first
k changed; then per text the cosine of the bfloat16 vector with the float32
one and the largest element difference."""
import argparse
import os
import re
import sys

import torch
import yaml
from tokenizers import Tokenizer
from transformers import AutoModel


def encode(tok, text):
    e = tok.encode(text)
    ids = torch.tensor([e.ids], dtype=torch.int64)
    return ids, torch.ones_like(ids), torch.zeros_like(ids)


def embed(model, tok, text):
    ids, mask, types = encode(tok, text)
    with torch.no_grad():
        h = model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
    h = h.float()
    m = mask.unsqueeze(-1).float()
    v = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return (v / v.norm(dim=-1, keepdim=True))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    fx = yaml.safe_load(open(a.fixture))
    base = os.path.dirname(os.path.abspath(a.fixture))
    mdir = os.path.join(base, fx["contract"]["model"]["path"])
    tok = Tokenizer.from_file(os.path.join(base, fx["contract"]["input"]["tokenizer"]["file"]))
    tok.no_truncation()
    tok.no_padding()
    max_tokens = fx["contract"]["input"].get("max_tokens", 512)
    for x in fx["examples"]:  # contract.input.clean, in order (these patterns read alike in PCRE2 and re)
        for rule in fx["contract"]["input"].get("clean", []):
            x["text"] = re.sub(rule["pattern"], rule["replace"], x["text"])
    docs = [x for x in fx["examples"] if x.get("role") == "document"]
    queries = [x for x in fx["examples"] if x.get("role") == "query" and "top" in (x.get("expect") or {})]
    vec = {}
    for dtype in (torch.float32, torch.bfloat16):
        model = AutoModel.from_pretrained(mdir, dtype=dtype).eval()
        for x in docs + queries:
            n = len(tok.encode(x["text"]).ids)
            if n > max_tokens:
                sys.exit(f"{x['id']}: {n} tokens, over max_tokens {max_tokens}")
            vec[(dtype, x["id"])] = embed(model, tok, x["text"])
    D = torch.stack([vec[(torch.float32, d["id"])] for d in docs])
    Db = torch.stack([vec[(torch.bfloat16, d["id"])] for d in docs])
    changed = 0
    for q in queries:
        k = q["expect"].get("k", len(q["expect"]["top"]))
        s32 = D @ vec[(torch.float32, q["id"])]
        s16 = Db @ vec[(torch.bfloat16, q["id"])]
        r32 = torch.argsort(s32, descending=True, stable=True).tolist()
        r16 = torch.argsort(s16, descending=True, stable=True).tolist()
        order = r32[:k] == r16[:k]
        same_set = set(r32[:k]) == set(r16[:k])
        full = r32 == r16
        changed += not (order and full)
        print(f"{q['id']}: \"{q['text']}\"  expect top {q['expect']['top']} k {k} "
              f"{q['expect'].get('order', 'set')}")
        for i in range(min(a.top, len(docs))):
            d32, d16 = r32[i], r16[i]
            print(f"  {i + 1}. f32 {docs[d32]['id']:<17} {s32[d32]:.4f}   bf16 {docs[d16]['id']:<17} {s16[d16]:.4f}"
                  f"{'' if d32 == d16 else '   <- differs'}")
        m32 = s32[r32[k - 1]] - s32[r32[k]] if k < len(docs) else float("nan")
        first = next((i for i in range(len(docs)) if r32[i] != r16[i]), None)
        if first is not None:
            print(f"  the rankings first differ at rank {first + 1}: f32 {docs[r32[first]]['id']} "
                  f"{s32[r32[first]]:.4f}, bf16 {docs[r16[first]]['id']} {s16[r16[first]]:.4f} "
                  f"(f32 margin to the next {s32[r32[first]] - s32[r32[first + 1]]:.4f})")
        print(f"  margin rank {k}-{k + 1}: f32 {m32:.4f}; first {k} in order: {'same' if order else 'CHANGED'}, "
              f"as a set: {'same' if same_set else 'CHANGED'}; whole ranking: {'same' if full else 'changed'}")
    print()
    worst = (1.0, 0.0, "")
    for x in docs + queries:
        a32, a16 = vec[(torch.float32, x["id"])], vec[(torch.bfloat16, x["id"])]
        cos = float(a32 @ a16)
        diff = float((a32 - a16).abs().max())
        worst = (min(worst[0], cos), max(worst[1], diff), worst[2] if cos > worst[0] else x["id"])
    print(f"bf16 vs f32 over {len(docs) + len(queries)} texts: lowest cosine {worst[0]:.6f} ({worst[2]}), "
          f"largest element difference {worst[1]:.5f} (normalised vectors)")
    print(f"queries whose whole ranking changed: {changed} of {len(queries)}")


if __name__ == "__main__":
    main()
