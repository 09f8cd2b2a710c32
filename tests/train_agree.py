#!/usr/bin/env python3
"""src/executor/parity_train.py held to independent computations (issue 40).

    build/venv/bin/python tests/train_agree.py

A tiny random LlamaForCausalLM (a fixed seed) is saved into a temporary
directory and loaded back as from_pretrained does; then:
  (a) train_run in float32 in one process gives a loss curve and gradient
      norms bit-identical to a plain training loop written here (AdamW, a
      warm-up learning-rate list, clip_grad_norm_), and the update norms and
      the tensor groups' norms agree with that loop's parameters;
  (b) the model passed in is unchanged after every train_run;
  (c) bfloat16 weights (no master weights) and bf16 autocast both run, and
      over a run where it shows, the autocast curve is closer to float32's
      than the bf16-weights curve is;
  (d) 2-process DDP and 2-process FSDP (fully_shard, FSDP2) on gloo, under
      python -m torch.distributed.run --standalone --nproc-per-node 2, give
      loss curves within a small tolerance of one process's;
  (e) the sketches' estimate of ||p_a - p_b|| between two runs that differ
      is within 25% of the true distance, computed from the plain loop's
      parameters;
  and the test hook PARITY_TRAIN_FAULT=0:STEP:raise raises at that step.
Prints the figures; exits 1 on any failure.
"""
import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in src/executor
sys.path.insert(0, os.path.join(ROOT, "src", "executor"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import parity_train  # noqa: E402

STEPS, BATCH, SEQ = 12, 4, 16
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def build_model(path):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(1234)
    cfg = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                      tie_word_embeddings=False, attention_dropout=0.1)
    LlamaForCausalLM(cfg).save_pretrained(path, safe_serialization=True)


def load_model(path, dtype=torch.float32):
    from transformers import AutoModelForCausalLM
    return AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True)


def make_windows(n=24):
    """Token windows with something to learn: short repeating runs."""
    g = torch.Generator().manual_seed(7)
    rows = []
    for _ in range(n):
        period = int(torch.randint(2, 6, (1,), generator=g))
        motif = torch.randint(0, 96, (period,), generator=g)
        rows.append(motif.repeat(SEQ // period + 2)[:SEQ + 1])
    return torch.stack(rows)


def warmup(lr, steps, warm=3):
    return [lr * (s + 1) / warm if s < warm else lr for s in range(steps)]


def request(**kw):
    req = dict(steps=STEPS, batch_size=BATCH, seq_len=SEQ, optimizer="adamw", beta1=0.9, beta2=0.95, eps=1e-8,
               weight_decay=0.1, momentum=0.0, clip_grad_norm=1.0, seed=42, lr=warmup(3e-3, STEPS),
               windows=make_windows())
    req.update(kw)
    if "steps" in kw and "lr" not in kw:
        req["lr"] = warmup(3e-3, req["steps"])
    return req


def environment(dtype=torch.float32, mp_param=None, parallel=None, rank=0, world=1):
    return dict(device=torch.device("cpu"), dtype=dtype, mp_param=mp_param, mp_reduce=None, parallel=parallel,
                rank=rank, world=world, sync=lambda: None)


def run(model, req, env):
    steps = []
    end = parity_train.train_run(model, req, env, lambda *a: steps.append(a))
    return steps, end


def plain_loop(model, req):
    """A training loop as one writes it by hand; returns the losses, the
    gradient norms and the trained copy."""
    m = copy.deepcopy(model)
    torch.manual_seed(req["seed"])
    m.train()
    for mod in m.modules():
        if isinstance(mod, torch.nn.Dropout):
            mod.p = 0.0
        if hasattr(mod, "attention_dropout"):
            mod.attention_dropout = 0.0
    opt = torch.optim.AdamW(m.parameters(), lr=req["lr"][0], betas=(req["beta1"], req["beta2"]), eps=req["eps"],
                            weight_decay=req["weight_decay"])
    w, n = req["windows"], req["windows"].shape[0]
    losses, norms = [], []
    for s in range(req["steps"]):
        batch = w[[(s * req["batch_size"] + j) % n for j in range(req["batch_size"])]]
        opt.zero_grad()
        logits = m(input_ids=batch[:, :-1], use_cache=False).logits.float()
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        loss.backward()
        if req["clip_grad_norm"] > 0:
            norms.append(torch.nn.utils.clip_grad_norm_(m.parameters(), req["clip_grad_norm"]).item())
        for grp in opt.param_groups:
            grp["lr"] = req["lr"][s]
        opt.step()
        losses.append(loss.item())
    return losses, norms, m


def snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def unchanged(model, snap):
    sd = model.state_dict()
    return sd.keys() == snap.keys() and all(torch.equal(sd[k], snap[k]) for k in snap)


def max_diff(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def worker(path, out):
    """Under torchrun: the same run under DDP, then FSDP; rank 0 writes the curves."""
    rank, world = parity_train.dist_init("gloo")
    model = load_model(path)
    res = {}
    for plan in ("ddp", "fsdp", "fsdp-mp"):
        req = parity_train.broadcast_request(request() if rank == 0 else None)
        mp = torch.bfloat16 if plan == "fsdp-mp" else None
        steps, end = run(model, req, environment(mp_param=mp, parallel=plan.split("-")[0], rank=rank, world=world))
        if rank == 0:
            res[plan] = dict(loss=[s[1] for s in steps], grad_norm=[s[2] for s in steps],
                             update_norm=[s[3] for s in steps], processes=end["processes"],
                             groups=end["groups"])
        else:
            assert end is None and steps == []
    stop = parity_train.broadcast_request(None)
    assert stop is None
    if rank == 0:
        with open(out, "w") as f:
            json.dump(res, f)
    import torch.distributed as dist
    dist.destroy_process_group()


def main():
    t_all = time.perf_counter()
    os.environ.pop("PARITY_TRAIN_FAULT", None)
    # One thread: the two torchrun workers run beside this process (each
    # OMP_NUM_THREADS=1), and the model is tiny.
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="train_agree.")
    path = os.path.join(tmp, "llama")
    build_model(path)
    model = load_model(path)
    snap = snapshot(model)

    # The distributed runs start first, in the background (their start-up
    # is the slow part).
    out = os.path.join(tmp, "dist.json")
    envv = dict(os.environ, OMP_NUM_THREADS="1")
    envv.pop("PARITY_TRAIN_FAULT", None)
    dist_proc = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
                                  "2", os.path.abspath(__file__), "--worker", path, out], env=envv,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    # (a) one process, float32, against the plain loop.
    req = request()
    steps, end = run(model, req, environment())
    losses, norms, trained = plain_loop(model, req)
    ours = [s[1] for s in steps]
    check([s[0] for s in steps] == list(range(STEPS)), "steps reported 0..%d in order" % (STEPS - 1))
    check(ours == losses, "(a) float32 loss curve bit-identical to the plain loop's (%d steps, %.6f -> %.6f)"
          % (STEPS, losses[0], losses[-1]))
    check([s[2] for s in steps] == norms, "(a) grad norms (before clipping) bit-identical to clip_grad_norm_'s "
          "(first %.6f, clipped at %.1f)" % (norms[0], req["clip_grad_norm"]))
    check(losses[-1] < losses[0] * 0.95, "(a) it learns: loss %.4f -> %.4f" % (losses[0], losses[-1]))
    check([s[4] for s in steps] == req["lr"], "(a) each step ran at lr[s]")
    check(end["dtype"] == "float32" and end["processes"] == 1 and end["startup_ms"] > 0
          and end["total_ms"] >= end["startup_ms"], "(a) TRAINEND's dtype, processes and times (startup %.1f ms, "
          "total %.1f ms)" % (end["startup_ms"], end["total_ms"]))
    check(all(s[6] == 0 for s in steps), "(a) compiled is unknown (0) without a compile count")
    # The groups against the plain loop's parameters.
    start = dict(model.named_parameters())
    want = {}
    for n, p in trained.named_parameters():
        g = parity_train.GROUPS[parity_train.group_of(n)][0]
        want.setdefault(g, []).append((p.detach().float(), (p.detach() - start[n].detach()).float()))
    check([g["name"] for g in end["groups"]] == [g for g, _ in parity_train.GROUPS if g in want],
          "(a) groups %s" % ", ".join("%s %d" % (g["name"], g["numel"]) for g in end["groups"]))
    check(sum(g["numel"] for g in end["groups"]) == sum(p.numel() for p in model.parameters()),
          "(a) the groups hold every parameter once")
    ok = True
    for g in end["groups"]:
        ends, ds = zip(*want[g["name"]])
        n_ = math.sqrt(sum(float((e.double() ** 2).sum()) for e in ends))
        d_ = math.sqrt(sum(float((d.double() ** 2).sum()) for d in ds))
        ok &= abs(g["norm"] - n_) <= 1e-5 * n_ and abs(g["delta_norm"] - d_) <= 1e-5 * d_
        ok &= len(g["sketch"]) == 64
    check(ok, "(a) every group's norm and change norm equal the plain loop's (to 1e-5)")
    # The last step's update norm against the plain loop's one more step
    # is not available; instead the sum of steps' updates bounds the change.
    total_delta = math.sqrt(sum(g["delta_norm"] ** 2 for g in end["groups"]))
    check(sum(s[3] for s in steps) >= total_delta * (1 - 1e-6) and all(s[3] > 0 for s in steps),
          "(a) update norms positive, their sum %.5f >= the whole change %.5f"
          % (sum(s[3] for s in steps), total_delta))

    # (a') one step, update norm against the plain loop's.
    req1 = request(steps=1)
    s1, _ = run(model, req1, environment())
    _, _, t1 = plain_loop(model, req1)
    u = math.sqrt(sum(float(((a.detach() - b.detach()).double() ** 2).sum())
                      for a, b in zip(t1.parameters(), model.parameters())))
    check(abs(s1[0][3] - u) <= 1e-6 * u, "(a) update norm %.7f equals the plain loop's %.7f" % (s1[0][3], u))

    # (b) the model passed in is unchanged.
    check(unchanged(model, snap), "(b) the loaded model is unchanged after train_run")
    check(not model.training and model.config.attention_dropout == 0.1
          and all(m.attention_dropout == 0.1 for m in model.modules() if hasattr(m, "attention_dropout")),
          "(b) still in eval(), its config's and attention's dropout as loaded (0.1)")

    # (c) precision recipes, over a longer run with a small learning rate,
    # where bfloat16 weights without master weights lose small updates.
    long = dict(steps=40, lr=warmup(2e-4, 40, 5), clip_grad_norm=0.0)
    f32, _ = run(model, request(**long), environment())
    bfw, end_bf = run(model, request(**long), environment(dtype=torch.bfloat16))
    amp, end_amp = run(model, request(**long), environment(mp_param=torch.bfloat16))
    lf, lb, la = [s[1] for s in f32], [s[1] for s in bfw], [s[1] for s in amp]
    d_bf, d_amp = max_diff(lf, lb), max_diff(lf, la)
    check(end_bf["dtype"] == "bfloat16" and end_amp["dtype"] == "float32" and all(map(math.isfinite, lb + la)),
          "(c) bfloat16 weights and bf16 autocast both run (weights %s, %s)" % (end_bf["dtype"], end_amp["dtype"]))
    check(d_amp < d_bf, "(c) over 40 steps at lr 2e-4, max |loss - float32's|: bf16 autocast %.5f < bf16 weights "
          "%.5f (final losses f32 %.5f, autocast %.5f, bf16 weights %.5f)" % (d_amp, d_bf, lf[-1], la[-1], lb[-1]))
    # bfloat16 weights are the model from_pretrained(dtype=torch.bfloat16)
    # gives (RoPE's inv_freq left float32), trained in bfloat16.
    short = dict(clip_grad_norm=0.0)
    bf_ours = [s[1] for s in run(model, request(**short), environment(dtype=torch.bfloat16))[0]]
    bf_plain = plain_loop(load_model(path, torch.bfloat16), request(**short))[0]
    check(bf_ours == bf_plain, "(c) bfloat16 weights: loss curve bit-identical to the plain loop on "
          "from_pretrained(dtype=torch.bfloat16) (%.5f -> %.5f)" % (bf_plain[0], bf_plain[-1]))
    check(unchanged(model, snap), "(b) the loaded model is unchanged after the bfloat16 runs")
    amp12 = [s[1] for s in run(model, request(), environment(mp_param=torch.bfloat16))[0]]

    # (e) the sketches: two runs that differ (learning rates), the true
    # distance from the plain loop's parameters (bit-identical to the runs').
    ra, rb = request(), request(lr=warmup(2.5e-3, STEPS))
    _, ea = run(model, ra, environment())
    _, eb = run(model, rb, environment())
    _, _, ma = plain_loop(model, ra)
    _, _, mb = plain_loop(model, rb)
    pb = dict(mb.named_parameters())
    true_g = {}
    for n, p in ma.named_parameters():
        g = parity_train.GROUPS[parity_train.group_of(n)][0]
        true_g[g] = true_g.get(g, 0.0) + float(((p.detach() - pb[n].detach()).double() ** 2).sum())
    worst, tot_true, tot_est = 0.0, 0.0, 0.0
    for ga, gb in zip(ea["groups"], eb["groups"]):
        est = math.sqrt(sum((x - y) ** 2 for x, y in zip(ga["sketch"], gb["sketch"])) / 64)
        tru = math.sqrt(true_g[ga["name"]])
        worst = max(worst, abs(est - tru) / tru)
        tot_true += tru ** 2
        tot_est += est ** 2
        print("      %-9s true %.6f  estimate %.6f  (%+.1f%%)" % (ga["name"], tru, est, 100 * (est - tru) / tru))
    tot_true, tot_est = math.sqrt(tot_true), math.sqrt(tot_est)
    check(worst <= 0.25 and abs(tot_est - tot_true) <= 0.25 * tot_true,
          "(e) sketch estimate of ||p_a - p_b||: %.6f against the true %.6f (%+.1f%%; worst group %.1f%%)"
          % (tot_est, tot_true, 100 * (tot_est - tot_true) / tot_true, 100 * worst))
    same = run(model, ra, environment())[1]
    check(same["groups"] == ea["groups"], "(e) the same run gives the same groups and sketches, bit for bit")

    # The test hook.
    os.environ["PARITY_TRAIN_FAULT"] = "0:2:raise"
    seen = []
    try:
        parity_train.train_run(model, request(), environment(), lambda *a: seen.append(a[0]))
        raised = ""
    except RuntimeError as e:
        raised = str(e)
    del os.environ["PARITY_TRAIN_FAULT"]
    check(seen == [0, 1] and "PARITY_TRAIN_FAULT" in raised, "test hook 0:2:raise raised at step 2 (%s)" % raised)

    # (d) the distributed runs against one process's (the first curve above).
    try:
        log, _ = dist_proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        dist_proc.kill()
        log, _ = dist_proc.communicate()
    if dist_proc.returncode != 0 or not os.path.exists(out):
        check(False, "(d) torchrun with 2 processes (exit %s):\n%s" % (dist_proc.returncode, log[-4000:]))
    else:
        with open(out) as f:
            res = json.load(f)
        gn = [s[2] for s in steps]
        for plan in ("ddp", "fsdp"):
            r = res[plan]
            dl, dg = max_diff(ours, r["loss"]), max_diff(gn, r["grad_norm"])
            check(r["processes"] == 2 and dl <= 1e-5 and dg <= 1e-4 * max(gn),
                  "(d) 2-process %s on gloo: max |loss - one process's| %.3g, max |grad norm diff| %.3g over %d "
                  "steps" % (plan.upper(), dl, dg, STEPS))
            dn = max(abs(a["delta_norm"] - b["delta_norm"]) / b["delta_norm"]
                     for a, b in zip(r["groups"], end["groups"]))
            check(dn <= 1e-4, "(d) %s's groups' change norms within %.2g (relative) of one process's"
                  % (plan.upper(), dn))
        dm = max_diff(amp12, res["fsdp-mp"]["loss"])
        check(dm <= 0.01, "(d) 2-process FSDP with MixedPrecisionPolicy(param_dtype=bfloat16) against one "
              "process's bf16 autocast: max |loss diff| %.3g (float32's against autocast: %.3g)"
              % (dm, max_diff(amp12, ours)))
    check(unchanged(model, snap), "(b) the loaded model is unchanged at the end")
    print("%d failed; %.1f s" % (len(failures), time.perf_counter() - t_all))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
