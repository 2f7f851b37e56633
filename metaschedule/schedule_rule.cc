// The schedule-rule registry and the transactional ApplyRule (schedule_rule.h).
#include "metaschedule/schedule_rule.h"

#include <algorithm>
#include <mutex>

#include "metaschedule/rules/block_analysis.h"

namespace tessel::metaschedule {

namespace {

struct Registry {
  std::mutex mu;
  std::vector<RegisteredRule> rules;
};

Registry& Global() {
  static Registry r;
  return r;
}

}  // namespace

void RegisterScheduleRule(RegisteredRule rule) {
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  r.rules.push_back(std::move(rule));
}

std::vector<RegisteredRule> RulesFor(const std::string& target_kind) {
  Registry& r = Global();
  std::vector<RegisteredRule> out;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const RegisteredRule& rule : r.rules) {
      if (rule.target_kind == target_kind) out.push_back(rule);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const RegisteredRule& a, const RegisteredRule& b) {
    return a.priority > b.priority;
  });
  return out;
}

RuleOutcome ApplyRule(const ScheduleRule& rule, const RuleContext& ctx, sch::Schedule& s,
                      const std::string& block) {
  if (s.state().index().FindBlock(block) < 0) {
    return RuleOutcome::NotApplicable("the function has no block " + block);
  }
  sch::Schedule backup = s;
  absl::StatusOr<RuleOutcome> out = rule.Apply(ctx, s, block);
  if (out.ok() && out->applied) return *std::move(out);
  s = std::move(backup);
  if (!out.ok()) return RuleOutcome::NotApplicable(FirstLine(out.status()));
  return *std::move(out);
}

}  // namespace tessel::metaschedule
