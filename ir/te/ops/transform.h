// Layout and shape transforms: Transpose, Reshape, Pad, Concat.
//
//   x: f32[2, 3, 4]
//   Transpose(x, {2, 0, 1})          -> f32[4, 2, 3]   (empty perm: reverse the axes)
//   Reshape(x, {6, -1})              -> f32[6, 4]      (one -1 is inferred)
//   Pad(x, {0, 1, 2}, {0, 1, 0}, 0)  -> f32[2, 5, 6]
//   Concat({x, y}, 1)                -> f32[2, 3 + y's extent, 4]
//
// Shape rules: a permutation names every axis once; Reshape keeps the number of
// elements and needs constant shapes; Pad takes one before/after amount >= 0 per
// axis; Concat's inputs agree in rank, dtype and every extent but `axis`. dtype:
// the input's (Pad's value is converted to it).
//
// Reads that may fall outside an input (Pad, Concat) clamp their index into the
// input and select the right value, so every load stays in bounds: a select
// evaluates both arms in tessel's IR.
#ifndef TESSEL_IR_TE_OPS_TRANSFORM_H_
#define TESSEL_IR_TE_OPS_TRANSFORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Transpose(const Tensor& x, const std::vector<int>& perm = {},
                                 std::string name = "T_transpose");
absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<int64_t>& shape,
                               std::string name = "T_reshape");
absl::StatusOr<Tensor> Pad(const Tensor& x, const std::vector<int64_t>& before,
                           const std::vector<int64_t>& after, double value = 0.0,
                           std::string name = "T_pad");
absl::StatusOr<Tensor> Concat(const std::vector<Tensor>& xs, int axis,
                              std::string name = "T_concat");

// min(max(i, 0), extent - 1): an index forced into [0, extent).
Expr ClampIndex(const Expr& i, const Expr& extent);

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_TRANSFORM_H_
