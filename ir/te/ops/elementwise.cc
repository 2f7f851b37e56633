// Elementwise unary operators (elementwise.h): one compute each, tagged "elemwise".
//
//   Relu(x: f32[4, 5]) -> T_relu[i0, i1] = max(x[i0, i1], 0.0f32)
#include "ir/te/ops/elementwise.h"

#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

using ElemFn = std::function<Expr(const Expr&)>;

absl::StatusOr<Tensor> Unary(const char* op, const Tensor& x, bool float_only,
                             const std::string& name, const ElemFn& f) {
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  if (float_only) TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  if (!float_only && !(x.dtype().is_float() || x.dtype().is_integer())) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": tensor '", x.name(), "' has type ",
                                                   x.dtype().ToString(),
                                                   ", expected a number type"));
  }
  return Compute(
      x.shape(), [&](const std::vector<Var>& i) { return f(x(AsExprs(i))); },
      name, {.tag = "elemwise"});
}

Expr Call1(const char* intrinsic, const Expr& v) { return Intrinsic(intrinsic, {v}); }

}  // namespace

absl::StatusOr<Tensor> Relu(const Tensor& x, std::string name) {
  return Unary("relu", x, false, name, [](const Expr& v) { return Max(v, Const(v->dtype, 0)); });
}
absl::StatusOr<Tensor> Neg(const Tensor& x, std::string name) {
  return Unary("neg", x, false, name, [](const Expr& v) { return -v; });
}
absl::StatusOr<Tensor> Abs(const Tensor& x, std::string name) {
  return Unary("abs", x, false, name, [](const Expr& v) { return Call1("fabs", v); });
}
absl::StatusOr<Tensor> Exp(const Tensor& x, std::string name) {
  return Unary("exp", x, true, name, [](const Expr& v) { return Call1("exp", v); });
}
absl::StatusOr<Tensor> Log(const Tensor& x, std::string name) {
  return Unary("log", x, true, name, [](const Expr& v) { return Call1("log", v); });
}
absl::StatusOr<Tensor> Sqrt(const Tensor& x, std::string name) {
  return Unary("sqrt", x, true, name, [](const Expr& v) { return Call1("sqrt", v); });
}
absl::StatusOr<Tensor> Rsqrt(const Tensor& x, std::string name) {
  return Unary("rsqrt", x, true, name, [](const Expr& v) { return Call1("rsqrt", v); });
}
absl::StatusOr<Tensor> Tanh(const Tensor& x, std::string name) {
  return Unary("tanh", x, true, name, [](const Expr& v) { return Call1("tanh", v); });
}
absl::StatusOr<Tensor> Erf(const Tensor& x, std::string name) {
  return Unary("erf", x, true, name, [](const Expr& v) { return Call1("erf", v); });
}
absl::StatusOr<Tensor> Sigmoid(const Tensor& x, std::string name) {
  return Unary("sigmoid", x, true, name, [](const Expr& v) { return Call1("sigmoid", v); });
}
absl::StatusOr<Tensor> Silu(const Tensor& x, std::string name) {
  return Unary("silu", x, true, name, [](const Expr& v) { return v * Call1("sigmoid", v); });
}

absl::StatusOr<Tensor> Gelu(const Tensor& x, GeluForm form, std::string name) {
  if (form == GeluForm::kErf) {
    return Unary("gelu", x, true, name, [](const Expr& v) {
      return 0.5 * v * (1.0 + Call1("erf", v * M_SQRT1_2));
    });
  }
  return Unary("gelu", x, true, name, [](const Expr& v) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * v * (1.0 + Call1("tanh", k * (v + 0.044715 * v * v * v)));
  });
}

absl::StatusOr<Tensor> Cast(const Tensor& x, DataType dtype, std::string name) {
  TESSEL_RETURN_IF_ERROR(CheckDefined("cast", x, "the input"));
  if (!dtype.is_scalar() || dtype.is_handle() || dtype.is_void()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cast: cannot cast to ", dtype.ToString(), ", expected a scalar value type"));
  }
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return CastIfNeeded(dtype, x(AsExprs(i)));
      },
      name, {.tag = "elemwise"});
}

}  // namespace tessel::ir::te::ops
