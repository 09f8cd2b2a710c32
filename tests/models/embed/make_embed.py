#!/usr/bin/python3
"""Build tests/models/embed/encoder.pt, the tiny sentence encoder of the
embedding tests (tests/test_cmd_embed.c):

    /usr/bin/python3 tests/models/embed/make_embed.py

A BERT-shaped encoder in plain torch (word, position and token-type
embeddings, LayerNorm, 2 layers of 4-head self-attention over the attention
mask and a GELU feed-forward, hidden 32, 64 positions, the campus demo's
814-token vocabulary: tests/data/campus-tokenizer.json), random weights from
a fixed seed: no training, since what its tests judge is that every
executor and dtype does the same pooling arithmetic on it. Compiled with
torch.jit.script, forward(input_ids, attention_mask) returning the tuple
(token states [B, T, 32], pooler output [B, 32] = tanh(dense(state of token
0))): the token states for pooling mean or cls (contract.model.output unset:
the tuple's first element), the pooler's vector for pooling none (output:
"1"). Scripted, not traced: a traced transformers BertModel bakes its
softmax's float32 into the graph and cannot run in bfloat16 (the twin);
this one follows the module's dtype. Parameter names as a BERT's
(*word_embeddings.weight, *position_embeddings.weight), which DESCRIBE reads.

Made with Debian's torch 1.13 (/usr/bin/python3) so that libtorch 1.13
(build/torch/parity-torch) and torch 2.13 load it alike. Deterministic:
fixed seed, PYTHONHASHSEED pinned, the zip canonical
(src/tools/torchscript_file.py). Prints the sha256 tests/test_cmd_embed.c
pins. export_encoder.py makes a torch.export program of the same weights
(at test time: torch 2).
"""

import io
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "src", "tools"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch import Tensor  # noqa: E402
from typing import Tuple  # noqa: E402

from torchscript_file import canonical_torchscript, sha256_bytes  # noqa: E402

SEED = 20261204
VOCAB, HIDDEN, LAYERS, HEADS, FFN, POSITIONS = 814, 32, 2, 4, 64, 64


class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position_embeddings = nn.Embedding(POSITIONS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, input_ids: Tensor) -> Tensor:
        pos = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(pos) \
            + self.token_type_embeddings(torch.zeros_like(input_ids))
        return self.LayerNorm(x)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = HEADS
        self.head_dim = HIDDEN // HEADS
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, FFN)
        self.output = nn.Linear(FFN, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=1e-12)

    def split(self, x: Tensor) -> Tensor:
        return x.view(x.size(0), x.size(1), self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: Tensor, attention_mask: Tensor) -> Tensor:
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        # A padded key gets -10000 (what BERT's extended attention mask
        # adds), in the scores' own dtype.
        scores = scores + (1.0 - attention_mask[:, None, None, :].to(scores.dtype)) * -10000.0
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        ctx = ctx.transpose(1, 2).reshape(x.size(0), x.size(1), self.heads * self.head_dim)
        x = self.attention_norm(x + self.attention_output(ctx))
        return self.output_norm(x + self.output(torch.nn.functional.gelu(self.intermediate(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = Embeddings()
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.pooler = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tuple[Tensor, Tensor]:
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, attention_mask)
        return x, torch.tanh(self.pooler(x[:, 0]))


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # TorchScript writes some constants in set order
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    enc = Encoder().eval()
    scripted = torch.jit.script(enc)
    raw = io.BytesIO()
    torch.jit.save(scripted, raw)
    data = canonical_torchscript(raw.getvalue())
    path = os.path.join(HERE, "encoder.pt")
    with open(path, "wb") as f:
        f.write(data)
    back = torch.jit.load(path)
    ids = torch.tensor([[2, 40, 41, 42, 3], [2, 50, 3, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    with torch.no_grad():
        a, b = back(ids, mask), enc(ids, mask)
    worst = max((x - y).abs().max().item() for x, y in zip(a, b))
    print("encoder.pt: %d bytes, sha256 %s; largest |scripted - eager| %.3g (torch %s)"
          % (len(data), sha256_bytes(data), worst, torch.__version__))


if __name__ == "__main__":
    main()
