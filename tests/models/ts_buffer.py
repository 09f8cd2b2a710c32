#!/usr/bin/env python3
"""Two TorchScript classifiers whose logits are a float32 buffer (issue 38,
item 2): tests/test_cmd_load.c judges how each executor loads a TorchScript
module in a bfloat16 environment.

    PYTHON tests/models/ts_buffer.py DIR

writes DIR/ts_bf16.pt (its embedding saved in bfloat16, its buffer
`scale` in float32: a module saved in bfloat16 as a user's is, RoPE's
float32 inv_freq beside bfloat16 weights) and DIR/ts_f32.pt (all float32),
each forward(input_ids, attention_mask) -> [1, 3] logits equal to `scale`
(1.001, 2.002, 3.003 in float32: none a bfloat16), the embedding's part
multiplied by 0. A module run as saved gives the float32 values; one cast
with .to(torch.bfloat16) gives them rounded to bfloat16 (1, 2, 3). Any
torch with TorchScript (1.13 for Debian's libtorch, 2.x for the venv's).
"""

import os
import sys

import torch


class Buffered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(32, 3)
        self.register_buffer("scale", torch.tensor([[1.001, 2.002, 3.003]], dtype=torch.float32))

    def forward(self, input_ids, attention_mask):
        return self.emb(input_ids).sum(1) * 0.0 + self.scale


def main(d):
    torch.manual_seed(38)
    m = Buffered().eval()
    torch.jit.save(torch.jit.script(m), os.path.join(d, "ts_f32.pt"))
    m.emb.to(torch.bfloat16)
    torch.jit.save(torch.jit.script(m), os.path.join(d, "ts_bf16.pt"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
