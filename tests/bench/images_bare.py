#!/usr/bin/env python3
"""The bare Python loop that tests/bench/images.sh holds parity against: the
image demo's examples (fixtures/shapes) drawn one at a time by diffusers'
own DiTPipeline from the same directory with the same settings: float32 on
the CPU, the contract's steps and guidance_scale, each example's class id
(its index in contract.labels; a class not there left out, as parity
rejects it) and its seed (or the contract's) through
torch.Generator("cpu").manual_seed(seed), which is the noise parity hands
every environment (torch.randn [1, C, h, w] on the CPU in float32: what
DiTPipeline draws with a CPU generator), output_type "np",
torch.set_num_threads(threads). Nothing of parity runs.

    python tests/bench/images_bare.py FIXTURE [--passes N] [--warmup N] [--threads N] [--once]

Default: after --warmup passes, prints one line per timed pass, the
milliseconds per example of that pass. --once: load and draw every example
once and exit (what a timed `parity run` of one environment does end to
end)."""
import argparse
import os
import time

import torch
import yaml
from diffusers import DiTPipeline
from diffusers.utils import logging


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--once", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    logging.disable_progress_bar()
    fx = yaml.safe_load(open(a.fixture))
    base = os.path.dirname(os.path.abspath(a.fixture))
    c = fx["contract"]
    pipe = DiTPipeline.from_pretrained(os.path.join(base, c["model"]["path"]), torch_dtype=torch.float32)
    pipe.set_progress_bar_config(disable=True)
    img = c["image"]
    labels = c["labels"]
    todo = [(labels.index(x["class"]), int(x.get("seed", img["seed"])))
            for x in fx["examples"] if x.get("class") in labels]

    def draw(cls, seed):
        g = torch.Generator("cpu").manual_seed(seed)
        return pipe(class_labels=[cls], guidance_scale=float(img["guidance_scale"]),
                    num_inference_steps=int(img["steps"]), generator=g, output_type="np").images

    if a.once:
        for x in todo:
            draw(*x)
        return
    for _ in range(a.warmup):
        for x in todo:
            draw(*x)
    for _ in range(a.passes):
        t0 = time.perf_counter()
        for x in todo:
            draw(*x)
        print(f"{(time.perf_counter() - t0) * 1000 / len(todo):.4f}")


if __name__ == "__main__":
    main()
