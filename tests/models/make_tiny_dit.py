#!/usr/bin/env python3
"""A tiny RANDOM DiTPipeline for the image kind's tests (issue 39).

    build/venv/bin/python tests/models/make_tiny_dit.py DIR

Builds diffusers' own class-conditional pipeline from configs with fixed
seeds and no training (the pictures mean nothing: the tests compare bits,
not looks) and saves it with DiTPipeline.save_pretrained into DIR: a
DiTTransformer2DModel on 8x8 latents of 4 channels, an AutoencoderKL that
maps 32x32 RGB pixels to them (three blocks: scale factor 4), a
DDIMScheduler, and id2label for 5 classes. num_embeds_ada_norm is 1000
because DiTPipeline hard-codes the null class as 1000 (its
class_null); the executor takes it from num_embeds_ada_norm, so the two
agree only on such a denoiser, and the test holds them to that. Runs in a
few seconds on one core; HF_HUB_OFFLINE, nothing fetched.
"""
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"

LABELS = {0: "circle", 1: "square", 2: "triangle", 3: "cross", 4: "ring"}


def build():
    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, DiTPipeline, DiTTransformer2DModel

    torch.manual_seed(0)
    transformer = DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8,
                                        num_layers=2, norm_num_groups=4, sample_size=8, patch_size=2,
                                        num_embeds_ada_norm=1000)
    # ada_norm_zero starts its modulation at zero (an identity block, a
    # constant output): random weights there make every step matter.
    with torch.no_grad():
        for name, p in transformer.named_parameters():
            if "emb" in name or "norm" in name or "proj_out" in name:
                p.normal_(0.0, 0.2)
    torch.manual_seed(1)
    vae = AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=("DownEncoderBlock2D",) * 3, up_block_types=("UpDecoderBlock2D",) * 3,
                        block_out_channels=(8, 8, 8), layers_per_block=1, norm_num_groups=4, sample_size=32)
    scheduler = DDIMScheduler(num_train_timesteps=1000, beta_schedule="linear", clip_sample=False)
    return DiTPipeline(transformer=transformer, vae=vae, scheduler=scheduler, id2label=LABELS)


def main(argv):
    if len(argv) != 1:
        print("usage: make_tiny_dit.py DIR", file=sys.stderr)
        return 2
    pipe = build()
    pipe.save_pretrained(argv[0], safe_serialization=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
