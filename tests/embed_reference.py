#!/usr/bin/env python3
"""The vectors an embedding's texts should get, computed here the plain way,
without parity: for tests/test_cmd_embed.c, which compares them with what
`parity run` records.

    PYTHON tests/embed_reference.py --model PATH --format transformers|torchscript
        --tokenizer TOKENIZER_JSON --pooling mean|cls|none [--normalize]
        [--output N] [--dtype float32|bfloat16]  < texts (one a line)

prints one line per text: its vector's elements, space-separated (%.9g).
transformers: the directory loaded with transformers.AutoModel and tokenized
with transformers.AutoTokenizer (its tokenizer.json), as a user of the model
card would; torchscript: torch.jit.load and the tokenizers library on
TOKENIZER_JSON. Each text alone ([1, T], attention mask all ones). The
pooling is sentence-transformers' (its models.Pooling, written out): mean is
sum(token states * mask) / clamp(sum(mask), min=1e-9), cls token 0's state,
none the output itself; normalize torch.nn.functional.normalize(p=2, dim=1).
In float32 on the output as the model gave it.
"""

import argparse
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch  # noqa: E402


def mean_pooling(token_embeddings, attention_mask):
    input_mask_expanded = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).float()
    sum_embeddings = torch.sum(token_embeddings * input_mask_expanded, 1)
    sum_mask = torch.clamp(input_mask_expanded.sum(1), min=1e-9)
    return sum_embeddings / sum_mask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--format", choices=("transformers", "torchscript"), required=True)
    ap.add_argument("--tokenizer")
    ap.add_argument("--pooling", choices=("mean", "cls", "none"), required=True)
    ap.add_argument("--normalize", action="store_true")
    ap.add_argument("--output", type=int, default=0)
    ap.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dtype = getattr(torch, a.dtype)
    if a.format == "transformers":
        import transformers
        tok = transformers.AutoTokenizer.from_pretrained(a.model, local_files_only=True)
        model = transformers.AutoModel.from_pretrained(a.model, local_files_only=True, use_safetensors=True,
                                                       dtype=torch.float32).to(dtype).eval()
        encode = lambda text: tok(text, return_tensors="pt")["input_ids"]  # noqa: E731
    else:
        from tokenizers import Tokenizer
        tok = Tokenizer.from_file(a.tokenizer)
        model = torch.jit.load(a.model).to(dtype).eval()
        encode = lambda text: torch.tensor([tok.encode(text).ids])  # noqa: E731
    for line in sys.stdin:
        text = line.rstrip("\n")
        ids = encode(text)
        mask = torch.ones_like(ids)
        with torch.no_grad():
            out = model(input_ids=ids, attention_mask=mask)
        if isinstance(out, dict):
            states = out["last_hidden_state"]
        else:
            states = out[a.output]
        states = states.float()
        if a.pooling == "mean":
            vec = mean_pooling(states, mask)
        elif a.pooling == "cls":
            vec = states[:, 0]
        else:
            vec = states
        if a.normalize:
            vec = torch.nn.functional.normalize(vec, p=2, dim=1)
        print(" ".join("%.9g" % v for v in vec[0].tolist()))


if __name__ == "__main__":
    main()
