// The contract of a CPU (and later GPU) schedule rule, and the registry the
// default-schedule pass and the design-space generator take rules from.
//
//   class AutoInline : public ScheduleRule {
//     std::string name() const override { return "auto-inline"; }
//     absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
//                                       const std::string& block) const override {
//       if (!IsElementwise(...)) return RuleOutcome::NotApplicable("it reduces");
//       ...primitives; every choice a sampling instruction given ctx.Decide(heuristic)...
//       return RuleOutcome::Applied("inlined into T_relu");
//     }
//   };
//   TESSEL_REGISTER_SCHEDULE_RULE("llvm", 100, AutoInline);
//
// A rule looks at a block's structure (iterator kinds, access patterns, loop
// nest), never at block or buffer names (DESIGN.md decision 10). "Not applicable"
// is an answer with a reason, not an error. An error from a primitive means the
// rule misjudged legality: the caller restores the schedule and logs it as not
// applicable, so a rule never leaves a half-applied schedule behind.
//
// Every choice a rule makes goes through a sampling instruction
// (sample_perfect_tile, sample_categorical, sample_compute_location). In
// heuristic mode (default-schedule) the rule passes its target-derived choice
// as the instruction's decision; in sampling mode (design spaces) it passes
// none and the schedule's random stream draws one -- one rule, both uses.
#ifndef TESSEL_METASCHEDULE_SCHEDULE_RULE_H_
#define TESSEL_METASCHEDULE_SCHEDULE_RULE_H_

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/schedule.h"
#include "metaschedule/machine.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

struct RuleContext {
  Machine machine;
  bool sample = false;  // Draw decisions instead of taking the heuristic's.
  // Set to rebuild a schedule from given decisions (DesignSpace::Rebuild): the
  // k-th sampling instruction of the schedule takes forced[k] when it holds one
  // (and draws or takes the heuristic otherwise). The count is of the sampling
  // instructions in `schedule`'s trace, so a rule attempt rolled back takes back
  // its positions too.
  const std::vector<std::optional<sch::TraceValue>>* forced = nullptr;
  const sch::Schedule* schedule = nullptr;

  // The heuristic's choice as a decision, or none to draw one.
  template <typename T>
  std::optional<T> Decide(T heuristic) const {
    if (std::optional<T> f = Forced<T>(); f.has_value()) return f;
    if (sample) return std::nullopt;
    return heuristic;
  }

 private:
  template <typename T>
  std::optional<T> Forced() const {
    if (forced == nullptr || schedule == nullptr) return std::nullopt;
    size_t k = 0;
    for (const sch::Instruction& inst : schedule->trace().instructions()) {
      k += inst.decision.has_value() ? 1 : 0;
    }
    if (k >= forced->size() || !(*forced)[k].has_value()) return std::nullopt;
    const sch::TraceValue& v = *(*forced)[k];
    if constexpr (std::is_same_v<T, int64_t>) {
      if (v.is_int()) return v.as_int();
    } else {
      if (!v.is_list()) return std::nullopt;
      T out;
      for (const sch::TraceValue& x : v.as_list()) {
        if (!x.is_int()) return std::nullopt;
        out.push_back(x.as_int());
      }
      return out;
    }
    return std::nullopt;
  }
};

struct RuleOutcome {
  bool applied = false;
  std::string detail;  // What it did (decisions), or why it does not apply.

  static RuleOutcome Applied(std::string detail) { return {true, std::move(detail)}; }
  static RuleOutcome NotApplicable(std::string why) { return {false, std::move(why)}; }
};

class ScheduleRule {
 public:
  virtual ~ScheduleRule() = default;
  virtual std::string name() const = 0;
  // Whether the pass offers the blocks consumers first (a rule that moves
  // producers to their consumers needs the consumers placed first).
  virtual bool consumers_first() const { return false; }
  // Schedules `block`, or says why not. ApplyRule calls it only for a block the
  // schedule's current function has.
  virtual absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                            const std::string& block) const = 0;
};

struct RegisteredRule {
  std::string target_kind;  // "llvm"; "cuda" for the GPU rules.
  int priority = 0;         // Higher runs first.
  std::shared_ptr<const ScheduleRule> rule;
};

// Rules for a target kind, highest priority first (ties in registration order).
std::vector<RegisteredRule> RulesFor(const std::string& target_kind);
void RegisterScheduleRule(RegisteredRule rule);

struct ScheduleRuleRegistrar {
  ScheduleRuleRegistrar(std::string kind, int priority, std::shared_ptr<const ScheduleRule> rule) {
    RegisterScheduleRule({std::move(kind), priority, std::move(rule)});
  }
};

// One rule on one block, transactionally: on error or "not applicable" the
// schedule is as it was; the error's message becomes the reason. A block the
// function does not have is "not applicable" without asking the rule.
RuleOutcome ApplyRule(const ScheduleRule& rule, const RuleContext& ctx, sch::Schedule& s,
                      const std::string& block);

}  // namespace tessel::metaschedule

#define TESSEL_RULE_CONCAT_INNER(a, b) a##b
#define TESSEL_RULE_CONCAT(a, b) TESSEL_RULE_CONCAT_INNER(a, b)
#define TESSEL_REGISTER_SCHEDULE_RULE(kind, priority, Rule)                         \
  static const ::tessel::metaschedule::ScheduleRuleRegistrar TESSEL_RULE_CONCAT( \
      tessel_rule_registrar_, __COUNTER__)(kind, priority, std::make_shared<const Rule>())

#endif  // TESSEL_METASCHEDULE_SCHEDULE_RULE_H_
