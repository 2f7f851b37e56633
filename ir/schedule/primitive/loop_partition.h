// loop_partition: cuts a serial loop's range into consecutive pieces, one loop
// each, in order; the body is copied into every piece, its blocks renamed.
//
//   for i in range(0, 100) {                 l2, l3 = sch.loop_partition(loop=l1,
//     block B(vi = i) { ... }                                   factors=[96, None])
//   }                                        ------------------------------------>
//
//   for i_0 in range(0, 96) {                for i_1 in range(0, 4) {
//     block B_0(vi = i_0) { ... }              block B_1(vi = 96 + i_1) { ... }
//   }                                        }
//
// The iterations run in the same order as before, so the partition is always
// legal for a serial loop: a tiler uses it to give a loop's tail its own body
// (a main part that divides the tile evenly, no predicate inside it). Rules:
// the loop is serial with a constant extent; the factors are positive, at most
// one is None (the rest of the extent, at least 1) and they add up to the
// extent; the body allocates no buffer (each piece would need its own). Block
// handles to the copied blocks are consumed; get the pieces' blocks by their
// new names `<name>_<k>`.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_PARTITION_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_PARTITION_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::vector<Var>> LoopPartition(ScheduleState* state, const Var& loop,
                                               const std::vector<std::optional<int64_t>>& factors);

namespace primitive {

struct LoopPartition {
  using Self = LoopPartition;
  LoopRV loop;
  std::vector<Factor> factors;

  static constexpr PrimitiveInfo kInfo{
      .name = "loop_partition",
      .doc =
          "Cuts a serial loop into consecutive loops of the given extents (at most one None: "
          "the rest), the body copied into each with its blocks renamed <name>_<k>; returns "
          "the loops in order."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop), TESSEL_ARG(factors)};
  static absl::StatusOr<std::vector<Var>> Apply(
      PrimitiveContext& ctx, const Var& loop, const std::vector<std::optional<int64_t>>& factors) {
    return schedule::LoopPartition(ctx.state(), loop, factors);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_PARTITION_H_
