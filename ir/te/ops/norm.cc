// LayerNorm and RMSNorm (norm.h).
//
//   LayerNorm(x: f32[n, d], gamma, beta):
//     (T_layer_norm_red_sum, T_layer_norm_red_sqsum)[i] = sum_k (x[i, k], x[i, k]^2)
//     T_layer_norm[i, j] = (x[i, j] - mean) * rsqrt(sqsum / d - mean^2 + eps) * gamma[j] + beta[j]
#include "ir/te/ops/norm.h"

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

struct NormPlan {
  int first;                    // The first normalized axis; the rest follow it.
  std::vector<Expr> kept;       // The leading, not normalized, extents.
  std::vector<IterVar> reduce;  // One per normalized axis.
  Expr count;                   // Elements per normalized group, as x's dtype.
};

absl::Status CheckAffine(const std::string& op, const Tensor& x, const Tensor& p, int first,
                         const char* what) {
  if (!p.defined()) return absl::OkStatus();
  TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, x, p));
  std::vector<Expr> want(x.shape().begin() + first, x.shape().end());
  bool same = p.ndim() == static_cast<int>(want.size());
  for (int d = 0; same && d < p.ndim(); ++d) same = SameExtent(p.shape()[d], want[d]);
  if (!same) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " '", p.name(), "' has shape ",
                                                   ShapeString(p.shape()), ", expected ",
                                                   ShapeString(want)));
  }
  return absl::OkStatus();
}

absl::StatusOr<NormPlan> Plan(const std::string& op, const Tensor& x, const std::vector<int>& axes) {
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  if (axes.empty()) return absl::InvalidArgumentError(absl::StrCat(op, ": no axes to normalize"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int> a, NormalizeAxes(op, axes, x.ndim()));
  NormPlan p;
  p.first = x.ndim() - static_cast<int>(a.size());
  if (a.front() != p.first) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the normalized axes must be the trailing axes of the input"));
  }
  p.kept.assign(x.shape().begin(), x.shape().begin() + p.first);
  Expr n;
  for (int d = p.first; d < x.ndim(); ++d) {
    p.reduce.push_back(ReduceAxis(x.shape()[d], absl::StrCat("k", d)));
    n = n ? FoldMul(n, x.shape()[d]) : x.shape()[d];
  }
  p.count = ConstValue(n) ? Const(x.dtype(), static_cast<double>(*ConstValue(n)))
                          : Cast(x.dtype(), n);
  return p;
}

// x's indices: the kept indices, then the reduce vars.
std::vector<Expr> GroupIndices(const std::vector<Var>& kept, const NormPlan& p) {
  std::vector<Expr> idx = AsExprs(kept);
  for (const IterVar& k : p.reduce) idx.push_back(k.var);
  return idx;
}

Expr Affine(Expr y, const Tensor& scale, const Tensor& shift, const std::vector<Expr>& idx,
            int first) {
  std::vector<Expr> tail(idx.begin() + first, idx.end());
  if (scale.defined()) y = y * scale(tail);
  if (shift.defined()) y = y + shift(tail);
  return y;
}

}  // namespace

absl::StatusOr<Tensor> LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                 const std::vector<int>& axes, double eps, std::string name) {
  const std::string op = "layer_norm";
  TESSEL_ASSIGN_OR_RETURN(NormPlan p, Plan(op, x, axes));
  TESSEL_RETURN_IF_ERROR(CheckAffine(op, x, gamma, p.first, "gamma"));
  TESSEL_RETURN_IF_ERROR(CheckAffine(op, x, beta, p.first, "beta"));
  const DataType t = x.dtype();
  absl::StatusOr<CommReducer> sums = MakeCommReducer(
      "sum_and_squares", {t, t},
      [](const std::vector<Var>& a, const std::vector<Var>& b) {
        return std::vector<Expr>{a[0] + b[0], a[1] + b[1]};
      },
      {Const(t, 0), Const(t, 0)});
  TESSEL_ASSIGN_OR_RETURN(
      std::vector<Tensor> red,
      ComputeMulti(
          p.kept,
          [&](const std::vector<Var>& i) {
            Expr v = x(GroupIndices(i, p));
            return Reduce(sums, {v, v * v}, p.reduce);
          },
          absl::StrCat(name, "_red"),
          {.tag = "reduce",
           .output_names = {absl::StrCat(name, "_red_sum"), absl::StrCat(name, "_red_sqsum")}}));
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        std::vector<Expr> head(idx.begin(), idx.begin() + p.first);
        Expr mean = red[0](head) / p.count;
        Expr var = red[1](head) / p.count - mean * mean;
        Expr y = (x(idx) - mean) * Intrinsic("rsqrt", {var + eps});
        return Affine(y, gamma, beta, idx, p.first);
      },
      name, {.tag = "injective"});
}

absl::StatusOr<Tensor> RmsNorm(const Tensor& x, const Tensor& weight, const std::vector<int>& axes,
                               double eps, std::string name) {
  const std::string op = "rms_norm";
  TESSEL_ASSIGN_OR_RETURN(NormPlan p, Plan(op, x, axes));
  TESSEL_RETURN_IF_ERROR(CheckAffine(op, x, weight, p.first, "weight"));
  TESSEL_ASSIGN_OR_RETURN(
      Tensor sq, Compute(
                     p.kept,
                     [&](const std::vector<Var>& i) {
                       Expr v = x(GroupIndices(i, p));
                       return ReduceSum(v * v, p.reduce);
                     },
                     absl::StrCat(name, "_red"), {.tag = "reduce"}));
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        std::vector<Expr> head(idx.begin(), idx.begin() + p.first);
        Expr y = x(idx) * Intrinsic("rsqrt", {sq(head) / p.count + eps});
        return Affine(y, weight, Tensor(), idx, p.first);
      },
      name, {.tag = "injective"});
}

absl::StatusOr<Tensor> L2Normalize(const Tensor& x, int axis, double eps, std::string name) {
  const std::string op = "l2_normalize";
  // 1. Check what the rules exclude; every failure names the op.
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  TESSEL_ASSIGN_OR_RETURN(int a, NormalizeAxis(op, axis, x.ndim()));
  // 2. The reduction: x's shape without `axis`, summing x^2 along it.
  std::vector<Expr> reduced = x.shape();
  reduced.erase(reduced.begin() + a);
  IterVar k = ReduceAxis(x.shape()[a], "k");
  TESSEL_ASSIGN_OR_RETURN(
      Tensor sumsq, Compute(
                        reduced,
                        [&](const std::vector<Var>& i) {
                          std::vector<Expr> idx = AsExprs(i);
                          idx.insert(idx.begin() + a, k.var);
                          return ReduceSum(x(idx) * x(idx), {k});
                        },
                        absl::StrCat(name, "_sumsq"), {.tag = "reduce"}));
  // 3. The elementwise step, reading the reduction at the same indices minus `axis`.
  return Compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        std::vector<Expr> r = idx;
        r.erase(r.begin() + a);
        return x(idx) * Intrinsic("rsqrt", {sumsq(r) + eps});
      },
      name, {.tag = "injective"});
}

}  // namespace tessel::ir::te::ops
