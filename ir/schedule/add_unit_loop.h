// add_unit_loop: wraps a block or a loop in a new loop of extent 1, e.g. to
// give a block without loops something to bind or annotate.
//
//   block B(...) { ... }          AddUnitLoop(state, "B")    for u in range(0, 1) {
//                                 ---------------------->      block B(...) { ... }
//                                                            }
// The new loop's variable is i32 and named `u`; nothing refers to it.
#ifndef TESSEL_IR_SCHEDULE_ADD_UNIT_LOOP_H_
#define TESSEL_IR_SCHEDULE_ADD_UNIT_LOOP_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const std::string& block);
absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const Var& loop);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_ADD_UNIT_LOOP_H_
