// 2-D convolution in NCHW or NHWC, with stride, padding, dilation and groups.
//
//   data: f32[1, 64, 56, 56] (NCHW), kernel: f32[64, 64, 3, 3] (OIHW)
//   Conv2D(data, kernel, {.padding = {1}})                         -> f32[1, 64, 56, 56]
//   data: f32[1, 32, 32, 8] (NHWC), kernel: f32[3, 3, 1, 8] (HWIO), depthwise:
//   Conv2D(data, kernel, {.strides = {2}, .padding = {1}, .groups = 8, .layout = Layout::kNHWC})
//
// Shape rules: the kernel is [O, C / groups, KH, KW] for NCHW and
// [KH, KW, C / groups, O] for NHWC; C and O must be divisible by groups
// (depthwise: groups = C, O = C * multiplier). Each spatial output extent is
// (in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1.
// dtype rules: data and kernel share a dtype; the result has `out_dtype`
// (default: theirs), and products accumulate in it.
//
// With padding, a separate block <name>_pad builds the zero-padded input first
// (TVM's pad_temp); the convolution block reduces over (rc, ry, rx).
#ifndef TESSEL_IR_TE_OPS_NN_CONV2D_H_
#define TESSEL_IR_TE_OPS_NN_CONV2D_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

struct Conv2DOptions {
  std::vector<int> strides = {1, 1};   // {s} or {sh, sw}.
  std::vector<int> padding = {0};      // {p}, {ph, pw} or {top, left, bottom, right}.
  std::vector<int> dilation = {1, 1};  // {d} or {dh, dw}.
  int groups = 1;
  Layout layout = Layout::kNCHW;
  DataType out_dtype = DataType::Void();  // Void: the inputs' dtype.
  std::string name = "conv2d";
};

absl::StatusOr<Tensor> Conv2D(const Tensor& data, const Tensor& kernel,
                              const Conv2DOptions& opts = {});

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_NN_CONV2D_H_
