#!/usr/bin/env python3
"""The training demo's bare loop on several processes (fixtures/llm-train's
fsdp-2 environment, issue 40), written apart from parity's own: the
yardstick for make bench-training's 2-process run, and the measurement of
how far a 2-process float32 run strays from one process.

    build/venv/bin/python -m torch.distributed.run --standalone \\
        --nproc-per-node 2 tests/bench/train_bare_dist.py [train_bare.py's options] \\
        [--strategy fsdp|ddp]

What a user's torchrun script does, on gloo (the CPU): every rank loads the
model directory and the data, cut into windows as tests/bench/train_bare.py
(and include/parity/fixture.h) say; each step's batch rows j are split across
ranks (rank r takes the j with j mod world == r, batch a multiple of world);
FSDP2 (fully_shard on each decoder layer, then on the model) or DDP;
AdamW or SGD, clipping over the whole model, the recipe's learning rate;
float32, or --precision autocast (FSDP's MixedPrecisionPolicy(param_dtype
bfloat16); autocast with DDP). Each rank's loss is its rows' mean; the
gradient reduction averages the ranks, so the step is one process's on the
whole batch. Rank 0 prints what train_bare.py prints (the loss averaged over
the ranks), and --timing its warm steps' milliseconds. --compare FILE (a
train_bare.py --json of one process) prints the curve's distance from it.
"""

import json
import math
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_bare  # noqa: E402


def local(t):
    """A DTensor's local shard (FSDP2), else the tensor."""
    return t.to_local() if hasattr(t, "to_local") else t


def main():
    ap = train_bare.parser()
    ap.add_argument("--strategy", choices=["fsdp", "ddp"], default="fsdp")
    ap.add_argument("--compare")
    a = ap.parse_args()
    strategy, compare = a.strategy, a.compare
    t_start = time.perf_counter()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(a.threads)
    if a.batch % world:
        sys.exit("train_bare_dist.py: batch %d is not a multiple of %d ranks" % (a.batch, world))
    if a.precision not in ("float32", "autocast"):
        sys.exit("train_bare_dist.py: --precision float32 or autocast")

    win = train_bare.windows(a.model, a.data, a.seq_len)
    model = train_bare.load(a.model)
    lrs = train_bare.recipe_lr(a.lr, a.steps, a.warmup, a.decay, a.decay_min)
    torch.manual_seed(a.seed)
    model.train()
    names = [n for n, _ in model.named_parameters()]
    if strategy == "fsdp":
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        mp = (MixedPrecisionPolicy(param_dtype=torch.bfloat16) if a.precision == "autocast"
              else MixedPrecisionPolicy())
        for layer in model.model.layers:
            fully_shard(layer, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
        net = model
    else:
        from torch.nn.parallel import DistributedDataParallel as DDP
        net = DDP(model)
    params = [p for p in model.parameters() if p.requires_grad]
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(params, lr=lrs[0], betas=(a.beta1, a.beta2), eps=a.eps,
                                weight_decay=a.weight_decay)
    else:
        opt = torch.optim.SGD(params, lr=lrs[0], momentum=a.momentum, weight_decay=a.weight_decay)
    startup_ms = (time.perf_counter() - t_start) * 1000.0

    out = dict(loss=[], grad_norm=[], update_norm=[], lr=[], step_ms=[])
    for s in range(a.steps):
        t0 = time.perf_counter()
        x, y = train_bare.batch_of(win, s, a.batch)
        x, y = x[rank::world], y[rank::world]
        for g in opt.param_groups:
            g["lr"] = lrs[s]
        if a.precision == "autocast" and strategy == "ddp":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = net(input_ids=x, use_cache=False).logits
        else:
            logits = net(input_ids=x, use_cache=False).logits
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(params, a.clip if a.clip > 0 else float("inf"))
        gn = float(gn.full_tensor() if hasattr(gn, "full_tensor") else gn)
        before = [local(p.detach()).float().clone() for p in params] if not a.no_update else None
        opt.step()
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        lv = float(lv) / world
        if before is not None:
            sq = torch.zeros((), dtype=torch.float64)
            for p, b in zip(params, before):
                sq += torch.sum((local(p.detach()).float() - b).double() ** 2)
            if strategy == "fsdp":
                dist.all_reduce(sq)  # each rank holds its shards
            un = math.sqrt(float(sq))
        else:
            un = float("nan")
        out["step_ms"].append((time.perf_counter() - t0) * 1000.0)
        out["loss"].append(lv)
        out["grad_norm"].append(gn)
        out["update_norm"].append(un)
        out["lr"].append(lrs[s])
    total_ms = (time.perf_counter() - t_start) * 1000.0
    if rank == 0:
        report(a, out, strategy, world, startup_ms, total_ms, compare, names)
    dist.barrier()
    dist.destroy_process_group()
    return 0


def report(a, out, strategy, world, startup_ms, total_ms, compare, names):
    if a.timing:
        for ms in out["step_ms"][a.warm:]:
            print("%.4f" % ms)
        print("startup_ms %.1f total_ms %.1f loop_ms %.3f steps %d"
              % (startup_ms, total_ms, sum(out["step_ms"]), a.steps), file=sys.stderr)
        return
    if not a.quiet:
        print("# %s on %d ranks (gloo), %s" % (strategy, world, a.precision))
        for s in range(a.steps):
            print("%3d loss %.5f grad_norm %.4f update_norm %.5f lr %.3g step_ms %.2f"
                  % (s, out["loss"][s], out["grad_norm"][s], out["update_norm"][s], out["lr"][s],
                     out["step_ms"][s]))
    sm = sorted(out["step_ms"][a.warm:]) or out["step_ms"]
    print("%s-%d %s first %.4f last %.4f tail mean %.4f median step %.2f ms startup %.0f ms total %.0f ms"
          % (strategy, world, a.precision, out["loss"][0], out["loss"][-1],
             train_bare.tail_mean(out["loss"]), sm[len(sm) // 2], startup_ms, total_ms))
    if compare:
        with open(compare) as f:
            ref = json.load(f)["runs"][0]
        line = "  vs %s (one process):" % ref["precision"]
        for q in ("loss", "grad_norm", "update_norm"):
            d = [abs(x - y) for x, y in zip(out[q], ref[q])]
            rel = [abs(x - y) / max(abs(y), 1e-12) for x, y in zip(out[q], ref[q])]
            i = max(range(len(d)), key=d.__getitem__)
            line += " %s max |d| %.3g (step %d), max rel %.3g;" % (q, d[i], i, max(rel))
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(args=vars(a), strategy=strategy, world=world, runs=[out]), f)


if __name__ == "__main__":
    sys.exit(main())
