// 2-D convolution (nn/conv2d.h).
//
//   Conv2D(data: f32[N, C, H, W], kernel: f32[O, C/g, KH, KW], stride s, dilation d, groups g):
//     conv2d[n, oc, oh, ow] = sum over rc in [0, C/g), ry in [0, KH), rx in [0, KW) of
//       conv2d_pad[n, (oc // (O/g)) * (C/g) + rc, oh * s + ry * d, ow * s + rx * d]
//         * kernel[oc, rc, ry, rx]
#include "ir/te/ops/nn/conv2d.h"

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/transform.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Conv2D(const Tensor& data, const Tensor& kernel, const Conv2DOptions& opts) {
  const std::string op = "conv2d";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, data, "the data"));
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, kernel, "the kernel"));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, data, 4));
  TESSEL_RETURN_IF_ERROR(CheckRank(op, kernel, 4));
  TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, data, kernel));
  const DataType t = opts.out_dtype.is_void() ? data.dtype() : opts.out_dtype;
  if (!(t.is_float() || t.is_integer()) || !t.is_scalar() || data.dtype().is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": cannot convolve ",
                                                   data.dtype().ToString(), " into ", t.ToString()));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> stride, Pair2D(op, "strides", opts.strides));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Pair2D(op, "dilation", opts.dilation));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> pad, Padding2D(op, opts.padding));
  const bool nchw = opts.layout == Layout::kNCHW;
  const int c_axis = nchw ? 1 : 3, h_axis = nchw ? 2 : 1;
  // Kernel axes: O, I, KH, KW positions for the layout (OIHW or HWIO).
  const int ko = nchw ? 0 : 3, ki = nchw ? 1 : 2, kh = nchw ? 2 : 0;
  const Expr& channels = data.shape()[c_axis];
  const Expr& out_channels = kernel.shape()[ko];
  const Expr& group_channels = kernel.shape()[ki];
  const int64_t g = opts.groups;
  if (g < 1) return absl::InvalidArgumentError(absl::StrCat(op, ": groups ", g, " is not >= 1"));
  std::optional<int64_t> c = ConstValue(channels), o = ConstValue(out_channels);
  std::optional<int64_t> cg = ConstValue(group_channels);
  const std::string kernel_layout = nchw ? "OIHW" : "HWIO";
  if (g > 1 && (!c || !o || !cg)) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": grouped convolution needs constant channel counts"));
  }
  if (g > 1 && (*c % g != 0 || *o % g != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", *c, " input and ", *o,
                                                   " output channels are not divisible by ", g,
                                                   " groups"));
  }
  bool channels_ok = g == 1 ? SameExtent(group_channels, channels) : *cg * g == *c;
  if (!channels_ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": kernel '", kernel.name(), "' ", ShapeString(kernel.shape()), " (", kernel_layout,
        ") expects ", ShapeString({group_channels}), " channels per group, but data '",
        data.name(), "' ", ShapeString(data.shape()), " (", LayoutName(opts.layout), ") has ",
        ShapeString({channels}), " channels in ", g, g == 1 ? " group" : " groups"));
  }
  std::vector<Expr> out_shape = data.shape();
  out_shape[c_axis] = out_channels;
  for (int s = 0; s < 2; ++s) {
    TESSEL_ASSIGN_OR_RETURN(out_shape[h_axis + s],
                               WindowExtent(op, data.shape()[h_axis + s], pad[s] + pad[s + 2],
                                            kernel.shape()[kh + s], stride[s], dilation[s]));
  }
  Tensor input = data;
  if (pad[0] + pad[1] + pad[2] + pad[3] > 0) {
    std::vector<int64_t> before(4, 0), after(4, 0);
    before[h_axis] = pad[0];
    before[h_axis + 1] = pad[1];
    after[h_axis] = pad[2];
    after[h_axis + 1] = pad[3];
    TESSEL_ASSIGN_OR_RETURN(input, Pad(data, before, after, 0.0, absl::StrCat(opts.name, "_pad")));
  }
  const DataType it = channels->dtype;
  IterVar rc = ReduceAxis(group_channels, "rc");
  IterVar ry = ReduceAxis(kernel.shape()[kh], "ry");
  IterVar rx = ReduceAxis(kernel.shape()[kh + 1], "rx");
  auto body = [&](Var n, Var oc, Var oh, Var ow) {
    // The first input channel of oc's group.
    Expr base = g == 1 ? IntImm(it, 0)
                       : FoldMul(FloorDiv(oc, IntImm(it, *o / g)), IntImm(it, *cg));
    Expr ic = FoldAdd(base, rc.var);
    Expr h = FoldAdd(FoldMul(oh, IntImm(it, stride[0])), FoldMul(ry.var, IntImm(it, dilation[0])));
    Expr w = FoldAdd(FoldMul(ow, IntImm(it, stride[1])), FoldMul(rx.var, IntImm(it, dilation[1])));
    Expr x = nchw ? input(n, ic, h, w) : input(n, h, w, ic);
    Expr k = nchw ? kernel(oc, rc.var, ry.var, rx.var) : kernel(ry.var, rx.var, rc.var, oc);
    return ReduceSum(CastIfNeeded(t, x) * CastIfNeeded(t, k), {rc, ry, rx});
  };
  if (nchw) {
    return Compute(out_shape, body, opts.name,
                   {.tag = "conv2d_nchw", .axis_names = {"n", "oc", "oh", "ow"}});
  }
  return Compute(
      out_shape, [&](Var n, Var oh, Var ow, Var oc) { return body(n, oc, oh, ow); }, opts.name,
      {.tag = "conv2d_nhwc", .axis_names = {"n", "oh", "ow", "oc"}});
}

}  // namespace tessel::ir::te::ops
