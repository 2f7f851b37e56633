// Reductions over axes (reduce.h).
//
//   Sum(x: f32[4, 5], {1}):  T_sum[i0] = sum over k1 in [0, 5) of x[i0, k1]
//   ArgMax(x, 1):  (T_argmax, T_argmax_value)[i0] folded over k1 with
//                  take = x[i0, k1] > acc_value  (ties keep the earlier index)
#include "ir/te/ops/reduce.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

// Where each output dimension comes from, and the reduce axes.
struct ReducePlan {
  std::vector<int> axes;          // Normalized, sorted.
  std::vector<Expr> out_shape;
  std::vector<IterVar> reduce;    // One per reduced axis, named k<axis>.
  std::vector<std::string> out_axis_names;
};

absl::StatusOr<ReducePlan> Plan(const std::string& op, const Tensor& x,
                                const std::vector<int>& axes, bool keepdims) {
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  ReducePlan p;
  TESSEL_ASSIGN_OR_RETURN(p.axes, NormalizeAxes(op, axes, x.ndim()));
  size_t next = 0;
  for (int d = 0; d < x.ndim(); ++d) {
    bool reduced = next < p.axes.size() && p.axes[next] == d;
    if (reduced) {
      ++next;
      p.reduce.push_back(ReduceAxis(x.shape()[d], absl::StrCat("k", d)));
      if (keepdims) {
        p.out_shape.push_back(IntImm(x.shape()[d]->dtype, 1));
        p.out_axis_names.push_back(absl::StrCat("i", d));
      }
    } else {
      p.out_shape.push_back(x.shape()[d]);
      p.out_axis_names.push_back(absl::StrCat("i", d));
    }
  }
  return p;
}

// x's indices for output indices `out`: reduce vars at reduced axes.
std::vector<Expr> InputIndices(const Tensor& x, const ReducePlan& p, bool keepdims,
                               const std::vector<Var>& out) {
  std::vector<Expr> idx;
  size_t next = 0, o = 0;
  for (int d = 0; d < x.ndim(); ++d) {
    if (next < p.axes.size() && p.axes[next] == d) {
      idx.push_back(p.reduce[next++].var);
      if (keepdims) ++o;
    } else {
      idx.push_back(out[o++]);
    }
  }
  return idx;
}

using MakeBody = std::function<ComputeBody(Expr, std::vector<IterVar>)>;

absl::StatusOr<Tensor> Builtin(const std::string& op, const Tensor& x, const std::vector<int>& axes,
                               bool keepdims, const std::string& name, const MakeBody& body) {
  TESSEL_ASSIGN_OR_RETURN(ReducePlan p, Plan(op, x, axes, keepdims));
  if (x.dtype().is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": cannot reduce bool tensor '", x.name(), "'"));
  }
  return Compute(
      p.out_shape,
      [&](const std::vector<Var>& i) { return body(x(InputIndices(x, p, keepdims, i)), p.reduce); },
      name, {.tag = "reduce", .axis_names = p.out_axis_names});
}

absl::StatusOr<Tensor> ArgReduce(const std::string& op, const Tensor& x, int axis, bool keepdims,
                                 const std::string& name, bool is_max) {
  TESSEL_ASSIGN_OR_RETURN(ReducePlan p, Plan(op, x, {axis}, keepdims));
  DataType t = x.dtype();
  if (!(t.is_float() || t.is_integer())) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": tensor '", x.name(), "' has type ", t.ToString(), ", expected numbers"));
  }
  // The identity of the value element: the far end of the type.
  TESSEL_ASSIGN_OR_RETURN(Expr far_end, is_max ? MinValue(t) : MaxValue(t));
  absl::StatusOr<CommReducer> reducer = MakeCommReducer(
      op, {DataType::Int(32), t},
      [is_max](const std::vector<Var>& acc, const std::vector<Var>& v) {
        // Strictly better, or equal with a smaller index: the first extremum wins
        // whatever order the reduction visits the elements in.
        Expr better = is_max ? GT(v[1], acc[1]) : LT(v[1], acc[1]);
        // An accumulator still at the identity (index -1) takes any element, so
        // a row of -inf (or +inf for min) still yields its first index.
        Expr earlier = Or(LT(acc[0], IntImm32(0)), LT(v[0], acc[0]));
        Expr take = Or(better, And(EQ(v[1], acc[1]), earlier));
        return std::vector<Expr>{Select(take, v[0], acc[0]), Select(take, v[1], acc[1])};
      },
      {IntImm32(-1), far_end});
  TESSEL_ASSIGN_OR_RETURN(
      std::vector<Tensor> outs,
      ComputeMulti(
          p.out_shape,
          [&](const std::vector<Var>& i) {
            Expr k = CastIfNeeded(DataType::Int(32), p.reduce[0].var);
            return Reduce(reducer, {k, x(InputIndices(x, p, keepdims, i))}, p.reduce);
          },
          name,
          {.tag = "reduce", .axis_names = p.out_axis_names,
           .output_names = {name, absl::StrCat(name, "_value")}}));
  return outs[0];
}

}  // namespace

absl::StatusOr<Tensor> Sum(const Tensor& x, const std::vector<int>& axes, bool keepdims,
                           std::string name) {
  return Builtin("sum", x, axes, keepdims, name,
                 [](Expr e, std::vector<IterVar> k) { return ReduceSum(e, k); });
}
absl::StatusOr<Tensor> Prod(const Tensor& x, const std::vector<int>& axes, bool keepdims,
                            std::string name) {
  return Builtin("prod", x, axes, keepdims, name,
                 [](Expr e, std::vector<IterVar> k) { return ReduceProd(e, k); });
}
absl::StatusOr<Tensor> Max(const Tensor& x, const std::vector<int>& axes, bool keepdims,
                           std::string name) {
  return Builtin("max", x, axes, keepdims, name,
                 [](Expr e, std::vector<IterVar> k) { return ReduceMax(e, k); });
}
absl::StatusOr<Tensor> Min(const Tensor& x, const std::vector<int>& axes, bool keepdims,
                           std::string name) {
  return Builtin("min", x, axes, keepdims, name,
                 [](Expr e, std::vector<IterVar> k) { return ReduceMin(e, k); });
}

absl::StatusOr<Tensor> Mean(const Tensor& x, const std::vector<int>& axes, bool keepdims,
                            std::string name) {
  const std::string op = "mean";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  TESSEL_ASSIGN_OR_RETURN(ReducePlan p, Plan(op, x, axes, keepdims));
  TESSEL_ASSIGN_OR_RETURN(Tensor sum, Sum(x, axes, keepdims, absl::StrCat(name, "_sum")));
  // The count as an expression of the extents (they may be symbolic).
  Expr count;
  for (int a : p.axes) count = count ? FoldMul(count, x.shape()[a]) : x.shape()[a];
  Expr divisor = ConstValue(count) ? Const(x.dtype(), static_cast<double>(*ConstValue(count)))
                                   : Cast(x.dtype(), count);
  return Compute(
      sum.shape(),
      [&](const std::vector<Var>& i) {
        return sum(AsExprs(i)) / divisor;
      },
      name, {.tag = "elemwise", .axis_names = p.out_axis_names});
}

absl::StatusOr<Tensor> ArgMax(const Tensor& x, int axis, bool keepdims, std::string name) {
  return ArgReduce("argmax", x, axis, keepdims, name, true);
}
absl::StatusOr<Tensor> ArgMin(const Tensor& x, int axis, bool keepdims, std::string name) {
  return ArgReduce("argmin", x, axis, keepdims, name, false);
}

}  // namespace tessel::ir::te::ops
