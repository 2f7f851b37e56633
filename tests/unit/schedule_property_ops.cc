// The op catalog of the schedule property test (schedule_property_ops.h).
//
//   "matmul_bias_relu"  M=5 N=3 K=7:  C = matmul(A, B); D = C + bias; E = relu(D)
//                       three blocks, C and D allocated by the root block
//
// Inputs are uniform in [-1, 1) (RandomArgs), so ops that need positive inputs
// (log, sqrt) get |x| + 1 in front of them rather than NaNs that would compare
// equal and hide a wrong result.
#include "tests/unit/schedule_property_ops.h"

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"

namespace tessel::ir::schedule::testing {
namespace {

namespace ops = te::ops;
using te::FuncArg;
using te::Placeholder;
using te::Tensor;
using Args = std::vector<FuncArg>;
constexpr DataType kF32 = DataType::Float(32);

// A small extent, odd three times out of four (odd extents are where splits
// need predicates); 1 now and then (unit loops are their own corner).
int64_t Size(RandomEngine& rng) {
  static constexpr int64_t kSizes[] = {1, 3, 5, 7, 9, 2, 4, 6, 3, 5, 7, 5};
  return kSizes[rng.Below(std::size(kSizes))];
}
// An extent of at least `lo`.
int64_t SizeAtLeast(RandomEngine& rng, int64_t lo) { return std::max(lo, Size(rng)); }

using Builder = std::function<absl::StatusOr<Args>(RandomEngine&, std::string*)>;

PropertyOp Op(std::string name, Builder args) {
  return {name,
          [name, args = std::move(args)](RandomEngine& rng) -> absl::StatusOr<PropertyFunction> {
            std::string what = name;
            TESSEL_ASSIGN_OR_RETURN(Args a, args(rng, &what));
            TESSEL_ASSIGN_OR_RETURN(IRModule mod, te::CreateModule(a, name));
            return PropertyFunction{mod, what};
          }};
}

// x[m, n] -> f(x), for the unary ops.
PropertyOp Unary(std::string name, std::function<absl::StatusOr<Tensor>(const Tensor&)> f) {
  return Op(name, [f](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t m = Size(rng), n = Size(rng);
    absl::StrAppend(what, " ", m, "x", n);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, n}, kF32, "x"));
    TESSEL_ASSIGN_OR_RETURN(Tensor y, f(x));
    return Args{x, y};
  });
}

// x[m, n] and vectors v[n] (bias, gamma, ...) -> f(x, vs).
PropertyOp Rows(
    std::string name, std::vector<std::string> vectors,
    std::function<absl::StatusOr<Tensor>(const Tensor&, const std::vector<Tensor>&)> f) {
  return Op(name, [vectors, f](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t m = Size(rng), n = Size(rng);
    absl::StrAppend(what, " ", m, "x", n);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, n}, kF32, "x"));
    Args args{x};
    std::vector<Tensor> vs;
    for (const std::string& v : vectors) {
      TESSEL_ASSIGN_OR_RETURN(Tensor t, Placeholder({n}, kF32, v));
      vs.push_back(t);
      args.push_back(t);
    }
    TESSEL_ASSIGN_OR_RETURN(Tensor y, f(x, vs));
    args.push_back(y);
    return args;
  });
}

// A matmul's operands A[m, k], B[k, n] (B[n, k] when transposed).
struct MatmulInputs {
  Tensor a, b;
  int64_t m, n, k;
};
absl::StatusOr<MatmulInputs> MatmulOperands(RandomEngine& rng, std::string* what,
                                            bool transpose_b = false) {
  MatmulInputs in{{}, {}, Size(rng), Size(rng), Size(rng)};
  absl::StrAppend(what, " M=", in.m, " N=", in.n, " K=", in.k, transpose_b ? " B^T" : "");
  TESSEL_ASSIGN_OR_RETURN(in.a, Placeholder({in.m, in.k}, kF32, "A"));
  TESSEL_ASSIGN_OR_RETURN(
      in.b, Placeholder(transpose_b ? te::Shape{in.n, in.k} : te::Shape{in.k, in.n}, kF32, "B"));
  return in;
}

// NCHW data and OIHW kernel for a conv2d with a k x k window.
struct ConvInputs {
  Tensor data, kernel;
};
absl::StatusOr<ConvInputs> ConvOperands(RandomEngine& rng, std::string* what, int64_t k,
                                        int64_t groups = 1) {
  int64_t c = groups * (1 + rng.Below(2)), o = groups * (1 + rng.Below(3));
  int64_t h = SizeAtLeast(rng, k), w = SizeAtLeast(rng, k);
  absl::StrAppend(what, " C=", c, " O=", o, " H=", h, " W=", w, " k=", k);
  ConvInputs in;
  TESSEL_ASSIGN_OR_RETURN(in.data, Placeholder({1, c, h, w}, kF32, "data"));
  TESSEL_ASSIGN_OR_RETURN(in.kernel, Placeholder({o, c / groups, k, k}, kF32, "kernel"));
  return in;
}

std::vector<PropertyOp> MakeOps() {
  std::vector<PropertyOp> all;
  // Elementwise and broadcast.
  all.push_back(Unary("relu", [](const Tensor& x) { return ops::Relu(x); }));
  all.push_back(
      Unary("gelu_tanh", [](const Tensor& x) { return ops::Gelu(x, ops::GeluForm::kTanh); }));
  all.push_back(Unary("sigmoid_exp", [](const Tensor& x) -> absl::StatusOr<Tensor> {
    TESSEL_ASSIGN_OR_RETURN(Tensor s, ops::Sigmoid(x));
    return ops::Exp(s);
  }));
  all.push_back(Unary("log_abs_plus_one", [](const Tensor& x) -> absl::StatusOr<Tensor> {
    TESSEL_ASSIGN_OR_RETURN(Tensor a, ops::Abs(x));
    TESSEL_ASSIGN_OR_RETURN(Tensor p, ops::Add(a, 1.0));
    return ops::Log(p);
  }));
  all.push_back(Rows("add_bias_row", {"bias"}, [](const Tensor& x, const std::vector<Tensor>& v) {
    return ops::Add(x, v[0]);
  }));
  // Linear algebra.
  all.push_back(Op("matmul", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    bool tb = rng.Below(3) == 0;
    TESSEL_ASSIGN_OR_RETURN(MatmulInputs in, MatmulOperands(rng, what, tb));
    TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Matmul(in.a, in.b, {.transpose_b = tb, .name = "C"}));
    return Args{in.a, in.b, c};
  }));
  all.push_back(
      Op("matmul_bias_relu", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        TESSEL_ASSIGN_OR_RETURN(MatmulInputs in, MatmulOperands(rng, what));
        TESSEL_ASSIGN_OR_RETURN(Tensor bias, Placeholder({in.n}, kF32, "bias"));
        TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Matmul(in.a, in.b, {.name = "C"}));
        TESSEL_ASSIGN_OR_RETURN(Tensor d, ops::Add(c, bias, "D"));
        TESSEL_ASSIGN_OR_RETURN(Tensor e, ops::Relu(d, "E"));
        return Args{in.a, in.b, bias, e};
      }));
  all.push_back(
      Op("batch_matmul", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        int64_t b = 1 + rng.Below(3), m = Size(rng), n = Size(rng), k = Size(rng);
        absl::StrAppend(what, " B=", b, " M=", m, " N=", n, " K=", k);
        TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({b, m, k}, kF32, "x"));
        TESSEL_ASSIGN_OR_RETURN(Tensor y, Placeholder({b, k, n}, kF32, "y"));
        TESSEL_ASSIGN_OR_RETURN(Tensor z, ops::BatchMatmul(x, y));
        return Args{x, y, z};
      }));
  all.push_back(Op("dense_bias", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t t = Size(rng), n = Size(rng), k = Size(rng);
    absl::StrAppend(what, " T=", t, " N=", n, " K=", k);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({t, k}, kF32, "x"));
    TESSEL_ASSIGN_OR_RETURN(Tensor w, Placeholder({n, k}, kF32, "w"));
    TESSEL_ASSIGN_OR_RETURN(Tensor b, Placeholder({n}, kF32, "b"));
    TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Dense(x, w, b));
    return Args{x, w, b, y};
  }));
  all.push_back(Op("gemv", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t m = Size(rng), k = Size(rng);
    absl::StrAppend(what, " M=", m, " K=", k);
    TESSEL_ASSIGN_OR_RETURN(Tensor a, Placeholder({m, k}, kF32, "A"));
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({k}, kF32, "x"));
    TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Gemv(a, x));
    return Args{a, x, y};
  }));
  // Convolution and pooling.
  all.push_back(
      Op("conv2d_pad_relu", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        TESSEL_ASSIGN_OR_RETURN(ConvInputs in, ConvOperands(rng, what, 3));
        TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Conv2D(in.data, in.kernel, {.padding = {1}}));
        TESSEL_ASSIGN_OR_RETURN(Tensor r, ops::Relu(c));
        return Args{in.data, in.kernel, r};
      }));
  all.push_back(
      Op("conv2d_stride2", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        TESSEL_ASSIGN_OR_RETURN(ConvInputs in, ConvOperands(rng, what, 1 + 2 * rng.Below(2)));
        TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Conv2D(in.data, in.kernel, {.strides = {2}}));
        return Args{in.data, in.kernel, c};
      }));
  all.push_back(
      Op("conv2d_depthwise", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        int64_t groups = 1 + rng.Below(3);
        TESSEL_ASSIGN_OR_RETURN(ConvInputs in, ConvOperands(rng, what, 3, groups));
        absl::StrAppend(what, " groups=", groups);
        TESSEL_ASSIGN_OR_RETURN(
            Tensor c,
            ops::Conv2D(in.data, in.kernel, {.padding = {1}, .groups = static_cast<int>(groups)}));
        return Args{in.data, in.kernel, c};
      }));
  all.push_back(Op("pool2d", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t c = 1 + rng.Below(3), h = SizeAtLeast(rng, 3), w = SizeAtLeast(rng, 3);
    bool avg = rng.Below(2) == 0;
    absl::StrAppend(what, avg ? " avg" : " max", " C=", c, " H=", h, " W=", w);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({1, c, h, w}, kF32, "x"));
    ops::Pool2DOptions opts{.kernel = {3}, .strides = {2}, .padding = {1}};
    TESSEL_ASSIGN_OR_RETURN(Tensor y, avg ? ops::AvgPool2D(x, opts) : ops::MaxPool2D(x, opts));
    return Args{x, y};
  }));
  // Reductions and normalisations.
  all.push_back(Op("reduce", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t m = Size(rng), n = Size(rng);
    int axis = static_cast<int>(rng.Below(2));
    static constexpr const char* kKinds[] = {"sum", "max", "mean", "argmax"};
    const char* kind = kKinds[rng.Below(std::size(kKinds))];
    absl::StrAppend(what, " ", kind, " ", m, "x", n, " axis=", axis);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, n}, kF32, "x"));
    absl::StatusOr<Tensor> y = kind == std::string("sum")    ? ops::Sum(x, {axis})
                               : kind == std::string("max")  ? ops::Max(x, {axis})
                               : kind == std::string("mean") ? ops::Mean(x, {axis})
                                                             : ops::ArgMax(x, axis);
    TESSEL_RETURN_IF_ERROR(y.status());
    return Args{x, *y};
  }));
  all.push_back(Op("exp_sum", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t m = Size(rng), n = Size(rng);
    absl::StrAppend(what, " ", m, "x", n);
    TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, n}, kF32, "x"));
    TESSEL_ASSIGN_OR_RETURN(Tensor e, ops::Exp(x));
    TESSEL_ASSIGN_OR_RETURN(Tensor s, ops::Sum(e, {1}));
    return Args{x, s};
  }));
  all.push_back(Unary("softmax", [](const Tensor& x) { return ops::Softmax(x); }));
  all.push_back(Unary("log_softmax", [](const Tensor& x) { return ops::LogSoftmax(x); }));
  all.push_back(Rows(
      "layer_norm", {"gamma", "beta"},
      [](const Tensor& x, const std::vector<Tensor>& v) { return ops::LayerNorm(x, v[0], v[1]); }));
  all.push_back(Rows("rms_norm", {"weight"}, [](const Tensor& x, const std::vector<Tensor>& v) {
    return ops::RmsNorm(x, v[0]);
  }));
  all.push_back(Unary("l2_normalize", [](const Tensor& x) { return ops::L2Normalize(x, 0); }));
  // Data movement.
  all.push_back(
      Op("transpose_pad", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        int64_t a = Size(rng), b = Size(rng), c = Size(rng);
        absl::StrAppend(what, " ", a, "x", b, "x", c);
        TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({a, b, c}, kF32, "x"));
        TESSEL_ASSIGN_OR_RETURN(Tensor t, ops::Transpose(x, {2, 0, 1}));
        TESSEL_ASSIGN_OR_RETURN(Tensor p, ops::Pad(t, {1, 0, 2}, {0, 1, 1}, 0.5));
        return Args{x, p};
      }));
  all.push_back(
      Op("reshape_concat", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
        int64_t m = Size(rng), n = Size(rng), k = Size(rng);
        absl::StrAppend(what, " ", m, "x", n, " + ", m * n, "x", k);
        TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, n}, kF32, "x"));
        TESSEL_ASSIGN_OR_RETURN(Tensor y, Placeholder({m * n, k}, kF32, "y"));
        TESSEL_ASSIGN_OR_RETURN(Tensor r, ops::Reshape(x, {m * n, 1}));
        TESSEL_ASSIGN_OR_RETURN(Tensor c, ops::Concat({r, y}, 1));
        return Args{x, y, c};
      }));
  // Attention: two matmuls around a softmax, seven blocks.
  all.push_back(Op("attention", [](RandomEngine& rng, std::string* what) -> absl::StatusOr<Args> {
    int64_t s = SizeAtLeast(rng, 2), d = 1 + rng.Below(4);
    bool causal = rng.Below(2) == 0;
    absl::StrAppend(what, " S=", s, " D=", d, causal ? " causal" : "");
    te::Shape shape{1, 1, s, d};
    TESSEL_ASSIGN_OR_RETURN(Tensor q, Placeholder(shape, kF32, "Q"));
    TESSEL_ASSIGN_OR_RETURN(Tensor k, Placeholder(shape, kF32, "K"));
    TESSEL_ASSIGN_OR_RETURN(Tensor v, Placeholder(shape, kF32, "V"));
    TESSEL_ASSIGN_OR_RETURN(Tensor o, ops::Attention(q, k, v, {.scale = 0.5, .causal = causal}));
    return Args{q, k, v, o};
  }));
  return all;
}

}  // namespace

const std::vector<PropertyOp>& PropertyOps() {
  static const std::vector<PropertyOp>* all = new std::vector<PropertyOp>(MakeOps());
  return *all;
}

}  // namespace tessel::ir::schedule::testing
