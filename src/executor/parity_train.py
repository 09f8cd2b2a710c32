"""parity_train.py: the training loop of parity's Python executor (kind
training, protocol TRAINRUN / TRAINSTEP / TRAINEND: include/parity/proto.h,
which this file follows field by field; read it first).

parity_torch.py (the glue) decodes TRAINRUN into a request dict and calls
train_run(model, req, env, on_step); on_step sends each TRAINSTEP and the
returned dict becomes TRAINEND. In a parallel environment (torchrun, one
process per rank) every rank calls dist_init, then broadcast_request and
train_run; only rank 0 speaks the protocol.

Precision recipes, named as TorchTitan's training settings are:
  - dtype float32: weights, gradients and optimizer state in float32.
  - dtype bfloat16: weights, gradients and optimizer state in bfloat16,
    with no float32 master copy (TorchTitan's training.dtype bfloat16).
  - dtype float32 with mixed_precision_param bfloat16: float32 weights and
    optimizer state; in one process and under DDP the forward and the loss
    run under torch.autocast(device_type, torch.bfloat16); under FSDP
    instead fully_shard(mp_policy=MixedPrecisionPolicy(param_dtype=bfloat16,
    reduce_dtype=mixed_precision_reduce or float32)), as TorchTitan's
    apply_fsdp does (where it takes effect via fully_shard, not autocast).
The logits are cast to float32 before the loss in every recipe.

Parallel plans (torch.distributed; gloo on the CPU, nccl or an
accelerator's backend elsewhere: the same code):
  - ddp: DistributedDataParallel(model), which averages the gradients.
  - fsdp: torch.distributed.fsdp.fully_shard (FSDP2, per-parameter DTensor
    sharding) on each decoder layer, then on the whole model. It runs on
    the CPU with gloo (torch 2.13).
Each rank trains on the rows j of every step's batch with j mod world ==
rank; the loss reported is the mean of the ranks' means (one process's
mean over the whole batch, the shards being equal); the gradient and
update norms are over the whole model (a DTensor's norm is reduced with
full_tensor(), as TorchTitan's clip_grad_norm_ does).

Where each rank is (a parallel run's, --progress FILE: progress_marks):
every rank writes its place, "STEP PHASE", into its own record of a file
parity made, as it enters each part of a step: ready (before the first
step's barrier), forward, backward, optimizer, reduce (the loss's
all-reduce), done, and groups (after the last step). A run that hangs is
told by them: the rank furthest behind, and where the others wait.

Test hook (tests only; proto.h's TRAINRUN names it):
PARITY_TRAIN_FAULT="RANK:STEP:crash|hang|raise" makes rank RANK, at the
start of step STEP, exit at once (os._exit(9)), sleep forever, or raise
RuntimeError, so that a dead, hung or failing rank can be tested. It acts
before the step's first mark: a rank hung by it was last "done" with the
step before.

Standard library and torch only.
"""

import copy
import math
import os
import time

# enum px_compiled (proto.h); parity_torch.py holds the checked copy.
_COMPILED_UNKNOWN, _COMPILED_NO, _COMPILED_YES = 0, 1, 2

SKETCH = 64          # results.h PX_TRAIN_SKETCH
SKETCH_CHUNK = 65536  # columns of the projection drawn at a time
SKETCH_SEED = 1000    # + the group's index in GROUPS
# The tensor groups, in order; a parameter belongs to the first whose
# patterns one occurs in its name (proto.h TRAINEND).
GROUPS = (
    ("embed", ("embed_tokens", "wte", "word_embeddings")),
    ("attention", ("attn", "attention")),
    ("mlp", ("mlp", "feed_forward")),
    ("norm", ("norm", "ln_")),
    ("head", ("lm_head",)),
    ("other", ()),
)


def group_of(name):
    """The index in GROUPS of the parameter called name."""
    for i, (_, pats) in enumerate(GROUPS):
        if any(p in name for p in pats):
            return i
    return len(GROUPS) - 1


def dist_init(backend):
    """In a torchrun worker: init_process_group(backend) from torchrun's
    environment. Returns (rank, world). In a single process: (0, 1), and
    nothing is initialised."""
    if "WORLD_SIZE" not in os.environ or "RANK" not in os.environ:
        return 0, 1
    import torch
    import torch.distributed as dist
    if backend == "nccl" and torch.cuda.is_available():
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    if not dist.is_initialized():
        dist.init_process_group(backend)
    return dist.get_rank(), dist.get_world_size()


def _distributed():
    import torch.distributed as dist
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def _collective_device():
    """Where a tensor must be for the process group's backend."""
    import torch
    import torch.distributed as dist
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def broadcast_request(req):
    """Rank 0 passes the request dict; the other ranks pass None and get rank
    0's (None from rank 0: stop). In one process, req itself. The windows
    travel as a tensor broadcast after the rest."""
    if not _distributed():
        return req
    import torch
    import torch.distributed as dist
    head = None
    if dist.get_rank() == 0:
        if req is not None:
            head = {k: v for k, v in req.items() if k != "windows"}
            w = torch.as_tensor(req["windows"], dtype=torch.int64)
            head["_windows_shape"] = list(w.shape)
    box = [head]
    dist.broadcast_object_list(box, src=0)
    head = box[0]
    if head is None:
        return None
    dev = _collective_device()
    if dist.get_rank() == 0:
        w = torch.as_tensor(req["windows"], dtype=torch.int64).contiguous().to(dev)
    else:
        w = torch.empty(head["_windows_shape"], dtype=torch.int64, device=dev)
    dist.broadcast(w, src=0)
    out = dict(head)
    del out["_windows_shape"]
    out["windows"] = w.cpu() if dist.get_rank() != 0 else req["windows"]
    return out


def _fault(rank, step):
    """The test hook PARITY_TRAIN_FAULT (module docstring)."""
    spec = os.environ.get("PARITY_TRAIN_FAULT")
    if not spec:
        return
    parts = spec.split(":")
    if len(parts) != 3 or parts[0] != str(rank) or parts[1] != str(step):
        return
    if parts[2] == "crash":
        os._exit(9)
    if parts[2] == "hang":
        while True:
            time.sleep(3600)
    if parts[2] == "raise":
        raise RuntimeError("PARITY_TRAIN_FAULT: rank %d raised at step %d (a test hook)" % (rank, step))


PROGRESS_RECORD = 32  # bytes a rank's mark takes in the --progress file


def progress_marks(path, rank):
    """A parallel run's marks (proto.h TRAINRUN, --progress): a function
    mark(step, phase) that writes "STEP PHASE" padded to PROGRESS_RECORD
    bytes at offset rank * PROGRESS_RECORD of the file parity made, so that
    when a run hangs parity can say which rank stopped where. None without
    a path or when the file cannot be opened (the run goes on unmarked)."""
    if not path:
        return None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return None

    def mark(step, phase):
        rec = ("%d %s" % (step, phase)).encode()[:PROGRESS_RECORD - 1].ljust(PROGRESS_RECORD - 1) + b"\n"
        try:
            os.pwrite(fd, rec, rank * PROGRESS_RECORD)
        except OSError:
            pass
    return mark


def _no_dropout(model):
    """Every dropout off: nn.Dropout's p, a module's float attribute named
    *dropout* read at forward time (LlamaAttention's attention_dropout), and
    the config's *dropout keys."""
    import torch
    for m in model.modules():
        if isinstance(m, torch.nn.modules.dropout._DropoutNd):
            m.p = 0.0
        for k, v in list(vars(m).items()):
            if "dropout" in k.lower() and isinstance(v, float):
                setattr(m, k, 0.0)
        cfg = getattr(m, "config", None)
        if cfg is not None and hasattr(cfg, "to_dict"):
            for k, v in cfg.to_dict().items():
                if "dropout" in k.lower() and isinstance(v, (int, float)) and not isinstance(v, bool):
                    try:
                        setattr(cfg, k, 0.0)
                    except (AttributeError, TypeError):
                        pass


def _decoder_layers(model):
    """The decoder layers a fully_shard goes on: the first ModuleList of
    blocks (model.model.layers in a Transformers causal LM; h in GPT-2)."""
    import torch
    for _, m in model.named_modules():
        if isinstance(m, torch.nn.ModuleList) and len(m) > 0:
            return list(m)
    return []


def _total_norm(tensors):
    """The L2 norm of tensors viewed as one vector, in float32, over the whole
    model (a DTensor's partial norm is reduced with full_tensor())."""
    import torch
    n = torch.nn.utils.get_total_norm([t.float() for t in tensors], 2.0)
    if hasattr(n, "full_tensor"):
        n = n.full_tensor()
    return n


def _local(t):
    """A DTensor's local shard (FSDP2's parameters), else t itself."""
    return t.to_local() if hasattr(t, "to_local") else t


def _check(req, world):
    steps, bs, sl = req["steps"], req["batch_size"], req["seq_len"]
    if steps < 1 or bs < 1 or sl < 1:
        raise ValueError("protocol: steps, batch_size and seq_len must be at least 1")
    if len(req["lr"]) != steps:
        raise ValueError("protocol: %d learning rates for %d steps" % (len(req["lr"]), steps))
    if bs % world:
        raise ValueError("protocol: batch_size %d is not a multiple of the %d processes" % (bs, world))
    if req["optimizer"] not in ("adamw", "sgd"):
        raise ValueError("protocol: optimizer %r (adamw or sgd)" % (req["optimizer"],))


def _sketch(deltas, seed):
    """Rows of a [SKETCH, numel] float32 standard normal matrix, drawn in
    chunks of SKETCH_CHUNK columns from a CPU generator seeded `seed`, dotted
    in float64 with the concatenation of deltas (float32, CPU)."""
    import torch
    g = torch.Generator("cpu").manual_seed(seed)
    flat = torch.cat([d.reshape(-1) for d in deltas]).double()
    acc = torch.zeros(SKETCH, dtype=torch.float64)
    wide = torch.empty(SKETCH, min(SKETCH_CHUNK, flat.numel()), dtype=torch.float64)  # reused: no allocation a chunk
    for c0 in range(0, flat.numel(), SKETCH_CHUNK):
        part = flat[c0:c0 + SKETCH_CHUNK]
        r = torch.randn(SKETCH, part.numel(), generator=g, dtype=torch.float32)
        w = wide[:, :part.numel()]
        w.copy_(r)
        acc += torch.mv(w, part)
    return acc.tolist()


def train_run(model, req, env, on_step):
    """One training run (proto.h TRAINRUN) on a deep copy of `model`, the
    loaded module, which is never changed.

    req: steps, batch_size, seq_len, optimizer ('adamw' | 'sgd'), beta1,
         beta2, eps, weight_decay, momentum, clip_grad_norm (0.0: none),
         seed, lr (a list of `steps` floats), windows (a CPU LongTensor
         [n_windows, seq_len + 1]).
    env: device (torch.device), dtype (the weights' torch dtype), mp_param
         (torch.bfloat16 or None), mp_reduce (a torch dtype or None),
         parallel ('ddp' | 'fsdp' | None), rank, world, sync (synchronizes
         the device before a clock is read); optionally compile_count (the
         graphs compiled so far, or None where the backend cannot tell) and
         mark_step (called after each optimizer step on a lazy device).
    on_step(step, loss, grad_norm, update_norm, lr, step_ms, compiled) is
         called on rank 0 as each step ends (TRAINSTEP).
    Returns on rank 0 TRAINEND's fields: dict(dtype, processes, startup_ms,
    total_ms, groups=[dict(name, numel, norm, delta_norm, sketch)]); None
    on the others. Raises on any error."""
    import torch
    t_start = time.perf_counter()
    with torch.inference_mode(False), torch.enable_grad():
        return _train(torch, model, req, env, on_step, t_start)


def _train(torch, model, req, env, on_step, t_start):
    import torch.nn.functional as F
    device = torch.device(env["device"])
    dtype = env["dtype"]
    mp_param = env.get("mp_param")
    if mp_param == dtype:
        mp_param = None
    mp_reduce = env.get("mp_reduce")
    parallel = env.get("parallel")
    rank, world = env.get("rank", 0), env.get("world", 1)
    sync = env.get("sync") or (lambda: None)
    compile_count = env.get("compile_count") or (lambda: None)
    mark_step = env.get("mark_step")
    mark = env.get("progress") or (lambda step, phase: None)
    if parallel not in (None, "ddp", "fsdp"):
        raise ValueError("parallel %r (ddp or fsdp)" % (parallel,))
    if parallel is None and world != 1:
        raise ValueError("%d processes without a parallel plan" % world)
    _check(req, world)
    dist = None
    if parallel is not None:
        import torch.distributed as dist

    steps, bs, sl = req["steps"], req["batch_size"], req["seq_len"]
    windows = torch.as_tensor(req["windows"], dtype=torch.int64)
    if windows.dim() != 2 or windows.shape[1] != sl + 1 or windows.shape[0] < 1:
        raise ValueError("protocol: windows of shape %s for seq_len %d" % (list(windows.shape), sl))
    windows = windows.to(device)

    torch.manual_seed(int(req["seed"]) & 0xFFFFFFFFFFFFFFFF)
    with torch.no_grad():
        net = copy.deepcopy(model)
        net.to(device=device)
        # The weights in the recipe's dtype; buffers as loaded (RoPE's
        # inv_freq stays float32, as from_pretrained(dtype=) keeps it and
        # TorchTitan's bf16 training computes RoPE). .data keeps tied
        # parameters one.
        for p in net.parameters():
            if p.is_floating_point() and p.dtype != dtype:
                p.data = p.data.to(dtype)
    net.train()
    _no_dropout(net)
    for p in net.parameters():
        p.requires_grad_(True)
    # The start of the run, for the change's norm and sketch (the copy in
    # the weights' dtype, before any sharding), kept on the host by rank 0
    # only, which alone computes the groups.
    start = {n: p.detach().to("cpu", copy=True) for n, p in net.named_parameters()} if rank == 0 else {}

    autocast = mp_param is not None
    if parallel == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        ids = [device] if device.type == "cuda" else None
        runner = DistributedDataParallel(net, device_ids=ids)
    elif parallel == "fsdp":
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        kw = {}
        if mp_param is not None:
            kw["mp_policy"] = MixedPrecisionPolicy(param_dtype=mp_param, reduce_dtype=mp_reduce or torch.float32,
                                                   cast_forward_inputs=False)
            autocast = False  # TorchTitan: under FSDP, mixed precision is fully_shard's
        for layer in _decoder_layers(net):
            fully_shard(layer, **kw)
        fully_shard(net, **kw)
        runner = net
    else:
        runner = net
    params = [p for p in net.parameters() if p.requires_grad]

    if req["optimizer"] == "adamw":
        opt = torch.optim.AdamW(params, lr=req["lr"][0], betas=(req["beta1"], req["beta2"]), eps=req["eps"],
                                weight_decay=req["weight_decay"])
    else:
        opt = torch.optim.SGD(params, lr=req["lr"][0], momentum=req["momentum"])
    clip = float(req["clip_grad_norm"])
    mark(-1, "ready")
    if dist is not None:
        dist.barrier()
    sync()
    startup_ms = (time.perf_counter() - t_start) * 1000.0

    local = list(range(rank, bs, world))
    n_windows = windows.shape[0]
    for s in range(steps):
        _fault(rank, s)
        mark(s, "forward")
        before_count = compile_count() if rank == 0 else None
        sync()
        t0 = time.perf_counter()
        rows = torch.tensor([(s * bs + j) % n_windows for j in local], dtype=torch.int64, device=device)
        batch = windows.index_select(0, rows)
        x, y = batch[:, :sl], batch[:, 1:]
        opt.zero_grad()
        if autocast:
            with torch.autocast(device_type=device.type, dtype=mp_param):
                logits = runner(input_ids=x, use_cache=False).logits
                loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        else:
            logits = runner(input_ids=x, use_cache=False).logits
            loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        mark(s, "backward")
        loss.backward()
        mark(s, "optimizer")
        grads = [p.grad for p in params if p.grad is not None]
        gnorm = _total_norm(grads)
        if clip > 0:
            torch.nn.utils.clip_grads_with_norm_(params, clip, gnorm)
        lr = float(req["lr"][s])
        for g in opt.param_groups:
            g["lr"] = lr
        with torch.no_grad():
            # A rank's own shard (a DTensor's local tensor: no collective,
            # no DTensor dispatch a parameter), the whole tensor otherwise.
            before = [_local(p.detach()).clone() for p in params]
        opt.step()
        if mark_step is not None:
            mark_step()
        with torch.no_grad():
            if dist is None:
                unorm = _total_norm([a.detach().float() - b.float() for a, b in zip(params, before)])
                lv = loss.detach().float()
            else:
                # One collective for the loss and the update: each rank's
                # loss and its shards' squared change (float64), summed.
                # DDP's parameters are whole on every rank: their sum is
                # world times one rank's.
                sq = torch.zeros((), dtype=torch.float64, device=device)
                for a, b in zip(params, before):
                    sq += torch.sum((_local(a.detach()).double() - b.double()) ** 2)
                both = torch.stack([loss.detach().double(), sq])
                mark(s, "reduce")
                dist.all_reduce(both)
                lv = both[0] / world
                unorm = torch.sqrt(both[1] / (world if parallel == "ddp" else 1))
            del before
            loss_v = float(lv.item())
            gnorm_v = float(gnorm.item())
            unorm_v = float(unorm.item())
        sync()
        mark(s, "done")
        step_ms = (time.perf_counter() - t0) * 1000.0
        if rank == 0:
            after_count = compile_count()
            compiled = _COMPILED_UNKNOWN if before_count is None or after_count is None else (
                _COMPILED_YES if after_count > before_count else _COMPILED_NO)
            on_step(s, loss_v, gnorm_v, unorm_v, lr, step_ms, compiled)

    mark(steps, "groups")
    groups = _groups(torch, net, start, rank)
    sync()
    total_ms = (time.perf_counter() - t_start) * 1000.0
    if rank != 0:
        return None
    return dict(dtype=str(dtype).replace("torch.", ""), processes=world, startup_ms=startup_ms,
                total_ms=total_ms, groups=groups)


def _groups(torch, net, start, rank):
    """TRAINEND's tensor groups (proto.h), from the full parameters (a
    DTensor's full_tensor(), a collective every rank joins), on rank 0."""
    members = [[] for _ in GROUPS]  # per group: (end float32, change float32), CPU
    with torch.no_grad():
        for n, p in net.named_parameters():
            full = p.detach()
            if hasattr(full, "full_tensor"):
                full = full.full_tensor()
            if rank != 0:
                continue
            end = full.float().cpu()
            members[group_of(n)].append((end, end - start[n].float().cpu()))
    if rank != 0:
        return None
    out = []
    for i, (gname, _) in enumerate(GROUPS):
        m = members[i]
        if not m:
            continue
        ends, deltas = [e for e, _ in m], [d for _, d in m]
        out.append(dict(name=gname, numel=int(sum(e.numel() for e in ends)),
                        norm=float(torch.nn.utils.get_total_norm(ends, 2.0)),
                        delta_norm=float(torch.nn.utils.get_total_norm(deltas, 2.0)),
                        sketch=_sketch(deltas, SKETCH_SEED + i)))
    return out
