// DesignSpace (design_space.h).
#include "metaschedule/design_space.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessel::metaschedule {

std::string TargetKind(const std::string& target) {
  std::vector<std::string> words = absl::StrSplit(target, ' ', absl::SkipWhitespace());
  return words.empty() ? "llvm" : words[0];
}

absl::StatusOr<DesignSpace> DesignSpace::Create(ir::IRModule mod, const std::string& func,
                                                const std::string& target) {
  if (!mod.defined() || mod->functions.empty()) {
    return absl::InvalidArgumentError("design space: the module has no function");
  }
  std::string name = func.empty() ? mod->functions.front().first : func;
  if (mod->Lookup(name) == nullptr) {
    return absl::NotFoundError(absl::StrCat("design space: the module has no function '", name, "'"));
  }
  absl::StatusOr<Machine> machine = Machine::FromTarget(target);
  if (!machine.ok()) return machine.status();
  return DesignSpace(std::move(mod), std::move(name), *machine, TargetKind(target));
}

absl::StatusOr<RuleSchedule> DesignSpace::Draw(uint64_t seed) const {
  return ScheduleByRules(mod_, func_, machine_, kind_, /*sample=*/true, seed);
}

absl::StatusOr<RuleSchedule> DesignSpace::Rebuild(
    const std::vector<std::optional<ir::schedule::TraceValue>>& decisions, uint64_t seed) const {
  return ScheduleByRules(mod_, func_, machine_, kind_, /*sample=*/true, seed, &decisions);
}

absl::StatusOr<RuleSchedule> DesignSpace::Heuristic() const {
  return ScheduleByRules(mod_, func_, machine_, kind_, /*sample=*/false, 1);
}

}  // namespace tessel::metaschedule
