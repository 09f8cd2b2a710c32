#!/usr/bin/env python3
"""Build and train the image demo's pipeline shipped in fixtures/shapes/model.

Run from the repository root with the venv's Python (torch 2, diffusers
0.42.1; `make deps`), or `make images-model`:

    build/venv/bin/python src/tools/train_images.py --out fixtures/shapes/model

What it makes: a diffusers DiTPipeline directory (save_pretrained, safetensors)
that draws one of five shapes at 32 x 32 pixels from its class:

  labels   0 circle, 1 square, 2 triangle, 3 cross, 4 ring (model_index.json's
           id2label, as DiTPipeline's own checkpoints carry it)
  vae      a tiny AutoencoderKL, 3 x 32 x 32 pixels <-> 4 x 8 x 8 latents,
           trained as an autoencoder (reconstruction with a small KL weight);
           scaling_factor = 1 / the standard deviation of the training
           latents, so that the denoiser sees latents of unit variance
  transformer
           a tiny DiTTransformer2DModel on the 8 x 8 latents (patch 2: 16
           tokens), learned sigma off (out_channels 4), trained with DDPM's
           noise-prediction loss; num_embeds_ada_norm is 1000 because
           DiTPipeline writes the null class as the literal 1000 (its
           __call__: class_null = [1000] * batch), so the five classes are
           ids 0..4 and the null class of classifier-free guidance is 1000;
           the label embedding drops a class to that null id 10% of the time
           in training (diffusers' LabelEmbedding, class_dropout_prob 0.1)
  scheduler
           DDIMScheduler with the betas the transformer was trained on

The pictures come from this program, not from a download: each is one shape
drawn with numpy at a random position, size and colour on a plain background,
anti-aliased by drawing at 4x and averaging.

Deterministic: fixed seeds and torch.set_num_threads(THREADS) (a float sum's
order follows the thread count, so the same count gives the same bytes).
Prints the training figures and each written file's sha256, to pin in
fixtures/shapes/fixture.yaml.
"""

import argparse
import copy
import hashlib
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from diffusers import (AutoencoderKL, DDIMScheduler, DDPMScheduler,
                       DiTPipeline, DiTTransformer2DModel)

LABELS = ["circle", "square", "triangle", "cross", "ring"]
NULL_CLASS = 1000  # DiTPipeline's literal null class (see above)
SIDE = 32
SUPER = 4          # drawn at SIDE * SUPER, averaged down: anti-aliasing
THREADS = 2
PALETTE = [(0.85, 0.1, 0.1), (0.1, 0.45, 0.85), (0.1, 0.6, 0.2), (0.95, 0.6, 0.05),
           (0.55, 0.15, 0.7), (0.1, 0.1, 0.1), (0.0, 0.6, 0.65), (0.85, 0.2, 0.55)]
BETAS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02,
             beta_schedule="linear")


# ---- the pictures ----------------------------------------------------------

def shape_mask(cls, cx, cy, r, rot, n):
    """The shape's coverage on an n x n grid of pixel centres in units of the
    final pixel (so the grid is SIDE wide whatever the supersampling)."""
    g = (np.arange(n) + 0.5) * SIDE / n
    x, y = np.meshgrid(g, g)
    dx, dy = x - cx, y - cy
    # a small turn, so squares and crosses are not all axis-aligned
    c, s = np.cos(rot), np.sin(rot)
    u, v = c * dx + s * dy, -s * dx + c * dy
    d = np.hypot(dx, dy)
    if cls == 0:    # circle: a filled disc
        return d <= r
    if cls == 1:    # square: filled
        a = r * 0.82
        return (np.abs(u) <= a) & (np.abs(v) <= a)
    if cls == 2:    # triangle: filled, equilateral, pointing up (turned a little)
        ok = np.ones_like(d, dtype=bool)
        for k in range(3):
            ang = rot + np.pi / 2 + k * 2 * np.pi / 3   # edge normals
            nx, ny = np.cos(ang), -np.sin(ang)
            ok &= (dx * -nx + dy * -ny) <= r * 0.55
        return ok
    if cls == 3:    # cross: a plus sign of two bars
        w = r * 0.3
        return ((np.abs(u) <= w) & (np.abs(v) <= r)) | ((np.abs(v) <= w) & (np.abs(u) <= r))
    if cls == 4:    # ring: an annulus
        return (d <= r) & (d >= r * 0.55)
    raise ValueError(cls)


def draw(cls, rng):
    """One picture of class cls: [3, SIDE, SIDE] float32 in [-1, 1]."""
    r = rng.uniform(7.0, 12.0)
    m = r + 1.5
    cx, cy = rng.uniform(m, SIDE - m), rng.uniform(m, SIDE - m)
    rot = rng.uniform(-0.35, 0.35)
    n = SIDE * SUPER
    cover = shape_mask(cls, cx, cy, r, rot, n).astype(np.float32)
    cover = cover.reshape(SIDE, SUPER, SIDE, SUPER).mean(axis=(1, 3))
    # a plain light background and one of PALETTE's colours: few enough
    # colours for so small a model to learn them, enough to tell the
    # pictures apart
    bg = np.full(3, rng.uniform(0.85, 1.0))
    fg = np.array(PALETTE[rng.integers(len(PALETTE))]) * rng.uniform(0.85, 1.0)
    img = bg[:, None, None] * (1 - cover) + fg[:, None, None] * cover
    return (img * 2 - 1).astype(np.float32)


def dataset(n_per_class, seed):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for i in range(n_per_class * len(LABELS)):
        cls = i % len(LABELS)
        xs.append(draw(cls, rng))
        ys.append(cls)
    return torch.from_numpy(np.stack(xs)), torch.tensor(ys, dtype=torch.int64)


# ---- the models ------------------------------------------------------------

def make_vae():
    return AutoencoderKL(
        in_channels=3, out_channels=3, latent_channels=4, sample_size=SIDE,
        down_block_types=("DownEncoderBlock2D",) * 3,
        up_block_types=("UpDecoderBlock2D",) * 3,
        block_out_channels=(16, 32, 32), layers_per_block=1, norm_num_groups=8,
        mid_block_add_attention=False)


def make_dit(width, layers):
    return DiTTransformer2DModel(
        num_attention_heads=width // 16, attention_head_dim=16, in_channels=4,
        out_channels=4, num_layers=layers, sample_size=SIDE // 4, patch_size=2,
        num_embeds_ada_norm=NULL_CLASS, norm_num_groups=8)


def train_vae(vae, x, steps, batch, kl_weight, log):
    opt = torch.optim.AdamW(vae.parameters(), lr=2e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps, pct_start=0.05)
    g = torch.Generator().manual_seed(1)
    vae.train()
    t0 = time.time()
    for step in range(steps):
        idx = torch.randint(0, len(x), (batch,), generator=g)
        xb = x[idx]
        post = vae.encode(xb).latent_dist
        z = post.mean + post.std * torch.randn(post.mean.shape, generator=g)
        rec = vae.decode(z).sample
        mse = F.mse_loss(rec, xb)
        kl = post.kl().mean() / z[0].numel()
        loss = mse + kl_weight * kl
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps - 1:
            log(f"vae step {step:5d}  mse {mse.item():.5f}  kl/elem {kl.item():.3f}  {time.time() - t0:6.1f} s")
    vae.eval()


def train_dit(dit, z, y, steps, batch, log):
    ddpm = DDPMScheduler(**BETAS)
    ema = copy.deepcopy(dit).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(dit.parameters(), lr=1e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=steps, pct_start=0.05)
    g = torch.Generator().manual_seed(2)
    dit.train()  # the label embedding's 10% drop to the null class is on in train()
    torch.manual_seed(3)  # LabelEmbedding.token_drop draws from the global generator
    t0 = time.time()
    run = 0.0
    for step in range(steps):
        idx = torch.randint(0, len(z), (batch,), generator=g)
        z0, yb = z[idx], y[idx]
        noise = torch.randn(z0.shape, generator=g)
        t = torch.randint(0, BETAS["num_train_timesteps"], (batch,), generator=g)
        zt = ddpm.add_noise(z0, noise, t)
        pred = dit(zt, timestep=t, class_labels=yb).sample
        loss = F.mse_loss(pred, noise)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        decay = min(0.999, (1 + step) / (10 + step))
        with torch.no_grad():
            for pe, p in zip(ema.parameters(), dit.parameters()):
                pe.mul_(decay).add_(p, alpha=1 - decay)
        run = loss.item() if step == 0 else 0.98 * run + 0.02 * loss.item()
        if step % 500 == 0 or step == steps - 1:
            log(f"dit step {step:5d}  loss {run:.4f}  {time.time() - t0:6.1f} s")
    return ema


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="fixtures/shapes/model")
    ap.add_argument("--per-class", type=int, default=1000)
    ap.add_argument("--vae-steps", type=int, default=1500)
    ap.add_argument("--dit-steps", type=int, default=8000)
    ap.add_argument("--dit-width", type=int, default=64)
    ap.add_argument("--dit-layers", type=int, default=4)
    ap.add_argument("--kl-weight", type=float, default=5e-3)
    a = ap.parse_args()
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    log = lambda s: print(s, flush=True)  # noqa: E731
    t0 = time.time()

    x, y = dataset(a.per_class, seed=0)
    xv, _ = dataset(40, seed=99)   # held out: the VAE's figures
    log(f"pictures: {len(x)} for training, {len(xv)} held out, {time.time() - t0:.1f} s")

    torch.manual_seed(10)
    vae = make_vae()
    log(f"vae: {sum(p.numel() for p in vae.parameters())} parameters")
    train_vae(vae, x, a.vae_steps, 32, a.kl_weight, log)
    with torch.no_grad():
        rec = vae.decode(vae.encode(xv).latent_dist.mean).sample.clamp(-1, 1)
        mse = F.mse_loss((rec + 1) / 2, (xv + 1) / 2).item()
        log(f"vae held out: mse {mse:.5f} on [0,1], PSNR {10 * np.log10(1 / mse):.2f} dB")
        z = torch.cat([vae.encode(x[i:i + 500]).latent_dist.mean for i in range(0, len(x), 500)])
    std = z.std().item()
    vae.register_to_config(scaling_factor=1.0 / std)
    log(f"latents: mean {z.mean().item():.4f} std {std:.4f} -> scaling_factor {1 / std:.6f}")

    torch.manual_seed(20)
    dit = make_dit(a.dit_width, a.dit_layers)
    log(f"dit: {sum(p.numel() for p in dit.parameters())} parameters")
    ema = train_dit(dit, z / std, y, a.dit_steps, 128, log)

    scheduler = DDIMScheduler(**BETAS, clip_sample=False, set_alpha_to_one=False,
                              prediction_type="epsilon")
    pipe = DiTPipeline(transformer=ema, vae=vae, scheduler=scheduler,
                       id2label={i: n for i, n in enumerate(LABELS)})
    # model_index.json carries id2label (as facebook/DiT-XL-2-256's does), so
    # from_pretrained hands it back to DiTPipeline and get_label_ids works.
    pipe.register_to_config(id2label={str(i): n for i, n in enumerate(LABELS)})
    pipe.save_pretrained(a.out, safe_serialization=True)
    log(f"saved {a.out} after {time.time() - t0:.1f} s in all")
    total = 0
    for root, _, files in sorted(os.walk(a.out)):
        for f in sorted(files):
            p = os.path.join(root, f)
            total += os.path.getsize(p)
            log(f"  {os.path.relpath(p, a.out)}: \"{sha256(p)}\"  ({os.path.getsize(p)} bytes)")
    log(f"  {total} bytes in all")
    log("now pin these sha256 values in fixtures/shapes/fixture.yaml")


if __name__ == "__main__":
    main()
