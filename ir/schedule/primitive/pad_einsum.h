// pad_einsum: pads the iteration domain of an einsum-like block (a matmul, a
// batch matmul, an elementwise op) up to multiples of the given factors, with
// zero-padded copies of its inputs and a crop of its output, so that tiles
// divide and no predicate is needed (e.g. before tensorize).
//
//   for i, j, k in (17, 31, 23) {                 pad_einsum(C, [4, 16, 1])
//     block C(vi: spatial[0, 17], vj: spatial[0, 31], vk: reduce[0, 23]) {
//       init { C[vi, vj] = 0 }  C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] } }
//   ->
//   block root { alloc_buffers(A_pad: f32[20, 23], B_pad: f32[23, 32], C_pad: f32[20, 32])
//     for ... { block A_pad(v0: spatial[0, 20], v1: spatial[0, 23]) {
//       if v0 < 17 { A_pad[v0, v1] = A[v0, v1] } else { A_pad[v0, v1] = 0.0f32 } } }
//     for ... { block B_pad(...) ... }                    (B: j padded to 32)
//     for i, j, k in (20, 32, 23) {
//       block C(vi: spatial[0, 20], vj: spatial[0, 32], vk: reduce[0, 23]) {
//         init { C_pad[vi, vj] = 0 }  C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
//         } }
//     for ... { block C_crop(v0: spatial[0, 17], v1: spatial[0, 31]) { C[v0, v1] = C_pad[v0, v1] }
//     }
//
// A buffer is padded when one of its dimensions is indexed by a padded iter
// var; the others are used as they are. Padding with zeros keeps a sum of
// products exact: a padded reduction step multiplies by a zero.
//
// An extent may be an expression of shape variables: [0, n) padded by 16 becomes
// [0, (n + 15) // 16 * 16), the padded buffers are that long, and A_pad holds A
// below n and zero beyond (tests/lit/schedule/pad-einsum-symbolic.tsl). A split
// of the padded loop by 16 then needs no predicate. That is how gpu-matmul-mma
// keeps whole warps in every tile of a dense layer over n tokens.
//
// Rules: one positive factor per iter var; each iter var has domain [0, n)
// (n constant or free of loads and calls) and is bound to its own loop over the
// same range, those loops forming the perfect nest right above the block (no
// other loop above them in the block's scope, no predicate); every index of
// every access is an iter var (one per dimension, the same for every access of
// a buffer, with the buffer's extent as its domain); the block writes one buffer; when a padded
// iter var is reduce, the body is `O[...] = O[...] + product of input loads`,
// each padded reduce var indexes some load of the product, and the init
// stores a constant.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_PAD_EINSUM_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_PAD_EINSUM_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status PadEinsum(ScheduleState* state, const std::string& block,
                       const std::vector<int64_t>& padding);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.pad_einsum(...): Pads an einsum-like block's iteration domain to multiples of `padding` (one
// factor per iter var) through zero-padded input copies and an output crop.
struct PadEinsum {
  using Self = PadEinsum;
  BlockRV block;
  std::vector<int64_t> padding;

  static constexpr PrimitiveInfo kInfo{
      .name = "pad_einsum",
      .doc =
          "Pads an einsum-like block's iteration domain to multiples of `padding` (one factor per "
          "iter var) through zero-padded input copies and an output crop."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block), TESSEL_ARG(padding)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block,
                            const std::vector<int64_t>& padding) {
    return schedule::PadEinsum(ctx.state(), block, padding);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_PAD_EINSUM_H_
