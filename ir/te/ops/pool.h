// 2-D max and average pooling.
//
//   x: f32[1, 16, 32, 32] (NCHW)
//   MaxPool2D(x, {.kernel = {3, 3}, .strides = {2, 2}, .padding = {1}})  -> f32[1, 16, 16, 16]
//   AvgPool2D(x, {.kernel = {2, 2}, .strides = {2, 2}})                 -> f32[1, 16, 16, 16]
//
// Shape rules: x is 4-D in `layout`; each spatial output extent is
// (in + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1.
// Padded positions never win a max (the reduction skips them), and count for
// the average only with count_include_pad. dtype rules: MaxPool2D any number
// type; AvgPool2D floats. The output has x's dtype.
#ifndef TESSEL_IR_TE_OPS_POOL_H_
#define TESSEL_IR_TE_OPS_POOL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/ops/op_util.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

struct Pool2DOptions {
  std::vector<int> kernel = {};       // {k} or {kh, kw}.
  std::vector<int> strides = {1, 1};  // {s} or {sh, sw}.
  std::vector<int> padding = {0};     // {p}, {ph, pw} or {top, left, bottom, right}.
  std::vector<int> dilation = {1, 1};
  Layout layout = Layout::kNCHW;
  bool count_include_pad = true;      // AvgPool2D: divide by the whole window.
  std::string name = {};              // Default "T_max_pool2d" / "T_avg_pool2d".
};

absl::StatusOr<Tensor> MaxPool2D(const Tensor& x, const Pool2DOptions& opts);
absl::StatusOr<Tensor> AvgPool2D(const Tensor& x, const Pool2DOptions& opts);

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_POOL_H_
