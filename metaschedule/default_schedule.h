// Schedules a function by the registered rules of its target, with every
// decision taken by the rules' target-derived heuristics (nothing is measured),
// or -- for a design space -- drawn at random.
//
//   absl::StatusOr<RuleSchedule> r = ScheduleByRules(mod, "matmul", Machine::Host());
//   r->schedule.func()               // the scheduled function
//   r->schedule.trace().AsPython()   // its trace: sample_perfect_tile(..., decision=[...]) ...
//   r->applied[0].ToString()         // "multi-level-tiling on C: i=[1,128,1,8] ..."
//
// Rules run in priority order (auto-inline, multi-level-tiling, compute-location,
// parallelize-vectorize), each over every block of the function -- in program
// order, or consumers first where the rule asks -- transactionally: a rule that
// does not apply leaves the schedule as it was and says why.
#ifndef TESSEL_METASCHEDULE_DEFAULT_SCHEDULE_H_
#define TESSEL_METASCHEDULE_DEFAULT_SCHEDULE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/schedule.h"
#include "metaschedule/machine.h"

namespace tessel::metaschedule {

// What one rule did to one block, or why it did not.
struct RuleRecord {
  std::string rule, block, detail;
  std::string ToString() const { return rule + " on " + block + ": " + detail; }
};

struct RuleSchedule {
  ir::schedule::Schedule schedule;
  std::vector<RuleRecord> applied;      // In the order the rules ran.
  std::vector<RuleRecord> not_applied;  // Every refusal, with its reason.
};

// `sample`: draw every decision from `seed` instead of taking the heuristic's.
// `forced`: the decisions of the sampling instructions by position, where given
// (RuleContext::forced).
absl::StatusOr<RuleSchedule> ScheduleByRules(
    const ir::IRModule& mod, const std::string& func, const Machine& machine,
    const std::string& target_kind = "llvm", bool sample = false, uint64_t seed = 1,
    const std::vector<std::optional<ir::schedule::TraceValue>>* forced = nullptr);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DEFAULT_SCHEDULE_H_
