// The predicate a block moved by compute_at or reverse_compute_at keeps: the
// terms its domain does not already imply, written over its iter vars, to be
// put back over the bindings of its new loops.
//
//   loops k_0 in [0, 2), k_1 in [0, 3)
//   block B_rf(vk0 = k_0, vk1 = k_1) where k_0 * 3 + k_1 < 5      (after rfactor)
//   KeptPredicate(state, <B_rf>, "compute_at") -> {vk0 * 3 + vk1 < 5}
//   block C(vi = i_0 * 8 + i_1) where i_0 * 8 + i_1 < 17, vi in [0, 17)
//   KeptPredicate(state, <C>, "compute_at")    -> {}   (vi < 17 is its domain)
#ifndef TESSEL_IR_SCHEDULE_KEPT_PREDICATE_H_
#define TESSEL_IR_SCHEDULE_KEPT_PREDICATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// The terms of the block's predicate that its domain does not already imply
// (a tail split's `i_0 * 3 + i_1 < 5` on the iter var bound to i_0 * 3 + i_1
// is implied; rfactor's `k_0 * 3 + k_1 < 5` on two iter vars is not), written
// over its iter vars: the new nest must keep them, or it runs instances the
// original excluded. A term it cannot write so is an error.
// `primitive` names the caller in the error.
absl::StatusOr<std::vector<Expr>> KeptPredicate(const ScheduleState& state, int sref,
                                                const std::string& primitive);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_KEPT_PREDICATE_H_
