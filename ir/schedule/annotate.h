// annotate / unannotate: key-value annotations on a loop or a block, for later
// passes and codegen to read (unroll hints, pragmas, schedule-rule tags).
//
//   Annotate(state, k, "pragma_unroll", AttrValue(int64_t{4}))
//     for k in range(0, 64) attrs {pragma_unroll = 4} { ... }
//   Annotate(state, "C", "schedule_rule", AttrValue("matmul"))
//     block C(...) attrs {schedule_rule = "matmul"} { ... }
//   Unannotate(state, k, "pragma_unroll")      -> the annotation is gone
//
// An existing key is overwritten. Values are ints, floats, bools, strings and
// lists of them (no expressions: a trace must be able to write them as JSON).
// Unannotating a key that is not there is an error listing the keys present.
#ifndef TESSEL_IR_SCHEDULE_ANNOTATE_H_
#define TESSEL_IR_SCHEDULE_ANNOTATE_H_

#include <string>

#include "absl/status/status.h"
#include "ir/attrs.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Annotate(ScheduleState* state, const Var& loop, const std::string& key,
                      const AttrValue& value);
absl::Status Annotate(ScheduleState* state, const std::string& block, const std::string& key,
                      const AttrValue& value);
absl::Status Unannotate(ScheduleState* state, const Var& loop, const std::string& key);
absl::Status Unannotate(ScheduleState* state, const std::string& block, const std::string& key);

// "" when `value` may be an annotation written in a trace, else why not.
std::string CheckAnnotationValue(const AttrValue& value);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_ANNOTATE_H_
