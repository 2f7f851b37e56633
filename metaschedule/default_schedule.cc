// ScheduleByRules (default_schedule.h).
#include "metaschedule/default_schedule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

// The function's blocks but its root block (the one above every loop), in program order.
std::vector<std::string> ScheduledBlocks(const sch::Schedule& s) {
  const sch::StmtIndex& index = s.state().index();
  std::vector<std::string> names;
  for (int i = 0; i < index.size(); ++i) {
    if (index.block(i) != nullptr && (index.ScopeBlock(i) >= 0 || !index.LoopsAbove(i).empty())) {
      names.push_back(index.block(i)->name);
    }
  }
  return names;
}

}  // namespace

absl::StatusOr<RuleSchedule> ScheduleByRules(
    const ir::IRModule& mod, const std::string& func, const Machine& machine,
    const std::string& target_kind, bool sample, uint64_t seed,
    const std::vector<std::optional<sch::TraceValue>>* forced) {
  std::vector<RegisteredRule> rules = RulesFor(target_kind);
  if (rules.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no schedule rules are registered for the target kind '", target_kind, "'"));
  }
  absl::StatusOr<sch::Schedule> s = sch::Schedule::Create(mod, func, seed);
  if (!s.ok()) return s.status();
  RuleSchedule out{*std::move(s), {}, {}};
  RuleContext ctx;
  ctx.machine = machine;
  ctx.sample = sample;
  ctx.forced = forced;
  ctx.schedule = &out.schedule;
  for (const RegisteredRule& r : rules) {
    std::vector<std::string> blocks = ScheduledBlocks(out.schedule);
    if (r.rule->consumers_first()) std::reverse(blocks.begin(), blocks.end());
    for (const std::string& block : blocks) {
      if (out.schedule.state().index().FindBlock(block) < 0) continue;  // Inlined meanwhile.
      RuleOutcome o = ApplyRule(*r.rule, ctx, out.schedule, block);
      (o.applied ? out.applied : out.not_applied)
          .push_back(RuleRecord{r.rule->name(), block, std::move(o.detail)});
    }
  }
  return out;
}

}  // namespace tessel::metaschedule
