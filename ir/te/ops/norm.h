// Normalizations over trailing axes: LayerNorm and RMSNorm.
//
//   x: f32[B, S, 768], gamma, beta: f32[768]
//   LayerNorm(x, gamma, beta)         // over the last axis, eps 1e-5
//   y = (x - mean) / sqrt(var + eps) * gamma + beta
//   RmsNorm(x, weight)                // y = x / sqrt(mean(x^2) + eps) * weight
//   L2Normalize(x, 1)                 // y = x / sqrt(sum over axis 1 of x^2 + eps)
//
// Shape rules: `axes` (default {-1}) must be the trailing axes of x, in any
// order; gamma, beta and weight have the shape of those axes, or are undefined
// Tensors (then left out). The output has x's shape. dtype rules: float inputs,
// all of one dtype.
//
// LayerNorm computes the sums of x and x^2 together in one block
// (<name>_red, a two-output reduction); RmsNorm reduces x^2 (<name>_red).
#ifndef TESSEL_IR_TE_OPS_NORM_H_
#define TESSEL_IR_TE_OPS_NORM_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                 const std::vector<int>& axes = {-1}, double eps = 1e-5,
                                 std::string name = "T_layer_norm");
absl::StatusOr<Tensor> RmsNorm(const Tensor& x, const Tensor& weight,
                               const std::vector<int>& axes = {-1}, double eps = 1e-5,
                               std::string name = "T_rms_norm");

// x divided by its L2 norm along `axis` (any axis, negative allowed). Shape:
// x's. dtype: a float.
absl::StatusOr<Tensor> L2Normalize(const Tensor& x, int axis, double eps = 1e-12,
                                   std::string name = "T_l2_normalize");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_NORM_H_
