// Queries over the schedule state: find blocks, the loops above a block, the
// blocks below a loop or block, and producer/consumer blocks.
//
//   for i { for j { block B(...) writes T }  }   for i2 { block C(...) reads T }
//   GetBlock(state, "B")          -> "B"         (an error listing the blocks if absent)
//   GetLoops(state, "B")          -> [i, j]      (outermost first, up to the enclosing block)
//   GetChildBlocks(state, i)      -> ["B"]
//   GetConsumers(state, "B")      -> ["C"];  GetProducers(state, "C") -> ["B"]
//
// Producers and consumers are blocks of the same scope (the enclosing block, or
// the function body) linked by a buffer one writes and the other reads: a
// producer comes before the block in program order, a consumer after.
#ifndef TESSEL_IR_SCHEDULE_QUERIES_H_
#define TESSEL_IR_SCHEDULE_QUERIES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::string> GetBlock(const ScheduleState& state, const std::string& name);
absl::StatusOr<std::vector<Var>> GetLoops(const ScheduleState& state, const std::string& block);
absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const std::string& block);
absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const Var& loop);
absl::StatusOr<std::vector<std::string>> GetProducers(const ScheduleState& state,
                                                      const std::string& block);
absl::StatusOr<std::vector<std::string>> GetConsumers(const ScheduleState& state,
                                                      const std::string& block);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_QUERIES_H_
