#!/usr/bin/env python3
"""encoder.pt's weights as a torch.export program (format export), for the
embedding tests of the Python executor on torch 2:

    build/venv/bin/python tests/models/embed/export_encoder.py OUT.pt2

make_embed.py's Encoder, its state loaded from encoder.pt (the same
weights, whatever torch made the file), exported with torch.export (B and T
dynamic) and saved to OUT.pt2. Made when a test runs, not committed: the
file would be a second copy of the weights.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from make_embed import Encoder, POSITIONS  # noqa: E402


def main():
    torch.manual_seed(0)
    enc = Encoder().eval()
    enc.load_state_dict(torch.jit.load(os.path.join(HERE, "encoder.pt")).state_dict())
    ids = torch.tensor([[2, 40, 41, 42, 3], [2, 50, 3, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    B = torch.export.Dim("B", min=1, max=1024)
    T = torch.export.Dim("T", min=1, max=POSITIONS)
    kw = {"input_ids": ids, "attention_mask": mask}
    ep = torch.export.export(enc, (), kw, dynamic_shapes={k: {0: B, 1: T} for k in kw})
    for node in ep.graph.nodes:  # this machine's paths, not the model
        node.meta.pop("stack_trace", None)
    torch.export.save(ep, sys.argv[1])


if __name__ == "__main__":
    main()
