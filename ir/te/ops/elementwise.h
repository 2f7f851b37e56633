// Elementwise unary operators: the output has the input's shape, element by element.
//
//   Tensor y = *Relu(x);                       // y[i, j] = max(x[i, j], 0)
//   Tensor g = *Gelu(x, GeluForm::kTanh);      // the tanh approximation
//   Tensor h = *Cast(x, DataType::Float(16));
//
// dtype rules: the output dtype is the input's (Cast: the requested one).
// Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Silu, Gelu and Erf need a float input;
// Relu, Neg and Abs take any number type; Cast any scalar type to any other.
#ifndef TESSEL_IR_TE_OPS_ELEMENTWISE_H_
#define TESSEL_IR_TE_OPS_ELEMENTWISE_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

absl::StatusOr<Tensor> Relu(const Tensor& x, std::string name = "T_relu");
absl::StatusOr<Tensor> Neg(const Tensor& x, std::string name = "T_neg");
absl::StatusOr<Tensor> Abs(const Tensor& x, std::string name = "T_abs");
absl::StatusOr<Tensor> Exp(const Tensor& x, std::string name = "T_exp");
absl::StatusOr<Tensor> Log(const Tensor& x, std::string name = "T_log");
absl::StatusOr<Tensor> Sqrt(const Tensor& x, std::string name = "T_sqrt");
absl::StatusOr<Tensor> Rsqrt(const Tensor& x, std::string name = "T_rsqrt");
absl::StatusOr<Tensor> Tanh(const Tensor& x, std::string name = "T_tanh");
absl::StatusOr<Tensor> Erf(const Tensor& x, std::string name = "T_erf");
// 1 / (1 + exp(-x)), as the `sigmoid` intrinsic.
absl::StatusOr<Tensor> Sigmoid(const Tensor& x, std::string name = "T_sigmoid");
// x * sigmoid(x).
absl::StatusOr<Tensor> Silu(const Tensor& x, std::string name = "T_silu");

enum class GeluForm {
  kErf,   // 0.5 x (1 + erf(x / sqrt(2))): exact.
  kTanh,  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): the common approximation.
};
absl::StatusOr<Tensor> Gelu(const Tensor& x, GeluForm form = GeluForm::kErf,
                            std::string name = "T_gelu");

absl::StatusOr<Tensor> Cast(const Tensor& x, DataType dtype, std::string name = "T_cast");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_ELEMENTWISE_H_
