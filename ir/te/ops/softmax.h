// Softmax and log-softmax along one axis, in the numerically stable form.
//
//   x: f32[8, 10]
//   Softmax(x)      // axis -1: y[i, j] = exp(x[i, j] - max_j x[i, :]) / sum_j exp(...)
//   LogSoftmax(x, 0)
//
// Blocks (TVM's names): <name>_maxelem (max over the axis), <name>_exp,
// <name>_expsum, then <name> itself; LogSoftmax skips the exp tensor and ends
// with x - max - log(expsum). Shape rule: the output has x's shape. dtype rule:
// a float input; the output has its dtype.
#ifndef TESSEL_IR_TE_OPS_SOFTMAX_H_
#define TESSEL_IR_TE_OPS_SOFTMAX_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Softmax(const Tensor& x, int axis = -1, std::string name = "T_softmax");
absl::StatusOr<Tensor> LogSoftmax(const Tensor& x, int axis = -1,
                                  std::string name = "T_log_softmax");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_SOFTMAX_H_
