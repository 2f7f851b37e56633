// The dispatch rule contract (DESIGN.md decisions 6 and 10): a rule has a name,
// the targets it serves, a priority, and one function that looks at a PrimFunc
// and returns either the function rewritten to call a library or "not
// applicable" with a reason. Not applicable is an answer, never an error; an
// error means the rule itself failed.
//
//   const DispatchRuleRegistrar kBlas(DispatchRule(
//       "blas", {"llvm"}, /*priority=*/10,
//       [](const ir::PrimFunc& f, const std::string& target) -> absl::StatusOr<DispatchResult> {
//         ...match...; return NotApplicable{"no contraction"};
//       }));
//
// Rules written in Python register through the same registry (python/src/
// dispatch.cc); registering a name again replaces the rule.
#ifndef TESSEL_DISPATCH_DISPATCH_RULE_H_
#define TESSEL_DISPATCH_DISPATCH_RULE_H_

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::dispatch {

struct NotApplicable {
  std::string reason;
};

struct DispatchRewrite {
  ir::PrimFunc func;    // The rewritten function.
  std::string summary;  // What was dispatched, for the pass log.
};

using DispatchResult = std::variant<DispatchRewrite, NotApplicable>;

class DispatchRule {
 public:
  using MatchFn = std::function<absl::StatusOr<DispatchResult>(const ir::PrimFunc& func,
                                                               const std::string& target)>;

  DispatchRule(std::string name, std::vector<std::string> targets, int priority, MatchFn match)
      : name_(std::move(name)),
        targets_(std::move(targets)),
        priority_(priority),
        match_(std::move(match)) {}

  const std::string& name() const { return name_; }
  const std::vector<std::string>& targets() const { return targets_; }
  int priority() const { return priority_; }
  // True when the rule serves the target string's kind ("llvm -mcpu=..." is "llvm").
  bool Serves(const std::string& target) const;
  absl::StatusOr<DispatchResult> Match(const ir::PrimFunc& func, const std::string& target) const {
    return match_(func, target);
  }

 private:
  std::string name_;
  std::vector<std::string> targets_;
  int priority_;
  MatchFn match_;
};

// Adds `rule`, replacing a rule of the same name. Thread-safe.
void RegisterDispatchRule(DispatchRule rule);
// Removes a rule; false when there was none of that name.
bool UnregisterDispatchRule(const std::string& name);
std::optional<DispatchRule> LookupDispatchRule(const std::string& name);
// Every rule, highest priority first (ties by name).
std::vector<DispatchRule> ListDispatchRules();

// Registration beside the rule: `const DispatchRuleRegistrar kMine(DispatchRule(...));`
struct DispatchRuleRegistrar {
  explicit DispatchRuleRegistrar(DispatchRule rule) { RegisterDispatchRule(std::move(rule)); }
};

// The attributes a dispatched function carries: `dispatched` names the rules that
// rewrote it; `scheduled = true` is added when nothing but library calls is left,
// so the scheduling passes skip it.
inline constexpr char kDispatchedAttr[] = "dispatched";

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_DISPATCH_RULE_H_
