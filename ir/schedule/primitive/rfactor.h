// rfactor: splits a reduction over one of its loops into a partial reduction
// that keeps that loop's iterations apart (in a new buffer with one more
// dimension) and a write-back block that combines them, so the loop becomes
// spatial in the first block and can run in parallel or vectorized.
//
// rfactor(loop=k_1, factor_axis=0) on (k split into k_0 * 4 + k_1)
//
//   for i in range(0, 64) { for k_0 in range(0, 16) { for k_1 in range(0, 4) {
//     block B(vi = i, vk = k_0 * 4 + k_1) { init { B[vi] = 0.0f32 }
//                                           B[vi] = B[vi] + A[vi, vk] } } } }
// gives
//   block root() {
//     alloc_buffer B_rf: f32[4, 64]
//     for i { for k_0 { for k_1 {
//       block B_rf(vk_1: spatial[0, 4] = k_1, vi = i, vk_0: reduce[0, 16] = k_0) {
//         init { B_rf[vk_1, vi] = 0.0f32 }
//         B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1] } } } }
//     for i_1 in range(0, 64) { for k_1_1 in range(0, 4) {
//       block B(vi_1 = i_1, vk_1_1: reduce[0, 4] = k_1_1) {
//         init { B[vi_1] = 0.0f32 }
//         B[vi_1] = B[vi_1] + B_rf[vk_1_1, vi_1] } } }
//   }
// and returns B_rf; the handle of B now names the write-back block. The
// reduce iter vars whose bindings use the loop become one iter var per loop
// they use (as TVM does), so the rfactor block's bindings stay a bijection.
//
// A block that reduces into several buffers at once (layer norm's
// `let s = sum[i] + x; let q = sqsum[i] + x * x; sum[i] = s; sqsum[i] = q`)
// splits all of them together: one rfactor buffer per buffer (sum_rf, sqsum_rf),
// one rfactor block writing them all, one write-back combining each.
//
// Rules: exactly one block below the loop; it has an init, no opaque iter var,
// and, for each buffer it writes (lets in its body inlined), one update
// `C[idx] = C[idx] op x` (or `x op C[idx]`) with op +, *, max or min and x
// reading none of the written buffers, and one init `C[idx] = c` with c the
// identity for + (0) and * (1); the loop is bound to reduce iter vars only,
// no loop to both kinds; -(ndim + 1) <= factor_axis <= ndim; a predicate term
// over loops the write-back does not run over must be `a < b` (or <=) with a
// smallest at those loops' minimum (a tail split); no other block under the
// block's outermost loop touches C.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_RFACTOR_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_RFACTOR_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the name of the rfactor block.
absl::StatusOr<std::string> RFactor(ScheduleState* state, const Var& loop, int64_t factor_axis);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.rfactor(...): Splits the reduction over `loop` into partial results kept apart in a new
// buffer (its dimension `factor_axis`) and a write-back block; returns the rfactor block.
struct RFactor {
  using Self = RFactor;
  LoopRV loop;
  int64_t factor_axis = 0;

  static constexpr PrimitiveInfo kInfo{
      .name = "rfactor",
      .doc =
          "Splits the reduction over `loop` into partial results kept apart in a new buffer (its "
          "dimension `factor_axis`) and a write-back block; returns the rfactor block."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop), TESSEL_ARG(factor_axis)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const Var& loop,
                                           int64_t factor_axis) {
    return schedule::RFactor(ctx.state(), loop, factor_axis);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_RFACTOR_H_
