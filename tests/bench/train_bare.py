#!/usr/bin/env python3
"""A bare training loop for the training demo (fixtures/llm-train, issue 40),
written apart from parity's own (src/executor/parity_train.py): the yardstick
of make bench-training, and the measurements behind the fixture's recipes and
tolerances.

    build/venv/bin/python tests/bench/train_bare.py [options]

The data and the recipe are include/parity/fixture.h's px_recipe, done here
by hand: the whole text tokenized once by the model directory's
tokenizer.json as tokenizer(text) does (the `tokenizers` library; the demo's
has no post-processor, so no special token is added), cut into windows of
seq_len + 1 ids (window w: ids[w*seq_len .. w*seq_len + seq_len]); step s
trains on the windows (s*batch + j) mod n_windows, j < batch, inputs a
window's first seq_len ids, targets its last seq_len, the loss their mean
cross-entropy in float32. The learning rate is include/parity/recipe.h's:
linear warm-up, lr * (s + 1) / (warmup + 1), then none, linear or cosine
decay to decay_min * lr at the last step. AdamW (torch's) or SGD with
momentum; gradients clipped to a total L2 norm (the norm recorded is before
clipping); dropout off (the model's is 0, and it runs in train mode).

Precision (--precision, several comma-separated: each runs from the same
model file, one after another):
  float32   weights, optimizer state and compute in float32
  bf16      the model cast to bfloat16: weights and AdamW's moments in
            bfloat16, no float32 master copy (dtype bfloat16)
  autocast  float32 weights and optimizer, the forward under
            torch.autocast("cpu", bfloat16) (mixed_precision_param bfloat16)

Output: a line per step per precision (loss, grad_norm, update_norm, lr,
step_ms), then, with several precisions, each one's largest difference from
the first's (loss, gradient norm, update norm: absolute and relative, and
where) and each tensor group's weights' distance at the end. --json FILE
writes every curve; --quiet leaves the per-step lines out; --timing prints
only one step_ms a line (the warm steps, the first --warm left out), and on
stderr the whole loop's milliseconds, for tests/bench/training.sh. --no-update skips the update norm (a copy of every
weight each step, which a user's loop does not pay for: the benchmark leaves
it out unless parity's recipe is timed with it).
"""

import argparse
import json
import math
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def recipe_lr(lr, steps, warmup, decay, decay_min):
    """include/parity/recipe.h's recipe_lr, in Python."""
    out, w = [], max(warmup, 0)
    n = steps - w
    for s in range(steps):
        if s < w:
            out.append(lr * (s + 1) / (w + 1))
            continue
        t = (s - w) / (n - 1) if n > 1 else 0.0
        if decay == "linear":
            out.append(lr * (1 - (1 - decay_min) * t))
        elif decay == "cosine":
            out.append(lr * (decay_min + (1 - decay_min) * (1 + math.cos(math.pi * t)) / 2))
        else:
            out.append(lr)
    return out


def windows(model_dir, data, seq_len):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    with open(data, encoding="utf-8") as f:
        ids = tok.encode(f.read()).ids  # as tokenizer(text): the post-processor's ids too
    n = (len(ids) - 1) // seq_len
    if n < 1:
        sys.exit("train_bare.py: %s gives %d ids, not one window of %d + 1" % (data, len(ids), seq_len))
    t = torch.tensor(ids, dtype=torch.long)
    return torch.stack([t[w * seq_len: w * seq_len + seq_len + 1] for w in range(n)])


def load(model_dir):
    from transformers import AutoModelForCausalLM
    return AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True,
                                                dtype=torch.float32)


def batch_of(win, step, batch):
    n = win.shape[0]
    rows = [(step * batch + j) % n for j in range(batch)]
    w = win[rows]
    return w[:, :-1], w[:, 1:]


GROUPS = [("embed", ("embed_tokens", "wte", "word_embeddings")), ("attention", ("attn", "attention")),
          ("mlp", ("mlp", "feed_forward")), ("norm", ("norm", "ln_")), ("head", ("lm_head",))]


def group_of(name):
    """proto.h TRAINEND's tensor groups: the first that names the parameter."""
    for g, keys in GROUPS:
        if any(k in name for k in keys):
            return g
    return "other"


def run(base, win, a, precision, lrs, measure_update=True):
    """One training run on a copy of base; returns the per-step figures."""
    import copy
    torch.manual_seed(a.seed)
    model = copy.deepcopy(base)
    if precision == "bf16":
        model = model.to(torch.bfloat16)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(params, lr=lrs[0], betas=(a.beta1, a.beta2), eps=a.eps,
                                weight_decay=a.weight_decay)
    else:
        opt = torch.optim.SGD(params, lr=lrs[0], momentum=a.momentum, weight_decay=a.weight_decay)
    out = dict(precision=precision, loss=[], grad_norm=[], update_norm=[], lr=[], step_ms=[])
    for s in range(a.steps):
        t0 = time.perf_counter()
        x, y = batch_of(win, s, a.batch)
        for g in opt.param_groups:
            g["lr"] = lrs[s]
        if precision == "autocast":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(input_ids=x, use_cache=False).logits
        else:
            logits = model(input_ids=x, use_cache=False).logits
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if a.clip > 0:
            gn = torch.nn.utils.clip_grad_norm_(params, a.clip)
        else:
            gn = torch.linalg.vector_norm(
                torch.stack([torch.linalg.vector_norm(p.grad.float()) for p in params]))
        before = [p.detach().float().clone() for p in params] if measure_update else None
        opt.step()
        if measure_update:
            un = math.sqrt(sum(float(torch.sum((p.detach().float() - b) ** 2))
                               for p, b in zip(params, before)))
        else:
            un = float("nan")
        lv = float(loss.detach())
        out["step_ms"].append((time.perf_counter() - t0) * 1000.0)
        out["loss"].append(lv)
        out["grad_norm"].append(float(gn))
        out["update_norm"].append(un)
        out["lr"].append(lrs[s])
    groups = {}
    for name, p in model.named_parameters():
        groups.setdefault(group_of(name), []).append(p.detach().float().reshape(-1))
    out["params"] = {g: torch.cat(v) for g, v in groups.items()}
    return out


def tail_mean(v):
    k = max(1, len(v) // 10)
    return sum(v[-k:]) / k


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "fixtures/llm-train/model"))
    ap.add_argument("--data", default=os.path.join(ROOT, "fixtures/llm-train/corpus.txt"))
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--beta1", type=float, default=0.9)
    ap.add_argument("--beta2", type=float, default=0.999)
    ap.add_argument("--eps", type=float, default=1e-8)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.0)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--decay", choices=["none", "linear", "cosine"], default="none")
    ap.add_argument("--decay-min", type=float, default=0.0)
    ap.add_argument("--clip", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--precision", default="float32")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--warm", type=int, default=3, help="steps --timing leaves out")
    ap.add_argument("--no-update", action="store_true")
    return ap


def main():
    a = parser().parse_args()
    torch.set_num_threads(a.threads)

    win = windows(a.model, a.data, a.seq_len)
    base = load(a.model)
    lrs = recipe_lr(a.lr, a.steps, a.warmup, a.decay, a.decay_min)
    runs = []
    for prec in a.precision.split(","):
        if prec not in ("float32", "bf16", "autocast"):
            sys.exit("train_bare.py: --precision %s: float32, bf16 or autocast" % prec)
        runs.append(run(base, win, a, prec, lrs, measure_update=not a.no_update))
    if a.timing:
        for r in runs:
            for ms in r["step_ms"][a.warm:]:
                print("%.4f" % ms)
            print("loop_ms %.3f steps %d" % (sum(r["step_ms"]), a.steps), file=sys.stderr)
        return 0
    if not a.quiet:
        print("# %d windows of %d + 1; %s" % (win.shape[0], a.seq_len, " ".join(sys.argv[1:])))
        for r in runs:
            print("# %s" % r["precision"])
            for s in range(a.steps):
                print("%3d loss %.5f grad_norm %.4f update_norm %.5f lr %.3g step_ms %.2f"
                      % (s, r["loss"][s], r["grad_norm"][s], r["update_norm"][s], r["lr"][s],
                         r["step_ms"][s]))
    ref = runs[0]
    for r in runs:
        sm = sorted(r["step_ms"][a.warm:]) or r["step_ms"]
        line = ("%-9s first %.4f last %.4f tail mean %.4f (drop %.4f) median step %.2f ms"
                % (r["precision"], r["loss"][0], r["loss"][-1], tail_mean(r["loss"]),
                   r["loss"][0] - tail_mean(r["loss"]), sm[len(sm) // 2]))
        if r is not ref:
            line += "\n  vs %s:" % ref["precision"]
            for q in ("loss", "grad_norm", "update_norm"):
                d = [abs(x - y) for x, y in zip(r[q], ref[q])]
                rel = [abs(x - y) / max(abs(y), 1e-12) for x, y in zip(r[q], ref[q])]
                i = max(range(len(d)), key=d.__getitem__)
                j = max(range(len(rel)), key=rel.__getitem__)
                line += (" %s max |d| %.3g (step %d), max rel %.3g (step %d), first 10 steps %.3g;"
                         % (q, d[i], i, rel[j], j, max(d[:10])))
            pr = {g: float(torch.linalg.vector_norm(r["params"][g] - ref["params"][g])
                           / torch.linalg.vector_norm(ref["params"][g])) for g in ref["params"]}
            line += " params rel " + " ".join("%s %.3g" % (g, v) for g, v in pr.items())
        print(line)
    if a.json:
        for r in runs:
            r.pop("params")
        with open(a.json, "w") as f:
            json.dump(dict(args=vars(a), runs=runs), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
