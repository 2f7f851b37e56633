// parallel, vectorize, unroll, bind: set how a loop's iterations run.
//
//   for i in range(0, 64) { block B(vi: spatial[0, 64] = i) ... }
//   Parallel(i)            ->  for i in parallel(0, 64) { ... }
//   Vectorize(i)           ->  for i in vectorized(0, 64) { ... }
//   Unroll(i)              ->  for i in unrolled(0, 64) { ... }
//   Bind(i, "threadIdx.x") ->  for i in thread_binding(0, 64, "threadIdx.x") { ... }
//
// Rules: the loop is serial. Parallel, vectorize and bind need iterations that
// are independent given the blocks' iter kinds: every block below binds the
// loop only through spatial iter vars, with affine bindings that run a distinct
// block instance in each iteration; no statement outside blocks; every block
// below writes a place that depends on the loop; and no block below reads or
// overwrites what another block below writes in a different iteration -- the
// regions one iteration touches are compared with those of every other, and a
// buffer each iteration gets its own copy of is left out (loop_independence.h
// has the rule in full). compute_at and reverse_compute_at recheck it for the
// non-serial loops around the block they move. Bind takes blockIdx.x/y/z,
// threadIdx.x/y/z or vthread(.x/y/z), and refuses an axis that a loop above or below is already
// bound to. Unroll changes no order, so it has no further rule.
#ifndef TESSEL_IR_SCHEDULE_LOOP_KIND_H_
#define TESSEL_IR_SCHEDULE_LOOP_KIND_H_

#include <string>

#include "absl/status/status.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Parallel(ScheduleState* state, const Var& loop);
absl::Status Vectorize(ScheduleState* state, const Var& loop);
absl::Status Unroll(ScheduleState* state, const Var& loop);
absl::Status Bind(ScheduleState* state, const Var& loop, const std::string& thread_axis);

// True for the thread axes Bind accepts.
bool IsThreadAxis(const std::string& tag);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_LOOP_KIND_H_
