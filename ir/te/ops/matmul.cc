// Matrix products (matmul.h): each a single reduction block over k.
//
//   Matmul(A: f32[M, K], B: f32[K, N]):
//     T_matmul[i, j] = sum over k in [0, K) of A[i, k] * B[k, j]
#include "ir/te/ops/matmul.h"

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/broadcast.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

absl::StatusOr<DataType> OutType(const std::string& op, const Tensor& a, const Tensor& b,
                                 DataType out) {
  TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, a, b));
  DataType t = out.is_void() ? a.dtype() : out;
  if (!t.is_scalar() || !(t.is_float() || t.is_integer()) || a.dtype().is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": cannot multiply ", a.dtype().ToString(),
                                                   " into ", t.ToString()));
  }
  return t;
}

absl::Status CheckContracted(const std::string& op, const Tensor& a, const Expr& ka,
                             const Tensor& b, const Expr& kb) {
  if (!SameExtent(ka, kb)) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": contracted extents differ: '", a.name(), "' ", ShapeString(a.shape()), " has ",
        ShapeString({ka}), ", '", b.name(), "' ", ShapeString(b.shape()), " has ",
        ShapeString({kb})));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> Matmul(const Tensor& a, const Tensor& b, const MatmulOptions& opts) {
  const std::string op = "matmul";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, a, "operand a"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, b, "operand b"));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, a, 2));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, b, 2));
  TESSEL_ASSIGN_OR_RETURN(DataType t, OutType(op, a, b, opts.out_dtype));
  const Expr& m = a.shape()[opts.transpose_a ? 1 : 0];
  const Expr& ka = a.shape()[opts.transpose_a ? 0 : 1];
  const Expr& kb = b.shape()[opts.transpose_b ? 1 : 0];
  const Expr& n = b.shape()[opts.transpose_b ? 0 : 1];
  TESSEL_RETURN_IF_ERROR(CheckContracted(op, a, ka, b, kb));
  IterVar k = ReduceAxis(ka, "k");
  return Compute(
      {m, n},
      [&](Var i, Var j) {
        Expr x = opts.transpose_a ? a(k.var, i) : a(i, k.var);
        Expr y = opts.transpose_b ? b(j, k.var) : b(k.var, j);
        return ReduceSum(CastIfNeeded(t, x) * CastIfNeeded(t, y), {k});
      },
      opts.name, {.tag = "matmul", .axis_names = {"i", "j"}});
}

absl::StatusOr<Tensor> BatchMatmul(const Tensor& a, const Tensor& b, MatmulOptions opts) {
  const std::string op = "batch_matmul";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, a, "operand a"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, b, "operand b"));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, a, 3));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, b, 3));
  TESSEL_ASSIGN_OR_RETURN(DataType t, OutType(op, a, b, opts.out_dtype));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> batch,
                             BroadcastShapes(op, {a.shape()[0]}, {b.shape()[0]}));
  const Expr& m = a.shape()[opts.transpose_a ? 2 : 1];
  const Expr& ka = a.shape()[opts.transpose_a ? 1 : 2];
  const Expr& kb = b.shape()[opts.transpose_b ? 2 : 1];
  const Expr& n = b.shape()[opts.transpose_b ? 1 : 2];
  TESSEL_RETURN_IF_ERROR(CheckContracted(op, a, ka, b, kb));
  IterVar k = ReduceAxis(ka, "k");
  std::vector<Expr> out_batch = batch;
  return Compute(
      {batch[0], m, n},
      [&](Var bi, Var i, Var j) {
        Expr ba = BroadcastIndices({a.shape()[0]}, {bi}, out_batch)[0];
        Expr bb = BroadcastIndices({b.shape()[0]}, {bi}, out_batch)[0];
        Expr x = opts.transpose_a ? a(ba, k.var, i) : a(ba, i, k.var);
        Expr y = opts.transpose_b ? b(bb, j, k.var) : b(bb, k.var, j);
        return ReduceSum(CastIfNeeded(t, x) * CastIfNeeded(t, y), {k});
      },
      opts.name, {.tag = "batch_matmul", .axis_names = {"b", "i", "j"}});
}

absl::StatusOr<Tensor> Dense(const Tensor& x, const Tensor& weight, const Tensor& bias,
                             DataType out_dtype, std::string name) {
  const std::string op = "dense";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, weight, "the weight"));
  TESSEL_ASSIGN_OR_RETURN(
      Tensor y, Matmul(x, weight, {.transpose_b = true, .out_dtype = out_dtype, .name = name}));
  if (!bias.defined()) return y;
  TESSEL_RETURN_IF_ERROR(CheckRank(op, bias, 1));
  if (bias.dtype() != y.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": bias '", bias.name(), "' has type ",
                                                   bias.dtype().ToString(), ", expected ",
                                                   y.dtype().ToString()));
  }
  if (!SameExtent(bias.shape()[0], y.shape()[1])) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": bias '", bias.name(), "' has shape ",
                                                   ShapeString(bias.shape()), ", expected ",
                                                   ShapeString({y.shape()[1]})));
  }
  return Compute(
      y.shape(), [&](Var i, Var j) { return y(i, j) + bias(j); }, absl::StrCat(name, "_bias"),
      {.tag = "broadcast", .axis_names = {"i", "j"}});
}

absl::StatusOr<Tensor> Gemv(const Tensor& a, const Tensor& x, DataType out_dtype,
                            std::string name) {
  const std::string op = "gemv";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, a, "the matrix"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the vector"));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, a, 2));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, x, 1));
  TESSEL_ASSIGN_OR_RETURN(DataType t, OutType(op, a, x, out_dtype));
  TESSEL_RETURN_IF_ERROR(CheckContracted(op, a, a.shape()[1], x, x.shape()[0]));
  IterVar k = ReduceAxis(a.shape()[1], "k");
  return Compute(
      {a.shape()[0]},
      [&](Var i) { return ReduceSum(CastIfNeeded(t, a(i, k.var)) * CastIfNeeded(t, x(k.var)), {k}); },
      name, {.tag = "gemv", .axis_names = {"i"}});
}

}  // namespace tessel::ir::te::ops
