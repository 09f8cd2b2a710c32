"""Writes results.yaml, a format 8 results file for fixture.yaml with
plausible numbers (not a run): every environment, both runs, 10 steps each.
bf16-weights' adamw-warmup parts from the reference at step 6 (0-based) and
its low-lr run's loss is a NaN from step 7 on; the rest stay within
compare.train. Run: build/venv/bin/python tests/data/training/make_results.py
With --fuzz-seed it writes tests/fuzz/seed-results-training.yaml instead:
two environments (the reference and bf16-weights, its NaN), two groups a
run, an infinity among the figures (fuzz_results' seed).
"""
import hashlib
import math
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
STEPS = 10
GROUPS = [("embed", 9600), ("attention", 8192), ("mlp", 12288), ("norm", 160), ("head", 9600)]


def lrs(lr, warmup=2, steps=STEPS, decay_min=0.1):
    out = []
    for s in range(steps):
        if s < warmup:
            out.append(lr * (s + 1) / (warmup + 1))
            continue
        n = steps - warmup
        t = (s - warmup) / max(1, n - 1)
        out.append(lr * (decay_min + (1 - decay_min) * (1 + math.cos(math.pi * t)) / 2))
    return out


def f(v):
    if isinstance(v, float) and math.isnan(v):
        return ".nan"
    if isinstance(v, float) and math.isinf(v):
        return ".inf" if v > 0 else "-.inf"
    return repr(float(v))


def flist(vs):
    return "[" + ", ".join(f(v) for v in vs) + "]"


def run(rng, lr, drop, wobble, part_at=None, nan_from=None, processes=1):
    loss, gn, un = [], [], []
    lr_s = lrs(lr)
    for s in range(STEPS):
        base = 5.70 - drop * (1 - math.exp(-s / 3.0))
        if part_at is not None and s >= part_at:
            base += 0.12 * (s - part_at + 1)
        v = round(base + rng.uniform(-wobble, wobble), 6)
        g = round(2.4 - 0.1 * s + rng.uniform(-wobble, wobble), 6)
        u = round(lr_s[s] * 14.0 * (1 + rng.uniform(-0.01, 0.01)), 9)
        if nan_from is not None and s >= nan_from:
            v, g, u = float("nan"), float("nan"), float("nan")
        loss.append(v), gn.append(g), un.append(u)
    step_ms = [round(rng.uniform(4.0, 6.0) * processes, 3) for _ in range(STEPS)]
    return loss, gn, un, lr_s, step_ms


def groups(rng, scale, n_groups):
    out = []
    for gi, (name, numel) in enumerate(GROUPS[:n_groups]):
        g = random.Random(gi)
        sketch = [round(g.gauss(0, 0.01) * scale + rng.uniform(-1e-5, 1e-5), 8) for _ in range(64)]
        out.append((name, numel, round(math.sqrt(numel) * 0.02 + rng.uniform(-1e-4, 1e-4), 6),
                    round(0.01 * scale, 6), sketch))
    return out


ENVS = [
    ("reference", "reference", "float32", {}),
    ("cpu-bf16", "twin", "float32", {"wobble": 0.004}),
    ("bf16-weights", None, "bfloat16", {"part_at": 6, "wobble": 0.006}),
    ("fsdp-2", None, "float32", {"processes": 2, "wobble": 0.0005}),
]


def main():
    seed = "--fuzz-seed" in sys.argv[1:]
    envs = [e for e in ENVS if not seed or e[0] in ("reference", "bf16-weights")]
    n_groups = 2 if seed else len(GROUPS)
    with open(os.path.join(here, "fixture.yaml"), "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    o = []
    o.append("# parity results: a training contract's, written by make_results.py for tests (format 8):")
    o.append("# plausible numbers, not a run. bf16-weights parts at step 6 of adamw-warmup; its low-lr")
    o.append("# run's loss is a NaN from step 7 on.")
    o.append("parity_results: 8")
    o.append("kind: training")
    o.append("fixture:")
    o.append('  path: "tests/data/training/fixture.yaml"')
    o.append('  sha256: "%s"' % sha)
    o.append("labels: []")
    o.append('reference: "reference"')
    o.append("environments:")
    for ei, (name, role, dtype, opt) in enumerate(envs):
        rng = random.Random(100 + ei)
        procs = opt.get("processes", 1)
        o.append('  "%s":' % name)
        o.append('    role: %s' % ('"%s"' % role if role else "null"))
        o.append('    state: "up"')
        o.append("    labels: []")
        o.append("    manifest:")
        o.append('      parity_version: "0.1.0"')
        o.append('      libtorch_version: "2.13.0"')
        o.append('      device: "cpu"')
        o.append('      device_name: "test CPU"')
        o.append('      dtype: "%s"' % dtype)
        o.append("      threads: 1")
        o.append('      model_sha256: "6406c8c23eba14ea5627e6335bab7158980a8c70d5359370f0a3a83226cf51ac"')
        o.append('      vocab_sha256: "3b284f74f3c6c3912821ee72e6eec1680861459a4020efc059b5f526999c43f8"')
        o.append('      host: "vm"')
        o.append('      started_at: "2026-12-06T00:30:00Z"')
        o.append("      load_ms: 210.5")
        o.append("      first_forward_ms: null")
        o.append("      restarts: 0")
        o.append("    examples:")
        for run_id, lr, drop in (("adamw-warmup", 1e-3, 0.9), ("low-lr", 1e-5, 0.01)):
            part_at = opt.get("part_at") if run_id == "adamw-warmup" else None
            nan_from = 7 if (name == "bf16-weights" and run_id == "low-lr") else None
            loss, gn, un, lr_s, step_ms = run(rng, lr, drop, opt.get("wobble", 0.0), part_at, nan_from, procs)
            scale = lr / 1e-3 * (1.3 if part_at is not None else 1.0)
            o.append('      - id: "%s"' % run_id)
            o.append('        outcome: "ok"')
            o.append("        output:")
            o.append('          dtype: "%s"' % dtype)
            o.append("          shape: [1, %d]" % STEPS)
            o.append("          values: %s" % flist(loss))
            o.append("        train:")
            if seed and name == "bf16-weights" and run_id == "adamw-warmup":
                gn[2] = float("inf")
            o.append("          grad_norm: %s" % flist(gn))
            o.append("          update_norm: %s" % flist(un))
            o.append("          lr: %s" % flist(lr_s))
            o.append("          step_ms: %s" % flist(step_ms))
            o.append("          startup_ms: %s" % f(round(rng.uniform(20, 40) * procs, 3)))
            o.append("          total_ms: %s" % f(round(sum(step_ms) + 30, 3)))
            o.append("          processes: %d" % procs)
            o.append("          groups:")
            for gname, numel, norm, dn, sketch in groups(rng, scale, n_groups):
                o.append('            - name: "%s"' % gname)
                o.append("              numel: %d" % numel)
                o.append("              norm: %s" % f(norm))
                o.append("              delta_norm: %s" % f(dn))
                o.append("              sketch: %s" % flist(sketch))
            o.append("        label: null")
            o.append("        forward_ms: %s" % f(round(sum(step_ms), 3)))
    out = os.path.join(here, "..", "..", "fuzz", "seed-results-training.yaml") if seed else os.path.join(here, "results.yaml")
    if seed:
        o[0:3] = ["# fuzz_results' seed for a training run's results (kind training, format 8), written by",
                  "# tests/data/training/make_results.py --fuzz-seed against tests/data/training/fixture.yaml."]
    with open(out, "w") as fh:
        fh.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
