// add_unit_loop: wraps a block or a loop in a new loop of extent 1, e.g. to
// give a block without loops something to bind or annotate.
//
//   block B(...) { ... }          AddUnitLoop(state, "B")    for u in range(0, 1) {
//                                 ---------------------->      block B(...) { ... }
//                                                            }
// The new loop's variable is i32 and named `u`; nothing refers to it.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_ADD_UNIT_LOOP_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_ADD_UNIT_LOOP_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const std::string& block);
absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const Var& loop);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.add_unit_loop(...): Wraps a block or loop in a new loop of extent 1.
struct AddUnitLoop {
  using Self = AddUnitLoop;
  BlockOrLoop block_or_loop;

  static constexpr PrimitiveInfo kInfo{.name = "add_unit_loop",
                                       .doc = "Wraps a block or loop in a new loop of extent 1."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block_or_loop)};
  static absl::StatusOr<Var> Apply(PrimitiveContext& ctx,
                                   const std::variant<std::string, Var>& block_or_loop) {
    return std::visit([&](const auto& x) { return schedule::AddUnitLoop(ctx.state(), x); },
                      block_or_loop);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_ADD_UNIT_LOOP_H_
