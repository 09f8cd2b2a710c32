// parity-torch: the only program in parity that links libtorch. It loads one
// TorchScript model on one device/dtype and answers RUN frames on stdin with
// OUTPUT or FAIL frames on stdout, TRAIN with TRAINED, GENERATE with
// GENERATED (protocol in include/parity/proto.h).
// Every entry point catches c10::Error, std::exception and `...` so a failure
// becomes a FAIL frame; only a real crash (signal) escapes, and parity
// records that as the example's outcome. With --serve it is the fork server
// (serve.c), whose children each run executor_main below.
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <torch/script.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>
#include <torch/version.h>
#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

// Torch 2.9 on: per-backend float32 precision (at::Float32Backend,
// torch.backends.*.fp32_precision), beside the deprecated global one.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#define PARITY_FP32_PRECISION 1
#else
#define PARITY_FP32_PRECISION 0
#endif

#include "parity/generate.h"
#include "parity/proto.h"
#include "serve.h"

namespace {

struct Options {
    std::string model, device = "cpu", dtype = "float32", tf32, matmul_precision, backend_lib;
    std::string format = "torchscript", kind = "classifier";
    std::vector<std::string> optional_inputs;
    std::string output;  // --output: a dict's key, or a tuple's index
    std::string pooling = "none";  // --pooling (an embedding's): none, mean, cls
    bool normalize = false;        // --normalize (an embedding's)
    int threads = 1;
};

struct Failure {
    int stage;
    std::string message;
    int kind = PX_FAIL_EXCEPTION;
};

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int out_fd = -1;

void send(px_buf &b)
{
    proto_end(&b);
    if (b.bad || proto_write_all(out_fd, b.data, b.len))
        std::exit(3);  // parent gone: nothing left to tell anyone
}

void send_fail(int stage, int kind, const std::string &msg)
{
    px_buf b{};
    proto_begin(&b, PX_FRAME_FAIL);
    buf_put_u32(&b, (uint32_t)stage);
    buf_put_u32(&b, (uint32_t)kind);
    buf_put_str(&b, msg.c_str());
    send(b);
    buf_free(&b);
}

c10::ScalarType parse_dtype(const std::string &s)
{
    if (s == "float32") return torch::kFloat32;
    if (s == "bfloat16") return torch::kBFloat16;
    if (s == "float16") return torch::kFloat16;
    if (s == "float64") return torch::kFloat64;
    throw Failure{PX_STAGE_DEVICE, "unknown dtype '" + s + "' (float32, bfloat16, float16, float64)",
                  PX_FAIL_UNSUPPORTED};
}

std::string dtype_name(c10::ScalarType t)
{
    switch (t) {
    case torch::kFloat32: return "float32";
    case torch::kBFloat16: return "bfloat16";
    case torch::kFloat16: return "float16";
    case torch::kFloat64: return "float64";
    default: return c10::toString(t);
    }
}

std::string cpu_name()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos)
                return line.substr(p + 2);
        }
    return "cpu";
}

// A CPU-only libtorch has no CUDA headers, so the GPU's name is read through
// the CUDA runtime when the process has one loaded (the name is the first
// field of cudaDeviceProp in every CUDA version).
std::string cuda_name(int index)
{
    using getprop = int (*)(void *, int);
    void *sym = dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties_v2");
    if (!sym)
        sym = dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties");
    if (sym) {
        std::vector<char> prop(16384, 0);
        if (reinterpret_cast<getprop>(sym)(prop.data(), index) == 0 && prop[0])
            return std::string(prop.data(), strnlen(prop.data(), 256));
    }
    return "cuda device " + std::to_string(index);
}

// A device libtorch does not know (`tpu`) with a --backend-lib: on torch 2
// the library's PrivateUse1 device is given that name
// (c10::register_privateuse1_backend), as the Python executor does with
// torch.utils.rename_privateuse1_backend and a backend's own package does
// for itself; libtorch 1.13 cannot rename, and says which torch can.
c10::Device name_library_device(const Options &o, const c10::Error &unknown)
{
    std::string why = unknown.what_without_backtrace(), kind = o.device.substr(0, o.device.find(':'));
    if (o.backend_lib.empty() || kind.empty()) {
        // What opens it, in the Python executor's words (BACKEND_MODULES):
        // the same device gets the same message from either executor.
        static const char *const known[][2] = {{"tpu", "torch_tpu"}, {"npu", "torch_npu"}, {"musa", "torch_musa"}};
        std::string module = "MODULE";
        for (const auto &k : known)
            if (kind == k[0])
                module = std::string(k[1]) + " (the package that provides '" + kind + "')";
        throw Failure{PX_STAGE_DEVICE,
                      "unknown device '" + o.device + "': torch opens it once its backend is loaded: --backend-module " +
                          module + " on executor: python, or --backend-lib PATH for a PrivateUse1 library; torch says: " +
                          why,
                      PX_FAIL_UNSUPPORTED};
    }
#if TORCH_VERSION_MAJOR >= 2
    if (c10::get_privateuse1_backend() != "privateuseone")
        throw Failure{PX_STAGE_DEVICE, "unknown device '" + o.device + "': " + why + " (the PrivateUse1 device is named '" +
                                           c10::get_privateuse1_backend() + "' already)", PX_FAIL_UNSUPPORTED};
    try {
        c10::register_privateuse1_backend(kind);
        return c10::Device(o.device);
    } catch (const c10::Error &e) {
        throw Failure{PX_STAGE_DEVICE, "device '" + o.device + "': " + e.what_without_backtrace(), PX_FAIL_UNSUPPORTED};
    }
#else
    throw Failure{PX_STAGE_DEVICE,
                  "unknown device '" + o.device + "': " + why + "; naming a --backend-lib device '" + kind +
                      "' takes torch 2 (c10::register_privateuse1_backend), and this is libtorch " TORCH_VERSION
                      ", which knows it only as privateuseone",
                  PX_FAIL_UNSUPPORTED};
#endif
}

// The precision settings: on torch 2.9+ the per-backend ones, set as
// torch.set_float32_matmul_precision maps its names (highest: ieee for
// CUDA and oneDNN; high: tf32 for both; medium: tf32 for CUDA, bf16 for
// oneDNN) and tf32 on|off as cuda.matmul and cudnn.conv tf32|ieee, leaving
// the deprecated global ones alone (the Python executor's set_precision);
// before, torch.set_float32_matmul_precision and allow_tf32's.
void set_precision(const Options &o)
{
    at::Context &ctx = at::globalContext();
#if PARITY_FP32_PRECISION
    using B = at::Float32Backend;
    using Op = at::Float32Op;
    using P = at::Float32Precision;
    const std::string &p = o.matmul_precision;
    if (!p.empty()) {
        ctx.setFloat32Precision(B::CUDA, Op::MATMUL, p == "highest" ? P::IEEE : P::TF32);
        ctx.setFloat32Precision(B::MKLDNN, Op::MATMUL, p == "highest" ? P::IEEE : p == "high" ? P::TF32 : P::BF16);
    }
    if (!o.tf32.empty()) {
        P t = o.tf32 == "on" ? P::TF32 : P::IEEE;
        ctx.setFloat32Precision(B::CUDA, Op::MATMUL, t);
        ctx.setFloat32Precision(B::CUDA, Op::CONV, t);
    }
#else
    if (!o.matmul_precision.empty())
        ctx.setFloat32MatmulPrecision(o.matmul_precision);
    if (!o.tf32.empty()) {
        ctx.setAllowTF32CuBLAS(o.tf32 == "on");
        ctx.setAllowTF32CuDNN(o.tf32 == "on");
    }
#endif
}

c10::Device open_device(const Options &o)
{
    c10::Device dev(c10::DeviceType::CPU);
    try {
        dev = c10::Device(o.device);
    } catch (const c10::Error &e) {
        dev = name_library_device(o, e);
    }
    if (dev.is_cuda()) {
        if (!torch::cuda::is_available())
            throw Failure{PX_STAGE_DEVICE, "device '" + o.device + "': this libtorch has no usable CUDA",
                          PX_FAIL_UNSUPPORTED};
        int idx = dev.has_index() ? dev.index() : 0;
        if (idx >= (int)torch::cuda::device_count())
            throw Failure{PX_STAGE_DEVICE,
                          "device '" + o.device + "': only " +
                              std::to_string(torch::cuda::device_count()) + " CUDA device(s)",
                          PX_FAIL_UNSUPPORTED};
    }
    if (!o.matmul_precision.empty() && o.matmul_precision != "highest" && o.matmul_precision != "high" &&
        o.matmul_precision != "medium")
        throw Failure{PX_STAGE_DEVICE, "matmul precision '" + o.matmul_precision + "' (highest, high or medium)",
                      PX_FAIL_UNSUPPORTED};
    set_precision(o);
    return dev;
}

// READY's matmul_precision: the name, and on torch 2.9+ with a setting
// given the per-backend one this device's matmuls read (the Python
// executor's precision_in_force, word for word).
std::string matmul_precision_name(const Options &o, const c10::Device &dev)
{
#if PARITY_FP32_PRECISION
    using B = at::Float32Backend;
    using Op = at::Float32Op;
    at::Context &ctx = at::globalContext();
    at::Float32Precision mk = ctx.float32Precision(B::MKLDNN, Op::MATMUL);
    std::string name = mk == at::Float32Precision::BF16 ? "medium" : mk == at::Float32Precision::TF32 ? "high" : "highest";
    if (o.matmul_precision.empty() && o.tf32.empty())
        return name;
    if (dev.is_cpu())
        return name + " (mkldnn.matmul.fp32_precision " + at::precision2str(mk) + ")";
    if (dev.is_cuda())
        return name + " (cuda.matmul.fp32_precision " + at::precision2str(ctx.float32Precision(B::CUDA, Op::MATMUL)) +
               ")";
    return name;
#else
    (void)o, (void)dev;
    switch (at::globalContext().float32MatmulPrecision()) {
    case at::Float32MatmulPrecision::HIGHEST: return "highest";
    case at::Float32MatmulPrecision::HIGH: return "high";
    case at::Float32MatmulPrecision::MEDIUM: return "medium";
    }
    return "unknown";
#endif
}

// How the device is waited for before a clock is read (the Python
// executor's choose_sync): an asynchronous device returns from a forward
// before its work is done, a lazy one before it has started. Through the
// device's guard, which every backend registers (what at::accelerator and
// torch.accelerator.synchronize call, without needing the device to be
// torch's registered accelerator): torch 2's synchronizeDevice, else the
// current stream's synchronizeStream (1.13 has only that). None on the CPU;
// tried once in open_device, and a backend that cannot is timed without it.
struct DeviceSync {
    const c10::impl::DeviceGuardImplInterface *impl = nullptr;
    c10::Device dev{c10::DeviceType::CPU};
    bool whole_device = true;

    void operator()() const
    {
        if (!impl)
            return;
#if TORCH_VERSION_MAJOR >= 2
        if (whole_device) {
            impl->synchronizeDevice(dev.has_index() ? dev.index() : impl->getDevice().index());
            return;
        }
#endif
        impl->synchronizeStream(impl->getStream(dev));
    }
};

DeviceSync g_sync;

void choose_sync(const c10::Device &dev)
{
    if (dev.is_cpu())
        return;
    DeviceSync s;
    s.impl = c10::impl::getDeviceGuardImpl(dev.type());
    s.dev = dev;
    for (bool whole : {true, false}) {
        s.whole_device = whole;
        try {
            s();
            g_sync = s;
            return;
        } catch (const c10::Error &) {
        }
    }
    std::fprintf(stderr, "parity-torch: device %s cannot synchronize: timed without it\n", dev.str().c_str());
}

// The forwards' context (the Python executor's grad_off): inference mode on
// the CPU and CUDA, whose kernels torch guarantees for inference tensors;
// no_grad on every other device (a PrivateUse1 backend such as a TPU's),
// some of which refuse inference tensors.
struct GradOff {
    std::optional<c10::InferenceMode> inference;
    std::optional<torch::NoGradGuard> no_grad;
    explicit GradOff(const c10::Device &dev)
    {
        if (dev.is_cpu() || dev.is_cuda())
            inference.emplace();
        else
            no_grad.emplace();
    }
};

// Which of the environment's precision settings this backend does not read.
// Only what is known is said: torch 1.x reads both on CUDA alone; of other
// devices (a PrivateUse1 backend) nothing is known.
std::string ignored_settings(const Options &o, const c10::Device &dev)
{
    std::string set;
    if (!o.matmul_precision.empty())
        set = "matmul_precision";
    if (!o.tf32.empty())
        set += (set.empty() ? "" : " and ") + std::string("tf32");
    if (set.empty() || dev.is_cuda())
        return "";
    if (dev.is_cpu() && TORCH_VERSION_MAJOR < 2)
        return set + ": torch " TORCH_VERSION " reads this for CUDA matmuls only, not on the CPU";
    if (dev.is_cpu() && !o.tf32.empty() && PARITY_FP32_PRECISION)
        return "tf32: torch " TORCH_VERSION " reads this for CUDA only (cuda.matmul and cudnn.conv fp32_precision), "
               "not on the CPU";
    return "";
}

// libtorch's ways of saying "this backend cannot do that", kept apart from a
// defect in the model or the backend: the dispatcher's "Could not run
// 'aten::op' with arguments from the 'X' backend" (X is PrivateUse1, or on
// torch 2 the name it was given, such as tpu) and a kernel's dispatch
// macro's "\"op\" not implemented for 'BFloat16'".
int fail_kind(const char *msg)
{
    return std::strstr(msg, "not implemented for") || std::strstr(msg, "NotImplementedError") ||
                   (std::strstr(msg, "Could not run '") && std::strstr(msg, "backend"))
               ? PX_FAIL_UNSUPPORTED
               : PX_FAIL_EXCEPTION;
}

std::string device_name(const c10::Device &dev)
{
    if (dev.is_cpu())
        return cpu_name();
    if (dev.is_cuda())
        return cuda_name(dev.has_index() ? dev.index() : 0);
    return dev.str();
}

// --output (proto.h, Model handling): "" when not given.
std::string output_name;
// A dict's entry when --output is not given: "logits", an embedding pooled
// mean or cls "last_hidden_state".
std::string default_key = "logits";
// An embedding's (proto.h, Embedding): --kind embedding, --pooling, --normalize.
bool embedding = false, normalize_vec = false;
std::string pooling = "none";

bool is_index(const std::string &s)
{
    size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0;
    return i < s.size() && s.find_first_not_of("0123456789", i) == std::string::npos;
}

// The output of the forward's value v: v itself when a tensor; else
// --output's entry of a dict ("logits" when not given), or the --output'th
// element of a tuple (a name: the first). Hugging Face models traced with
// torchscript=True return a tuple.
torch::Tensor output_tensor(const c10::IValue &v)
{
    const std::string &name = output_name;
    if (v.isTensor())
        return v.toTensor();
    if (v.isGenericDict()) {
        std::string key = name.empty() ? default_key : name, keys;
        for (const auto &kv : v.toGenericDict()) {
            std::string k = kv.key().isString() ? kv.key().toStringRef() : kv.key().tagKind();
            if (k == key && kv.value().isTensor())
                return kv.value().toTensor();
            keys += (keys.empty() ? "" : ", ") + k;
        }
        throw Failure{PX_STAGE_FORWARD, "model returned a dict with keys " + (keys.empty() ? "none" : keys) +
                                            (name.empty() ? "" : ", not '" + name + "'") +
                                            ": name one in contract.model.output"};
    }
    if (v.isTuple() || v.isList()) {
        std::vector<c10::IValue> el;
        if (v.isTuple())
            el.assign(v.toTupleRef().elements().begin(), v.toTupleRef().elements().end());
        else
            for (const auto &e : v.toListRef())
                el.push_back(e);
        long n = (long)el.size();
        std::string range = "name an index 0.." + std::to_string(n - 1) + " in contract.model.output";
        if (!name.empty() && is_index(name)) {
            long i = std::atol(name.c_str());
            if (i >= 0 && i < n && el[(size_t)i].isTensor())
                return el[(size_t)i].toTensor();
            throw Failure{PX_STAGE_FORWARD, "model returned a tuple of " + std::to_string(n) + ", and output " + name +
                                                " is " + (i >= 0 && i < n ? "not a tensor" : "out of range") + ": " +
                                                range};
        }
        if ((name.empty() || name == "logits" || name == default_key) && n > 0 && el[0].isTensor())
            return el[0].toTensor();
        throw Failure{PX_STAGE_FORWARD, "model returned a tuple of " + std::to_string(n) +
                                            (name.empty() ? "" : ", not a dict") + ": " + range};
    }
    throw Failure{PX_STAGE_FORWARD, "model returned " + v.tagKind() + ", not a tensor, a tuple or a dict"};
}

bool ends_with(const std::string &s, const std::string &end)
{
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// DESCRIBED (proto.h): the forward's argument names and return type from its
// schema; the largest position, the head's width and the hidden width from
// parameter names.
void describe(torch::jit::script::Module &m, const std::string &kind)
{
    const auto &schema = m.get_method("forward").function().getSchema();
    px_buf b{};
    proto_begin(&b, PX_FRAME_DESCRIBED);
    buf_put_u32(&b, 1);
    const auto &args = schema.arguments();
    buf_put_u32(&b, args.empty() ? 0 : (uint32_t)(args.size() - 1));
    for (size_t i = 1; i < args.size(); i++)
        buf_put_str(&b, args[i].name().c_str());
    std::string returns;
    for (const auto &r : schema.returns())
        returns += (returns.empty() ? "" : ", ") + r.type()->str();
    buf_put_str(&b, returns.c_str());
    int64_t positions = -1, head = -1, hidden = -1;
    for (const auto &p : m.named_parameters(true)) {
        if (p.value.dim() != 2)
            continue;
        if (positions < 0 && ends_with(p.name, "position_embeddings.weight"))
            positions = p.value.size(0);
        if (head < 0 && kind == "classifier" &&
            (ends_with(p.name, "classifier.out_proj.weight") || ends_with(p.name, "classifier.weight") ||
             ends_with(p.name, "score.weight")))
            head = p.value.size(0);
        if (hidden < 0 && ends_with(p.name, "word_embeddings.weight"))
            hidden = p.value.size(1);
    }
    buf_put_i64(&b, positions);
    buf_put_i64(&b, head);
    buf_put_i64(&b, hidden);
    send(b);
    buf_free(&b);
}

// A RUN frame's inputs (and TRAIN's batch), each with its name.
struct Named {
    std::vector<std::string> names;
    std::vector<c10::IValue> values;
};

// --optional-input: inputs left out when the forward does not take them.
std::vector<std::string> optional_inputs;

// m's forward on the inputs (proto.h, Model handling), an optional one it
// does not take left out: by name when its schema names every one of them,
// otherwise in the order sent (a forward of its own names, as before names
// were read).
c10::IValue call_forward(torch::jit::script::Module &m, const Named &in)
{
    torch::jit::Method fwd = m.get_method("forward");
    const auto &args = fwd.function().getSchema().arguments();
    auto takes = [&](const std::string &n) {
        for (size_t i = 1; i < args.size(); i++)
            if (args[i].name() == n)
                return true;
        return false;
    };
    auto optional = [&](const std::string &n) {
        return std::find(optional_inputs.begin(), optional_inputs.end(), n) != optional_inputs.end();
    };
    std::vector<size_t> sent;
    bool by_name = true;
    for (size_t i = 0; i < in.names.size(); i++)
        if (!optional(in.names[i]) || takes(in.names[i])) {
            sent.push_back(i);
            by_name = by_name && takes(in.names[i]);
        }
    std::vector<c10::IValue> stack;
    torch::jit::Kwargs kwargs;
    for (size_t i : sent) {
        if (by_name)
            kwargs[in.names[i]] = in.values[i];
        else
            stack.push_back(in.values[i]);
    }
    return fwd(stack, kwargs);
}

// The inputs of a RUN frame (and of TRAIN's batch), on the device.
Named read_inputs(const c10::Device &dev, px_buf &in)
{
    Named inputs;
    uint32_t n_inputs = buf_get_u32(&in);
    for (uint32_t i = 0; i < n_inputs && !in.bad; i++) {
        char *name = buf_get_str(&in);
        inputs.names.push_back(name ? name : "");
        free(name);
        uint32_t ndim = buf_get_u32(&in);
        if (ndim > PX_MAX_DIMS)
            throw Failure{PX_STAGE_FORWARD, "protocol: too many dimensions"};
        std::vector<int64_t> dims(ndim);
        int64_t count = 1;
        for (auto &d : dims)
            count *= (d = buf_get_i64(&in));
        if (in.bad || count < 0 || (size_t)count > (in.len - in.pos) / 8)
            throw Failure{PX_STAGE_FORWARD, "protocol: truncated RUN frame"};
        auto t = torch::empty(dims, torch::kLong);
        auto *p = t.data_ptr<int64_t>();
        for (int64_t k = 0; k < count; k++)
            p[k] = buf_get_i64(&in);
        inputs.values.emplace_back(t.to(dev));
    }
    if (in.bad)
        throw Failure{PX_STAGE_FORWARD, "protocol: malformed RUN frame"};
    return inputs;
}

std::string shape_text(const torch::Tensor &t)
{
    std::string s = "[";
    for (int64_t i = 0; i < t.dim(); i++)
        s += (i ? "," : "") + std::to_string(t.size(i));
    return s + "]";
}

// An embedding's vectors [B, D] from the output out (proto.h, Embedding), in
// float32 on the output as the model gave it: mean, the token states
// [B, T, D] summed over the attention mask sent (all ones when none was) and
// divided by max(the mask's sum, 1e-9) (sentence-transformers' mean
// pooling); cls, token 0's state; none, the output itself, which must be
// [B, D] (another shape is sent as it is: parity says bad-shape).
// --normalize then divides each row by max(its L2 norm, 1e-12)
// (torch.nn.functional.normalize). parity_torch.py's pool_embedding, op for op.
torch::Tensor pool_embedding(const torch::Tensor &out, const Named &in)
{
    torch::Tensor x = out.to(torch::kFloat32);
    if (pooling == "none") {
        if (x.dim() != 2)
            return x;
    } else {
        torch::Tensor mask;
        for (size_t i = 0; i < in.names.size(); i++)
            if (in.names[i] == "attention_mask" && in.values[i].isTensor())
                mask = in.values[i].toTensor();
        if (x.dim() != 3 || (mask.defined() && (mask.dim() != 2 || mask.size(0) != x.size(0) ||
                                                mask.size(1) != x.size(1))))
            throw Failure{PX_STAGE_FORWARD, "pooling " + pooling + " needs the model's token states [B, T, D], but the "
                                            "model gave " + shape_text(out) + ": name them in contract.model.output, "
                                            "or pooling: none for a model that gives the vector"};
        if (pooling == "cls") {
            x = x.select(1, 0);
        } else {
            if (!mask.defined())
                mask = torch::ones({x.size(0), x.size(1)},
                                   torch::TensorOptions().dtype(torch::kLong).device(x.device()));
            torch::Tensor m = mask.unsqueeze(-1).expand(x.sizes()).to(torch::kFloat32);
            x = torch::sum(x * m, 1) / torch::clamp(m.sum(1), 1e-9);
        }
    }
    if (normalize_vec)
        x = x / x.norm(2, {1}, true).clamp_min(1e-12);
    return x;
}

void run_one(torch::jit::script::Module &m, const c10::Device &dev, px_buf &in)
{
    Named inputs = read_inputs(dev, in);
    g_sync();  // the inputs' upload is not the forward's
    auto t0 = Clock::now();
    torch::Tensor out;
    {
        GradOff guard(dev);
        out = output_tensor(call_forward(m, inputs));
        std::string dt = dtype_name(out.scalar_type());
        if (embedding)
            out = pool_embedding(out, inputs);
        out = out.detach().to(torch::kCPU).to(torch::kFloat64).contiguous();
        g_sync();
        double ms = ms_since(t0);
        px_buf b{};
        proto_begin(&b, PX_FRAME_OUTPUT);
        buf_put_str(&b, dt.c_str());
        buf_put_u32(&b, (uint32_t)out.dim());
        for (int64_t d : out.sizes())
            buf_put_i64(&b, d);
        buf_put_i64(&b, out.numel());
        const double *v = out.data_ptr<double>();
        for (int64_t k = 0; k < out.numel(); k++)
            buf_put_f64(&b, v[k]);
        buf_put_f64(&b, ms);
        buf_put_u32(&b, PX_COMPILED_UNKNOWN);  // libtorch cannot tell
        send(b);
        buf_free(&b);
    }
}

// TRAIN (proto.h): `steps` SGD steps on a copy of the module, so the loaded
// one answers every later RUN exactly as before. The copy is made without
// autograd recording it, so its parameters are leaves of their own; then
// they require grad, and each step runs outside inference mode, in train().
// deepcopy(), not clone(): the same copy as Python's copy.deepcopy (new
// tensors, the same class type and compiled methods), so both executors
// run the same graphs and give the same curve; clone() makes a new type
// whose methods the JIT profiles and optimises again, which put hundreds of
// milliseconds into steps 2 and 3 of every TRAIN.
void train_steps(torch::jit::script::Module &m, const c10::Device &dev, px_buf &in)
{
    uint32_t steps = buf_get_u32(&in);
    double lr = buf_get_f64(&in);
    if (in.bad || steps == 0 || steps > PX_TRAIN_MAX_STEPS || !(lr > 0))
        throw Failure{PX_STAGE_FORWARD, "protocol: malformed TRAIN frame"};
    Named inputs = read_inputs(dev, in);
    uint32_t n = buf_get_u32(&in);
    if (in.bad || (size_t)n > (in.len - in.pos) / 8)
        throw Failure{PX_STAGE_FORWARD, "protocol: truncated TRAIN frame"};
    auto targets = torch::empty({(int64_t)n}, torch::kLong);
    for (uint32_t k = 0; k < n; k++)
        targets.data_ptr<int64_t>()[k] = buf_get_i64(&in);
    targets = targets.to(dev);
    c10::InferenceMode off(false);
    torch::AutoGradMode grad(true);
    torch::jit::script::Module copy;
    {
        torch::NoGradGuard no_grad;
        copy = m.deepcopy();
    }
    copy.train();
    std::vector<torch::Tensor> params;
    for (const auto &p : copy.parameters()) {
        p.requires_grad_(true);
        params.push_back(p);
    }
    torch::optim::SGD opt(params, torch::optim::SGDOptions(lr));
    std::vector<double> loss(steps), ms(steps);
    for (uint32_t s = 0; s < steps; s++) {
        g_sync();
        auto t0 = Clock::now();
        opt.zero_grad();
        torch::Tensor out = output_tensor(call_forward(copy, inputs));
        torch::Tensor l = torch::nn::functional::cross_entropy(out, targets);
        l.backward();
        opt.step();
        loss[s] = l.detach().to(torch::kCPU).to(torch::kFloat64).item<double>();
        g_sync();
        ms[s] = ms_since(t0);
    }
    px_buf b{};
    proto_begin(&b, PX_FRAME_TRAINED);
    buf_put_u32(&b, steps);
    for (double v : loss)
        buf_put_f64(&b, v);
    for (double v : ms)
        buf_put_f64(&b, v);
    send(b);
    buf_free(&b);
}

// A GENERATE request (proto.h), read whole before any forward.
struct GenRequest {
    px_gen_settings s{};         // s.stop_ids points into stop
    std::vector<int64_t> stop;
    std::vector<int64_t> ids;    // the prompt's input_ids
    std::vector<bool> is_mask;   // per input, in the order sent: attention_mask?
};

// What GENERATED tells (proto.h): the first step's dtype and shape (or the
// bad shape), each step's id and its row's top r.
struct GenReply {
    std::string dt;
    std::vector<int64_t> shape, chosen, top_ids;
    std::vector<double> top_logits;
    int r = 0, end = PX_GEN_END_LENGTH;
    double first_ms = 0;
};

void read_generate(px_buf &in, GenRequest &q)
{
    px_gen_settings &s = q.s;
    uint32_t max_new = buf_get_u32(&in), n_stop = buf_get_u32(&in);
    if (in.bad || max_new < 1 || max_new > PX_GEN_MAX_NEW || (size_t)n_stop > (in.len - in.pos) / 8)
        throw Failure{PX_STAGE_FORWARD, "protocol: malformed GENERATE frame"};
    q.stop.resize(n_stop);
    for (auto &id : q.stop)
        id = buf_get_i64(&in);
    s.max_new_tokens = (int)max_new;
    s.stop_ids = q.stop.data();
    s.n_stop = q.stop.size();
    s.decoding = (int)buf_get_u32(&in);
    s.temperature = buf_get_f64(&in);
    s.top_k = (int)buf_get_u32(&in);
    s.seed = (uint64_t)buf_get_i64(&in);
    s.report_top = (int)buf_get_u32(&in);
    if (in.bad || (s.decoding != PX_GEN_GREEDY && s.decoding != PX_GEN_SAMPLE) ||
        (s.decoding == PX_GEN_SAMPLE && !(s.temperature > 0)) || s.top_k < 0 || s.report_top < 0 ||
        s.report_top > (int)PX_GEN_MAX_TOP)
        throw Failure{PX_STAGE_FORWARD, "protocol: malformed GENERATE frame"};
    // The prompt: input_ids and attention_mask, each [1, T], in the order sent.
    uint32_t n_inputs = buf_get_u32(&in);
    int64_t T = -1;
    for (uint32_t i = 0; i < n_inputs && !in.bad; i++) {
        char *name = buf_get_str(&in);
        std::string nm = name ? name : "";
        free(name);
        uint32_t ndim = buf_get_u32(&in);
        int64_t d0 = ndim == 2 ? buf_get_i64(&in) : 0, d1 = ndim == 2 ? buf_get_i64(&in) : 0;
        if (in.bad || ndim != 2 || d0 != 1 || d1 < 1 || (T >= 0 && d1 != T) || (size_t)d1 > (in.len - in.pos) / 8 ||
            (nm != "input_ids" && nm != "attention_mask"))
            throw Failure{PX_STAGE_FORWARD, "protocol: GENERATE wants input_ids and attention_mask, each [1, T]"};
        T = d1;
        q.is_mask.push_back(nm == "attention_mask");
        for (int64_t k = 0; k < d1; k++) {
            int64_t v = buf_get_i64(&in);
            if (nm == "input_ids")
                q.ids.push_back(v);
        }
    }
    if (in.bad || in.pos != in.len || n_inputs != 2 || q.is_mask[0] == q.is_mask[1])
        throw Failure{PX_STAGE_FORWARD, "protocol: GENERATE wants input_ids and attention_mask, each [1, T]"};
}

// The steps (proto.h): a forward of the whole sequence so far (no KV
// cache) on the loaded module in inference mode; each step's last row goes
// to the host as float64, where src/proto/generate.c (linked in, the same
// code parity re-checks with) chooses the id. An output not [1, T+s, V] at
// any step ends it with its shape and no steps.
void generate_steps(torch::jit::script::Module &m, const c10::Device &dev, GenRequest &q, GenReply &y)
{
    std::vector<double> row;
    int64_t V = 0;
    uint64_t state = q.s.seed;
    GradOff guard(dev);
    for (int step = 0; step < q.s.max_new_tokens; step++) {
        g_sync();
        auto t0 = Clock::now();
        int64_t len = (int64_t)q.ids.size();
        auto id_t = torch::from_blob(q.ids.data(), {1, len}, torch::kLong).clone().to(dev);
        auto mask_t = torch::ones({1, len}, torch::kLong).to(dev);
        std::vector<c10::IValue> inputs;
        for (bool mask : q.is_mask)
            inputs.emplace_back(mask ? mask_t : id_t);
        torch::Tensor out = output_tensor(m.forward(inputs));
        if (step == 0) {
            y.dt = dtype_name(out.scalar_type());
            V = out.dim() == 3 ? out.size(2) : 0;
        }
        if (out.dim() != 3 || out.size(0) != 1 || out.size(1) != len || out.size(2) != V || V < 1) {
            y.shape.assign(out.sizes().begin(), out.sizes().end());
            if (step == 0) {
                g_sync();
                y.first_ms = ms_since(t0);
            }
            y.chosen.clear();
            y.end = PX_GEN_END_NONE;
            return;
        }
        auto last = out[0][len - 1].detach().to(torch::kCPU).to(torch::kFloat64).contiguous();
        row.assign(last.data_ptr<double>(), last.data_ptr<double>() + V);
        if (step == 0) {
            g_sync();
            y.first_ms = ms_since(t0);
            y.shape.assign(out.sizes().begin(), out.sizes().end());
            y.r = std::min<int64_t>(q.s.report_top, V);
        }
        int64_t id = gen_choose(row.data(), (size_t)V, &q.s, &state);
        if (id < 0)
            throw std::bad_alloc();
        y.chosen.push_back(id);
        size_t at = y.top_ids.size();
        y.top_ids.resize(at + y.r);
        y.top_logits.resize(at + y.r);
        gen_top(row.data(), (size_t)V, y.r, y.top_ids.data() + at, y.top_logits.data() + at);
        if (std::find(q.stop.begin(), q.stop.end(), id) != q.stop.end()) {
            y.end = PX_GEN_END_STOP;
            return;
        }
        q.ids.push_back(id);
    }
}

void send_generated(const GenReply &y, double total_ms)
{
    px_buf b{};
    proto_begin(&b, PX_FRAME_GENERATED);
    buf_put_str(&b, y.dt.c_str());
    buf_put_u32(&b, (uint32_t)y.shape.size());
    for (int64_t d : y.shape)
        buf_put_i64(&b, d);
    buf_put_u32(&b, (uint32_t)y.chosen.size());
    for (size_t k = 0; k < y.chosen.size(); k++) {
        buf_put_i64(&b, y.chosen[k]);
        buf_put_u32(&b, (uint32_t)y.r);
        for (int j = 0; j < y.r; j++)
            buf_put_i64(&b, y.top_ids[k * y.r + j]);
        for (int j = 0; j < y.r; j++)
            buf_put_f64(&b, y.top_logits[k * y.r + j]);
    }
    buf_put_u32(&b, (uint32_t)y.end);
    buf_put_f64(&b, y.first_ms);
    buf_put_f64(&b, total_ms);
    send(b);
    buf_free(&b);
}

// GENERATE (proto.h): the request read whole, the steps, one GENERATED.
void generate_one(torch::jit::script::Module &m, const c10::Device &dev, px_buf &in)
{
    GenRequest q;
    read_generate(in, q);
    GenReply y;
    g_sync();
    auto t_all = Clock::now();
    generate_steps(m, dev, q, y);
    g_sync();
    send_generated(y, ms_since(t_all));
}

// Runs fn; any exception becomes a FAIL frame at `stage`. Returns false on failure.
template <class F>
bool guarded(int stage, F fn)
{
    try {
        fn();
        return true;
    } catch (const Failure &f) {
        send_fail(f.stage, f.kind, f.message);
    } catch (const c10::NotImplementedError &e) {
        send_fail(stage, PX_FAIL_UNSUPPORTED, e.what_without_backtrace());
    } catch (const c10::Error &e) {
        send_fail(stage, fail_kind(e.what_without_backtrace()), e.what_without_backtrace());
    } catch (const std::exception &e) {
        send_fail(stage, fail_kind(e.what()), e.what());
    } catch (...) {
        send_fail(stage, PX_FAIL_EXCEPTION, "unknown C++ exception");
    }
    return false;
}

int parse_args(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--version") {
            std::printf("parity-torch (libtorch %s)\n", TORCH_VERSION);
            std::exit(0);
        }
        if (a == "--normalize") {
            o.normalize = true;
            continue;
        }
        if (i + 1 >= argc)
            return -1;
        std::string v = argv[++i];
        if (a == "--model") o.model = v;
        else if (a == "--device") o.device = v;
        else if (a == "--dtype") o.dtype = v;
        else if (a == "--tf32") o.tf32 = v;
        else if (a == "--matmul-precision") o.matmul_precision = v;
        else if (a == "--backend-lib") o.backend_lib = v;
        else if (a == "--format") o.format = v;
        else if (a == "--kind") o.kind = v;
        else if (a == "--optional-input") o.optional_inputs.push_back(v);
        else if (a == "--output") o.output = v;
        else if (a == "--pooling") o.pooling = v;
        else if (a == "--threads") o.threads = std::atoi(v.c_str());
        // A training run's (proto.h TRAINRUN): read so that the command
        // line is the Python executor's; kind training is refused at load.
        else if (a == "--mixed-precision-param" || a == "--mixed-precision-reduce" || a == "--parallel" ||
                 a == "--processes" || a == "--dist-backend" || a == "--progress") continue;
        else return -1;
    }
    // image and training are kinds parity-torch knows and cannot run: said
    // at load, as a FAIL parity shows, not as a usage error.
    if (o.kind != "classifier" && o.kind != "generator" && o.kind != "embedding" && o.kind != "image" &&
        o.kind != "training")
        return -1;
    if (o.pooling != "none" && o.pooling != "mean" && o.pooling != "cls")
        return -1;
    return o.model.empty() ? -1 : 0;
}

// The module in dtype as its user has it (READY's load, in the Python
// executor's words for the same thing, so that environments compare): as
// saved when every floating-point parameter is in dtype already (a buffer
// kept in float32 beside bfloat16 weights, as RoPE's inv_freq is, stays so),
// else cast as torch.jit.load(...).to(dtype) casts: floating-point
// parameters and buffers only, as Python's Module.to(dtype) does (libtorch's
// converts integer buffers too: a traced BERT's position_ids would become
// floats).
std::string to_dtype(torch::jit::script::Module &module, c10::ScalarType dtype)
{
    bool saved_so = false, other = false;
    for (const auto &p : module.parameters())
        if (p.is_floating_point())
            (p.scalar_type() == dtype ? saved_so : other) = true;
    if (saved_so && !other)
        return "torch.jit.load()";
    torch::NoGradGuard no_grad;
    for (const auto &p : module.parameters())
        if (p.is_floating_point())
            p.set_data(p.to(dtype));
    for (const auto &b : module.buffers())
        if (b.is_floating_point())
            b.set_data(b.to(dtype));
    return "torch.jit.load().to(torch." + dtype_name(dtype) + ")";
}

// READY (proto.h): what was loaded, where, and how long it took.
void send_ready(const Options &o, const c10::Device &dev, c10::ScalarType dtype, double load_ms,
                const std::string &how)
{
    px_buf b{};
    proto_begin(&b, PX_FRAME_READY);
    buf_put_u32(&b, PX_PROTO_VERSION);
    buf_put_str(&b, "libtorch");
    buf_put_str(&b, "");
    buf_put_str(&b, TORCH_VERSION);
    buf_put_str(&b, "");
    buf_put_str(&b, "");
    buf_put_str(&b, dev.str().c_str());
    buf_put_str(&b, device_name(dev).c_str());
    buf_put_str(&b, dtype_name(dtype).c_str());
    buf_put_str(&b, o.tf32.c_str());
    buf_put_str(&b, matmul_precision_name(o, dev).c_str());
    buf_put_str(&b, ignored_settings(o, dev).c_str());
    buf_put_f64(&b, load_ms);
    buf_put_str(&b, how.c_str());
    send(b);
    buf_free(&b);
}

// Every request until parity closes stdin, each answered (a failure as FAIL).
void answer_frames(torch::jit::script::Module &module, const c10::Device &dev, const std::string &kind)
{
    px_buf b{};
    uint32_t type;
    while (proto_read_frame(0, &type, &b) == 0) {
        if (type == PX_FRAME_TRAIN) {
            guarded(PX_STAGE_FORWARD, [&] { train_steps(module, dev, b); });
            continue;
        }
        if (type == PX_FRAME_GENERATE) {
            guarded(PX_STAGE_FORWARD, [&] { generate_one(module, dev, b); });
            continue;
        }
        if (type == PX_FRAME_DESCRIBE) {
            guarded(PX_STAGE_FORWARD, [&] { describe(module, kind); });
            continue;
        }
        if (type == PX_FRAME_DENOISE) {
            send_fail(PX_STAGE_FORWARD, PX_FAIL_UNSUPPORTED,
                      "parity-torch runs TorchScript only: a Diffusers pipeline needs executor: python");
            continue;
        }
        if (type != PX_FRAME_RUN) {
            send_fail(PX_STAGE_FORWARD, PX_FAIL_EXCEPTION, "protocol: expected RUN");
            continue;
        }
        guarded(PX_STAGE_FORWARD, [&] { run_one(module, dev, b); });
    }
    buf_free(&b);
}

// One executor: argv as parity-torch would get it on its command line.
int executor_main(int argc, char **argv)
{
    Options o;
    if (parse_args(argc, argv, o)) {
        std::fprintf(stderr, "usage: parity-torch --model PATH [--format torchscript] "
                             "[--kind classifier|generator|embedding|image [--pooling mean|cls|none] [--normalize]] "
                             "[--optional-input NAME]... [--output NAME] [--device D] [--dtype T] "
                             "[--threads N] [--tf32 on|off] [--matmul-precision highest|high|medium] "
                             "[--backend-lib PATH]\n"
                             "       parity-torch --serve   (the fork server: include/parity/proto.h)\n");
        return 2;
    }
    // Die with parity, even killed by SIGKILL: never an orphan left running
    // a forward (parity ends this process's group itself when it can).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The protocol owns the original stdout; anything printed goes to stderr.
    out_fd = dup(1);
    dup2(2, 1);

    torch::jit::script::Module module;
    c10::Device dev(c10::DeviceType::CPU);
    c10::ScalarType dtype = torch::kFloat32;
    double load_ms = 0;
    std::string how;
    bool ok = guarded(PX_STAGE_DEVICE, [&] {
        if (!o.backend_lib.empty() && !dlopen(o.backend_lib.c_str(), RTLD_NOW | RTLD_GLOBAL))
            throw Failure{PX_STAGE_DEVICE, std::string("backend library: ") + dlerror(), PX_FAIL_UNSUPPORTED};
        dtype = parse_dtype(o.dtype);
        dev = open_device(o);
        if (o.threads > 0)
            torch::set_num_threads(o.threads);
        // A device the backend cannot hold this dtype on (or a PrivateUse1
        // device with no backend loaded) fails here, in the backend's words,
        // not later while the model moves.
        torch::zeros({1}, torch::TensorOptions().dtype(dtype)).to(dev).to(torch::kCPU);
        choose_sync(dev);
    });
    optional_inputs = o.optional_inputs;
    output_name = o.output;
    embedding = o.kind == "embedding";
    pooling = o.pooling;
    normalize_vec = o.normalize;
    if (embedding && pooling != "none")
        default_key = "last_hidden_state";
    ok = ok && guarded(PX_STAGE_LOAD, [&] {
        if (o.kind == "training")
            throw Failure{PX_STAGE_LOAD,
                          "kind training: parity-torch does not train a causal LM (TRAINRUN): use executor: python",
                          PX_FAIL_UNSUPPORTED};
        if (o.format != "torchscript")
            throw Failure{PX_STAGE_LOAD,
                          "format " + o.format + ": parity-torch loads TorchScript only; use executor: python",
                          PX_FAIL_UNSUPPORTED};
        if (o.kind == "image")
            throw Failure{PX_STAGE_LOAD,
                          "kind image: parity-torch runs TorchScript only: a Diffusers pipeline needs executor: "
                          "python",
                          PX_FAIL_UNSUPPORTED};
        auto t0 = Clock::now();
        // Loaded on the CPU, then moved: what the Python executor does too, and
        // the only way for a device whose storage cannot be unpickled into.
        module = torch::jit::load(o.model, torch::kCPU);
        module.to(dev);
        how = to_dtype(module, dtype);
        module.eval();
        load_ms = ms_since(t0);
    });
    if (!ok)
        return 1;
    send_ready(o, dev, dtype, load_ms, how);
    answer_frames(module, dev, o.kind);
    return 0;
}

// In the fork server, before it forks: builds what libtorch builds lazily on
// first use and every executor would otherwise build for itself, the JIT's
// operator registry (each operator's schema parsed and indexed: a good part
// of a model load). No tensor is made, no thread started. (Deserializing the
// models here too was measured: no gain on the demo, so each executor loads
// its own.)
void serve_prepare()
{
    (void)torch::jit::getAllOperators();
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--serve") == 0)
        return serve_main(executor_main, serve_prepare);
    return executor_main(argc, argv);
}
