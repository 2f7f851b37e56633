// Softmax and log-softmax (softmax.h): max, exp, sum, normalize.
//
//   Softmax(x: f32[n, m]):
//     T_softmax_maxelem[i] = max_k x[i, k]
//     T_softmax_exp[i, j]  = exp(x[i, j] - T_softmax_maxelem[i])
//     T_softmax_expsum[i]  = sum_k T_softmax_exp[i, k]
//     T_softmax[i, j]      = T_softmax_exp[i, j] * (1 / T_softmax_expsum[i])
#include "ir/te/ops/softmax.h"

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

// The shape without `axis`, and x's indices from such indices plus `k` at `axis`.
std::vector<Expr> DropAxis(const std::vector<Expr>& v, int axis) {
  std::vector<Expr> out = v;
  out.erase(out.begin() + axis);
  return out;
}
std::vector<Expr> InsertAxis(const std::vector<Var>& v, int axis, const Expr& k) {
  std::vector<Expr> out = AsExprs(v);
  out.insert(out.begin() + axis, k);
  return out;
}

struct Stats {
  Tensor max;  // Max along the axis (the axis dropped).
  Tensor sum;  // Sum along the axis of exp(x - max), same shape.
  Tensor exp;  // exp(x - max), x's shape (Softmax only).
};

absl::StatusOr<Stats> MaxAndExpSum(const std::string& op, const Tensor& x, int axis,
                                   const std::string& name, bool keep_exp) {
  const std::vector<Expr> reduced = DropAxis(x.shape(), axis);
  IterVar k = ReduceAxis(x.shape()[axis], "k");
  Stats s;
  TESSEL_ASSIGN_OR_RETURN(
      s.max, Compute(
                 reduced,
                 [&](const std::vector<Var>& i) { return ReduceMax(x(InsertAxis(i, axis, k.var)), {k}); },
                 absl::StrCat(name, "_maxelem"), {.tag = "reduce"}));
  auto shifted = [&](const std::vector<Expr>& idx) {
    return x(idx) - s.max(DropAxis(idx, axis));
  };
  if (keep_exp) {
    TESSEL_ASSIGN_OR_RETURN(
        s.exp, Compute(
                   x.shape(),
                   [&](const std::vector<Var>& i) { return Intrinsic("exp", {shifted(AsExprs(i))}); },
                   absl::StrCat(name, "_exp"), {.tag = "elemwise"}));
  }
  IterVar k2 = ReduceAxis(x.shape()[axis], "k");
  TESSEL_ASSIGN_OR_RETURN(
      s.sum, Compute(
                 reduced,
                 [&](const std::vector<Var>& i) {
                   std::vector<Expr> idx = InsertAxis(i, axis, k2.var);
                   Expr e = keep_exp ? s.exp(idx) : Intrinsic("exp", {shifted(idx)});
                   return ReduceSum(e, {k2});
                 },
                 absl::StrCat(name, "_expsum"), {.tag = "reduce"}));
  return s;
}

absl::StatusOr<int> CheckInput(const std::string& op, const Tensor& x, int axis) {
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  return NormalizeAxis(op, axis, x.ndim());
}

}  // namespace

absl::StatusOr<Tensor> Softmax(const Tensor& x, int axis, std::string name) {
  TESSEL_ASSIGN_OR_RETURN(int a, CheckInput("softmax", x, axis));
  TESSEL_ASSIGN_OR_RETURN(Stats s, MaxAndExpSum("softmax", x, a, name, true));
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        // One division per row, then a multiply per element (as PyTorch's CPU
        // softmax does): a vector division costs several multiplies.
        Expr sum = s.sum(DropAxis(idx, a));
        return s.exp(idx) * (Const(sum->dtype, 1) / sum);
      },
      name, {.tag = "elemwise"});
}

absl::StatusOr<Tensor> LogSoftmax(const Tensor& x, int axis, std::string name) {
  TESSEL_ASSIGN_OR_RETURN(int a, CheckInput("log_softmax", x, axis));
  TESSEL_ASSIGN_OR_RETURN(Stats s, MaxAndExpSum("log_softmax", x, a, name, false));
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        std::vector<Expr> r = DropAxis(idx, a);
        return x(idx) - s.max(r) - Intrinsic("log", {s.sum(r)});
      },
      name, {.tag = "elemwise"});
}

}  // namespace tessel::ir::te::ops
