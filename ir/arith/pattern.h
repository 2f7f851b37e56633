// Rewrite rules written as text, in a small pattern language, so that the rule
// table reads as the rules themselves (rewrite_rules.cc).
//
//   RewriteRule r = ParseRuleOrDie("min-scaled", "min(x * c1, y * c1) => min(x, y) * c1  if c1 >
//   0"); r.Apply(Min(i * 4, j * 4), ana)  -> min(i, j) * 4
//
// Syntax: `lhs => rhs [if cond]`, with the expression grammar of .tsl (+ - * / %
// // %% min max select < <= > >= == != && || !, parentheses) over:
//   x, y, z, w   any expression (a name used twice must match equal expressions)
//   c1 .. c9     an integer constant
//   0, -1, true  literals
// Commutative operators (+ * min max == != && ||) match either operand order, so
// each rule is listed once. On the right, operations on constants fold exactly
// (a result that does not fit the dtype rejects the rule); a literal takes the
// dtype of the operand beside it. The condition is decided from constants, bounds
// and known facts (never by simplifying, so rules cannot recurse).
//
// Safety is checked for every rule, not written into each one: an expression
// with an extern call is never dropped or duplicated; in the checked-overflow mode
// a rule whose left side divides, compares or takes min/max applies only where the
// matched expression cannot wrap; and a new operand the right side places under
// such an operation must be proven to fit (analyzer.h). Matched expressions must
// be signed integers or bools: the rules are about index arithmetic.
#ifndef TESSEL_IR_ARITH_PATTERN_H_
#define TESSEL_IR_ARITH_PATTERN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/expr.h"

namespace tessel::ir::arith {

class Analyzer;

// A node of a pattern.
struct Pattern {
  enum class Tag : uint8_t { kVar, kConst, kInt, kBool, kBinary, kNot, kSelect };
  Tag tag = Tag::kInt;
  NodeKind op = NodeKind::kAdd;  // kBinary
  int slot = -1;                 // kVar, kConst
  int64_t value = 0;             // kInt, kBool
  std::vector<Pattern> children;
};

inline constexpr int kMaxPatternVars = 12;

class RewriteRule {
 public:
  static absl::StatusOr<RewriteRule> Parse(absl::string_view name, absl::string_view text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The kind of expression the left side matches (kNot, kSelect or a binary kind).
  NodeKind root_kind() const { return root_kind_; }

  // `e` rewritten, or nothing when the rule does not match or its checks fail.
  std::optional<Expr> Apply(const Expr& e, const Analyzer& ana) const;

 private:
  std::string name_, text_;
  Pattern lhs_, rhs_;
  std::optional<Pattern> cond_;
  NodeKind root_kind_ = NodeKind::kAdd;
  bool value_dependent_ = false;        // The left side divides, compares or takes min/max.
  int rhs_uses_[kMaxPatternVars] = {};  // How often each variable appears on the right.
  std::vector<std::string> slot_names_;
};

RewriteRule ParseRuleOrDie(absl::string_view name, absl::string_view text);

// Rules grouped by the kind they match, tried in table order.
class RuleTable {
 public:
  // Aborts on a malformed rule or a repeated name: the table is source code.
  explicit RuleTable(const std::vector<std::pair<const char*, const char*>>& rules);

  // The result of the first rule that applies to `e`, and that rule.
  std::optional<std::pair<Expr, const RewriteRule*>> Apply(const Expr& e,
                                                           const Analyzer& ana) const;

  const std::vector<RewriteRule>& rules() const { return rules_; }

 private:
  std::vector<RewriteRule> rules_;
};

// The table of index-arithmetic rules (rewrite_rules.cc).
const RuleTable& IndexRules();

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_PATTERN_H_
