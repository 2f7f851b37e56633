// Matrix products: Matmul, BatchMatmul, Dense (+ bias) and Gemv.
//
//   A: f32[M, K], B: f32[K, N]   Matmul(A, B)                     -> f32[M, N]
//   A: f32[K, M], B: f32[N, K]   Matmul(A, B, {.transpose_a = true, .transpose_b = true})
//   A: f32[b, M, K], B: f32[1, K, N]   BatchMatmul(A, B)          -> f32[b, M, N]
//   X: f32[M, K], W: f32[N, K], bias: f32[N]   Dense(X, W, bias)  -> f32[M, N] = X Wᵀ + bias
//   A: f32[M, K], x: f32[K]      Gemv(A, x)                       -> f32[M]
//
// Shape rules: the contracted extents must agree; BatchMatmul's batch extents
// broadcast (equal, or one of them 1). dtype rules: the operands share a dtype;
// the result has `out_dtype` (default: the operands'), and the products are
// accumulated in it (e.g. f16 inputs with out_dtype f32 accumulate in f32).
#ifndef TESSEL_IR_TE_OPS_MATMUL_H_
#define TESSEL_IR_TE_OPS_MATMUL_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

struct MatmulOptions {
  bool transpose_a = false;
  bool transpose_b = false;
  DataType out_dtype = DataType::Void();  // Void: the operands' dtype.
  std::string name = "T_matmul";
};

absl::StatusOr<Tensor> Matmul(const Tensor& a, const Tensor& b, const MatmulOptions& opts = {});
absl::StatusOr<Tensor> BatchMatmul(const Tensor& a, const Tensor& b,
                                   MatmulOptions opts = {.name = "T_batch_matmul"});
// `bias` may be undefined (no bias); otherwise f32[N] in out_dtype, added by a
// separate elementwise block named <name>_bias.
absl::StatusOr<Tensor> Dense(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                             DataType out_dtype = DataType::Void(), std::string name = "T_dense");
absl::StatusOr<Tensor> Gemv(const Tensor& a, const Tensor& x, DataType out_dtype = DataType::Void(),
                            std::string name = "T_gemv");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_MATMUL_H_
