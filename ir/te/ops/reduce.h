// Reductions over axes: Sum, Prod, Max, Min, Mean, and ArgMax / ArgMin.
//
//   x: f32[4, 5, 6]
//   Sum(x, {1})                  -> f32[4, 6]
//   Sum(x, {-1}, /*keepdims=*/true) -> f32[4, 5, 1]
//   Max(x)                       -> f32[] (every axis)
//   ArgMax(x, 1)                 -> i32[4, 6]: the first index of the maximum
//
// Axes may be negative (counted from the end); an empty list means every axis;
// listing an axis twice is an error. With keepdims the reduced axes stay as
// extent 1. dtype rules: Sum, Prod, Max, Min keep the input's number type;
// Mean needs a float; ArgMax/ArgMin give i32 indices for any number type.
#ifndef TESSEL_IR_TE_OPS_REDUCE_H_
#define TESSEL_IR_TE_OPS_REDUCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Sum(const Tensor& x, const std::vector<int>& axes = {},
                           bool keepdims = false, std::string name = "T_sum");
absl::StatusOr<Tensor> Prod(const Tensor& x, const std::vector<int>& axes = {},
                            bool keepdims = false, std::string name = "T_prod");
absl::StatusOr<Tensor> Max(const Tensor& x, const std::vector<int>& axes = {},
                           bool keepdims = false, std::string name = "T_max");
absl::StatusOr<Tensor> Min(const Tensor& x, const std::vector<int>& axes = {},
                           bool keepdims = false, std::string name = "T_min");
// Sum divided by the number of reduced elements (a second, elementwise block).
absl::StatusOr<Tensor> Mean(const Tensor& x, const std::vector<int>& axes = {},
                            bool keepdims = false, std::string name = "T_mean");

// The index along `axis` of the first maximum (minimum): one block reducing
// (index, value) pairs with a two-element reducer.
absl::StatusOr<Tensor> ArgMax(const Tensor& x, int axis, bool keepdims = false,
                              std::string name = "T_argmax");
absl::StatusOr<Tensor> ArgMin(const Tensor& x, int axis, bool keepdims = false,
                              std::string name = "T_argmin");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_REDUCE_H_
