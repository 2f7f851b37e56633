// Cross-thread reductions: a reduction block whose reduce loop is bound to
// threadIdx.x becomes an in-thread partial reduction, one collective across the
// threads (thread_sum_x and friends, ir/expr.h) and a write-back by the first
// thread. remove-blocks runs it before it removes the blocks, so no pass ever sees
// a function whose threads race on the accumulator.
//
//   for tx in thread_binding(0, 32, "threadIdx.x") {       (after lower-init-block)
//     for k_0 in range(0, 4) {
//       block B(vi = i, vk: reduce[0, 128] = k_0 * 32 + tx) {
//         if vk == 0 { B[vi] = 0.0f32 }
//         B[vi] = B[vi] + A[vi, vk]
//   } } }
//   ->
//   for tx in thread_binding(0, 32, "threadIdx.x") {
//     allocate B_red: f32[1] scope "local" {
//       B_red[0] = 0.0f32                                   (the combiner's identity)
//       for k_0 in range(0, 4) {
//         block B(vi = i, vk: reduce[0, 128] = k_0 * 32 + tx) { B_red[0] = B_red[0] + A[vi, vk] }
//       }
//       B_red[0] = thread_sum_x(B_red[0])                   (every thread gets the total)
//       if tx == 0 { B[i] = B_red[0] }                      (init value combined in)
//   } }
//
// Rules: each output of the block is updated as `C[idx] = C[idx] op x` (or
// `x op C[idx]`, possibly through a let: a tuple reduction like layer_norm's sum
// and sum of squares) with op +, *, max or min and x reading none of the
// outputs, and its init stores a value that reads nothing; each output gets its
// own partial, collective and write-back; the thread loop's body is a nest of loops (no other
// statements) ending at the block; every loop of that nest and the thread loop is used only by
// reduce iter vars, and every reduce iter var only by them (the whole reduction
// happens below the thread loop). A reduction over threadIdx that breaks a rule is
// refused with the rule it breaks: lowered as it is, its threads would race.
#ifndef TESSEL_PASSES_LOWERING_THREAD_REDUCTION_H_
#define TESSEL_PASSES_LOWERING_THREAD_REDUCTION_H_

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes::lowering {

// OK when `block`'s body is a reduction this lowers (each output updated as
// `C[idx] = C[idx] op x`, an init that reads nothing), else the rule it breaks:
// what a schedule rule asks before binding a reduce loop to threadIdx.x.
absl::Status CheckReductionBody(const ir::BlockNode* block);

// `func` with its cross-thread reductions lowered; `lowered` (optional) counts them.
absl::StatusOr<ir::PrimFunc> LowerThreadReductions(const ir::PrimFunc& func,
                                                   int* lowered = nullptr);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_THREAD_REDUCTION_H_
