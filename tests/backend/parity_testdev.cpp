// parity_testdev: a tiny out-of-tree PrivateUse1 ("privateuseone") device for CI.
//
// It plays a device that is not the CPU: tensors live in allocations of its
// own, tagged privateuseone:0, and every crossing to or from the CPU is a real
// copy. All arithmetic is done by ATen's CPU kernels on that memory.
//
// Build (libtorch 1.13, no other flags needed):
//   mkdir -p build/testdev
//   g++ -std=c++17 -Wall -Wextra -Werror -Wno-unused-parameter -O2 -g -fPIC -shared
//       -I/usr/include/torch/csrc/api/include tests/backend/parity_testdev.cpp
//       -o build/testdev/libparity_testdev.so -ltorch -ltorch_cpu -lc10   (one line)
// Use: Python torch.ops.load_library(PATH), or dlopen(PATH, RTLD_NOW | RTLD_GLOBAL)
// (parity-torch --backend-lib PATH); then device "privateuseone".
//
// PARITY_TESTDEV_NUMERICS, read once when the library is loaded:
//   unset, "" or "exact"  results bit-identical to the CPU's.
//   "bf16-matmul"         the outputs of the matrix products (mm, addmm, bmm,
//                         baddbmm, mv, addmv, dot, incl. out= and in-place forms;
//                         linear and matmul decompose into these) are rounded to
//                         bfloat16 and back to their dtype. For a bfloat16 product
//                         that rounding would change nothing, so there the product
//                         is recomputed in float32 and rounded to bfloat16 toward
//                         zero (a device with a truncating bf16 unit).
//   "scale:X"             those same outputs are multiplied by (1 + X), X a finite
//                         decimal number such as 0.02 or -0.05 (in bfloat16 a
//                         |X| under ~0.004 can round away entirely).
//   anything else         every allocation and kernel call on the device raises a
//                         c10::Error (RuntimeError in Python) naming the variable,
//                         the bad value and the accepted ones.
// Integer products are never perturbed.
//
// PARITY_TESTDEV_TRACE=FILE: one line is appended to FILE for each copy from
//   the CPU to the device ("upload"), each copy back ("download") and each
//   synchronize the device is asked for ("sync": DeviceGuardImpl's
//   synchronizeStream, and on torch 2 synchronizeDevice, which
//   torch.accelerator.synchronize calls). The device is synchronous, so a
//   timer read without a sync would be right here by luck only; the trace
//   proves the executors synchronize before they read a clock, as an
//   asynchronous device (CUDA, a TPU) needs.
// PARITY_TESTDEV_LACKS=OP (an aten operator's name, e.g. "index_select", not
//   one of the native kernels below): the device has no kernel for OP, not
//   even the CPU fallback: calling it gets the dispatcher's own "Could not run
//   'aten::OP' with arguments from the '...' backend" (NotImplementedError in
//   Python), as a real backend that lacks an operator does.
// PARITY_TESTDEV_REFUSE_INFERENCE=1: every kernel refuses an inference tensor
//   (one made in inference mode), as some out-of-tree backends do; a forward
//   must then run under no_grad, not inference_mode.
//
// Native (TORCH_LIBRARY_IMPL(aten, PrivateUse1)):
//   empty.memory_format, empty_strided, _copy_from, _copy_from_and_resize,
//   resize_, arange.start_out, view, as_strided, _reshape_alias (views alias the
//   storage), _has_compatible_shallow_copy_type (so that C++ Module::to's
//   set_data may move a CPU parameter here; also for AutogradPrivateUse1), and
//   the matrix products above.
//   native_layer_norm, native_group_norm, addr(.out), _stack(.out) are
//   registered explicitly to the CPU fallback: their CompositeExplicitAutograd
//   decompositions would differ numerically from the CPU kernels.
// Everything else: the boxed CPU fallback (at::native::cpu_fallback), which
// copies the arguments to the CPU (a Tensor?[] too, which cpu_fallback
// alone leaves: aten::index's indices), runs the CPU kernel and copies
// results back.
// Composite ops (to, copy_, transpose, reshape, matmul, linear, ...) decompose
// into the above. A device guard (one device, index 0) and an allocator are
// registered for the PrivateUse1 device type.

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/version.h>
#include <torch/library.h>

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr c10::DeviceType kTestdev = c10::DeviceType::PrivateUse1;
const c10::Device kDevice(kTestdev, 0);

// ---- numerics ---------------------------------------------------------------

struct Numerics {
    enum Kind { Exact, Bf16Matmul, Scale, Invalid } kind = Exact;
    double factor = 1.0;  // Scale: 1 + X
    std::string value;    // the variable's value, for the error message
};

Numerics parse_numerics(const char *env)
{
    Numerics n;
    n.value = env ? env : "";
    const std::string &v = n.value;
    if (v.empty() || v == "exact")
        return n;
    if (v == "bf16-matmul") {
        n.kind = Numerics::Bf16Matmul;
        return n;
    }
    n.kind = Numerics::Invalid;
    if (v.compare(0, 6, "scale:") != 0)
        return n;
    const char *p = v.c_str() + 6, *end = v.c_str() + v.size();
    if (p < end && *p == '+')
        p++;
    double x = 0;
    // from_chars: no locale, no leading blanks, no hex; the whole rest must parse.
    auto r = std::from_chars(p, end, x, std::chars_format::general);
    if (p == end || r.ec != std::errc() || r.ptr != end || !std::isfinite(x))
        return n;
    n.kind = Numerics::Scale;
    n.factor = 1.0 + x;
    return n;
}

const Numerics g_numerics = parse_numerics(std::getenv("PARITY_TESTDEV_NUMERICS"));

// Called by every allocation and kernel on the device.
void check_numerics()
{
    TORCH_CHECK(g_numerics.kind != Numerics::Invalid,
                "parity_testdev: PARITY_TESTDEV_NUMERICS=\"", g_numerics.value,
                "\" is not valid; accepted: unset, \"\" or \"exact\" (identical to the CPU), "
                "\"bf16-matmul\" (matrix-product outputs rounded to bfloat16), or \"scale:X\" "
                "(matrix-product outputs multiplied by 1+X; X a finite decimal number such as "
                "0.02 or -0.05)");
}

// ---- trace, refusals ---------------------------------------------------------

// PARITY_TESTDEV_TRACE's file, opened once (O_APPEND: whole lines even when
// several processes share the file); -1 when not tracing.
int open_trace()
{
    const char *path = std::getenv("PARITY_TESTDEV_TRACE");
    return path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
}

const int g_trace = open_trace();

// Nonzero while a kernel runs: the copies the CPU fallback and the products
// make between the device and the CPU are the kernel's, not the caller's,
// and are not traced.
thread_local int t_in_kernel = 0;

struct InKernel {
    InKernel() { t_in_kernel++; }
    ~InKernel() { t_in_kernel--; }
};

void trace(const char *event)
{
    if (g_trace < 0 || t_in_kernel)
        return;
    std::string line = std::string(event) + "\n";
    (void)!write(g_trace, line.data(), line.size());
}

const bool g_refuse_inference = [] {
    const char *v = std::getenv("PARITY_TESTDEV_REFUSE_INFERENCE");
    return v && *v && std::strcmp(v, "0") != 0;
}();

void check_not_inference(const at::Tensor &t)
{
    TORCH_CHECK(!g_refuse_inference || !t.defined() || !t.is_inference(),
                "parity_testdev: this device refuses inference tensors (PARITY_TESTDEV_REFUSE_INFERENCE): "
                "run it under no_grad, not inference_mode");
}

// ---- device guard -------------------------------------------------------------

void check_device(c10::Device d)
{
    TORCH_CHECK(d.type() == kTestdev && (!d.has_index() || d.index() == 0),
                "parity_testdev has one device, privateuseone:0, not ", d);
}

struct TestdevGuardImpl final : c10::impl::DeviceGuardImplInterface {
    c10::DeviceType type() const override { return kTestdev; }
    c10::Device exchangeDevice(c10::Device d) const override
    {
        check_device(d);
        return kDevice;
    }
    c10::Device getDevice() const override { return kDevice; }
    void setDevice(c10::Device d) const override { check_device(d); }
    void uncheckedSetDevice(c10::Device) const noexcept override {}
    c10::Stream getStream(c10::Device) const noexcept override
    {
        return c10::Stream(c10::Stream::DEFAULT, kDevice);
    }
    c10::Stream exchangeStream(c10::Stream) const noexcept override
    {
        return c10::Stream(c10::Stream::DEFAULT, kDevice);
    }
    c10::DeviceIndex deviceCount() const noexcept override { return 1; }
    // Everything runs synchronously on the host; a synchronize only leaves
    // its mark in the trace.
    bool queryStream(const c10::Stream &) const override { return true; }
    void synchronizeStream(const c10::Stream &) const override { trace("sync"); }
#if TORCH_VERSION_MAJOR >= 2 // torch.accelerator.synchronize, at::accelerator::synchronizeDevice
    void synchronizeDevice(const c10::DeviceIndex) const override { trace("sync"); }
#endif
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, TestdevGuardImpl);

// ---- allocator ------------------------------------------------------------------

// Host memory (c10::alloc_cpu: same alignment as the CPU allocator), tagged
// privateuseone:0, so that the tensors holding it are device tensors.
struct TestdevAllocator final : c10::Allocator {
#if TORCH_VERSION_MAJOR >= 2 // torch 2: allocate is not const, copy_data is required
    c10::DataPtr allocate(size_t nbytes) override
#else
    c10::DataPtr allocate(size_t nbytes) const override
#endif
    {
        check_numerics();
        void *p = c10::alloc_cpu(nbytes);
        return {p, p, &release, kDevice};
    }
    static void release(void *p) { c10::free_cpu(p); }
    c10::DeleterFnPtr raw_deleter() const override { return &release; }
#if TORCH_VERSION_MAJOR >= 2
    void copy_data(void *dest, const void *src, std::size_t count) const override
    {
        default_copy_data(dest, src, count);
    }
#endif
};

TestdevAllocator g_allocator;

}  // namespace

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

namespace {

// A CPU tensor over the same memory as `t` (same sizes, strides, offset); it
// keeps t's storage alive. CPU tensors are returned as they are. Used to run
// CPU kernels on device memory in place; never resize the result.
at::Tensor host(const at::Tensor &t)
{
    if (!t.defined() || t.device().type() != kTestdev)
        return t;
    c10::Storage keep = t.storage();
    return at::from_blob(
        t.data_ptr(), t.sizes(), t.strides(), [keep](void *) {},
        t.options().device(at::kCPU));
}

void check_testdev_or_cpu(const at::Tensor &t, const char *what)
{
    TORCH_CHECK(t.device().type() == kTestdev || t.device().is_cpu(),
                "parity_testdev: copies only between the CPU and privateuseone; ", what,
                " is on ", t.device());
}

// ---- factories, copies, resize ------------------------------------------------

constexpr c10::DispatchKeySet kTestdevKeys(c10::DispatchKey::PrivateUse1);

void check_factory_args(c10::optional<at::Layout> layout, c10::optional<at::Device> device)
{
    check_numerics();
    TORCH_CHECK(c10::layout_or_default(layout) == at::kStrided,
                "parity_testdev: only strided tensors");
    if (device)
        check_device(*device);
}

at::Tensor testdev_empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                         c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                         c10::optional<bool> pin_memory,
                         c10::optional<at::MemoryFormat> memory_format)
{
    check_factory_args(layout, device);
    return at::detail::empty_generic(size, &g_allocator, kTestdevKeys,
                                     c10::dtype_or_default(dtype), memory_format);
}

at::Tensor testdev_empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                                 c10::optional<at::ScalarType> dtype,
                                 c10::optional<at::Layout> layout,
                                 c10::optional<at::Device> device, c10::optional<bool> pin_memory)
{
    check_factory_args(layout, device);
    return at::detail::empty_strided_generic(size, stride, &g_allocator, kTestdevKeys,
                                             c10::dtype_or_default(dtype));
}

// copy_ is composite: for a device it lands here, as dst._copy_from(src)'s
// at::_copy_from(src, dst), for CPU->device, device->CPU and device->device.
at::Tensor testdev_copy_from(const at::Tensor &self, const at::Tensor &dst, bool non_blocking)
{
    check_numerics();
    check_testdev_or_cpu(self, "the source");
    check_testdev_or_cpu(dst, "the destination");
    check_not_inference(self);
    if (self.device().type() != dst.device().type())
        trace(self.is_cpu() ? "upload" : "download");
    host(dst).copy_(host(self));
    return dst;
}

// The CPU fallback's way of writing back an out= argument.
at::Tensor testdev_copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst)
{
    check_numerics();
    if (dst.sizes() != self.sizes())
        dst.resize_(self.sizes());
    return testdev_copy_from(self, dst, false);
}

// The CPU's resize_ works on any storage: it grows it through the storage's
// own allocator, which is ours.
const at::Tensor &testdev_resize(const at::Tensor &self, at::IntArrayRef size,
                                 c10::optional<at::MemoryFormat> memory_format)
{
    check_numerics();
    return at::native::resize_(self, size, memory_format);
}

at::Tensor &testdev_arange_out(const at::Scalar &start, const at::Scalar &end,
                               const at::Scalar &step, at::Tensor &out)
{
    check_numerics();
    at::Tensor values = at::empty({0}, out.options().device(at::kCPU));
    at::arange_out(values, start, end, step);
    if (out.numel() != values.numel())
        out.resize_({values.numel()});
    InKernel in_kernel;
    host(out).copy_(values.view(out.sizes()));
    return out;
}

// ---- views (alias the storage; never copied) -----------------------------------

at::Tensor testdev_view(const at::Tensor &self, at::IntArrayRef size)
{
    check_numerics();
    return at::native::view(self, size);
}

at::Tensor testdev_as_strided(const at::Tensor &self, at::IntArrayRef size, at::IntArrayRef stride,
                              c10::optional<int64_t> storage_offset)
{
    check_numerics();
    return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

at::Tensor testdev_reshape_alias(const at::Tensor &self, at::IntArrayRef size,
                                 at::IntArrayRef stride)
{
    check_numerics();
    return at::native::_reshape_alias(self, size, stride);
}

// torch::jit::Module::to(device) moves a parameter with set_data(), which
// insists that old and new tensor be of "compatible" types; libtorch 1.13 knows
// only its own dense backends. A strided CPU tensor and a strided device
// tensor are as compatible as CPU and CUDA are.
bool testdev_compatible_shallow_copy_type(const at::Tensor &self, const at::Tensor &from)
{
    auto ok = [](const at::Tensor &t) {
        return t.layout() == at::kStrided && (t.is_cpu() || t.device().type() == kTestdev);
    };
    return at::native::_has_compatible_shallow_copy_type(self, from) || (ok(self) && ok(from));
}

// ---- matrix products ---------------------------------------------------------------

// bfloat16 from float32, rounded toward zero (the low 16 bits dropped); NaN kept.
at::Tensor truncate_to_bf16(const at::Tensor &f)
{
    at::Tensor c = f.contiguous();
    at::Tensor cut = c.view(at::kInt).bitwise_and(static_cast<int32_t>(0xffff0000u)).view(at::kFloat);
    return at::where(c.isnan(), c, cut).to(at::kBFloat16);
}

// Runs a product on host memory with the CPU kernel, then applies the
// configured numerics. run(to_float) returns the CPU result; with to_float its
// inputs are converted to float32 first.
template <class Run>
at::Tensor product(at::ScalarType dtype, Run run)
{
    InKernel in_kernel;
    check_numerics();
    switch (g_numerics.kind) {
    case Numerics::Bf16Matmul:
        if (dtype == at::kBFloat16)
            return truncate_to_bf16(run(true));
        else {
            at::Tensor r = run(false);
            return at::isFloatingType(r.scalar_type()) ? r.to(at::kBFloat16).to(r.scalar_type()) : r;
        }
    case Numerics::Scale: {
        at::Tensor r = run(false);
        return at::isFloatingType(r.scalar_type()) ? r.mul_(g_numerics.factor) : r;
    }
    default:
        return run(false);
    }
}

at::Tensor arg(const at::Tensor &t, bool to_float)
{
    return to_float && t.defined() ? host(t).to(at::kFloat) : host(t);
}

at::Tensor on_device(const at::Tensor &r)
{
    InKernel in_kernel;
    return r.to(kDevice);
}

// Writes a product into an out= tensor, the way the CPU's structured kernels do.
at::Tensor &store(at::Tensor &out, const at::Tensor &r)
{
    TORCH_CHECK(out.scalar_type() == r.scalar_type(), "Expected out tensor to have dtype ",
                r.scalar_type(), ", but got ", out.scalar_type(), " instead");
    at::native::resize_output(out, r.sizes());
    host(out).copy_(r);
    return out;
}

at::Tensor mm_host(const at::Tensor &a, const at::Tensor &b)
{
    return product(a.scalar_type(), [&](bool f) { return at::mm(arg(a, f), arg(b, f)); });
}
at::Tensor testdev_mm(const at::Tensor &a, const at::Tensor &b) { return on_device(mm_host(a, b)); }
at::Tensor &testdev_mm_out(const at::Tensor &a, const at::Tensor &b, at::Tensor &out)
{
    return store(out, mm_host(a, b));
}

at::Tensor bmm_host(const at::Tensor &a, const at::Tensor &b)
{
    return product(a.scalar_type(), [&](bool f) { return at::bmm(arg(a, f), arg(b, f)); });
}
at::Tensor testdev_bmm(const at::Tensor &a, const at::Tensor &b) { return on_device(bmm_host(a, b)); }
at::Tensor &testdev_bmm_out(const at::Tensor &a, const at::Tensor &b, at::Tensor &out)
{
    return store(out, bmm_host(a, b));
}

at::Tensor mv_host(const at::Tensor &a, const at::Tensor &v)
{
    return product(a.scalar_type(), [&](bool f) { return at::mv(arg(a, f), arg(v, f)); });
}
at::Tensor testdev_mv(const at::Tensor &a, const at::Tensor &v) { return on_device(mv_host(a, v)); }
at::Tensor &testdev_mv_out(const at::Tensor &a, const at::Tensor &v, at::Tensor &out)
{
    return store(out, mv_host(a, v));
}

at::Tensor dot_host(const at::Tensor &a, const at::Tensor &b)
{
    return product(a.scalar_type(), [&](bool f) { return at::dot(arg(a, f), arg(b, f)); });
}
at::Tensor testdev_dot(const at::Tensor &a, const at::Tensor &b) { return on_device(dot_host(a, b)); }
at::Tensor &testdev_dot_out(const at::Tensor &a, const at::Tensor &b, at::Tensor &out)
{
    return store(out, dot_host(a, b));
}

// self + product: addmm, baddbmm, addmv (functional, out= and in-place).
#define PARITY_TESTDEV_ADD_PRODUCT(NAME)                                                         \
    at::Tensor NAME##_host(const at::Tensor &self, const at::Tensor &a, const at::Tensor &b,    \
                           const at::Scalar &beta, const at::Scalar &alpha)                     \
    {                                                                                            \
        return product(a.scalar_type(), [&](bool f) {                                            \
            return at::NAME(arg(self, f), arg(a, f), arg(b, f), beta, alpha);                    \
        });                                                                                      \
    }                                                                                            \
    at::Tensor testdev_##NAME(const at::Tensor &self, const at::Tensor &a, const at::Tensor &b, \
                              const at::Scalar &beta, const at::Scalar &alpha)                  \
    {                                                                                            \
        return on_device(NAME##_host(self, a, b, beta, alpha));                                  \
    }                                                                                            \
    at::Tensor &testdev_##NAME##_out(const at::Tensor &self, const at::Tensor &a,               \
                                     const at::Tensor &b, const at::Scalar &beta,               \
                                     const at::Scalar &alpha, at::Tensor &out)                  \
    {                                                                                            \
        return store(out, NAME##_host(self, a, b, beta, alpha));                                 \
    }                                                                                            \
    at::Tensor &testdev_##NAME##_inplace(at::Tensor &self, const at::Tensor &a,                 \
                                         const at::Tensor &b, const at::Scalar &beta,           \
                                         const at::Scalar &alpha)                               \
    {                                                                                            \
        at::Tensor r = NAME##_host(self, a, b, beta, alpha);                                     \
        TORCH_CHECK(r.sizes() == self.sizes(), #NAME "_: result of shape ", r.sizes(),          \
                    " does not fit self of shape ", self.sizes());                              \
        host(self).copy_(r);                                                                     \
        return self;                                                                             \
    }

PARITY_TESTDEV_ADD_PRODUCT(addmm)
PARITY_TESTDEV_ADD_PRODUCT(baddbmm)
PARITY_TESTDEV_ADD_PRODUCT(addmv)

#undef PARITY_TESTDEV_ADD_PRODUCT

// ---- everything else --------------------------------------------------------------

void testdev_fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
    InKernel in_kernel;
    check_numerics();
    if (g_refuse_inference) {
        auto n = op.schema().arguments().size();
        for (auto it = stack->end() - static_cast<std::ptrdiff_t>(n); it != stack->end(); ++it)
            if (it->isTensor())
                check_not_inference(it->toTensor());
    }
    // cpu_fallback moves Tensor and Tensor[] arguments to the CPU, but not a
    // Tensor?[] (aten::index's indices, index_put_'s): the CPU kernel then
    // refuses "indices should be either on cpu or on the same device as the
    // indexed tensor". A device has aten::index.Tensor (XLA and TorchTPU
    // lower it), so here the list's tensors are brought over first, as the
    // fallback brings the others. A traced Transformers attention mask
    // indexes with such a list.
    // The argument is known by the schema: IValue::isOptionalTensorList
    // compares type pointers and misses the list the TorchScript
    // interpreter builds (prim::ListConstruct), though eager's it finds.
    const auto &args = op.schema().arguments();
    auto first = stack->end() - static_cast<std::ptrdiff_t>(args.size());
    for (size_t a = 0; a < args.size(); a++) {
        auto list_type = args[a].type()->cast<c10::ListType>();
        auto opt = list_type ? list_type->getElementType()->cast<c10::OptionalType>() : nullptr;
        c10::IValue &v = first[static_cast<std::ptrdiff_t>(a)];
        if (!opt || opt->getElementType()->kind() != c10::TypeKind::TensorType || !v.isList())
            continue;
        c10::List<c10::optional<at::Tensor>> moved;
        for (const c10::IValue &e : v.toListRef())
            if (e.isTensor() && e.toTensor().defined() && e.toTensor().device().type() == kTestdev)
                moved.push_back(e.toTensor().cpu());
            else if (e.isTensor())
                moved.push_back(e.toTensor());
            else
                moved.push_back(c10::nullopt);
        v = c10::IValue(moved);
    }
    at::native::cpu_fallback(op, stack);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)
{
    m.impl("empty.memory_format", &testdev_empty);
    m.impl("empty_strided", &testdev_empty_strided);
    m.impl("_copy_from", &testdev_copy_from);
    m.impl("_copy_from_and_resize", &testdev_copy_from_and_resize);
    m.impl("resize_", &testdev_resize);
    m.impl("arange.start_out", &testdev_arange_out);
    m.impl("view", &testdev_view);
    m.impl("as_strided", &testdev_as_strided);
    m.impl("_reshape_alias", &testdev_reshape_alias);
    m.impl("_has_compatible_shallow_copy_type", &testdev_compatible_shallow_copy_type);

    m.impl("mm", &testdev_mm);
    m.impl("mm.out", &testdev_mm_out);
    m.impl("bmm", &testdev_bmm);
    m.impl("bmm.out", &testdev_bmm_out);
    m.impl("mv", &testdev_mv);
    m.impl("mv.out", &testdev_mv_out);
    m.impl("dot", &testdev_dot);
    m.impl("dot.out", &testdev_dot_out);
    m.impl("addmm", &testdev_addmm);
    m.impl("addmm.out", &testdev_addmm_out);
    m.impl("addmm_", &testdev_addmm_inplace);
    m.impl("baddbmm", &testdev_baddbmm);
    m.impl("baddbmm.out", &testdev_baddbmm_out);
    m.impl("baddbmm_", &testdev_baddbmm_inplace);
    m.impl("addmv", &testdev_addmv);
    m.impl("addmv.out", &testdev_addmv_out);
    m.impl("addmv_", &testdev_addmv_inplace);

    // Ops with a CPU kernel of their own and a CompositeExplicitAutograd
    // decomposition that a device without a kernel would get instead, with
    // other numerics (native_layer_norm's runs through native_batch_norm):
    // sent to the CPU kernel through the fallback, as everything else is.
    for (const char *op : {"native_layer_norm", "native_group_norm", "addr", "addr.out",
                           "_stack", "_stack.out"})
        m.impl(op, torch::CppFunction::makeFromBoxedFunction<&testdev_fallback>());
}

// The op is CompositeImplicitAutograd; once a backend kernel exists, the
// autograd key needs one of its own (there is nothing to differentiate).
TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m)
{
    m.impl("_has_compatible_shallow_copy_type", &testdev_compatible_shallow_copy_type);
}

namespace {

const std::string g_lacks = [] {
    const char *v = std::getenv("PARITY_TESTDEV_LACKS");
    std::string s = v ? v : "";
    return s.rfind("aten::", 0) == 0 ? s.substr(6) : s;
}();

// Whether the CPU fallback would serve op on the device: it has a CPU kernel
// and no kernel of the device's own nor a composite one (which the
// dispatcher would prefer to a backend fallback).
bool served_by_fallback(const c10::OperatorHandle &op)
{
    using K = c10::DispatchKey;
    for (K k : {K::PrivateUse1, K::CompositeImplicitAutograd, K::CompositeExplicitAutograd,
                K::CompositeExplicitAutogradNonFunctional})
        if (op.hasKernelForDispatchKey(k))
            return false;
    return op.hasKernelForDispatchKey(K::CPU);
}

}  // namespace

// PARITY_TESTDEV_LACKS: no backend fallback, which would serve OP too;
// instead the same CPU fallback is registered as the kernel of every other
// aten operator it would have served, so that only OP is missing and the
// dispatcher, finding nothing for it, says so itself.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)
{
    if (g_lacks.empty())
        return;
    auto &dispatcher = c10::Dispatcher::singleton();
    for (const c10::OperatorName &name : dispatcher.getAllOpNames()) {
        if (name.name.rfind("aten::", 0) != 0)
            continue;
        std::string bare = name.name.substr(6), full = bare + (name.overload_name.empty() ? "" : "." + name.overload_name);
        if (bare == g_lacks || full == g_lacks)
            continue;
        auto op = dispatcher.findOp(name);
        if (op && served_by_fallback(*op))
            m.impl(full.c_str(), torch::CppFunction::makeFromBoxedFunction<&testdev_fallback>());
    }
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m)
{
    if (g_lacks.empty())
        m.fallback(torch::CppFunction::makeFromBoxedFunction<&testdev_fallback>());
}
