// The op library's test cases (op_library_cases.h).
#include "tests/unit/op_library_cases.h"

#include "ir/te/compute.h"
#include "ir/te/ops/ops.h"

namespace tessel::testing {

namespace {

namespace te = ir::te;
namespace ops = ir::te::ops;
using ir::DataType;

te::Tensor T(const std::string& name, te::Shape shape, DataType t = DataType::Float(32)) {
  return *te::Placeholder(shape, t, name);
}

// out = op(inputs...), as the argument list of a function.
Built Args(std::vector<te::Tensor> in, absl::StatusOr<te::Tensor> out) {
  if (!out.ok()) return out.status();
  std::vector<te::FuncArg> args(in.begin(), in.end());
  args.push_back(*out);
  return args;
}

}  // namespace

std::vector<std::pair<std::string, std::function<Built()>>> OpLibraryCases() {
  te::Tensor x = T("x", {5, 19}), y = T("y", {5, 19}), row = T("r", {19});
  return {
      {"relu", [=] { return Args({x}, ops::Relu(x)); }},
      {"abs_neg", [=] { return Args({x}, ops::Neg(*ops::Abs(x))); }},
      {"exp", [=] { return Args({x}, ops::Exp(x)); }},
      {"tanh", [=] { return Args({x}, ops::Tanh(x)); }},
      {"erf", [=] { return Args({x}, ops::Erf(x)); }},
      {"sigmoid", [=] { return Args({x}, ops::Sigmoid(x)); }},
      {"silu", [=] { return Args({x}, ops::Silu(x)); }},
      {"gelu", [=] { return Args({x}, ops::Gelu(x)); }},
      {"gelu_tanh", [=] { return Args({x}, ops::Gelu(x, ops::GeluForm::kTanh)); }},
      {"cast_i32", [=] { return Args({x}, ops::Cast(*ops::Mul(x, 10.0), DataType::Int(32))); }},
      {"sum", [=] { return Args({x}, ops::Sum(x, {1})); }},
      {"max", [=] { return Args({x}, ops::Max(x, {0})); }},
      {"mean", [=] { return Args({x}, ops::Mean(x, {1})); }},
      {"argmax", [=] { return Args({x}, ops::ArgMax(x, 1)); }},
      {"softmax", [=] { return Args({x}, ops::Softmax(x)); }},
      {"log_softmax", [=] { return Args({x}, ops::LogSoftmax(x)); }},
      {"l2_normalize", [=] { return Args({x}, ops::L2Normalize(x, 1)); }},
      {"transpose", [=] { return Args({x}, ops::Transpose(x)); }},
      {"pad", [=] { return Args({x}, ops::Pad(x, {1, 0}, {2, 3}, 7.0)); }},
      {"add_broadcast", [=] { return Args({x, row}, ops::Add(x, row)); }},
      {"maximum", [=] { return Args({x, y}, ops::Maximum(x, y)); }},
      {"where", [=] {
         te::Tensor m = T("m", {5, 19}, DataType::Bool());
         return Args({m, x, y}, ops::Where(m, x, y));
       }},
      {"concat", [=] { return Args({x, y}, ops::Concat({x, y}, 0)); }},
      {"matmul", [] {
         te::Tensor a = T("a", {9, 5}), b = T("b", {5, 35});
         return Args({a, b}, ops::Matmul(a, b));
       }},
      {"batch_matmul", [] {
         te::Tensor a = T("a", {2, 3, 5}), b = T("b", {2, 5, 17});
         return Args({a, b}, ops::BatchMatmul(a, b));
       }},
      {"dense", [] {
         te::Tensor d = T("d", {3, 6}), w = T("w", {10, 6}), bias = T("bias", {10});
         return Args({d, w, bias}, ops::Dense(d, w, bias));
       }},
      {"gemv", [] {
         te::Tensor a = T("a", {9, 6}), v = T("v", {6});
         return Args({a, v}, ops::Gemv(a, v));
       }},
      {"conv2d", [] {
         te::Tensor d = T("d", {1, 2, 7, 6}), k = T("k", {3, 2, 3, 3});
         return Args({d, k}, ops::Conv2D(d, k, {.padding = {1}}));
       }},
      {"max_pool", [] {
         te::Tensor d = T("d", {1, 2, 7, 6});
         return Args({d}, ops::MaxPool2D(d, {.kernel = {3}, .strides = {2}, .padding = {1}}));
       }},
      {"avg_pool", [] {
         te::Tensor d = T("d", {1, 2, 7, 6});
         return Args({d}, ops::AvgPool2D(d, {.kernel = {2}, .strides = {2}}));
       }},
      {"layer_norm", [] {
         te::Tensor v = T("v", {3, 21}), g = T("g", {21}), b = T("b", {21});
         return Args({v, g, b}, ops::LayerNorm(v, g, b));
       }},
      {"rms_norm", [] {
         te::Tensor v = T("v", {3, 21}), w = T("w", {21});
         return Args({v, w}, ops::RmsNorm(v, w));
       }},
      {"attention", [] {
         te::Tensor q = T("q", {2, 3, 4}), k = T("k", {2, 5, 4}), v = T("v", {2, 5, 3});
         return Args({q, k, v}, ops::Attention(q, k, v, {.causal = true}));
       }},
  };
}

}  // namespace tessel::testing
