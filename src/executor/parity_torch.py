"""parity_torch.py: parity's executor for backends reachable only from Python.

The native TorchTPU backend (import torch_tpu, device "tpu"), torch_xla
(device "xla") and other Python-first backends cannot be driven from C++,
so this is parity-torch again, in Python: it loads one model (TorchScript,
and what only Python loads: a torch.export program, a Transformers model
directory) on one device/dtype and answers RUN frames on stdin with OUTPUT or FAIL frames
on stdout (TRAIN with TRAINED, GENERATE with GENERATED), speaking the
protocol of include/parity/proto.h (read that first: this file follows it
field by field; its choice of a generated token is src/proto/generate.c's, bit for
bit). Standard library and torch only (and transformers, imported only for
a Transformers model directory).

    PYTHON parity_torch.py --model PATH [--format torchscript|export|transformers|diffusers]
        [--kind classifier|generator|embedding|image [--pooling mean|cls|none] [--normalize]]
        [--optional-input NAME]... [--output NAME] [--device D] [--dtype T]
        [--threads N] [--tf32 on|off] [--matmul-precision highest|high|medium]
        [--backend-lib PATH] [--backend-module NAME]...
        [--compile-backend NAME [--compile-mode MODE] [--compile-dynamic true|false]]

--format says what --model is (load_model): a TorchScript file (the
default), a torch.export program (.pt2, torch 2) or a Transformers model
directory (save_pretrained's; the AutoModelFor... class --kind calls for,
local files and safetensors only, never remote code). Inputs go to the
forward by name where its signature names them; an --optional-input the
forward does not take is left out. --output names the output: the key of a
returned dict (a Transformers output's field), or the index into a returned
tuple when NAME is an integer (output_tensor). An embedding (--kind
embedding) is pooled from that output (--pooling, in float32) and, with
--normalize, divided by its L2 norm (pool_embedding): OUTPUT is its vector.

--backend-module NAME is imported before the device is opened (repeatable);
--compile-backend wraps the loaded model in torch.compile (torch 2; see
Compiled);
--backend-lib PATH is loaded with torch.ops.load_library. Both come from
parity's command line only, never from a fixture. Every failure becomes a
FAIL frame with its stage and kind; only a real crash (a signal) escapes,
and parity records that as the example's outcome.
"""

import heapq
import importlib
import math
import os
import platform
import struct
import sys
import time

# Python puts this script's own directory first on sys.path; a directory
# named torch beside it (parity's build tree has one) would then be
# imported as torch. Only the interpreter's own path finds torch.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

# include/parity/proto.h's and generate.h's constants (PX_NAME there), copied
# because this script stands alone; tests/proto_consts.py (make check)
# proves every one equal and fails on one missing.
PROTO_VERSION = 9
FRAME_READY = 0x59444552
FRAME_RUN = 0x204E5552
FRAME_OUTPUT = 0x2054554F
FRAME_FAIL = 0x4C494146
FRAME_TRAIN = 0x4E495254
FRAME_TRAINED = 0x444E5254
FRAME_GENERATE = 0x524E4547
FRAME_GENERATED = 0x444E4547
FRAME_DENOISE = 0x534E4544
FRAME_DENOISED = 0x444E4544
FRAME_TRAINRUN = 0x4E555254
FRAME_TRAINSTEP = 0x50545354
FRAME_TRAINEND = 0x444E4554
FRAME_DESCRIBE = 0x43534544
FRAME_DESCRIBED = 0x44435344
GEN_MAX_NEW = 1024
GEN_MAX_TOP = 16
GEN_GREEDY, GEN_SAMPLE = 1, 2
GEN_END_NONE, GEN_END_STOP, GEN_END_LENGTH = 0, 1, 2
MASK64 = (1 << 64) - 1
TRAIN_MAX_STEPS = 10000
TRAIN_RUN_MAX_STEPS = 100000  # fixture.h PX_TRAIN_RUN_MAX_STEPS
TRAIN_MAX_GROUPS = 16  # results.h
IMAGE_MAX_STEPS = 1000
IMAGE_MAX_SIDE = 4096
# results.h's: what parity keeps of one example's latents (proto_consts.py
# checks these against it too).
IMAGE_MAX_RECORDED = 256
IMAGE_MAX_LATENT = 65536
FRAME_MAX = 64 << 20
MAX_DIMS = 8
STAGE_DEVICE, STAGE_LOAD, STAGE_FORWARD = 1, 2, 3
FAIL_EXCEPTION, FAIL_UNSUPPORTED, FAIL_NO_TORCH = 1, 2, 3
# The Python package that gives torch a device it does not know, for the
# devices whose package is known: named when such a device is asked for
# with no --backend-module.
BACKEND_MODULES = {"tpu": "torch_tpu", "npu": "torch_npu", "musa": "torch_musa"}
COMPILED_UNKNOWN, COMPILED_NO, COMPILED_YES = 0, 1, 2
DTYPES = ("float32", "bfloat16", "float16", "float64")
# --matmul-precision's names, and the oneDNN fp32_precision each means on torch 2.9+.
PRECISIONS = {"highest": "ieee", "high": "tf32", "medium": "bf16"}
# Where a forward runs in inference_mode; elsewhere no_grad (Executor.grad_off).
INFERENCE_MODE_DEVICES = ("cpu", "cuda")
FORMATS = ("torchscript", "export", "transformers", "diffusers")
KINDS = ("classifier", "generator", "embedding", "image", "training")
PARALLELS = ("", "ddp", "fsdp")
POOLINGS = ("none", "mean", "cls")
USAGE = ("usage: parity_torch.py --model PATH [--format torchscript|export|transformers|diffusers] "
         "[--kind classifier|generator|embedding|image|training [--pooling mean|cls|none] [--normalize]] "
         "[--optional-input NAME]... [--output NAME] [--device D] [--dtype T] [--threads N] "
         "[--tf32 on|off] [--matmul-precision highest|high|medium] [--backend-lib PATH] "
         "[--backend-module NAME]... [--compile-backend NAME [--compile-mode MODE] "
         "[--compile-dynamic true|false]] [--mixed-precision-param T] [--mixed-precision-reduce T] "
         "[--parallel ddp|fsdp --processes N --dist-backend B [--progress FILE]]")


class Failure(Exception):
    def __init__(self, stage, message, kind=FAIL_EXCEPTION):
        super().__init__(message)
        self.stage, self.message, self.kind = stage, message, kind


class Frame:
    """A frame's payload being built: little-endian fields."""

    def __init__(self):
        self.parts = []

    def u32(self, v):
        self.parts.append(struct.pack("<I", v))

    def i64(self, v):
        self.parts.append(struct.pack("<q", v))

    def f64(self, v):
        self.parts.append(struct.pack("<d", v))

    def str(self, s):
        b = s.encode("utf-8", "replace")
        self.parts.append(struct.pack("<I", len(b)) + b)


class Reader:
    """A received payload with a read cursor; overruns raise Failure."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise Failure(STAGE_FORWARD, "protocol: truncated RUN frame")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def f64(self):
        return struct.unpack("<d", self.take(8))[0]

    def i64(self):
        return struct.unpack("<q", self.take(8))[0]

    def i64s(self, n):
        return struct.unpack("<%dq" % n, self.take(8 * n))

    def str(self):
        return self.take(self.u32()).decode("utf-8", "replace")


def splitmix64(state):
    """(new state, z): src/proto/generate.c's gen_splitmix64, in 64-bit wrapping."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def gen_argmax(row):
    """torch.argmax's choice: the first NaN, else the lowest id of the largest."""
    best = 0
    for i, v in enumerate(row):
        if v != v:
            return i
        if v > row[best]:
            best = i
    return best


def gen_order(row):
    """Every id of row as a top list: NaN first (lower id first), then logit
    descending, ties lower id first (src/proto/generate.c's order)."""
    nan = [i for i, v in enumerate(row) if v != v]
    rest = sorted((i for i, v in enumerate(row) if v == v), key=lambda i: -row[i])  # stable: ties keep id order
    return nan + rest


def gen_top(row, r):
    """The first r of gen_order(row), in O(V log r), as (id, logit) pairs."""
    key = lambda i: (0, 0.0, i) if row[i] != row[i] else (1, -row[i], i)
    return [(i, row[i]) for i in heapq.nsmallest(r, range(len(row)), key=key)] if r else []


def gen_choose(row, settings, state):
    """(id, new state): src/proto/generate.c's gen_choose, bit for bit (the same
    float64 operations in the same order; math.exp is libm's exp)."""
    decoding, temperature, top_k = settings
    if decoding != GEN_SAMPLE:
        return gen_argmax(row), state
    state, z = splitmix64(state)
    u = float(z >> 11) * (1.0 / 9007199254740992.0)
    for i, v in enumerate(row):
        if v != v:
            return i, state
    if 0 < top_k < len(row):  # O(V log k): the first top_k of gen_order
        cand = heapq.nsmallest(top_k, range(len(row)), key=lambda i: (-row[i], i))
    else:
        cand = gen_order(row)
    m = row[cand[0]]
    if m in (float("inf"), float("-inf")):
        return gen_argmax(row), state
    w = [math.exp((row[i] - m) / temperature) for i in cand]
    total = 0.0
    for x in w:
        total += x
    c = 0.0
    for i, x in zip(cand, w):
        c += x
        if u * total < c:
            return i, state
    return cand[-1], state


def gen_top_t(torch, host, r):
    """gen_top on host (a step's float64 row on the CPU, as a tensor), in
    about O(V) in C: the NaN ids first (lower id first), then of the rest
    every id at least as large as the k-th largest (torch.topk's value:
    ties at the edge all come), ordered by logit descending with ties lower
    id first in Python, on those few."""
    if not r:
        return []
    nan = torch.isnan(host)
    ids = nan.nonzero().flatten()[:r].tolist() if bool(nan.any()) else []
    need = r - len(ids)
    if need > 0:
        rest = (~nan).nonzero().flatten() if ids else None
        vals = host if rest is None else host[rest]
        edge = torch.topk(vals, need).values[-1]
        pick = (vals >= edge).nonzero().flatten()
        pv = vals[pick].tolist()
        pi = (pick if rest is None else rest[pick]).tolist()
        ids += [pi[j] for j in sorted(range(len(pi)), key=lambda j: -pv[j])[:need]]  # stable: ties keep id order
    return list(zip(ids, host[torch.tensor(ids, dtype=torch.int64)].tolist()))


def gen_choose_t(torch, host, settings, state):
    """gen_choose on the tensor, bit for bit (the same float64 operations in
    the same order); greedy is torch.argmax itself (the first NaN, else the
    lowest id of the largest). The candidates come from a stable descending
    sort, which is gen_order's order (torch puts NaN above every number and
    keeps equal ones, -0.0 and 0.0 too, in id order); only a sample sorts."""
    decoding, temperature, top_k = settings
    if decoding != GEN_SAMPLE:
        return int(torch.argmax(host)), state
    state, z = splitmix64(state)
    u = float(z >> 11) * (1.0 / 9007199254740992.0)
    if bool(torch.isnan(host).any()):
        return int(torch.argmax(host)), state  # the first NaN
    k = top_k if 0 < top_k < host.numel() else host.numel()
    cand = torch.sort(host, descending=True, stable=True).indices[:k]
    ids, logits = cand.tolist(), host[cand].tolist()
    m = logits[0]
    if m in (float("inf"), float("-inf")):
        return int(torch.argmax(host)), state
    w = [math.exp((v - m) / temperature) for v in logits]
    total = 0.0
    for x in w:
        total += x
    c = 0.0
    for i, x in zip(ids, w):
        c += x
        if u * total < c:
            return i, state
    return ids[-1], state


# Up to this many logits a row, a step is chosen in Python on a list (a
# few torch calls cost more than the loops); above it, on the tensor
# (gen_*_t), where a Python loop over a real vocabulary (32k to 256k ids)
# would cost milliseconds a token. Both give the same ids and top lists
# (tests/test_cmd_kvcache.c checks them against each other).
GEN_LIST_MAX_V = 2048


def gen_step(torch, host, settings, state, r):
    """(id, new state, top r pairs) for one step's float64 row on the host."""
    if host.numel() <= GEN_LIST_MAX_V:
        row = host.tolist()
        tid, state = gen_choose(row, settings, state)
        return tid, state, gen_top(row, r)
    tid, state = gen_choose_t(torch, host, settings, state)
    return tid, state, gen_top_t(torch, host, r)


class Channel:
    """stdin and the protocol's own copy of stdout."""

    def __init__(self, out_fd):
        self.out_fd = out_fd

    def send(self, ftype, frame):
        payload = b"".join(frame.parts)
        data = struct.pack("<II", ftype, len(payload)) + payload
        try:
            view = memoryview(data)
            while view:
                n = os.write(self.out_fd, view)
                view = view[n:]
        except OSError:
            os._exit(3)  # parent gone: nothing left to tell anyone

    def fail(self, stage, kind, message):
        f = Frame()
        f.u32(stage)
        f.u32(kind)
        f.str(message)
        self.send(FRAME_FAIL, f)

    @staticmethod
    def _read(n):
        chunks, left = [], n
        while left:
            b = os.read(0, left)
            if not b:
                return None
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)

    def receive(self):
        """(type, payload), or None at EOF or on a bad header."""
        hdr = self._read(8)
        if hdr is None:
            return None
        ftype, n = struct.unpack("<II", hdr)
        if n > FRAME_MAX:
            return None
        payload = self._read(n) if n else b""
        return None if payload is None else (ftype, payload)


def parse_args(argv):
    opts = {"model": None, "device": "cpu", "dtype": "float32", "threads": 1, "tf32": "",
            "matmul_precision": "", "backend_lib": "", "backend_modules": [], "format": "torchscript",
            "kind": "classifier", "optional_inputs": [], "output": "", "pooling": "none", "normalize": False,
            "compile_backend": "", "compile_mode": "default", "compile_dynamic": "", "mp_param": "",
            "mp_reduce": "", "parallel": "", "processes": "1", "dist_backend": "gloo", "progress": ""}
    names = {"--model": "model", "--device": "device", "--dtype": "dtype", "--threads": "threads",
             "--tf32": "tf32", "--matmul-precision": "matmul_precision", "--backend-lib": "backend_lib",
             "--format": "format", "--kind": "kind", "--output": "output", "--pooling": "pooling",
             "--compile-backend": "compile_backend", "--compile-mode": "compile_mode",
             "--compile-dynamic": "compile_dynamic", "--mixed-precision-param": "mp_param",
             "--mixed-precision-reduce": "mp_reduce", "--parallel": "parallel", "--processes": "processes",
             "--dist-backend": "dist_backend", "--progress": "progress"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--version":
            print("parity_torch.py (Python %s)" % platform.python_version())
            sys.exit(0)
        if a == "--normalize":
            opts["normalize"] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            return None
        v = argv[i + 1]
        i += 2
        if a == "--backend-module":
            opts["backend_modules"].append(v)
        elif a == "--optional-input":
            opts["optional_inputs"].append(v)
        elif a in names:
            opts[names[a]] = v
        else:
            return None
    try:
        opts["threads"] = int(opts["threads"])
        opts["processes"] = int(opts["processes"])
    except ValueError:
        return None
    if opts["parallel"] not in PARALLELS or opts["processes"] < 1:
        return None
    for k in ("mp_param", "mp_reduce"):
        if opts[k] and opts[k] not in DTYPES:
            return None
    if opts["compile_dynamic"] not in ("", "true", "false"):
        return None
    if opts["format"] not in FORMATS or opts["kind"] not in KINDS or opts["pooling"] not in POOLINGS:
        return None
    return opts if opts["model"] else None


def say(line):
    """One line on stderr, at once (a module may print much after it)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name") and ":" in line:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


def unsupported(text):
    """The wording of 'this backend cannot do that', kept apart from a
    defect: torch's dispatcher ("Could not run 'aten::op' with arguments
    from the 'PrivateUse1' backend", on torch 2 naming a renamed device:
    "... from the 'tpu' backend"; TorchScript raises it as a
    NotImplementedError whose text begins with its traceback) and its
    kernels' dtype dispatch ("\"op\" not implemented for 'BFloat16'")."""
    return ("not implemented for" in text or "NotImplementedError" in text
            or ("Could not run '" in text and "backend" in text))


def failure_of(exc, stage):
    if isinstance(exc, Failure):
        return exc
    text = str(exc) or type(exc).__name__
    kind = FAIL_UNSUPPORTED if isinstance(exc, NotImplementedError) or unsupported(text) else FAIL_EXCEPTION
    return Failure(stage, text, kind)


class Compiled:
    """torch.compile around the loaded model (an environment's compile:,
    parity-fixture(5)), after it was moved to the device and dtype. Nothing
    is compiled before the first forward of a shape, which is therefore
    timed as what it is (OUTPUT's compiled: count() grew). torch.compile
    refuses a TorchScript module: one is first converted to an exported
    program by torch's own converter (torch._export.converter), with that
    first forward's inputs as its sample, then compiled; the converter
    specialises the dimensions of size 0 or 1 of its sample, so a shape
    that differs there is converted (and compiled) apart."""

    def __init__(self, torch, model, backend, mode, dynamic):
        self.torch, self.model = torch, model
        # mode "default" is torch's None: a backend other than inductor is
        # then called exactly as torch.compile(backend=...) calls it.
        self.kw = {"backend": backend, "mode": None if mode == "default" else mode, "dynamic": dynamic}
        self.script = isinstance(model, torch.jit.ScriptModule)
        self.fns = {} if self.script else {None: torch.compile(model, **self.kw)}
        self.conversions = 0

    def key(self, args, kwargs):
        if not self.script:
            return None
        ts = list(args) + [kwargs[k] for k in sorted(kwargs)]
        return tuple(sorted(kwargs)) + tuple(
            tuple(d if d < 2 else -1 for d in t.shape) if isinstance(t, self.torch.Tensor) else None for t in ts)

    def positional(self, args, kwargs):
        """A TorchScript forward's inputs bound by name (Executor.forward)
        as the positional arguments they name, when they are its first ones
        in order: torch's converter miscounts a ScriptModule's inputs given
        by keyword ("input_values:24 vs param_count_list:22")."""
        names = forward_names(self.model) if self.script and kwargs and not args else None
        if names and list(kwargs) == names[:len(kwargs)]:
            return tuple(kwargs[n] for n in names[:len(kwargs)]), {}
        return args, kwargs

    def __call__(self, *args, **kwargs):
        args, kwargs = self.positional(args, kwargs)
        k = self.key(args, kwargs)
        fn = self.fns.get(k)
        if fn is None:
            from torch._export.converter import TS2EPConverter
            ep = TS2EPConverter(self.model, tuple(args), dict(kwargs) or None).convert()
            self.conversions += 1
            fn = self.fns[k] = self.torch.compile(ep.module(), **self.kw)
        return fn(*args, **kwargs)

    def count(self):
        """Graphs compiled so far (dynamo's, and the conversions)."""
        from torch._dynamo.utils import counters
        return counters["stats"]["unique_graphs"] + self.conversions

    def __deepcopy__(self, memo):
        # TRAIN copies the module: a compiled training step (backward
        # included) is not what parity compiles.
        raise Failure(STAGE_FORWARD, "a compiled environment (compile:) is not trained by parity: run train-step "
                      "in an environment without compile:", FAIL_UNSUPPORTED)


def torch_major_minor(torch):
    try:
        return tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    except ValueError:
        return (0, 0)


def float_dtypes(tensors):
    """The dtypes of the floating-point tensors among tensors, as names
    ("float32"), sorted."""
    return sorted({str(t.dtype).replace("torch.", "") for t in tensors if t.is_floating_point()})


def load_model(torch, path, fmt, kind, device, dtype):
    """The model at path, of format fmt ("torchscript", "export",
    "transformers") and kind ("classifier", "generator", "embedding": a
    Transformers directory's AutoModel, its token states), loaded on the CPU
    in dtype as its user loads it (below), moved to device, in eval mode,
    and how it was loaded (READY's load, in the user's words): a callable
    whose forward takes input_ids, attention_mask (and token_type_ids where
    it does) by name and returns logits (a tensor, a tuple whose first
    element they are, or a mapping with "logits", as a Transformers
    ModelOutput is). A Transformers model comes back as itself (its forward
    also takes past_key_values and use_cache). Raises Failure(STAGE_LOAD)
    with what is needed when this interpreter cannot load the format, or
    this dtype cannot be had from the file.

    As users load (parity-fixture(5) "Formats"): a Transformers directory
    with from_pretrained(dtype=...), which keeps the buffers a model computes
    in float32 (RoPE's inv_freq) in float32; a TorchScript module as saved
    when its parameters are in dtype already, else cast with .to(dtype), as
    its user casts one (every floating parameter and buffer); an export
    program as exported: it runs in the dtype it was exported in, and a cast
    of its module fails every forward ("Tensor dtype mismatch"), so another
    dtype is refused here."""
    here = "%s (torch %s)" % (sys.executable or "python", torch.__version__)
    how = None
    if fmt == "torchscript":
        m = torch.jit.load(path, map_location="cpu")
        if float_dtypes(m.parameters()) == [str(dtype).replace("torch.", "")]:
            how = "torch.jit.load()"
        else:
            m = m.to(dtype)
            how = "torch.jit.load().to(%s)" % dtype
    elif fmt == "export":
        if torch_major_minor(torch) < (2, 1) or not hasattr(getattr(torch, "export", None), "load"):
            raise Failure(STAGE_LOAD, "format export (a torch.export program) needs torch 2.1 or later "
                          "(torch.export.load); %s cannot load it" % here, FAIL_UNSUPPORTED)
        ep = torch.export.load(path)
        export_dtype_check(ep, path, dtype)
        if device.type != "cpu":
            # An exported graph names the device it was exported on: its
            # input guards (_guards_fn), _assert_tensor_metadata and every
            # factory call (arange(..., device=cpu)) say cpu, and
            # module().to(device) moves the weights only, so the first
            # forward on the device fails "Tensor device mismatch! Expected:
            # cpu". torch's own pass rewrites all of them (it changes ep).
            try:
                from torch.export.passes import move_to_device_pass
            except ImportError:
                raise Failure(STAGE_LOAD, "format export on device %s needs torch.export.passes."
                              "move_to_device_pass (torch 2.3 or later); %s lacks it" % (device, here),
                              FAIL_UNSUPPORTED)
            ep = move_to_device_pass(ep, device)
        m = ep.module()
        how = "torch.export.load().module()"
    elif fmt == "transformers":
        # Nothing is fetched: the directory is all there is (parity pinned
        # every file of it), and its code is transformers' own, never the
        # directory's (trust_remote_code=False), its weights safetensors,
        # never a pickle.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        if torch_major_minor(torch) < (2, 0):
            raise Failure(STAGE_LOAD, "format transformers needs torch 2 and the transformers package; "
                          "%s is too old: choose an interpreter that has them with --python PATH or "
                          "PARITY_PYTHON" % here, FAIL_UNSUPPORTED)
        try:
            transformers = importlib.import_module("transformers")
        except Exception as e:
            raise Failure(STAGE_LOAD, "format transformers needs the transformers package (pip install "
                          "transformers safetensors), which %s cannot import: %s: %s; or choose an interpreter "
                          "that has it with --python PATH or PARITY_PYTHON"
                          % (here, type(e).__name__, e), FAIL_UNSUPPORTED)
        # Its progress bars would fill the stderr tail parity keeps for a
        # crash report.
        getattr(getattr(getattr(transformers, "utils", None), "logging", None), "disable_progress_bar",
                lambda: None)()
        auto = {"generator": transformers.AutoModelForCausalLM, "training": transformers.AutoModelForCausalLM,
                "embedding": transformers.AutoModel}.get(kind, transformers.AutoModelForSequenceClassification)
        # Loaded in the environment's dtype, whatever dtype the config
        # names, as a user loads it: not cast afterwards, which would also
        # round the buffers transformers keeps in float32 (RoPE's inv_freq)
        # and give other logits than the user's model (issue 38).
        # transformers 5 calls the argument dtype, 4 torch_dtype.
        major = int(str(getattr(transformers, "__version__", "4")).split(".")[0] or 4)
        word = "dtype" if major >= 5 else "torch_dtype"
        m = auto.from_pretrained(path, local_files_only=True, trust_remote_code=False, use_safetensors=True,
                                 **{word: dtype})
        how = "from_pretrained(%s=%s)" % (word, dtype)
        if kind == "training":  # proto.h TRAINRUN: READY says the class too
            how = "AutoModelForCausalLM." + how
    else:
        raise Failure(STAGE_LOAD, "unknown model format '%s' (%s)" % (fmt, ", ".join(FORMATS)))
    m = m.to(device)
    if fmt != "export":
        m.eval()  # an exported program is traced in eval mode already and refuses eval()
    return m, how


def export_dtype_check(ep, path, dtype):
    """Refuses (Failure at load) an export program whose floating-point
    parameters are not all in dtype: its graph asserts the dtypes it was
    exported with, so a cast module fails every forward with "Tensor dtype
    mismatch". A program without floating parameters passes (its forwards
    tell)."""
    params = [ep.state_dict[n] for n in getattr(ep.graph_signature, "parameters", ()) if n in ep.state_dict]
    have, want = float_dtypes(params), str(dtype).replace("torch.", "")
    if not have or have == [want]:
        return
    raise Failure(STAGE_LOAD, "%s is a torch.export program exported in %s, and this environment's dtype is %s: "
                  "an exported program runs only in the dtype it was exported in; export the model in %s (loaded "
                  "as your users load it, e.g. from_pretrained(..., dtype=torch.%s), then torch.export.export) "
                  "or give this environment dtype: %s"
                  % (os.path.basename(path), " and ".join(have), want, want, want, have[0]), FAIL_UNSUPPORTED)


def forward_names(model):
    """The names of the forward's arguments (self left out), or None when
    it has none to read."""
    schema = getattr(getattr(model, "forward", None), "schema", None)
    if schema is not None:  # a ScriptModule's method
        return [a.name for a in schema.arguments[1:]]
    try:
        import inspect
        params = inspect.signature(model.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def bind_inputs(names, named, optional):
    """(args, kwargs) for a forward with argument names `names` (None: not
    known) of the inputs `named` [(name, tensor)] as parity sent them, an
    optional one the forward does not take left out: by name when the
    forward names every one of them, otherwise in the order sent (a forward
    of its own names, forward(ids, mask), as before names were read)."""
    sent = [(n, t) for n, t in named if not (n in optional and (names is None or n not in names))]
    if names is None or not sent or any(n not in names for n, _ in sent):
        return [t for _, t in sent], {}
    return [], dict(sent)


def forward_returns(model):
    """The forward's declared return type, as its schema or annotation
    writes it ("Dict(str, Tensor)"), or "" when it has none."""
    schema = getattr(getattr(model, "forward", None), "schema", None)
    if schema is not None:
        return ", ".join(str(r.type) for r in schema.returns)
    try:
        import inspect
        ann = inspect.signature(model.forward).return_annotation
    except (TypeError, ValueError, AttributeError):
        return ""
    if ann is inspect.Signature.empty:
        return ""
    return ann if isinstance(ann, str) else getattr(ann, "__name__", None) or str(ann)


# DESCRIBED's figures read from parameter names (proto.h): the position
# embedding's rows, the classifier head's width.
POSITION_SUFFIX = "position_embeddings.weight"
HEAD_SUFFIXES = ("classifier.out_proj.weight", "classifier.weight", "score.weight")
WORD_EMBEDDINGS_SUFFIX = "word_embeddings.weight"
# Transformers model types whose positions start after the padding index
# (RoBERTa's: max_position_embeddings 514 for 512 tokens).
PADDED_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "data2vec-text", "xlm-roberta-xl")


def describe_model(model, fmt, kind):
    """(positions, head, hidden): the largest number of positions the model
    takes, its classifier head's width and its hidden width, each -1 when
    it cannot be read: from a Transformers model's config where it has one
    (hidden_size), else from the parameters' names (the rows of
    *position_embeddings.weight; those of a head *classifier.weight,
    *classifier.out_proj.weight, *score.weight; the columns of
    *word_embeddings.weight)."""
    positions = head = hidden = -1
    config = getattr(model, "config", None) if fmt == "transformers" else None
    if config is not None:
        n = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        if isinstance(n, int) and n > 0:
            positions = n
            pad = getattr(config, "pad_token_id", None)
            if getattr(config, "model_type", "") in PADDED_POSITIONS and isinstance(pad, int):
                positions = n - pad - 1
        labels = getattr(config, "num_labels", None)
        if kind == "classifier" and isinstance(labels, int) and labels > 0:
            head = labels
        width = getattr(config, "hidden_size", None)
        if isinstance(width, int) and width > 0:
            hidden = width
    try:
        params = list(model.named_parameters())
    except Exception:
        params = []
    for name, p in params:
        if positions < 0 and name.endswith(POSITION_SUFFIX) and p.dim() == 2:
            positions = int(p.shape[0])
        if head < 0 and kind == "classifier" and any(name.endswith(s) for s in HEAD_SUFFIXES) and p.dim() == 2:
            head = int(p.shape[0])
        if hidden < 0 and name.endswith(WORD_EMBEDDINGS_SUFFIX) and p.dim() == 2:
            hidden = int(p.shape[1])
    return positions, head, hidden


# --- The image kind (--kind image, --format diffusers; proto.h DENOISE) ---
#
# A Diffusers pipeline directory loaded as its users load it, and
# DiTPipeline's denoising loop written out step by step, so that the
# latent after each step can be recorded and the first step timed apart:
# with the same CPU generator in float32 its image is DiTPipeline's, bit
# for bit (tests/image_agree.py holds it to that). Only the initial noise
# differs from a plain call on another device or dtype: it is drawn on the
# CPU in float32 and then moved, so every environment starts from the same.


def load_pipeline(torch, path, device, dtype):
    """(pipeline, how) for a save_pretrained directory: DiffusionPipeline.
    from_pretrained in dtype, local files and safetensors only, then moved
    to device. Only a class-conditional transformer pipeline (DiTPipeline's
    components: transformer, vae, scheduler) is run; another is refused at
    load saying what it has."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    here = "%s (torch %s)" % (sys.executable or "python", torch.__version__)
    if torch_major_minor(torch) < (2, 0):
        raise Failure(STAGE_LOAD, "format diffusers needs torch 2 and the diffusers package; %s is too old"
                      % here, FAIL_UNSUPPORTED)
    try:
        diffusers = importlib.import_module("diffusers")
    except Exception as e:
        raise Failure(STAGE_LOAD, "format diffusers needs the diffusers package (pip install diffusers), which %s "
                      "cannot import: %s: %s; or choose an interpreter that has it with --python PATH or "
                      "PARITY_PYTHON" % (here, type(e).__name__, e), FAIL_UNSUPPORTED)
    getattr(getattr(getattr(diffusers, "utils", None), "logging", None), "disable_progress_bar", lambda: None)()
    # diffusers 0.36 on calls the argument dtype (torch_dtype is deprecated
    # there, with a warning in the stderr tail parity keeps), before torch_dtype.
    utils = importlib.import_module("diffusers.pipelines.pipeline_utils")
    word = "dtype" if hasattr(utils, "_resolve_dtype") else "torch_dtype"
    pipe = diffusers.DiffusionPipeline.from_pretrained(path, local_files_only=True, use_safetensors=True,
                                                       **{word: dtype})
    missing = [c for c in ("transformer", "vae", "scheduler") if getattr(pipe, c, None) is None]
    if missing or getattr(pipe.transformer.config, "num_embeds_ada_norm", None) is None:
        raise Failure(STAGE_LOAD, "%s is a %s: parity runs a class-conditional DiT pipeline (DiTPipeline: a "
                      "transformer with num_embeds_ada_norm, a vae, a scheduler)%s"
                      % (path, type(pipe).__name__, "; it has no " + ", ".join(missing) if missing else ""),
                      FAIL_UNSUPPORTED)
    pipe = pipe.to(device)
    return pipe, "DiffusionPipeline.from_pretrained(%s=%s)" % (word, dtype)


def vae_scale(pipe):
    return 2 ** (len(pipe.vae.config.block_out_channels) - 1)


def read_denoise(payload):
    """DENOISE's fields, as a dict; a short or long frame is malformed."""
    r = Reader(payload)
    try:
        req = {"class_id": r.u32(), "seed": r.i64() & MASK64, "steps": r.u32(), "guidance": r.f64(),
               "height": r.u32(), "width": r.u32(), "every": r.u32()}
    except Failure:
        raise Failure(STAGE_FORWARD, "protocol: truncated DENOISE frame")
    if r.pos != len(payload):
        raise Failure(STAGE_FORWARD, "protocol: DENOISE frame of %d bytes, not %d" % (len(payload), r.pos))
    return req


def recorded_steps(steps, every):
    """The 0-based steps whose latent is recorded: each every-th, and the last."""
    return [i for i in range(steps) if (i + 1) % every == 0 or i == steps - 1]


def check_denoise(req, pipe):
    """Failure(stage forward, "protocol: ...") for a DENOISE this pipeline
    cannot answer as asked: steps, sizes (a DiT makes sample_size x VAE
    scale pixels, nothing else), latent_every, the class, the guidance, or a
    DENOISED that would not fit a frame or parity's bounds."""
    cfg, f = pipe.transformer.config, vae_scale(pipe)
    side = cfg.sample_size * f
    latent = cfg.in_channels * cfg.sample_size * cfg.sample_size

    def bad(what):
        raise Failure(STAGE_FORWARD, "protocol: DENOISE " + what)

    if not 1 <= req["steps"] <= IMAGE_MAX_STEPS:
        bad("steps %d not in 1 .. %d" % (req["steps"], IMAGE_MAX_STEPS))
    if not (1 <= req["height"] <= IMAGE_MAX_SIDE and 1 <= req["width"] <= IMAGE_MAX_SIDE):
        bad("size %d x %d not in 1 .. %d" % (req["height"], req["width"], IMAGE_MAX_SIDE))
    if (req["height"], req["width"]) != (side, side):
        bad("size %d x %d: this DiT makes %d x %d (sample_size %d x the VAE's scale factor %d)"
            % (req["height"], req["width"], side, side, cfg.sample_size, f))
    if req["every"] < 1:
        bad("latent_every 0 (at least 1)")
    if req["class_id"] >= cfg.num_embeds_ada_norm:
        bad("class_id %d: the denoiser has class embeddings 0 .. %d (%d is the null class)"
            % (req["class_id"], cfg.num_embeds_ada_norm - 1, cfg.num_embeds_ada_norm))
    if not math.isfinite(req["guidance"]):
        bad("guidance_scale %r" % req["guidance"])
    n_rec = len(recorded_steps(req["steps"], req["every"]))
    if n_rec > IMAGE_MAX_RECORDED or latent > IMAGE_MAX_LATENT:
        bad("would record %d latents of %d values (at most %d of %d): raise latent_every"
            % (n_rec, latent, IMAGE_MAX_RECORDED, IMAGE_MAX_LATENT))
    size = 8 * (side * side * 3 + n_rec * (latent + 1)) + 1024
    if size > FRAME_MAX:
        bad("answer of %d bytes > the frame's %d: raise latent_every" % (size, FRAME_MAX))


def draw_noise(torch, seed, shape):
    """(noise, hex sha256): torch.randn drawn on the CPU in float32 from
    torch.Generator("cpu").manual_seed(seed), as DiTPipeline draws with a
    CPU generator, and the digest of its float32 bytes (little-endian, C
    order)."""
    import hashlib
    g = torch.Generator("cpu").manual_seed(seed)
    noise = torch.randn(shape, generator=g, dtype=torch.float32)
    data = noise.contiguous().numpy().astype("<f4").tobytes()
    return noise, hashlib.sha256(data).hexdigest()


def dit_step(torch, pipe, denoiser, x, t, labels, guidance, channels):
    """One step of DiTPipeline.__call__'s loop, op for op: x is the model
    input (doubled under guidance); returns the next one."""
    if guidance > 1:
        half = x[: len(x) // 2]
        x = torch.cat([half, half], dim=0)
    x = pipe.scheduler.scale_model_input(x, t)
    ts = t if torch.is_tensor(t) else torch.tensor([t], device=x.device)
    if len(ts.shape) == 0:
        ts = ts[None].to(x.device)
    ts = ts.expand(x.shape[0])
    pred = denoiser(x, timestep=ts, class_labels=labels).sample
    if guidance > 1:
        eps, rest = pred[:, :channels], pred[:, channels:]
        cond, uncond = torch.split(eps, len(eps) // 2, dim=0)
        half_eps = uncond + guidance * (cond - uncond)
        eps = torch.cat([half_eps, half_eps], dim=0)
        pred = torch.cat([eps, rest], dim=1)
    if pipe.transformer.config.out_channels // 2 == channels:
        pred, _ = torch.split(pred, channels, dim=1)
    return pipe.scheduler.step(pred, t, x).prev_sample


def decode_image(pipe, latents):
    """DiTPipeline's ending: the VAE's decode of latents / scaling_factor
    (written as it writes it), (x / 2 + 0.5).clamp(0, 1), then [H, W, C]
    float32 on the host (output_type "np")."""
    latents = 1 / pipe.vae.config.scaling_factor * latents
    samples = pipe.vae.decode(latents).sample
    samples = (samples / 2 + 0.5).clamp(0, 1)
    return samples.cpu().permute(0, 2, 3, 1).float()[0]


def send_denoised(chan, dtype, image, digest, latent_shape, records, steps, first_ms, total_ms, compiled):
    """DENOISED (proto.h), field by field."""
    f = Frame()
    f.str(dtype)
    h, w, c = image.shape
    for v in (h, w, c):
        f.u32(v)
    values = image.double().reshape(-1).tolist()
    f.parts.append(struct.pack("<%dd" % len(values), *values))
    f.str(digest)
    f.u32(len(latent_shape))
    for d in latent_shape:
        f.i64(d)
    f.u32(len(records))
    for step, vals in records:
        f.u32(step)
        f.parts.append(struct.pack("<%dd" % len(vals), *vals))
    f.u32(steps)
    f.f64(first_ms)
    f.f64(total_ms)
    f.u32(compiled)
    chan.send(FRAME_DENOISED, f)


def is_index(name):
    return name.lstrip("-").isdigit()


class Executor:
    def __init__(self, torch, opts):
        self.torch, self.o = torch, opts
        self.modules = []  # (name, version, module)
        self.device = self.dtype = self.model = None
        self.xla_metrics = None
        self.compiled = None  # a Compiled when --compile-backend
        self.sync = None  # the device's synchronize (choose_sync); None: nothing to wait for
        self.inference = True  # inference_mode (True) or no_grad (grad_off)
        self.rank, self.world, self.train = 0, 1, None  # a training run's (start_training)
        self.progress = None  # a parallel run's marks (--progress: parity_train.progress_marks)

    def start_training(self):
        """--kind training: parity_train.py, beside this file, imported;
        with --parallel, torch.distributed started from torchrun's
        environment (parity_train.dist_init) before the model loads."""
        o = self.o
        if o["kind"] != "training":
            return
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        self.train = importlib.import_module("parity_train")
        if o["parallel"]:
            if "RANK" not in os.environ:
                raise Failure(STAGE_LOAD, "--parallel %s: start this executor with torchrun (python -m "
                              "torch.distributed.run --nproc-per-node %d ...)" % (o["parallel"], o["processes"]),
                              FAIL_UNSUPPORTED)
            self.rank, self.world = self.train.dist_init(o["dist_backend"])
            self.progress = self.train.progress_marks(o["progress"], self.rank)

    def import_backends(self):
        for name in self.o["backend_modules"]:
            # parity reads these lines (src/run/child.c, IMPORTING): a start-up that
            # ends or times out in an import is the device stage's, that
            # module's.
            say("parity_torch.py: importing backend module %s" % name)
            try:
                mod = importlib.import_module(name)
            except BaseException as e:  # SystemExit too: a module must not end us
                raise Failure(STAGE_DEVICE, "backend module '%s': %s: %s" % (name, type(e).__name__, e),
                              FAIL_UNSUPPORTED)
            version = getattr(mod, "__version__", None)
            if version is None:
                try:
                    from importlib import metadata
                    version = metadata.version(name.replace("_", "-"))
                except Exception:
                    version = "unknown"
            self.modules.append((name, str(version), mod))
            if name == "torch_xla":
                try:
                    self.xla_metrics = importlib.import_module("torch_xla.debug.metrics")
                except Exception:
                    self.xla_metrics = None
        if self.o["backend_modules"]:
            say("parity_torch.py: backend modules imported")

    def open_device(self):
        torch, o = self.torch, self.o
        if o["backend_lib"]:
            try:
                torch.ops.load_library(o["backend_lib"])
            except Exception as e:
                raise Failure(STAGE_DEVICE, "backend library: %s" % e, FAIL_UNSUPPORTED)
        self.import_backends()
        if o["dtype"] not in DTYPES:
            raise Failure(STAGE_DEVICE, "unknown dtype '%s' (%s)" % (o["dtype"], ", ".join(DTYPES)),
                          FAIL_UNSUPPORTED)
        self.dtype = getattr(torch, o["dtype"])
        try:
            self.device = torch.device(o["device"])
        except Exception as e:
            self.device = self.name_library_device(e)
        self.privateuse1_module()
        if self.device.type == "cuda":
            if not torch.cuda.is_available():
                raise Failure(STAGE_DEVICE, "device '%s': this torch has no usable CUDA" % o["device"],
                              FAIL_UNSUPPORTED)
            if (self.device.index or 0) >= torch.cuda.device_count():
                raise Failure(STAGE_DEVICE, "device '%s': only %d CUDA device(s)"
                              % (o["device"], torch.cuda.device_count()), FAIL_UNSUPPORTED)
        if o["matmul_precision"] and o["matmul_precision"] not in PRECISIONS:
            raise Failure(STAGE_DEVICE, "matmul precision '%s' (highest, high or medium)"
                          % o["matmul_precision"], FAIL_UNSUPPORTED)
        self.set_precision()
        if o["threads"] > 0:
            torch.set_num_threads(o["threads"])
        # A device the backend does not know, or a dtype it cannot hold,
        # fails here with the backend's own words, not in the first forward.
        try:
            torch.zeros(1, dtype=self.dtype).to(self.device).to("cpu")
        except Exception as e:
            raise failure_of(e, STAGE_DEVICE)
        self.choose_sync()
        self.inference = self.device.type in INFERENCE_MODE_DEVICES

    def name_library_device(self, unknown):
        """A device torch does not know (`tpu`) with a --backend-lib: on
        torch 2, the library's PrivateUse1 device is given that name
        (torch.utils.rename_privateuse1_backend), as a backend's Python
        package does for itself (TorchTPU: "tpu"), and as parity-torch does
        with c10::register_privateuse1_backend; unless a backend module has
        named it already. Torch 1.13 cannot rename: the error says so."""
        torch, o = self.torch, self.o
        kind = o["device"].split(":")[0]
        rename = getattr(getattr(torch, "utils", None), "rename_privateuse1_backend", None)
        name_of = getattr(torch._C, "_get_privateuse1_backend_name", None)
        if not o["backend_lib"] or not kind:
            # A backend module that presents a device names it when it finds
            # one (TorchTPU renames PrivateUse1 only when it counts a TPU):
            # say who was asked before torch's own words.
            asked = ""
            if self.modules and name_of is not None:
                asked = " (imported %s, which named no device '%s'; PrivateUse1 is still '%s')" % (
                    ", ".join(m[0] for m in self.modules), kind, name_of())
            elif not self.modules:
                # Nothing was asked to open it: say what would (issue 38).
                known = BACKEND_MODULES.get(kind)
                # The same words as parity-torch's (name_library_device).
                asked = (": torch opens it once its backend is loaded: --backend-module %s%s on executor: "
                         "python, or --backend-lib PATH for a PrivateUse1 library; torch says" % (
                             known or "MODULE", " (the package that provides '%s')" % kind if known else ""))
            raise Failure(STAGE_DEVICE, "unknown device '%s'%s: %s" % (o["device"], asked, unknown),
                          FAIL_UNSUPPORTED)
        if rename is None or name_of is None:
            raise Failure(STAGE_DEVICE, "unknown device '%s': %s; naming a --backend-lib device '%s' takes torch 2 "
                          "(torch.utils.rename_privateuse1_backend), and this is torch %s, which knows it only as "
                          "privateuseone" % (o["device"], unknown, kind, torch.__version__), FAIL_UNSUPPORTED)
        if name_of() != "privateuseone":
            raise Failure(STAGE_DEVICE, "unknown device '%s': %s (the PrivateUse1 device is named '%s' already)"
                          % (o["device"], unknown, name_of()), FAIL_UNSUPPORTED)
        try:
            rename(kind)
            return torch.device(o["device"])
        except Exception as e:
            raise Failure(STAGE_DEVICE, "device '%s': %s" % (o["device"], e), FAIL_UNSUPPORTED)

    def choose_sync(self):
        """How to wait for the device before a clock is read: a forward on
        an asynchronous device (CUDA, a TPU) returns before its work is done,
        and a lazy one has not even started it, so a timer read without it
        measures the queueing, and work left over (the inputs' upload) lands
        in the next figure. torch.accelerator.synchronize where torch has it
        and the device is the accelerator (torch 2: CUDA, a renamed
        PrivateUse1 device such as tpu), else the device module's
        torch.<type>.synchronize (torch 1.13's torch.cuda); none for the CPU,
        or for a device with neither. Tried once here: a backend whose
        synchronize raises is not synchronized (its figures are what the
        host saw, as before), and says so on stderr."""
        torch, dev = self.torch, self.device
        if dev.type == "cpu":
            return
        acc = getattr(torch, "accelerator", None)
        current = getattr(acc, "current_accelerator", None)
        fn = None
        if callable(current) and callable(getattr(acc, "synchronize", None)):
            cur = current()
            if cur is not None and cur.type == dev.type:
                fn = lambda: acc.synchronize(dev)
        if fn is None:
            mod_sync = getattr(getattr(torch, dev.type, None), "synchronize", None)
            if callable(mod_sync):
                fn = lambda: mod_sync()
        if fn is None:
            return
        try:
            fn()
        except Exception as e:
            say("parity_torch.py: device %s cannot synchronize (%s: %s): timed without it" % (dev, type(e).__name__, e))
            return
        self.sync = fn

    def synchronize(self):
        if self.sync is not None:
            self.sync()

    def grad_off(self):
        """The forwards' context: inference_mode on the CPU and CUDA, whose
        kernels torch itself guarantees for inference tensors; no_grad on
        every other device (a PrivateUse1 backend such as a TPU's, XLA),
        some of which refuse inference tensors (no version counter, no view
        tracking for their functionalization), and which no_grad costs
        nothing numerically."""
        return self.torch.inference_mode() if self.inference else self.torch.no_grad()

    def fp32_api(self):
        """Torch 2's per-backend precision settings (torch.backends.cuda.matmul,
        .mkldnn.matmul, .cudnn.conv: fp32_precision "ieee", "tf32", "bf16" or
        "none", inherit), where this torch has them (2.9 on); None before."""
        b = self.torch.backends
        return b if hasattr(b, "fp32_precision") and hasattr(getattr(b, "mkldnn", None), "matmul") else None

    def set_precision(self):
        """--matmul-precision and --tf32. Where torch has the per-backend
        settings, they are set (what torch.set_float32_matmul_precision maps
        the name to: highest ieee for both, high tf32 for both, medium tf32
        for CUDA and bf16 for oneDNN; tf32 on|off cuda.matmul and cudnn.conv
        tf32|ieee) and the deprecated global ones are left alone: torch
        refuses to report one precision once the two APIs are mixed. Else
        set_float32_matmul_precision and allow_tf32, as torch 1.13 has them."""
        torch, o, b = self.torch, self.o, self.fp32_api()
        p, tf32 = o["matmul_precision"], o["tf32"]
        if b is not None:
            if p:
                b.cuda.matmul.fp32_precision = "ieee" if p == "highest" else "tf32"
                b.mkldnn.matmul.fp32_precision = PRECISIONS[p]
            if tf32:
                b.cuda.matmul.fp32_precision = b.cudnn.conv.fp32_precision = "tf32" if tf32 == "on" else "ieee"
            return
        if p:
            torch.set_float32_matmul_precision(p)
        if tf32:
            torch.backends.cuda.matmul.allow_tf32 = tf32 == "on"
            torch.backends.cudnn.allow_tf32 = tf32 == "on"

    def precision_in_force(self):
        """READY's matmul_precision: the name (highest, high, medium) and,
        on a torch with per-backend settings and a setting given, the one
        this device's matmuls read: cpu "mkldnn.matmul", cuda "cuda.matmul"
        (torch itself can no longer give one name once they differ, as
        "medium" makes them)."""
        torch, b = self.torch, self.fp32_api()
        if b is None:
            return torch.get_float32_matmul_precision()
        mk = b.mkldnn.matmul.fp32_precision
        name = {"bf16": "medium", "tf32": "high"}.get(mk, "highest")
        if not self.o["matmul_precision"] and not self.o["tf32"]:
            return name
        if self.device.type == "cpu":
            return "%s (mkldnn.matmul.fp32_precision %s)" % (name, mk)
        if self.device.type == "cuda":
            return "%s (cuda.matmul.fp32_precision %s)" % (name, b.cuda.matmul.fp32_precision)
        return name

    def privateuse1_module(self):
        """Torch 2 imports torch.<name> (the device module) before it moves a
        tensor to a PrivateUse1 device, and fails with "No module named
        'torch.privateuseone'" when there is none. A backend's Python package
        registers its own (torch.utils.rename_privateuse1_backend and
        torch._register_device_module); a C++ library loaded with
        --backend-lib cannot, so an empty one stands in, and the device is
        then known or unknown in libtorch's own words, as on torch 1.13
        (which imports nothing)."""
        torch = self.torch
        name_of = getattr(torch._C, "_get_privateuse1_backend_name", None)
        if name_of is None or self.device.type != name_of() or hasattr(torch, self.device.type):
            return
        import types
        torch._register_device_module(self.device.type, types.ModuleType("torch." + self.device.type))

    def load(self):
        o = self.o
        if (o["kind"] == "image") != (o["format"] == "diffusers"):
            raise Failure(STAGE_LOAD, "--kind %s with --format %s: an image pipeline is a Diffusers directory "
                          "(--kind image --format diffusers), and a Diffusers directory an image pipeline"
                          % (o["kind"], o["format"]), FAIL_UNSUPPORTED)
        if o["kind"] == "training" and o["format"] != "transformers":
            raise Failure(STAGE_LOAD, "--kind training trains a causal LM of --format transformers "
                          "(AutoModelForCausalLM), not --format %s" % o["format"], FAIL_UNSUPPORTED)
        if o["kind"] == "image":
            # The denoiser is what a forward is, and what compile: wraps.
            self.pipe, self.how_loaded = load_pipeline(self.torch, o["model"], self.device, self.dtype)
            self.model = self.pipe.transformer
        else:
            self.model, self.how_loaded = load_model(self.torch, o["model"], o["format"], o["kind"], self.device,
                                                     self.dtype)
        self.loaded = self.model  # what a training run copies (never the compiled wrapper)
        self.names = forward_names(self.model)
        self.returns = forward_returns(self.model)
        self.described = describe_model(self.model, o["format"], o["kind"])
        self.optional = set(o["optional_inputs"])
        self.default_key = "last_hidden_state" if o["kind"] == "embedding" and o["pooling"] != "none" else "logits"

    def forward(self, model, named):
        """model's output for the named inputs [(name, tensor)], bound by name."""
        args, kwargs = bind_inputs(self.names, named, self.optional)
        return model(*args, **kwargs)

    def compile_model(self):
        """--compile-backend: the model, on its device and dtype, wrapped in
        torch.compile (Compiled). A backend torch does not know (a module's
        that no --backend-module registered) and a torch without
        torch.compile (1.x) fail here, at load, in words."""
        torch, o = self.torch, self.o
        if not o["compile_backend"]:
            return
        if not callable(getattr(torch, "compile", None)):
            raise Failure(STAGE_LOAD, "compile: torch.compile needs torch 2.0 or newer; this interpreter (%s) has "
                          "torch %s" % (sys.executable or "python", torch.__version__), FAIL_UNSUPPORTED)
        import torch._dynamo
        known = torch._dynamo.list_backends(exclude_tags=())
        if o["compile_backend"] not in known:
            raise Failure(STAGE_LOAD, "compile: torch.compile has no backend '%s' (a --backend-module registers "
                          "its own; registered: %s)" % (o["compile_backend"], ", ".join(known)), FAIL_UNSUPPORTED)
        dynamic = {"true": True, "false": False}.get(o["compile_dynamic"])
        self.compiled = Compiled(torch, self.model, o["compile_backend"], o["compile_mode"], dynamic)
        self.model = self.compiled

    def device_name(self):
        torch, dev = self.torch, self.device
        if dev.type == "cpu":
            return cpu_name()
        if dev.type == "cuda":
            return torch.cuda.get_device_name(dev.index or 0)
        if dev.type == "xla":
            try:
                xm = importlib.import_module("torch_xla.core.xla_model")
                return "%s (%s)" % (xm.xla_device_hw(dev), dev)
            except Exception:
                pass
        # A backend module that follows torch.cuda's shape (torch.tpu, ...).
        mod = getattr(torch, dev.type, None)
        getter = getattr(mod, "get_device_name", None)
        if callable(getter):
            try:
                return str(getter(dev.index or 0))
            except Exception:
                pass
        return str(dev)

    def ignored(self):
        o, dev = self.o, self.device
        given = [k for k in ("matmul_precision", "tf32") if o[k]]
        if not given or dev.type == "cuda":
            return ""
        major = int(self.torch.__version__.split(".")[0])
        if dev.type == "cpu" and major < 2:
            return "%s: torch %s reads this for CUDA matmuls only, not on the CPU" % (
                " and ".join(given), self.torch.__version__)
        if dev.type == "cpu" and o["tf32"] and self.fp32_api() is not None:
            return ("tf32: torch %s reads this for CUDA only (cuda.matmul and cudnn.conv fp32_precision), not on "
                    "the CPU" % self.torch.__version__)
        return ""

    def ready(self, chan, load_ms):
        f = Frame()
        f.u32(PROTO_VERSION)
        f.str("python")
        f.str("%s %s" % (platform.python_implementation(), platform.python_version()))
        f.str(self.torch.__version__)
        f.str(", ".join(m[0] for m in self.modules))
        f.str(", ".join(m[1] for m in self.modules))
        f.str(str(self.device))
        f.str(self.device_name())
        f.str(self.o["dtype"])
        f.str(self.o["tf32"])
        f.str(self.precision_in_force())
        f.str(self.ignored())
        f.f64(load_ms)
        f.str(self.how_loaded)
        chan.send(FRAME_READY, f)

    def compile_count(self):
        if self.compiled is not None:
            return self.compiled.count()
        if self.xla_metrics is None:
            return None
        try:
            data = self.xla_metrics.metric_data("CompileTime")
            return data[0] if data else 0
        except Exception:
            return None

    def output_tensor(self, v):
        """The output of the forward's value v (proto.h, Model handling): v
        itself when a tensor; else --output's entry of a dict (a
        Transformers output is one), "logits" when not given (an embedding
        pooled mean or cls: "last_hidden_state"); the --output'th element of
        a tuple (a name: the first)."""
        torch, name = self.torch, self.o["output"]
        if isinstance(v, torch.Tensor):
            return v
        if isinstance(v, dict):  # a Transformers ModelOutput is an OrderedDict
            key = name or self.default_key
            if isinstance(v.get(key), torch.Tensor):
                return v[key]
            keys = ", ".join(str(k) for k in v.keys()) or "none"
            if name:
                raise Failure(STAGE_FORWARD, "model returned a dict with keys %s, not '%s': name one in "
                              "contract.model.output" % (keys, name))
            raise Failure(STAGE_FORWARD, "model returned a dict with keys %s: name one in contract.model.output"
                          % keys)
        if isinstance(v, (tuple, list)):
            if name and is_index(name):
                i = int(name)
                if 0 <= i < len(v) and isinstance(v[i], torch.Tensor):
                    return v[i]
                raise Failure(STAGE_FORWARD, "model returned a tuple of %d, and output %s is %s: name an index "
                              "0..%d in contract.model.output" % (len(v), name, "not a tensor" if 0 <= i < len(v)
                                                                   else "out of range", len(v) - 1))
            if name in ("", "logits", self.default_key) and v and isinstance(v[0], torch.Tensor):
                return v[0]
            raise Failure(STAGE_FORWARD, "model returned a tuple of %d%s: name an index 0..%d in "
                          "contract.model.output" % (len(v), ", not a dict" if name else "", len(v) - 1))
        raise Failure(STAGE_FORWARD, "model returned %s, not a tensor, a tuple or a dict" % type(v).__name__)

    def pool_embedding(self, out, inputs):
        """An embedding's vectors [B, D] from the output (proto.h, Embedding),
        in float32 on the output as the model gave it: mean, the token
        states [B, T, D] summed over the attention mask sent (all ones when
        none was) and divided by max(the mask's sum, 1e-9) (sentence-
        transformers' mean pooling); cls, token 0's state; none, the output
        itself, which must be [B, D]. --normalize then divides each row by
        max(its L2 norm, 1e-12) (torch.nn.functional.normalize)."""
        torch, pooling = self.torch, self.o["pooling"]
        x = out.to(torch.float32)
        shape = "[%s]" % ",".join(str(d) for d in out.shape)
        if pooling == "none":
            if x.dim() != 2:
                return x  # parity judges the shape: bad-shape, the shape it had
        else:
            mask = dict(inputs).get("attention_mask")
            if x.dim() != 3 or (mask is not None and tuple(mask.shape) != tuple(x.shape[:2])):
                raise Failure(STAGE_FORWARD, "pooling %s needs the model's token states [B, T, D], but the model "
                              "gave %s: name them in contract.model.output, or pooling: none for a model that "
                              "gives the vector" % (pooling, shape))
            if pooling == "cls":
                x = x[:, 0]
            else:
                m = (mask if mask is not None else torch.ones(x.shape[:2], dtype=torch.int64, device=x.device))
                m = m.unsqueeze(-1).expand(x.size()).to(torch.float32)
                x = torch.sum(x * m, 1) / torch.clamp(m.sum(1), min=1e-9)
        if self.o["normalize"]:
            x = x / x.norm(p=2, dim=1, keepdim=True).clamp_min(1e-12)
        return x

    def denoise(self, chan, payload):
        """DENOISE (proto.h): the noise drawn on the CPU and handed over,
        DiTPipeline's loop step by step (dit_step) recording the conditional
        half's latent after each latent_every-th step and the last, the
        decode, DENOISED. Timed after the device is synchronized: the first
        step alone (any compilation) and the whole call."""
        torch, pipe = self.torch, getattr(self, "pipe", None)
        if pipe is None:
            raise Failure(STAGE_FORWARD, "protocol: DENOISE to a model that is not an image pipeline "
                          "(--kind %s)" % self.o["kind"])
        req = read_denoise(payload)
        check_denoise(req, pipe)
        cfg = pipe.transformer.config
        channels, size, guided = cfg.in_channels, cfg.sample_size, req["guidance"] > 1
        keep = set(recorded_steps(req["steps"], req["every"]))
        before = self.compile_count()
        self.synchronize()
        t0 = time.perf_counter()
        noise, digest = draw_noise(torch, req["seed"], (1, channels, size, size))
        records, first_ms = [], 0.0
        with self.grad_off():
            x = noise.to(self.device).to(self.dtype)
            x = torch.cat([x] * 2) if guided else x
            labels = torch.tensor([req["class_id"]], device=self.device).reshape(-1)
            if guided:
                labels = torch.cat([labels, torch.tensor([cfg.num_embeds_ada_norm], device=self.device)], 0)
            pipe.scheduler.set_timesteps(req["steps"])
            for i, t in enumerate(pipe.scheduler.timesteps):
                x = dit_step(torch, pipe, self.model, x, t, labels, req["guidance"], channels)
                if i == 0:
                    self.synchronize()
                    first_ms = (time.perf_counter() - t0) * 1000.0
                if i in keep:
                    cond = x.chunk(2, dim=0)[0] if guided else x
                    records.append((i, cond.detach().to("cpu").double().reshape(-1).tolist()))
            latents = x.chunk(2, dim=0)[0] if guided else x
            dtype = str(latents.dtype).replace("torch.", "")
            image = decode_image(pipe, latents)
        self.synchronize()
        total_ms = (time.perf_counter() - t0) * 1000.0
        after = self.compile_count()
        compiled = COMPILED_UNKNOWN if before is None or after is None else (
            COMPILED_YES if after > before else COMPILED_NO)
        send_denoised(chan, dtype, image, digest, list(latents.shape), records, len(pipe.scheduler.timesteps),
                      first_ms, total_ms, compiled)

    def describe(self, chan, payload):
        """DESCRIBED (proto.h): the forward's argument names, its declared
        return type, the largest position, the head's width, the hidden
        width."""
        f = Frame()
        names = self.names
        f.u32(0 if names is None else 1)
        f.u32(len(names or []))
        for n in names or []:
            f.str(n)
        f.str(self.returns)
        f.i64(self.described[0])
        f.i64(self.described[1])
        f.i64(self.described[2])
        chan.send(FRAME_DESCRIBED, f)

    def read_inputs(self, r, payload):
        """The inputs of a RUN frame (and of TRAIN's batch), on the device."""
        torch = self.torch
        inputs = []
        for _ in range(r.u32()):
            name = r.str()
            ndim = r.u32()
            if ndim > MAX_DIMS:
                raise Failure(STAGE_FORWARD, "protocol: too many dimensions")
            dims = r.i64s(ndim)
            count = 1
            for d in dims:
                count *= d
            if count < 0 or 8 * count > len(payload) - r.pos:
                raise Failure(STAGE_FORWARD, "protocol: truncated RUN frame")
            t = torch.tensor(r.i64s(count), dtype=torch.int64).reshape(dims)
            inputs.append((name, t.to(self.device)))
        return inputs

    def run_one(self, chan, payload):
        torch = self.torch
        if self.o["kind"] == "image":
            raise Failure(STAGE_FORWARD, "protocol: an image pipeline (--kind image) answers DENOISE, not RUN")
        inputs = self.read_inputs(Reader(payload), payload)
        before = self.compile_count()
        self.synchronize()  # the inputs' upload is not the forward's
        t0 = time.perf_counter()
        with self.grad_off():
            out = self.output_tensor(self.forward(self.model, inputs))
            dtype = str(out.dtype).replace("torch.", "")
            if self.o["kind"] == "embedding":
                out = self.pool_embedding(out, inputs)
            host = out.detach().to("cpu").to(torch.float64).contiguous()
        self.synchronize()
        ms = (time.perf_counter() - t0) * 1000.0
        after = self.compile_count()
        f = Frame()
        f.str(dtype)
        f.u32(host.dim())
        for d in host.shape:
            f.i64(d)
        values = host.reshape(-1).tolist()
        f.i64(len(values))
        f.parts.append(struct.pack("<%dd" % len(values), *values))
        f.f64(ms)
        if before is None or after is None:
            f.u32(COMPILED_UNKNOWN)
        else:
            f.u32(COMPILED_YES if after > before else COMPILED_NO)
        chan.send(FRAME_OUTPUT, f)

    def generate(self, chan, payload):
        """GENERATE (proto.h): step after step in inference mode, a forward
        of the whole sequence so far, or for a model with a KV cache (a
        Transformers causal LM, see uses_cache) the prompt once and then
        each new token against the cache; each step's last row goes to the
        host as float64 and is chosen from there exactly as
        src/proto/generate.c does. An output not [1, T+s, V] (with the
        cache: [1, T, V], then [1, 1, V]) at any step is answered with its
        shape and no steps. Read, generate and answer are the C++ executor's
        read_generate, generate_steps, send_generated."""
        req = self.read_generate(payload)
        self.synchronize()
        t_all = time.perf_counter()
        reply = self.generate_steps(req)
        self.synchronize()
        self.send_generated(chan, reply, (time.perf_counter() - t_all) * 1000.0)

    @staticmethod
    def read_generate(payload):
        """The GENERATE request: its limits, stop ids, decoding settings
        and the prompt (input_ids and attention_mask, each [1, T])."""
        r = Reader(payload)
        bad = Failure(STAGE_FORWARD, "protocol: malformed GENERATE frame")
        max_new, n_stop = r.u32(), r.u32()
        if not 1 <= max_new <= GEN_MAX_NEW or 8 * n_stop > len(payload) - r.pos:
            raise bad
        stop = set(r.i64s(n_stop))
        decoding, temperature, top_k = r.u32(), r.f64(), r.u32()
        seed, report_top = r.i64() & MASK64, r.u32()
        if (decoding not in (GEN_GREEDY, GEN_SAMPLE) or (decoding == GEN_SAMPLE and not temperature > 0)
                or top_k >= 1 << 31 or report_top > GEN_MAX_TOP):
            raise bad
        wants = Failure(STAGE_FORWARD, "protocol: GENERATE wants input_ids and attention_mask, each [1, T]")
        names, ids, T = [], None, None
        n_inputs = r.u32()
        for _ in range(n_inputs):
            name = r.str()
            ndim = r.u32()
            dims = r.i64s(ndim) if ndim == 2 else ()
            if (ndim != 2 or dims[0] != 1 or dims[1] < 1 or (T is not None and dims[1] != T)
                    or 8 * dims[1] > len(payload) - r.pos or name not in ("input_ids", "attention_mask")):
                raise wants
            T = dims[1]
            values = list(r.i64s(T))
            names.append(name)
            if name == "input_ids":
                ids = values
        if r.pos != len(payload) or sorted(names) != ["attention_mask", "input_ids"]:
            raise wants
        return {"max_new": max_new, "stop": stop, "settings": (decoding, temperature, top_k), "seed": seed,
                "report_top": report_top, "names": names, "ids": ids}

    def uses_cache(self):
        """Whether generation decodes with the model's KV cache: a
        Transformers causal LM does (it can generate, and its forward takes
        past_key_values and use_cache), so a token's cost does not grow with
        the text; a TorchScript module never does (its forward is
        (input_ids, attention_mask) -> logits, nothing to carry)."""
        m, torch = self.model, self.torch
        if m is None or isinstance(m, torch.jit.ScriptModule):
            return False
        can = getattr(m, "can_generate", None)
        try:
            return callable(can) and bool(can())
        except Exception:
            return False

    def step_forward(self, names, ids, past, cached):
        """One step's forward: (logits [1, t, V], the cache to carry, t).
        Without the cache, the whole sequence (t = len(ids)); with it, the
        prompt on the first step (past None) and then the one new id, with
        the attention mask over all len(ids) positions (the model takes the
        new position from the cache's length)."""
        torch = self.torch
        new = ids if past is None or not cached else ids[-1:]
        id_t = torch.tensor([new], dtype=torch.int64).to(self.device)
        mask_t = torch.ones((1, len(ids)), dtype=torch.int64).to(self.device)
        if not cached:
            out = self.forward(self.model, [(nm, mask_t if nm == "attention_mask" else id_t) for nm in names])
            return self.output_tensor(out), None, len(new)
        out = self.model(input_ids=id_t, attention_mask=mask_t, past_key_values=past, use_cache=True)
        # A model that gives no cache back is fed the whole sequence next step.
        return self.output_tensor(out), getattr(out, "past_key_values", None), len(new)

    def generate_steps(self, req, cache=None):
        """The steps: (dtype, shape, chosen ids, their top lists, end,
        first forward's ms, each step's ms). cache: None decides by the
        model (uses_cache); False or True only from tests/bench/generate.sh,
        which times both ways on one model (a fixture cannot choose it:
        the model's format does)."""
        torch, ids = self.torch, list(req["ids"])
        cached = self.uses_cache() if cache is None else cache
        dtype, shape, chosen, tops, step_ms = "", [], [], [], []
        V, nr, end, state, first_ms, past = 0, 0, GEN_END_LENGTH, req["seed"], 0.0, None
        with self.grad_off():
            for step in range(req["max_new"]):
                self.synchronize()
                t0 = time.perf_counter()
                out, past, t = self.step_forward(req["names"], ids, past, cached)
                if step == 0:
                    dtype = str(out.dtype).replace("torch.", "")
                    V = out.shape[2] if out.dim() == 3 else 0
                if out.dim() != 3 or out.shape[0] != 1 or out.shape[1] != t or out.shape[2] != V or V < 1:
                    shape = list(out.shape)
                    if step == 0:
                        self.synchronize()
                        first_ms = (time.perf_counter() - t0) * 1000.0
                    chosen, end = [], GEN_END_NONE
                    break
                host = out[0, t - 1].detach().to("cpu").to(torch.float64)
                self.synchronize()
                step_ms.append((time.perf_counter() - t0) * 1000.0)
                if step == 0:
                    first_ms = step_ms[0]
                    shape = list(out.shape)
                    nr = min(req["report_top"], V)
                tid, state, top = gen_step(torch, host, req["settings"], state, nr)
                chosen.append(tid)
                tops.append(top)
                if tid in req["stop"]:
                    end = GEN_END_STOP
                    break
                ids.append(tid)
        return dtype, shape, chosen, tops, end, first_ms, step_ms

    @staticmethod
    def send_generated(chan, reply, total_ms):
        """GENERATED (proto.h) for what generate_steps gave (each step's
        ms stays here: the frame carries the first and the total)."""
        dtype, shape, chosen, tops, end, first_ms = reply[:6]
        f = Frame()
        f.str(dtype)
        f.u32(len(shape))
        for d in shape:
            f.i64(d)
        f.u32(len(chosen))
        for tid, top in zip(chosen, tops):
            f.i64(tid)
            f.u32(len(top))
            for i, _ in top:
                f.i64(i)
            for _, v in top:
                f.f64(v)
        f.u32(end)
        f.f64(first_ms)
        f.f64(total_ms)
        chan.send(FRAME_GENERATED, f)

    def train_steps(self, chan, payload):
        """TRAIN (proto.h): steps SGD steps on a copy of the module, so the
        loaded one answers every later RUN exactly as before. The copy is made
        under no_grad (a ScriptModule's deepcopy otherwise gives parameters
        that are not leaves); then they require grad, and each step runs
        outside inference mode, in train()."""
        import copy
        torch = self.torch
        r = Reader(payload)
        steps, lr = r.u32(), r.f64()
        if steps == 0 or steps > TRAIN_MAX_STEPS or not lr > 0:
            raise Failure(STAGE_FORWARD, "protocol: malformed TRAIN frame")
        inputs = self.read_inputs(r, payload)
        n = r.u32()
        if 8 * n > len(payload) - r.pos:
            raise Failure(STAGE_FORWARD, "protocol: truncated TRAIN frame")
        targets = torch.tensor(r.i64s(n), dtype=torch.int64).to(self.device)
        with torch.inference_mode(False), torch.enable_grad():
            with torch.no_grad():
                model = copy.deepcopy(self.model)
            model.train()
            params = list(model.parameters())
            for p in params:
                p.requires_grad_(True)
            opt = torch.optim.SGD(params, lr=lr)
            # torch_xla records lazily: each step ends its graph (mark_step),
            # as an XLA training loop does, or the steps pile into one.
            mark_step = None
            if any(m[0] == "torch_xla" for m in self.modules):
                try:
                    mark_step = importlib.import_module("torch_xla.core.xla_model").mark_step
                except Exception:
                    mark_step = None
            loss, ms = [], []
            for _ in range(steps):
                self.synchronize()
                t0 = time.perf_counter()
                opt.zero_grad()
                out = self.output_tensor(self.forward(model, inputs))
                step_loss = torch.nn.functional.cross_entropy(out, targets)
                step_loss.backward()
                opt.step()
                if mark_step is not None:
                    mark_step()
                loss.append(step_loss.detach().to("cpu").to(torch.float64).item())
                self.synchronize()
                ms.append((time.perf_counter() - t0) * 1000.0)
        f = Frame()
        f.u32(steps)
        f.parts.append(struct.pack("<%dd" % steps, *loss))
        f.parts.append(struct.pack("<%dd" % steps, *ms))
        chan.send(FRAME_TRAINED, f)

    # --- Training runs (--kind training, --format transformers; proto.h
    # TRAINRUN). The loop is parity_train.py's (train_run); this is the
    # glue: the frame decoded and checked, the environment handed over,
    # each step sent as TRAINSTEP as it ends, TRAINEND at the end. ---

    def read_trainrun(self, payload):
        """TRAINRUN's fields as parity_train's request dict; a frame that is
        not exactly them, or an id past the model's vocab_size, is
        Failure(stage forward, "protocol: ...")."""
        torch = self.torch
        r = Reader(payload)
        try:
            steps, bs, sl, opt = r.u32(), r.u32(), r.u32(), r.u32()
            beta1, beta2, eps, wd, mom, clip = (r.f64() for _ in range(6))
            seed = r.i64() & MASK64
            if not 1 <= steps <= TRAIN_RUN_MAX_STEPS or 8 * steps > len(payload) - r.pos:
                raise Failure(STAGE_FORWARD, "protocol: TRAINRUN of %d steps (1 .. %d)" % (steps, TRAIN_RUN_MAX_STEPS))
            lr = list(struct.unpack("<%dd" % steps, r.take(8 * steps)))
            nw = r.u32()
        except Failure:
            raise Failure(STAGE_FORWARD, "protocol: truncated TRAINRUN frame")
        if bs < 1 or sl < 1 or nw < 1 or opt not in (1, 2):
            raise Failure(STAGE_FORWARD, "protocol: TRAINRUN batch_size %d, seq_len %d, %d windows, optimizer %d"
                          % (bs, sl, nw, opt))
        n = nw * (sl + 1)
        if 8 * n != len(payload) - r.pos:
            raise Failure(STAGE_FORWARD, "protocol: TRAINRUN of %d bytes, its fields %d"
                          % (len(payload), r.pos + 8 * n))
        windows = torch.frombuffer(bytearray(payload[r.pos:]), dtype=torch.int64).view(nw, sl + 1)
        if sys.byteorder != "little":
            windows = windows.byteswap() if hasattr(windows, "byteswap") else windows
        vocab = getattr(getattr(self.loaded, "config", None), "vocab_size", None)
        lo, hi = int(windows.min()), int(windows.max())
        if lo < 0 or (vocab and hi >= vocab):
            raise Failure(STAGE_FORWARD, "protocol: TRAINRUN id %d, outside the model's vocab_size %s"
                          % (hi if lo >= 0 else lo, vocab))
        return dict(steps=steps, batch_size=bs, seq_len=sl, optimizer="adamw" if opt == 1 else "sgd",
                    beta1=beta1, beta2=beta2, eps=eps, weight_decay=wd, momentum=mom, clip_grad_norm=clip,
                    seed=seed, lr=lr, windows=windows)

    def train_env(self):
        """parity_train's env (/tmp/iface.md, the glue's interface)."""
        torch, o = self.torch, self.o
        mark_step = None
        if any(m[0] == "torch_xla" for m in self.modules):
            try:
                mark_step = importlib.import_module("torch_xla.core.xla_model").mark_step
            except Exception:
                mark_step = None
        return dict(device=self.device, dtype=self.dtype,
                    mp_param=getattr(torch, o["mp_param"]) if o["mp_param"] else None,
                    mp_reduce=getattr(torch, o["mp_reduce"]) if o["mp_reduce"] else None,
                    parallel=o["parallel"] or None, rank=self.rank, world=self.world, sync=self.synchronize,
                    compile_count=self.compile_count, mark_step=mark_step, progress=self.progress)

    def trainrun(self, chan, payload):
        """TRAINRUN (proto.h) on rank 0: decoded, handed to the other ranks
        (parity_train.broadcast_request), trained, each TRAINSTEP sent from
        on_step, then TRAINEND. Any exception is FAIL(stage forward), "rank
        R: ..." in a parallel environment (main)."""
        if self.o["kind"] != "training":
            raise Failure(STAGE_FORWARD, "protocol: TRAINRUN to a model that is not trained (--kind %s)"
                          % self.o["kind"])
        req = self.read_trainrun(payload)
        if req["batch_size"] % self.world:
            raise Failure(STAGE_FORWARD, "protocol: TRAINRUN batch_size %d is not a multiple of the %d processes"
                          % (req["batch_size"], self.world))
        req = self.train.broadcast_request(req)

        def on_step(step, loss, grad_norm, update_norm, lr, step_ms, compiled):
            f = Frame()
            f.u32(step)
            for v in (loss, grad_norm, update_norm, lr, step_ms):
                f.f64(float(v))
            f.u32(compiled if compiled in (COMPILED_UNKNOWN, COMPILED_NO, COMPILED_YES) else COMPILED_UNKNOWN)
            chan.send(FRAME_TRAINSTEP, f)

        end = self.train.train_run(self.loaded, req, self.train_env(), on_step)
        groups = end["groups"]
        if not 1 <= len(groups) <= TRAIN_MAX_GROUPS:
            raise Failure(STAGE_FORWARD, "protocol: %d tensor groups (1 .. %d)" % (len(groups), TRAIN_MAX_GROUPS))
        f = Frame()
        f.str(end["dtype"])
        f.u32(int(end["processes"]))
        f.f64(float(end["startup_ms"]))
        f.f64(float(end["total_ms"]))
        f.u32(len(groups))
        for g in groups:
            f.str(g["name"])
            f.i64(int(g["numel"]))
            f.f64(float(g["norm"]))
            f.f64(float(g["delta_norm"]))
            f.parts.append(struct.pack("<%dd" % len(g["sketch"]), *[float(v) for v in g["sketch"]]))
        chan.send(FRAME_TRAINEND, f)

    def follow(self):
        """A rank other than 0 under torchrun: the same runs as rank 0,
        whose requests come by broadcast, until rank 0 broadcasts the stop
        (None). A run that raises here ends this rank: its words on stderr
        ("parity_torch.py: rank R: ..."; parity names the rank torchrun
        reports first), exit status 1."""
        while True:
            req = self.train.broadcast_request(None)
            if req is None:
                return 0
            self.train.train_run(self.loaded, req, self.train_env(), lambda *a: None)


def die_with_parent():
    """Die with parity, even killed by SIGKILL (Linux PR_SET_PDEATHSIG):
    never an orphan left running a forward. Elsewhere, the closed pipe ends
    it at its next read."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def main(argv):
    opts = parse_args(argv)
    if opts is None:
        print(USAGE, file=sys.stderr)
        return 2
    die_with_parent()
    # Under torchrun (--parallel: proto.h TRAINRUN) only rank 0 speaks the
    # protocol: the others close stdin and stdout at once.
    rank = int(os.environ.get("RANK", "0")) if opts["parallel"] else 0
    if rank != 0:
        if os.getppid() == 1:  # torchrun died before PR_SET_PDEATHSIG took
            os._exit(1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(2, 1)
        os.close(null)
        sys.stdout = sys.stderr
        return follower_main(opts, rank)
    # The protocol owns the original stdout; anything printed goes to stderr.
    chan = Channel(os.dup(1))
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        import torch
        if not hasattr(torch, "jit"):
            raise ImportError("the module named torch at %s is not PyTorch"
                              % (getattr(torch, "__file__", None) or list(getattr(torch, "__path__", []))))
    except BaseException as e:
        chan.fail(STAGE_LOAD, FAIL_NO_TORCH, "%s (Python %s) cannot import torch: %s: %s"
                  % (sys.executable or "python", platform.python_version(), type(e).__name__, e))
        return 1
    ex = Executor(torch, opts)
    t0 = time.perf_counter()
    try:
        ex.start_training()
    except BaseException as e:
        f = failure_of(e, STAGE_LOAD)
        chan.fail(f.stage, f.kind, f.message)
        return 1
    for stage, step in ((STAGE_DEVICE, ex.open_device), (STAGE_LOAD, ex.load), (STAGE_LOAD, ex.compile_model)):
        if step == ex.load:
            t0 = time.perf_counter()
        try:
            step()
        except BaseException as e:  # a backend module's SystemExit is a failure too
            f = failure_of(e, stage)
            chan.fail(f.stage, f.kind, f.message)
            return 1
    ex.ready(chan, (time.perf_counter() - t0) * 1000.0)
    while True:
        frame = chan.receive()
        if frame is None:
            if ex.world > 1:  # the other ranks end too
                ex.train.broadcast_request(None)
            return 0
        ftype, payload = frame
        handler = {FRAME_TRAIN: ex.train_steps, FRAME_GENERATE: ex.generate,
                   FRAME_DESCRIBE: ex.describe, FRAME_DENOISE: ex.denoise, FRAME_TRAINRUN: ex.trainrun}.get(ftype)
        if handler:
            try:
                handler(chan, payload)
            except Exception as e:
                f = failure_of(e, STAGE_FORWARD)
                if ex.world > 1:
                    f.message = "rank 0: " + f.message
                chan.fail(f.stage, f.kind, f.message)
            continue
        if ftype != FRAME_RUN:
            chan.fail(STAGE_FORWARD, FAIL_EXCEPTION, "protocol: expected RUN")
            continue
        try:
            ex.run_one(chan, payload)
        except Exception as e:
            f = failure_of(e, STAGE_FORWARD)
            chan.fail(f.stage, f.kind, f.message)


def follower_main(opts, rank):
    """A rank other than 0 (main): loads as rank 0 does, then follows its
    runs (Executor.follow). Its failures are said on stderr, one line
    naming the rank, and end it with status 1: torchrun then ends the
    others and reports it."""
    try:
        import torch
        ex = Executor(torch, opts)
        ex.start_training()
        ex.open_device()
        ex.load()
        return ex.follow()
    except BaseException as e:
        say("parity_torch.py: rank %d: %s" % (rank, failure_of(e, STAGE_FORWARD).message.replace("\n", " ")))
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
