#!/usr/bin/env python3
"""The figures behind fixtures/shapes/fixture.yaml's examples and thresholds:
each (class, seed) of the image demo run in float32 and in bfloat16 on the
CPU from the same noise, as parity's DENOISE does it (include/parity/proto.h:
the noise drawn on the CPU in float32 from torch.Generator("cpu").
manual_seed(seed), then cast to the environment's dtype; DiTPipeline's loop),
compared as src/judge/imagecmp.c compares them (8-bit as numpy_to_pil makes
them; PSNR over every channel value, SSIM on BT.601 luma with Wang et al.'s
11x11 Gaussian window of sigma 1.5, 'valid' positions; mean and max |delta|
of 255), and the per-step latents by the worst element's |a - b| - rtol*|b|
(what atol must cover at that rtol).

    build/venv/bin/python src/tools/image_parting.py [--model DIR]
        [--classes circle,square] [--seeds 0-99] [--guidance 4] [--steps 20]
        [--rtol 0.02] [--png DIR]

Prints one line per (class, seed, guidance), worst first by SSIM; --png DIR
writes each pair side by side (float32 | bfloat16 | difference x4), 8x.
"""

import argparse
import os

import numpy as np
import torch
from diffusers import DiTPipeline

LABELS = ["circle", "square", "triangle", "cross", "ring"]
NULL_CLASS = 1000


def noise_of(pipe, seed):
    t = pipe.transformer.config
    g = torch.Generator("cpu").manual_seed(seed)
    return torch.randn([1, t.in_channels, t.sample_size, t.sample_size], generator=g,
                       dtype=torch.float32)


@torch.no_grad()
def denoise(pipe, cls, noise, guidance, steps):
    """DiTPipeline.__call__'s loop from the given noise (cast to the
    pipeline's dtype); returns the image [H, W, C] float32 in [0, 1] and the
    conditional latents after each step (float32)."""
    dtype = pipe.transformer.dtype
    c = pipe.transformer.config.in_channels
    lat = torch.cat([noise.to(dtype)] * 2)
    labels = torch.tensor([cls, NULL_CLASS])
    sch = pipe.scheduler
    sch.set_timesteps(steps)
    rec = []
    for t in sch.timesteps:
        half = lat[:1]
        lat = sch.scale_model_input(torch.cat([half, half]), t)
        ts = t[None].expand(2) if torch.is_tensor(t) else torch.tensor([t, t])
        out = pipe.transformer(lat, timestep=ts, class_labels=labels).sample
        eps, rest = out[:, :c], out[:, c:]
        ce, ue = torch.split(eps, 1, dim=0)
        he = ue + guidance * (ce - ue)
        out = torch.cat([torch.cat([he, he]), rest], dim=1)
        mo = torch.split(out, c, dim=1)[0] if pipe.transformer.config.out_channels // 2 == c else out
        lat = sch.step(mo, t, lat).prev_sample
        rec.append(lat[:1].float().clone())
    z = lat[:1] / pipe.vae.config.scaling_factor
    img = (pipe.vae.decode(z).sample / 2 + 0.5).clamp(0, 1)
    return img[0].permute(1, 2, 0).float().numpy(), rec


def to8(img):
    return (np.clip(img, 0, 1) * 255).round().astype(np.uint8)


def ssim(a, b):
    def luma(m):
        m = m.astype(np.float64)
        return 0.299 * m[..., 0] + 0.587 * m[..., 1] + 0.114 * m[..., 2]
    x, y = luma(a), luma(b)
    side = min(11, x.shape[0], x.shape[1])
    side -= 1 - side % 2
    r = side // 2
    i = np.arange(side) - r
    w = np.exp(-(i[:, None] ** 2 + i[None, :] ** 2) / (2 * 1.5 ** 2))
    w /= w.sum()
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    vals = []
    for p in range(x.shape[0] - side + 1):
        for q in range(x.shape[1] - side + 1):
            px, py = x[p:p + side, q:q + side], y[p:p + side, q:q + side]
            mx, my = (w * px).sum(), (w * py).sum()
            sxx = (w * px * px).sum() - mx * mx
            syy = (w * py * py).sum() - my * my
            sxy = (w * px * py).sum() - mx * my
            vals.append(((2 * mx * my + c1) * (2 * sxy + c2)) /
                        ((mx * mx + my * my + c1) * (sxx + syy + c2)))
    return float(np.mean(vals))


def figures(a8, b8):
    d = np.abs(a8.astype(np.int64) - b8.astype(np.int64))
    mse = float((d.astype(np.float64) ** 2).mean())
    psnr = float("inf") if mse == 0 else 10 * np.log10(255 * 255 / mse)
    return psnr, ssim(a8, b8), float(d.mean()), int(d.max())


def latent_need(ra, rb, rtol):
    """Per step, the atol that step needs at rtol (reference rb)."""
    return [float(((a - b).abs() - rtol * b.abs()).max()) for a, b in zip(ra, rb)]


def seeds_of(s):
    out = []
    for part in s.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="fixtures/shapes/model")
    ap.add_argument("--classes", default=",".join(LABELS))
    ap.add_argument("--seeds", default="0-19")
    ap.add_argument("--guidance", default="4")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rtol", type=float, default=0.02)
    ap.add_argument("--png")
    a = ap.parse_args()
    torch.set_num_threads(1)
    f32 = DiTPipeline.from_pretrained(a.model, torch_dtype=torch.float32)
    b16 = DiTPipeline.from_pretrained(a.model, torch_dtype=torch.bfloat16)
    rows = []
    for name in a.classes.split(","):
        cls = LABELS.index(name)
        for seed in seeds_of(a.seeds):
            for gs in [float(g) for g in a.guidance.split(",")]:
                n = noise_of(f32, seed)
                ia, la = denoise(f32, cls, n, gs, a.steps)
                ib, lb = denoise(b16, cls, n, gs, a.steps)
                a8, b8 = to8(ia), to8(ib)
                fig = figures(b8, a8)
                need = latent_need(lb, la, a.rtol)
                rows.append((fig[1], name, seed, gs, fig, need))
                if a.png:
                    from PIL import Image
                    d = np.clip(np.abs(a8.astype(int) - b8.astype(int)).max(-1) * 4, 0, 255).astype(np.uint8)
                    strip = np.concatenate([a8, b8, np.stack([d] * 3, -1)], 1)
                    Image.fromarray(strip).resize((strip.shape[1] * 8, strip.shape[0] * 8), Image.NEAREST).save(
                        os.path.join(a.png, f"{name}-{seed}-g{gs:g}.png"))
    rows.sort(key=lambda r: r[0])
    for _, name, seed, gs, (psnr, s, mean, mx), need in rows:
        first = next((i for i, v in enumerate(need) if v > 0.02), None)
        print(f"{name:8s} seed {seed:4d} g {gs:4g}: PSNR {psnr:6.2f} SSIM {s:.4f} mean {mean:6.3f} "
              f"max {mx:3d} | latent atol needed (rtol {a.rtol}): step0 {need[0]:.4f} "
              f"max {max(need):.4f} last {need[-1]:.4f} first>0.02 {first}")


if __name__ == "__main__":
    main()
