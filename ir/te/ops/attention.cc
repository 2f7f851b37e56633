// Scaled dot-product attention (attention.h).
//
//   score[.., s, t]  = sum_d q[.., s, d] * k[.., t, d]
//   scaled[.., s, t] = causal && t > s ? -inf : score[.., s, t] * scale
//   prob             = Softmax(scaled, -1)
//   out[.., s, e]    = sum_t prob[.., s, t] * v[.., t, e]
#include "ir/te/ops/attention.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/ops/softmax.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                 const AttentionOptions& opts) {
  const std::string op = "attention";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, q, "q"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, k, "k"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, v, "v"));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, q));
  TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, q, k));
  TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, q, v));
  const int r = q.ndim();
  if (r < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": q has rank ", r, "; expected [..., S, D] (rank >= 2)"));
  }
  TESSEL_RETURN_IF_ERROR(CheckRank(op, k, r));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, v, r));
  auto mismatch = [&](const Tensor& a, const Tensor& b, const char* what) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " differ: '", a.name(), "' is ",
                                                   ShapeString(a.shape()), ", '", b.name(),
                                                   "' is ", ShapeString(b.shape())));
  };
  for (int d = 0; d < r - 2; ++d) {
    if (!SameExtent(q.shape()[d], k.shape()[d]) || !SameExtent(q.shape()[d], v.shape()[d])) {
      return mismatch(q, !SameExtent(q.shape()[d], k.shape()[d]) ? k : v, "leading extents");
    }
  }
  const Expr& dq = q.shape()[r - 1];
  const Expr& t_len = k.shape()[r - 2];
  if (!SameExtent(dq, k.shape()[r - 1])) return mismatch(q, k, "head dimensions (D)");
  if (!SameExtent(t_len, v.shape()[r - 2])) return mismatch(k, v, "key lengths (T)");
  double scale = opts.scale;
  if (scale == 0) {
    std::optional<int64_t> d = ConstValue(dq);
    if (!d || *d <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": D is ", ShapeString({dq}), "; pass a scale for a symbolic D"));
    }
    scale = 1.0 / std::sqrt(static_cast<double>(*d));
  }
  const DataType t = q.dtype();
  std::vector<Expr> score_shape(q.shape().begin(), q.shape().end() - 1);
  score_shape.push_back(t_len);
  std::vector<std::string> names;
  for (int d = 0; d < r - 2; ++d) names.push_back(absl::StrCat("b", d));
  std::vector<std::string> score_names = names, out_names = names;
  score_names.insert(score_names.end(), {"s", "t"});
  out_names.insert(out_names.end(), {"s", "e"});

  IterVar kd = ReduceAxis(dq, "kd");
  TESSEL_ASSIGN_OR_RETURN(
      Tensor score, Compute(
                        score_shape,
                        [&](const std::vector<Var>& i) {
                          std::vector<Expr> qi = AsExprs(i), ki = AsExprs(i);
                          qi.back() = kd.var;          // [.., s, kd]
                          ki[r - 2] = i[r - 1];        // [.., t, kd]
                          ki.back() = kd.var;
                          return ReduceSum(q(qi) * k(ki), {kd});
                        },
                        absl::StrCat(opts.name, "_score"),
                        {.tag = "batch_matmul", .axis_names = score_names}));
  TESSEL_ASSIGN_OR_RETURN(
      Tensor scaled, Compute(
                         score_shape,
                         [&](const std::vector<Var>& i) {
                           Expr e = score(AsExprs(i)) * scale;
                           if (!opts.causal) return e;
                           return Select(GT(i[r - 1], i[r - 2]), Const(t, -INFINITY), e);
                         },
                         absl::StrCat(opts.name, "_scaled"),
                         {.tag = "elemwise", .axis_names = score_names}));
  TESSEL_ASSIGN_OR_RETURN(Tensor prob, Softmax(scaled, -1, absl::StrCat(opts.name, "_prob")));
  std::vector<Expr> out_shape(q.shape().begin(), q.shape().end() - 1);
  out_shape.push_back(v.shape()[r - 1]);
  IterVar kt = ReduceAxis(t_len, "kt");
  return Compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> pi = AsExprs(i), vi = AsExprs(i);
        pi.back() = kt.var;   // [.., s, kt]
        vi[r - 2] = kt.var;   // [.., kt, e]
        return ReduceSum(prob(pi) * v(vi), {kt});
      },
      opts.name, {.tag = "batch_matmul", .axis_names = out_names});
}

}  // namespace tessel::ir::te::ops
