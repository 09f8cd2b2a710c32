#!/usr/bin/python3
"""Write the tiny TorchScript models used by parity's tests.

    /usr/bin/python3 tests/models/make_models.py tests/models

Every model (but segments.pt, which takes token_type_ids too, and
ownnames.pt, whose arguments have names of their own) has the
forward signature of a traced Hugging Face sequence classifier,
forward(input_ids: int64 [B,T], attention_mask: int64 [B,T]), and
misbehaves in one planted way. They accept any token id (ids are folded
modulo a small table), so they work with any vocab.txt, and they follow the
module's dtype (so .to(torch.bfloat16) etc. work).

The output is deterministic: fixed seeds, PYTHONHASHSEED pinned (TorchScript
writes Final constants in set order), and the zip rewritten with fixed
timestamps and without the *.debug_pkl records (absolute source paths).
"""

import hashlib
import io
import os
import signal
import subprocess
import sys
import time

import torch
import torch.nn as nn
from torch import Tensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "tools"))
from torchscript_file import canonical_torchscript  # noqa: E402

SEED = 1234
TABLE = 64   # ids are folded into this many embedding rows
DIM = 8
LONG_T = 6   # "long" input: input_ids.size(1) > LONG_T
# slow.pt: iterations of a 64x64 add + tanh on a long input. Tuned for
# about 5-10 s of forward time on one CPU thread (see the report printed),
# on torch 1.13 and 2.13 alike: element-wise ops on a small tensor cost the
# same there (about 10 us), where a matmul loop ran 5x faster on 2.13 (the
# wheel's BLAS) and ended before the tests could stop it.
SLOW_ITERS = 560000


class Features(nn.Module):
    """Masked mean of embeddings of (id mod TABLE): [B,T] -> [B,DIM]."""

    def __init__(self):
        super().__init__()
        self.table = TABLE
        self.emb = nn.Embedding(TABLE, DIM)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        x = self.emb(torch.remainder(input_ids, self.table))
        mask = attention_mask.to(x.dtype).unsqueeze(-1)
        return (x * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


class Slow(nn.Module):
    """slow.pt -- for the timeout / kill-mid-forward tests: logits [B,5];
    a long input (T > 6) first spends seconds in a loop of small element-wise
    steps whose result feeds the logits (so it cannot be optimized away); a short
    input returns in milliseconds."""

    def __init__(self, iters: int = SLOW_ITERS):
        super().__init__()
        self.iters = iters
        self.long_t = LONG_T
        self.features = Features()
        self.head = nn.Linear(DIM, 5)
        # a buffer, not a Parameter: the loop never builds an autograd graph,
        # whatever the caller's grad mode
        self.register_buffer("w", torch.randn(64, 64) / 8.0)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        pooled = self.features(input_ids, attention_mask)
        logits = self.head(pooled)
        if input_ids.size(1) > self.long_t:
            acc = torch.ones(64, 64, dtype=self.w.dtype, device=self.w.device)
            # no_grad inside the script: without it, a caller that leaves
            # grad mode on gets the profiling executor's DifferentiableGraph
            # path for every unrolled step and a loop 2-3x slower
            with torch.no_grad():
                for _ in range(self.iters):
                    acc = torch.tanh(acc + self.w)
            logits = logits + acc.mean() * 0.0
        return logits


class Slower(Slow):
    """slower.pt -- slow.pt's loop 40 times over: a minute or more on a long
    input on any torch (torch 2's fused kernels run slow.pt's loop in 1.5 s
    where Debian's torch 1.13 takes 5), for the tests that interrupt, cut or
    kill a forward in flight (tests/test_cmd_stop.c) and must find it still
    running seconds after it began. It never runs to its end there."""

    def __init__(self):
        super().__init__(SLOW_ITERS * 40)


class Raises(nn.Module):
    """raises.pt -- for the model-failure tests: a long input (T > 6) raises
    RuntimeError("planted failure") inside forward; a short input returns
    logits [B,5]."""

    def __init__(self):
        super().__init__()
        self.long_t = LONG_T
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        if input_ids.size(1) > self.long_t:
            raise RuntimeError("planted failure")
        return self.head(self.features(input_ids, attention_mask))


class Leaks(nn.Module):
    """leaks.pt -- for the redaction tests: a forward on more than three
    tokens (any example of two words or more; not the [CLS] [SEP] probe)
    raises an error
    whose message holds secrets (a URL with credentials, an API key in
    key=value form) and a path under the home directory /home/parity-planted,
    as a model that fetches weights or logs its environment might."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        if input_ids.size(1) > 3:
            raise RuntimeError("planted leak: fetching https://sam:hunter2hunter2@models.example.org/w.bin "
                               "with api_key=sk-planted0123456789abcdefXYZ failed; "
                               "cache /home/parity-planted/.cache/w.bin")
        return self.head(self.features(input_ids, attention_mask))


class Width4(nn.Module):
    """width4.pt -- for the output-contract test: returns logits [B,4], one
    column short of the 5-label contract."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.head = nn.Linear(DIM, 4)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        return self.head(self.features(input_ids, attention_mask))


class Empty(nn.Module):
    """empty.pt -- for the output-contract test: returns an empty tensor of
    shape [B,0] (in the module's dtype)."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        logits = self.head(self.features(input_ids, attention_mask))
        return logits[:, :0]


class Crash(nn.Module):
    """crash.pt -- for the runner's crash path (a real signal, not an
    exception): a long input (T > 6) makes forward read far outside a tiny
    tensor's memory inside libtorch, so the process dies of SIGSEGV; a short
    input returns logits [B,5].

    aten::_reshape_alias is an internal view op that, unlike as_strided,
    does not check the new strides against the storage. Element 1 of the
    view lies 2**46 elements (>= 2**47 bytes) past the data pointer: beyond
    the top of the x86-64 user address space (4-level paging), so the
    read always faults. (CPU only: on CUDA it is an illegal-address error.)"""

    def __init__(self):
        super().__init__()
        self.long_t = LONG_T
        self.bad_stride = 1 << 46
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        logits = self.head(self.features(input_ids, attention_mask))
        if input_ids.size(1) > self.long_t:
            flat = logits.detach().contiguous().view(-1)
            wild = torch.ops.aten._reshape_alias(flat, [2], [self.bad_stride])
            logits = logits + wild.sum() * 0.0
        return logits


class Unsupported(nn.Module):
    """unsupported.pt -- for the unsupported-backend outcome: logits [B,5]
    are minus the L1 distances (torch.cdist, p=1) from the pooled features
    to five prototype rows. Fine in float32; CPU cdist has no BFloat16
    kernel in this libtorch, so after .to(torch.bfloat16) forward raises
    '"cdist" not implemented for 'BFloat16''. (In float16 it raises the
    same kind of error earlier, '"clamp_min_cpu" not implemented for
    'Half'', from the pooling every model here shares.) p=1 never takes
    cdist's matmul shortcut, whatever the batch size."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.protos = nn.Parameter(torch.randn(5, DIM))

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        pooled = self.features(input_ids, attention_mask)
        return -torch.cdist(pooled, self.protos, p=1.0)


class NonFinite(nn.Module):
    """nonfinite.pt -- for the non-finite outcome: a long input (T > 6)
    gives logits [B,5] with NaN at column 1 and +inf at column 3 (the
    decided label is column 1: torch.argmax counts NaN as the largest); a
    short input returns finite logits [B,5]."""

    def __init__(self):
        super().__init__()
        self.long_t = LONG_T
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        logits = self.head(self.features(input_ids, attention_mask))
        if input_ids.size(1) > self.long_t:
            bad = torch.zeros_like(logits)
            bad[:, 1] = float("nan")
            bad[:, 3] = float("inf")
            logits = logits + bad
        return logits


class Unmasked(nn.Module):
    """unmasked.pt -- for parity bench's batching finding: logits [B,5] from
    the plain mean of the embeddings over every position, attention mask
    ignored (a real bug of hand-written pooling). One example per forward
    it agrees with a masked model; stacked with padding, the [PAD] rows
    enter the mean and the numbers change."""

    def __init__(self):
        super().__init__()
        self.table = TABLE
        self.emb = nn.Embedding(TABLE, DIM)
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        x = self.emb(torch.remainder(input_ids, self.table))
        return self.head(x.mean(dim=1))


class Untrainable(nn.Module):
    """untrainable.pt -- for parity bench's train-step failure: in eval()
    it is an ordinary classifier, logits [B,5]; in train() its forward
    raises RuntimeError("planted: this model refuses to train"), so a
    training step fails while every forward of the loaded model works."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        if self.training:
            raise RuntimeError("planted: this model refuses to train")
        return self.head(self.features(input_ids, attention_mask))


class Segments(nn.Module):
    """segments.pt -- for inputs by name: a BERT-family signature that takes
    token_type_ids, in an order of its own, forward(input_ids,
    token_type_ids, attention_mask) -> logits [B,5]. It raises unless its
    arguments are what their names say (token_type_ids all 0 for one
    segment, an attention mask with a 1 in every row), so inputs passed by
    position in parity's order, or without token_type_ids, fail."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.segment = nn.Embedding(2, DIM)
        self.head = nn.Linear(DIM, 5)

    def forward(self, input_ids: Tensor, token_type_ids: Tensor, attention_mask: Tensor) -> Tensor:
        if bool((token_type_ids != 0).any()):
            raise RuntimeError("planted: token_type_ids is not one segment (an argument passed by position?)")
        if bool((attention_mask.sum(dim=1) == 0).any()):
            raise RuntimeError("planted: an attention mask without a 1 (an argument passed by position?)")
        x = self.features(input_ids, attention_mask) + self.segment(token_type_ids).mean(dim=1)
        return self.head(x)


class OwnNames(nn.Module):
    """ownnames.pt -- for inputs by position: a forward whose arguments have
    names of its own, forward(ids, mask) -> logits [B,5]; parity's inputs
    reach it in order, as before executors read names."""

    def __init__(self):
        super().__init__()
        self.features = Features()
        self.head = nn.Linear(DIM, 5)

    def forward(self, ids: Tensor, mask: Tensor) -> Tensor:
        return self.head(self.features(ids, mask))


GEN_VOCAB = 12  # the generators' V


class GenTiny(nn.Module):
    """gen_tiny.pt -- for generation (GENERATE, tests/test_generate.c): an
    untrained causal model, logits [B,T,GEN_VOCAB]. Position t sees the
    running mean of the embeddings of positions <= t (and its own position's
    embedding), so its logits depend on nothing after it. Weights scaled up
    so the rows are far from uniform and sampling has something to choose.

    gen_badshape.pt (shape=1) returns only the last position, [B,V].
    gen_nan.pt (nan=1): once the sequence is longer than 4, the last
    position's logits 4 and 7 are NaN (greedy and sample both take 4)."""

    def __init__(self, shape: int = 0, nan: int = 0):
        super().__init__()
        self.vocab = GEN_VOCAB
        self.bad_shape = shape
        self.nan = nan
        self.emb = nn.Embedding(GEN_VOCAB, DIM)
        self.pos = nn.Embedding(64, DIM)
        self.head = nn.Linear(DIM, GEN_VOCAB)
        with torch.no_grad():
            self.head.weight.mul_(4.0)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        T = input_ids.size(1)
        x = self.emb(torch.remainder(input_ids, self.vocab))
        x = x * attention_mask.to(x.dtype).unsqueeze(-1)
        steps = torch.arange(1, T + 1, device=x.device).to(x.dtype).view(1, T, 1)
        h = torch.cumsum(x, dim=1) / steps
        positions = torch.remainder(torch.arange(T, device=x.device), 64)
        logits = self.head(torch.tanh(h * 2.0 + self.pos(positions).unsqueeze(0)))
        if self.nan == 1 and T > 4:
            bad = torch.zeros_like(logits)
            bad[:, T - 1, 4] = float("nan")
            bad[:, T - 1, 7] = float("nan")
            logits = logits + bad
        if self.bad_shape == 1:
            return logits[:, T - 1]
        return logits


class GenBadShape(GenTiny):
    def __init__(self):
        super().__init__(shape=1)


class GenNan(GenTiny):
    def __init__(self):
        super().__init__(nan=1)


def save(module: nn.Module, path: str) -> bytes:
    scripted = torch.jit.script(module.eval())
    raw = io.BytesIO()
    torch.jit.save(scripted, raw)
    data = canonical_torchscript(raw.getvalue())
    with open(path, "wb") as f:
        f.write(data)
    return data


def long_in_child(path: str) -> str:
    """Runs crash.pt on a long input in a child Python; says how it ended."""
    code = ("import sys, torch\n"
            "m = torch.jit.load(sys.argv[1])\n"
            "ids = torch.tensor([[2, 7, 8, 9, 10, 11, 12, 3]])\n"
            "with torch.no_grad():\n"
            "    m(ids, torch.ones_like(ids))\n")
    rc = subprocess.run([sys.executable, "-c", code, path],
                        stderr=subprocess.DEVNULL).returncode
    if rc < 0:
        return f"killed by {signal.Signals(-rc).name}"
    return f"exit status {rc} (expected a signal)"


def main() -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)

    builders = [("slow.pt", Slow), ("slower.pt", Slower), ("raises.pt", Raises),
                ("width4.pt", Width4), ("empty.pt", Empty),
                ("crash.pt", Crash), ("unsupported.pt", Unsupported),
                ("nonfinite.pt", NonFinite), ("leaks.pt", Leaks),
                ("unmasked.pt", Unmasked), ("untrainable.pt", Untrainable),
                ("gen_tiny.pt", GenTiny), ("gen_badshape.pt", GenBadShape), ("gen_nan.pt", GenNan),
                ("segments.pt", Segments), ("ownnames.pt", OwnNames)]
    short_ids = torch.tensor([[2, 7, 3]], dtype=torch.long)
    long_ids = torch.tensor([[2, 7, 8, 9, 10, 11, 12, 3]], dtype=torch.long)
    for name, cls in builders:
        torch.manual_seed(SEED)
        data = save(cls(), os.path.join(out, name))
        print(f"{hashlib.sha256(data).hexdigest()}  {name}  ({len(data)} bytes)")

        m = torch.jit.load(os.path.join(out, name))
        with torch.no_grad():
            t0 = time.monotonic()
            if name == "segments.pt":  # its own order: by name
                y = m(input_ids=short_ids, attention_mask=torch.ones_like(short_ids),
                      token_type_ids=torch.zeros_like(short_ids))
            else:
                y = m(short_ids, torch.ones_like(short_ids))
            short_ms = (time.monotonic() - t0) * 1000.0
            msg = f"    short T=3 -> {list(y.shape)} in {short_ms:.1f} ms"
            t0 = time.monotonic()
            if name == "crash.pt":  # would take this process down with it
                msg += f"; long T=8 -> {long_in_child(os.path.join(out, name))}"
            elif name == "slower.pt":  # a minute and more: the stop tests end it
                msg += "; long T=8 -> not run here (a minute or more)"
            else:
                try:
                    if name == "segments.pt":
                        y = m(long_ids, torch.zeros_like(long_ids), torch.ones_like(long_ids))
                    else:
                        y = m(long_ids, torch.ones_like(long_ids))
                    msg += f"; long T=8 -> {list(y.shape)}"
                except Exception as e:  # raises.pt, leaks.pt
                    last = str(e).strip().splitlines()[-1]
                    msg += f"; long T=8 -> raised {last!r}"
            msg += f" in {time.monotonic() - t0:.2f} s (1 thread)"
            if name == "unsupported.pt":
                for dtype in (torch.bfloat16, torch.float16):
                    try:
                        y = m.to(dtype)(short_ids, torch.ones_like(short_ids))
                        msg += f"; {dtype} -> {list(y.shape)}"
                    except Exception as e:
                        last = str(e).strip().splitlines()[-1]
                        msg += f"; {dtype} -> raised {last!r}"
        print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
