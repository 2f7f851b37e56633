// reorder: permutes loops of one perfect nest.
//
//   for i { for j { for k { block C(vi = i, vj = j, vk = k) } } }
//   reorder(k, i)   -- the positions of the given loops (i, k) receive them in
//                      the given order; j, not given, stays where it is:
//   for k { for j { for i { block C(vi = i, vj = j, vk = k) } } }
//
// Rules: the loops are distinct and lie on one path, and from the outermost to
// the innermost of them each loop's body is exactly the next loop (a perfect
// nest: no other statement, no block, in between); no loop's bounds use the
// variable of another loop of that nest; every block below binds the nest's
// loops only through spatial or reduce iter vars with affine bindings (so
// that any order of its instances computes the same result, DESIGN.md
// decision 1). Loops keep their variables, kinds and annotations.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_REORDER_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_REORDER_H_

#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Reorder(ScheduleState* state, const std::vector<Var>& order);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.reorder(...): Puts the given loops in the given order, in the positions they occupy.
struct Reorder {
  using Self = Reorder;
  std::vector<LoopRV> ordered_loops;

  static constexpr PrimitiveInfo kInfo{
      .name = "reorder",
      .doc = "Puts the given loops in the given order, in the positions they occupy."};
  static constexpr auto kArgs = std::tuple{TESSEL_VARIADIC_ARG(ordered_loops)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::vector<Var>& ordered_loops) {
    return schedule::Reorder(ctx.state(), ordered_loops);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_REORDER_H_
