// The workload registry (workloads.h): each entry builds its tensors with the op
// library and CreateModule, and states its FLOPs and bytes by formula.
//
//   matmul_1024x1024x1024_f32   C = A @ B                 2 MNK FLOPs, 4 (MK + KN + MN) bytes
//   bert_ffn_128x3072x768       Y = gelu(X W1ᵀ + b1) W2ᵀ + b2
#include "ir/te/workloads.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"
#include "ir/status_macros.h"

namespace tessel::ir::te {
namespace {

using Args = std::vector<FuncArg>;
using ArgsBuilder = std::function<absl::StatusOr<Args>()>;
constexpr DataType kF32 = DataType::Float(32);

Workload Make(std::string name, std::string description, double flops, double bytes, bool small,
              ArgsBuilder args) {
  Workload w{name, std::move(description), flops, bytes, small, nullptr};
  w.build = [name, args = std::move(args)]() -> absl::StatusOr<IRModule> {
    TESSEL_ASSIGN_OR_RETURN(Args a, args());
    return CreateModule(a, name);
  };
  return w;
}

Workload Matmul(int64_t m, int64_t n, int64_t k, bool small) {
  double f = 2.0 * m * n * k, b = 4.0 * (m * k + k * n + m * n);
  return Make(absl::StrCat("matmul_", m, "x", n, "x", k, "_f32"),
              absl::StrCat("C[", m, ", ", n, "] = A[", m, ", ", k, "] @ B[", k, ", ", n, "], f32"),
              f, b, small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor a, Placeholder({m, k}, kF32, "A"));
                TESSEL_ASSIGN_OR_RETURN(Tensor bt, Placeholder({k, n}, kF32, "B"));
                TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Matmul(a, bt, {.name = "C"}));
                return Args{a, bt, c};
              });
}

Workload Gemv(int64_t m, int64_t k, bool small) {
  return Make(absl::StrCat("gemv_", m, "x", k),
              absl::StrCat("y[", m, "] = A[", m, ", ", k, "] @ x[", k, "], f32"), 2.0 * m * k,
              4.0 * (m * k + k + m), small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor a, Placeholder({m, k}, kF32, "A"));
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({k}, kF32, "x"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Gemv(a, x, DataType::Void(), "y"));
                return Args{a, x, y};
              });
}

// 5 FLOPs per element: max, subtract, exp, sum, divide.
Workload Softmax(int64_t r, int64_t c, bool small) {
  return Make(absl::StrCat("softmax_", r, "x", c),
              absl::StrCat("y = softmax(x[", r, ", ", c, "]) along the last axis, f32"),
              5.0 * r * c, 4.0 * 2 * r * c, small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({r, c}, kF32, "x"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Softmax(x, -1, "y"));
                return Args{x, y};
              });
}

// 7 FLOPs per element: sum of x, x * x, sum of squares, subtract the mean,
// multiply by the reciprocal deviation, scale by gamma, shift by beta.
Workload LayerNorm(int64_t r, int64_t c, bool small) {
  return Make(absl::StrCat("layernorm_", r, "x", c),
              absl::StrCat("y = layer_norm(x[", r, ", ", c, "]) * gamma[", c, "] + beta[", c,
                           "] over the last axis, eps 1e-5, f32"),
              7.0 * r * c, 4.0 * (2 * r * c + 2 * c), small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({r, c}, kF32, "x"));
                TESSEL_ASSIGN_OR_RETURN(Tensor g, Placeholder({c}, kF32, "gamma"));
                TESSEL_ASSIGN_OR_RETURN(Tensor b, Placeholder({c}, kF32, "beta"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::LayerNorm(x, g, b, {-1}, 1e-5, "y"));
                return Args{x, g, b, y};
              });
}

// 4 FLOPs per element: x * x, the sum, multiply by the reciprocal root, scale.
Workload RmsNorm(int64_t r, int64_t c, bool small) {
  return Make(absl::StrCat("rms_norm_", r, "x", c),
              absl::StrCat("y = x[", r, ", ", c, "] / sqrt(mean(x * x) + eps) * weight[", c,
                           "] over the last axis, eps 1e-5, f32"),
              4.0 * r * c, 4.0 * (2 * r * c + c), small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({r, c}, kF32, "x"));
                TESSEL_ASSIGN_OR_RETURN(Tensor w, Placeholder({c}, kF32, "weight"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::RmsNorm(x, w, {-1}, 1e-5, "y"));
                return Args{x, w, y};
              });
}

// An elementwise chain with a broadcast: the bias add (1 FLOP per element)
// and the tanh GELU (about 8) that follow a dense layer when no library fuses them.
Workload BiasGelu(int64_t r, int64_t c, bool small) {
  return Make(absl::StrCat("bias_gelu_", r, "x", c),
              absl::StrCat("y = gelu_tanh(x[", r, ", ", c, "] + b[", c, "]), f32"), 9.0 * r * c,
              4.0 * (2 * r * c + c), small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({r, c}, kF32, "x"));
                TESSEL_ASSIGN_OR_RETURN(Tensor b, Placeholder({c}, kF32, "b"));
                TESSEL_ASSIGN_OR_RETURN(Tensor sum, ops::Add(x, b, "biased"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Gelu(sum, ops::GeluForm::kTanh, "y"));
                return Args{x, b, y};
              });
}

struct ConvShape {
  int64_t n, c, h, w, o, k, stride, pad, groups;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
};

Workload Conv(std::string name, const ConvShape& s, ops::Layout layout, bool small) {
  const bool nchw = layout == ops::Layout::kNCHW;
  const int64_t cg = s.c / s.groups;
  double f = 2.0 * s.n * s.o * s.oh() * s.ow() * cg * s.k * s.k;
  double b = 4.0 * (s.n * s.c * s.h * s.w + s.o * cg * s.k * s.k + s.n * s.o * s.oh() * s.ow());
  std::string desc = absl::StrCat("conv2d ", nchw ? "NCHW" : "NHWC", " data [", s.n, ", ",
                                  nchw ? s.c : s.h, ", ", nchw ? s.h : s.w, ", ", nchw ? s.w : s.c,
                                  "], ", s.o, " filters ", s.k, "x", s.k, ", stride ", s.stride,
                                  ", pad ", s.pad, s.groups > 1 ? absl::StrCat(", groups ", s.groups) : "",
                                  ", f32");
  return Make(std::move(name), std::move(desc), f, b, small, [=]() -> absl::StatusOr<Args> {
    Shape data_shape = nchw ? Shape{s.n, s.c, s.h, s.w} : Shape{s.n, s.h, s.w, s.c};
    Shape kernel_shape = nchw ? Shape{s.o, cg, s.k, s.k} : Shape{s.k, s.k, cg, s.o};
    TESSEL_ASSIGN_OR_RETURN(Tensor data, Placeholder(data_shape, kF32, "data"));
    TESSEL_ASSIGN_OR_RETURN(Tensor kernel, Placeholder(kernel_shape, kF32, "kernel"));
    TESSEL_ASSIGN_OR_RETURN(
        Tensor out, ops::Conv2D(data, kernel,
                                {.strides = {static_cast<int>(s.stride)},
                                 .padding = {static_cast<int>(s.pad)},
                                 .groups = static_cast<int>(s.groups), .layout = layout}));
    return Args{data, kernel, out};
  });
}

// Two dense layers around an erf GELU (5 FLOPs per element), each with a bias
// add (1 per element).
Workload BertFfn(int64_t t, int64_t f, int64_t h, bool small) {
  double flops = 2.0 * (2.0 * t * f * h) + 1.0 * t * f + 5.0 * t * f + 1.0 * t * h;
  double bytes = 4.0 * (2 * t * h + 2 * f * h + f + h);
  return Make(absl::StrCat("bert_ffn_", t, "x", f, "x", h),
              absl::StrCat("Y[", t, ", ", h, "] = gelu(X W1ᵀ + b1) W2ᵀ + b2, W1 [", f, ", ", h,
                           "], W2 [", h, ", ", f, "], f32"),
              flops, bytes, small, [=]() -> absl::StatusOr<Args> {
                TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({t, h}, kF32, "X"));
                TESSEL_ASSIGN_OR_RETURN(Tensor w1, Placeholder({f, h}, kF32, "W1"));
                TESSEL_ASSIGN_OR_RETURN(Tensor b1, Placeholder({f}, kF32, "b1"));
                TESSEL_ASSIGN_OR_RETURN(Tensor w2, Placeholder({h, f}, kF32, "W2"));
                TESSEL_ASSIGN_OR_RETURN(Tensor b2, Placeholder({h}, kF32, "b2"));
                TESSEL_ASSIGN_OR_RETURN(Tensor up, ops::Dense(x, w1, b1, DataType::Void(), "up"));
                TESSEL_ASSIGN_OR_RETURN(Tensor act, ops::Gelu(up, ops::GeluForm::kErf, "gelu"));
                TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Dense(act, w2, b2, DataType::Void(), "down"));
                return Args{x, w1, b1, w2, b2, y};
              });
}

// Q Kᵀ and P V are 2 S² D each per head; scaling 1 and softmax 5 per score.
Workload Attention(int64_t b, int64_t h, int64_t s, int64_t d, bool small) {
  double scores = 1.0 * b * h * s * s;
  return Make(absl::StrCat("attention_", b, "x", h, "x", s, "x", d),
              absl::StrCat("O = softmax(Q Kᵀ / sqrt(", d, ")) V, Q, K, V, O [", b, ", ", h, ", ",
                           s, ", ", d, "], f32"),
              4.0 * scores * d + 6.0 * scores, 4.0 * 4 * b * h * s * d, small,
              [=]() -> absl::StatusOr<Args> {
                Shape shape{b, h, s, d};
                TESSEL_ASSIGN_OR_RETURN(Tensor q, Placeholder(shape, kF32, "Q"));
                TESSEL_ASSIGN_OR_RETURN(Tensor k, Placeholder(shape, kF32, "K"));
                TESSEL_ASSIGN_OR_RETURN(Tensor v, Placeholder(shape, kF32, "V"));
                TESSEL_ASSIGN_OR_RETURN(Tensor o, ops::Attention(q, k, v, {.name = "O"}));
                return Args{q, k, v, o};
              });
}

std::vector<Workload> MakeAll() {
  using ops::Layout;
  return {
      // The standard sizes, for benchmarks and tuning.
      Matmul(1024, 1024, 1024, false),
      Conv("conv2d_nchw_resnet50_stage2", {1, 64, 56, 56, 64, 3, 1, 1, 1}, Layout::kNCHW, false),
      Conv("conv2d_nhwc_mobilenet_depthwise", {1, 32, 112, 112, 32, 3, 1, 1, 32}, Layout::kNHWC,
           false),
      Softmax(4096, 4096, false),
      LayerNorm(4096, 768, false),
      RmsNorm(4096, 768, false),
      BiasGelu(4096, 3072, false),
      Gemv(4096, 4096, false),
      BertFfn(128, 3072, 768, false),
      Attention(1, 12, 128, 64, false),
      // Small ones, for tests in the interpreter.
      Matmul(64, 64, 64, true),
      Matmul(17, 31, 23, true),
      Conv("conv2d_nchw_small", {1, 8, 12, 12, 16, 3, 1, 1, 1}, Layout::kNCHW, true),
      Conv("conv2d_nhwc_depthwise_small", {1, 8, 10, 10, 8, 3, 2, 1, 8}, Layout::kNHWC, true),
      Softmax(16, 33, true),
      LayerNorm(8, 48, true),
      RmsNorm(8, 48, true),
      BiasGelu(16, 33, true),
      Gemv(64, 48, true),
      BertFfn(8, 64, 32, true),
      Attention(1, 2, 16, 8, true),
  };
}

}  // namespace

const std::vector<Workload>& AllWorkloads() {
  static const std::vector<Workload>* all = new std::vector<Workload>(MakeAll());
  return *all;
}

const Workload* FindWorkload(const std::string& name) {
  for (const Workload& w : AllWorkloads()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

absl::StatusOr<IRModule> BuildWorkload(const std::string& name) {
  const Workload* w = FindWorkload(name);
  if (w == nullptr) {
    std::vector<std::string> names;
    for (const Workload& x : AllWorkloads()) names.push_back(x.name);
    return absl::NotFoundError(absl::StrCat("no workload named '", name, "' (known: ",
                                            absl::StrJoin(names, ", "), ")"));
  }
  return w->build();
}

absl::StatusOr<double> ParamBytes(const PrimFunc& func) {
  double bytes = 0;
  for (const Param& p : func->params) {
    if (!p.is_buffer()) continue;
    double n = p.buffer->dtype.bytes();
    for (const Expr& e : p.buffer->shape) {
      const auto* imm = dyn_cast<IntImmNode>(e);
      if (imm == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("ParamBytes: buffer '", p.buffer->name, "' has a symbolic shape"));
      }
      n *= static_cast<double>(imm->value);
    }
    bytes += n;
  }
  return bytes;
}

}  // namespace tessel::ir::te
