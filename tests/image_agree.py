#!/usr/bin/env python3
"""The image kind against an independent computation (issue 39, part 5).

    build/venv/bin/python tests/image_agree.py PIPELINE_DIR

Starts src/executor/parity_torch.py --kind image --format diffusers on the
pipeline (tests/models/make_tiny_dit.py's) in float32 on one CPU thread,
sends it DENOISE frames over the protocol (include/parity/proto.h) for a
few (class, seed, guidance, steps), and holds each DENOISED to diffusers'
own DiTPipeline called as its users call it, with the same CPU generator:
the image and the last recorded latent bit for bit, the noise digest the
sha256 of what that generator draws, the recorded steps each latent_every-th
and the last. Exits 1 naming the first difference, 0 with a summary.
"""
import hashlib
import os
import struct
import subprocess
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXECUTOR = os.path.join(ROOT, "src", "executor", "parity_torch.py")
sys.path.insert(0, os.path.join(ROOT, "src", "executor"))
import parity_torch as pt  # noqa: E402  (its frame types, one source of truth)

CASES = [  # class, seed, guidance, steps, latent_every
    (0, 7, 4.0, 7, 3),
    (3, 42, 1.0, 5, 1),
    (4, 2**63 + 5, 2.5, 4, 2),  # a seed past i64: sent as its bits
]


class Child:
    def __init__(self, model):
        self.p = subprocess.Popen([sys.executable, EXECUTOR, "--model", model, "--format", "diffusers", "--kind",
                                   "image", "--device", "cpu", "--dtype", "float32", "--threads", "1"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self):
        hdr = self.p.stdout.read(8)
        if len(hdr) != 8:
            raise SystemExit("image_agree: the executor ended (exit %s)" % self.p.wait())
        ftype, n = struct.unpack("<II", hdr)
        return ftype, self.p.stdout.read(n)

    def send(self, ftype, payload):
        self.p.stdin.write(struct.pack("<II", ftype, len(payload)) + payload)
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        return self.p.wait()


def denoise_frame(c, seed, steps, g, h, w, every):
    return struct.pack("<IqIdIII", c, seed - 2**64 if seed >= 2**63 else seed, steps, g, h, w, every)


def parse_denoised(b):
    r = pt.Reader(b)
    out = {"dtype": r.str()}
    h, w, c = r.u32(), r.u32(), r.u32()
    out["image"] = struct.unpack("<%dd" % (h * w * c), r.take(8 * h * w * c))
    out["hwc"] = (h, w, c)
    out["digest"] = r.str()
    dims = r.i64s(r.u32())
    n = 1
    for d in dims:
        n *= d
    out["latent_dims"] = dims
    out["records"] = [(r.u32(), struct.unpack("<%dd" % n, r.take(8 * n))) for _ in range(r.u32())]
    out["steps"], out["first_ms"], out["total_ms"], out["compiled"] = r.u32(), r.f64(), r.f64(), r.u32()
    if r.pos != len(b):
        raise SystemExit("image_agree: DENOISED has %d bytes after its fields" % (len(b) - r.pos))
    return out


def reference(pipe, torch, c, seed, g, steps):
    """DiTPipeline itself: its image (np) and its final latents, caught as
    the VAE's decode receives them (1 / scaling_factor * latents)."""
    seen = {}
    decode = pipe.vae.decode

    def spy(z, *a, **k):
        seen["z"] = z
        return decode(z, *a, **k)

    pipe.vae.decode = spy
    try:
        img = pipe(class_labels=[c], guidance_scale=g, generator=torch.Generator("cpu").manual_seed(seed),
                   num_inference_steps=steps, output_type="np").images[0]
    finally:
        pipe.vae.decode = decode
    noise = torch.randn([1, 4, 8, 8], generator=torch.Generator("cpu").manual_seed(seed), dtype=torch.float32)
    return img, seen["z"], hashlib.sha256(noise.numpy().astype("<f4").tobytes()).hexdigest()


def main(argv):
    if len(argv) != 1:
        print("usage: image_agree.py PIPELINE_DIR", file=sys.stderr)
        return 2
    import torch
    from diffusers import DiTPipeline
    torch.set_num_threads(1)
    pipe = DiTPipeline.from_pretrained(argv[0], dtype=torch.float32, local_files_only=True, use_safetensors=True)
    pipe.set_progress_bar_config(disable=True)
    child = Child(argv[0])
    ftype, ready = child.read()
    if ftype != pt.FRAME_READY:
        raise SystemExit("image_agree: no READY: %r" % pt.Reader(ready).take(min(len(ready), 400)))
    for c, seed, g, steps, every in CASES:
        child.send(pt.FRAME_DENOISE, denoise_frame(c, seed, steps, g, 32, 32, every))
        ftype, b = child.read()
        if ftype != pt.FRAME_DENOISED:
            raise SystemExit("image_agree: class %d seed %d: not DENOISED: %r" % (c, seed, b[8:400]))
        got = parse_denoised(b)
        img, z, digest = reference(pipe, torch, c, seed, g, steps)
        case = "class %d seed %d guidance %g steps %d" % (c, seed, g, steps)
        want_steps = [i for i in range(steps) if (i + 1) % every == 0 or i == steps - 1]
        checks = [
            ("image size", got["hwc"] == tuple(img.shape)),
            # a flat picture would agree with anything: this one must not be
            ("image contrast (a flat image proves nothing)", max(got["image"]) - min(got["image"]) > 0.05),
            ("image bits", got["image"] == tuple(float(v) for v in img.reshape(-1))),
            ("noise digest", got["digest"] == digest),
            ("recorded steps", [s for s, _ in got["records"]] == want_steps),
            ("last latent bits", torch.equal(1 / pipe.vae.config.scaling_factor * torch.tensor(
                got["records"][-1][1], dtype=torch.float32).reshape(z.shape), z)),
            ("latent shape", list(got["latent_dims"]) == [1, 4, 8, 8]),
            ("steps", got["steps"] == steps),
            ("dtype", got["dtype"] == "float32"),
        ]
        for what, ok in checks:
            if not ok:
                print("image_agree: %s: %s differs from DiTPipeline's" % (case, what))
                return 1
        print("image_agree: %s: image and final latent bit-identical to DiTPipeline's, noise %s..."
              % (case, digest[:12]))
    rc = child.close()
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
