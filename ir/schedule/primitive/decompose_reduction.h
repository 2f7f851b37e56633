// decompose_reduction: moves a reduction block's init into a block of its own,
// placed before a loop, so the update block runs without the "first
// iteration?" test and the init can be scheduled (vectorized) by itself.
//
// decompose_reduction(block=C, loop=k) on
//
//   for i in range(0, 64) { for j in range(0, 64) { for k in range(0, 64) {
//     block C(vi = i, vj = j, vk = k) { init { C[vi, vj] = 0.0f32 }
//                                       C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] } } } }
// gives
//   for i { for j {
//     block C_init(vi = i, vj = j) { writes(C[vi, vj])  C[vi, vj] = 0.0f32 }
//     for k { block C(vi = i, vj = j, vk = k) { C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] } } }
//     }
//
// and returns C_init. At a higher loop (i), the loops between it and the block
// that the spatial bindings use (j) are copied above the init block
// (`for j_init`); loops only the reduce bindings use are not.
//
// Rules: the block has an init and no opaque iter var; `loop` is one of the
// loops above the block (up to its enclosing block); no loop above `loop` is
// used by a reduce binding (the init would run again in each of its
// iterations); every loop from `loop` down is used by some binding (a loop
// used by none repeats the reduction, each time from its init) and none by
// both a spatial and a reduce binding; each reduce binding is at its domain's minimum where its
// loops are (the init's instance: the predicate there is the init's predicate).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_DECOMPOSE_REDUCTION_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_DECOMPOSE_REDUCTION_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the name of the init block.
absl::StatusOr<std::string> DecomposeReduction(ScheduleState* state, const std::string& block,
                                               const Var& loop);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.decompose_reduction(...): Moves the reduction block's init into its own block before `loop`;
// returns it.
struct DecomposeReduction {
  using Self = DecomposeReduction;
  BlockRV block;
  LoopRV loop;

  static constexpr PrimitiveInfo kInfo{
      .name = "decompose_reduction",
      .doc = "Moves the reduction block's init into its own block before `loop`; returns it."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block), TESSEL_ARG(loop)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const std::string& block,
                                           const Var& loop) {
    return schedule::DecomposeReduction(ctx.state(), block, loop);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_DECOMPOSE_REDUCTION_H_
