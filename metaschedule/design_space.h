// The design space of a function: the schedules the target's rules can make,
// one per draw of their sampling decisions. The tuner searches it; the
// default-schedule pass takes its heuristic point.
//
//   absl::StatusOr<DesignSpace> space = DesignSpace::Create(mod, "matmul", "llvm");
//   RuleSchedule a = *space->Draw(7);     // every decision drawn from seed 7
//   RuleSchedule h = *space->Heuristic(); // what default-schedule applies
//   a.schedule.trace().AsPython()         // replays onto any structurally equal function
//
// A draw applies the same rules as the heuristic, in the same order, each
// transactionally; only the decisions differ (tile factors, compute locations,
// parallel depth, vector widths). A rule that does not apply to a draw is
// skipped for it, so every draw is a valid schedule. Draws are deterministic
// in their seed.
#ifndef TESSEL_METASCHEDULE_DESIGN_SPACE_H_
#define TESSEL_METASCHEDULE_DESIGN_SPACE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "metaschedule/default_schedule.h"
#include "metaschedule/machine.h"

namespace tessel::metaschedule {

class DesignSpace {
 public:
  // `func`: a function of `mod` ("" for the first); `target`: as default-schedule's.
  static absl::StatusOr<DesignSpace> Create(ir::IRModule mod, const std::string& func,
                                            const std::string& target);

  absl::StatusOr<RuleSchedule> Draw(uint64_t seed) const;
  absl::StatusOr<RuleSchedule> Heuristic() const;
  // The rules run again with the k-th sampling instruction taking decisions[k]
  // where given, the others drawn from `seed`: how a mutated or crossed-over
  // decision becomes a schedule (a parallel length decides which loops are fused,
  // not only a value). A given decision the primitive refuses there makes its
  // rule not apply, as in any draw.
  absl::StatusOr<RuleSchedule> Rebuild(
      const std::vector<std::optional<ir::schedule::TraceValue>>& decisions, uint64_t seed) const;

  const Machine& machine() const { return machine_; }
  const ir::IRModule& mod() const { return mod_; }
  const std::string& func() const { return func_; }

 private:
  DesignSpace(ir::IRModule mod, std::string func, Machine machine, std::string kind)
      : mod_(std::move(mod)), func_(std::move(func)), machine_(machine), kind_(std::move(kind)) {}

  ir::IRModule mod_;
  std::string func_;
  Machine machine_;
  std::string kind_;
};

// The target kind of a target string: its first word ("llvm" when empty).
std::string TargetKind(const std::string& target);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DESIGN_SPACE_H_
