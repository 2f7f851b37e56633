// Scaled dot-product attention as one composite op: softmax(Q Kᵀ · scale) · V.
//
//   q: f32[B, H, S, D], k: f32[B, H, T, D], v: f32[B, H, T, Dv]
//   Attention(q, k, v)                           -> f32[B, H, S, Dv], scale 1/sqrt(D)
//   Attention(q, k, v, {.causal = true})         // key t is seen by query s only if t <= s
//
// Shape rules: q, k, v have one rank >= 2 and equal leading (batch, head)
// extents; q and k agree in D, k and v in T. dtype rules: one float dtype for all.
//
// Blocks: <name>_score (Q Kᵀ, a reduction over D), <name>_scaled (· scale, and
// the causal mask as -inf), the four softmax blocks (<name>_prob_maxelem ...,
// <name>_prob), and <name> (· V, a reduction over T). Fusing them is a schedule.
#ifndef TESSEL_IR_TE_OPS_ATTENTION_H_
#define TESSEL_IR_TE_OPS_ATTENTION_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

struct AttentionOptions {
  double scale = 0;  // 0: 1 / sqrt(D), which then must be a constant.
  bool causal = false;
  std::string name = "T_attention";
};

absl::StatusOr<Tensor> Attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                 const AttentionOptions& opts = {});

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_ATTENTION_H_
