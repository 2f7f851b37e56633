// 2-D pooling (pool.h): one reduction over the window, guarded where padded.
//
//   MaxPool2D(x: f32[N, C, H, W], kernel 3, stride 2, padding 1):
//     T_max_pool2d[n, c, oh, ow] = max over (rh, rw) in [0, 3)^2 where the tap
//       h = oh * 2 - 1 + rh, w = ow * 2 - 1 + rw is inside x, of x[n, c, h, w]
//   AvgPool2D: the same sum (<name>_sum), then a division by the tap count.
#include "ir/te/ops/pool.h"

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

struct PoolPlan {
  int h_axis, w_axis;
  std::vector<int64_t> pad, stride, dilation;  // pad: top, left, bottom, right.
  std::vector<int64_t> kernel;
  std::vector<Expr> out_shape;
  IterVar rh, rw;
};

absl::StatusOr<PoolPlan> Plan(const std::string& op, const Tensor& x, const Pool2DOptions& o) {
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, x, 4));
  PoolPlan p;
  TESSEL_ASSIGN_OR_RETURN(p.kernel, Pair2D(op, "kernel", o.kernel));
  TESSEL_ASSIGN_OR_RETURN(p.stride, Pair2D(op, "strides", o.strides));
  TESSEL_ASSIGN_OR_RETURN(p.dilation, Pair2D(op, "dilation", o.dilation));
  TESSEL_ASSIGN_OR_RETURN(p.pad, Padding2D(op, o.padding));
  p.h_axis = o.layout == Layout::kNCHW ? 2 : 1;
  p.w_axis = p.h_axis + 1;
  p.out_shape = x.shape();
  for (int s = 0; s < 2; ++s) {
    const Expr& in = x.shape()[s == 0 ? p.h_axis : p.w_axis];
    // A window starting in the padding must still reach the input.
    const int64_t reach = (p.kernel[s] - 1) * p.dilation[s];
    if (p.pad[s] > reach || p.pad[s + 2] > reach) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": padding ", std::max(p.pad[s], p.pad[s + 2]),
                                                     " leaves windows with no input (a window reaches ",
                                                     reach, " past its first tap)"));
    }
    TESSEL_ASSIGN_OR_RETURN(
        p.out_shape[s == 0 ? p.h_axis : p.w_axis],
        WindowExtent(op, in, p.pad[s] + p.pad[s + 2], IntImm(in->dtype, p.kernel[s]), p.stride[s],
                     p.dilation[s]));
  }
  DataType t = x.shape()[p.h_axis]->dtype;
  p.rh = ReduceAxis(IntImm(t, p.kernel[0]), "rh");
  p.rw = ReduceAxis(IntImm(t, p.kernel[1]), "rw");
  return p;
}

// The input position of tap r of output position o along spatial axis s.
Expr Tap(const PoolPlan& p, int s, const Expr& o, const Expr& r) {
  DataType t = o->dtype;
  return FoldAdd(FoldSub(FoldMul(o, IntImm(t, p.stride[s])), IntImm(t, p.pad[s])),
                 FoldMul(r, IntImm(t, p.dilation[s])));
}

// x's indices for output indices `i` at taps (rh, rw), and the in-bounds
// condition (null without padding).
std::pair<std::vector<Expr>, Expr> Window(const Tensor& x, const PoolPlan& p,
                                          const std::vector<Var>& i) {
  std::vector<Expr> idx = AsExprs(i);
  Expr h = Tap(p, 0, i[p.h_axis], p.rh.var), w = Tap(p, 1, i[p.w_axis], p.rw.var);
  idx[p.h_axis] = h;
  idx[p.w_axis] = w;
  Expr cond;
  auto inside = [&](const Expr& e, const Expr& extent) {
    Expr c = And(GE(e, IntImm(e->dtype, 0)), LT(e, extent));
    cond = cond ? And(cond, c) : c;
  };
  if (p.pad[0] > 0 || p.pad[2] > 0) inside(h, x.shape()[p.h_axis]);
  if (p.pad[1] > 0 || p.pad[3] > 0) inside(w, x.shape()[p.w_axis]);
  return {idx, cond};
}

// How many taps of output position o along axis s fall inside [0, extent):
// r from max(0, ceil(-lo / d)) to min(k - 1, floor((extent - 1 - lo) / d)).
Expr TapCount(const PoolPlan& p, int s, const Expr& o, const Expr& extent) {
  DataType t = o->dtype;
  Expr d = IntImm(t, p.dilation[s]);
  Expr lo = Tap(p, s, o, IntImm(t, 0));
  Expr first = Max(IntImm(t, 0), FloorDiv(FoldAdd(FoldSub(IntImm(t, 0), lo), FoldSub(d, IntImm(t, 1))), d));
  Expr last = Min(IntImm(t, p.kernel[s] - 1), FloorDiv(FoldSub(FoldSub(extent, IntImm(t, 1)), lo), d));
  return Max(IntImm(t, 0), FoldAdd(FoldSub(last, first), IntImm(t, 1)));
}

}  // namespace

absl::StatusOr<Tensor> MaxPool2D(const Tensor& x, const Pool2DOptions& opts) {
  const std::string op = "max_pool2d";
  TESSEL_ASSIGN_OR_RETURN(PoolPlan p, Plan(op, x, opts));
  if (!(x.dtype().is_float() || x.dtype().is_integer())) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": tensor '", x.name(), "' has type ",
                                                   x.dtype().ToString(), ", expected numbers"));
  }
  return Compute(
      p.out_shape,
      [&](const std::vector<Var>& i) {
        auto [idx, cond] = Window(x, p, i);
        return ReduceMax(x(idx), {p.rh, p.rw}, cond);
      },
      opts.name.empty() ? "T_max_pool2d" : opts.name, {.tag = "pool"});
}

absl::StatusOr<Tensor> AvgPool2D(const Tensor& x, const Pool2DOptions& opts) {
  const std::string op = "avg_pool2d";
  TESSEL_ASSIGN_OR_RETURN(PoolPlan p, Plan(op, x, opts));
  TESSEL_RETURN_IF_ERROR(CheckFloat(op, x));
  const std::string name = opts.name.empty() ? "T_avg_pool2d" : opts.name;
  TESSEL_ASSIGN_OR_RETURN(
      Tensor sum, Compute(
                      p.out_shape,
                      [&](const std::vector<Var>& i) {
                        auto [idx, cond] = Window(x, p, i);
                        return ReduceSum(x(idx), {p.rh, p.rw}, cond);
                      },
                      absl::StrCat(name, "_sum"), {.tag = "pool"}));
  const DataType t = x.dtype();
  return Compute(
      p.out_shape,
      [&](const std::vector<Var>& i) {
        Expr count;
        if (opts.count_include_pad) {
          count = Const(t, static_cast<double>(p.kernel[0] * p.kernel[1]));
        } else {
          count = Cast(t, TapCount(p, 0, i[p.h_axis], x.shape()[p.h_axis]) *
                              TapCount(p, 1, i[p.w_axis], x.shape()[p.w_axis]));
        }
        return sum(AsExprs(i)) / count;
      },
      name, {.tag = "elemwise"});
}

}  // namespace tessel::ir::te::ops
