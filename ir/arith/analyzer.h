// The Analyzer: one object that knows the context of an expression (ranges of
// loop variables, values of let variables, conditions known to hold) and
// answers questions about expressions in it: simplify, bound, prove.
//
//   Analyzer ana;
//   Analyzer::Scope loop(&ana);                      // undone when `loop` ends
//   ana.Bind(i, Range{IntImm32(0), IntImm32(64)});   // 0 <= i < 64
//   ana.Bind(j, Range{IntImm32(0), IntImm32(16)});
//   ana.CanProve(LT(i * 16 + j, 1024))              -> true
//   ana.Simplify(FloorDiv(i * 16 + j, 16))          -> i
//   {
//     Analyzer::Scope then(&ana);
//     ana.EnterConstraint(LT(i, n));                 // inside `if i < n`
//     ana.CanProve(LT(i, n + 1))                     -> true
//     ana.Simplify(Min(i, n))                        -> i
//   }
//   ana.CanProve(LT(i, n))                          -> false (the if is closed)
//
// Integer semantics and overflow. Div/Mod truncate, FloorDiv/FloorMod floor
// (ir/expr.h). Two modes, chosen by AnalyzerOptions::assume_no_overflow:
// - true (the default, TVM's assumption for index arithmetic): the value of every
//   integer subexpression of the input fits its dtype when the program runs. On
//   such inputs the simplified expression computes the same value.
// - false: nothing is assumed; rewrites whose correctness depends on exact values
//   (division, modulo, comparisons, min/max) apply only where bounds prove that no
//   overflow happens. The result computes the same value on every input,
//   wrapping included. Use this for arbitrary code (e.g. a generic simplify pass).
// In both modes + - * are rewritten freely (wrapping arithmetic is exact modulo
// 2^bits), and every new operand the simplifier puts under a division, modulo,
// comparison or min/max is checked by bounds to compute its exact value. Unsigned
// types and vectors get constant folding only.
#ifndef TESSEL_IR_ARITH_ANALYZER_H_
#define TESSEL_IR_ARITH_ANALYZER_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ir/arith/const_int_bound.h"
#include "ir/arith/linear_form.h"
#include "ir/stmt.h"

namespace tessel::ir::arith {

struct AnalyzerOptions {
  bool assume_no_overflow = true;
};

// How many times each simplification rule fired, by rule name (for pass logs).
using RuleCounts = std::map<std::string, int>;

class Analyzer {
 public:
  explicit Analyzer(AnalyzerOptions options = {});
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // Everything bound or entered while a Scope lives is undone when it ends.
  // Scopes nest like the loops and branches they stand for.
  class Scope {
   public:
    explicit Scope(Analyzer* analyzer);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Analyzer* analyzer_;
    size_t bounds_checkpoint_, linear_facts_, literal_facts_;
  };

  // ---- Context ------------------------------------------------------------------
  // `v` takes every value in [range.min, range.min + range.extent): a loop or an
  // iter var. Replaces a bound of `v` known so far; bind a variable once per scope.
  void Bind(const Var& v, const Range& range);
  // `v` equals `value` (a let binding).
  void Bind(const Var& v, const Expr& value);
  // `v` lies in `bound` (replacing what was known of its bound).
  void Bind(const Var& v, const ConstIntBound& bound);
  // `condition` holds from now until the enclosing Scope ends (an `if` branch, a
  // block predicate). Conjunctions are split; comparisons narrow variable bounds.
  void EnterConstraint(const Expr& condition);
  // The same for a condition already simplified in this context (the simplifier
  // and the statement walks use it to avoid simplifying a condition twice).
  void EnterSimplifiedConstraint(const Expr& condition);

  // ---- Queries ------------------------------------------------------------------
  Expr Simplify(const Expr& e);
  ConstIntBound GetConstIntBound(const Expr& e) const { return bounds_.Bound(e); }
  // True when `condition` holds for every value of the context (false means
  // "not proven", not "proven false").
  bool CanProve(const Expr& condition);
  bool CanProveEqual(const Expr& a, const Expr& b);
  // Decides `d <= 0` for an index-typed linear form: true, false, or unknown.
  std::optional<bool> DecideNonPositive(const LinearSum& d) const;

  // ---- Parts, for the simplifier and the other analyses ------------------------
  const AnalyzerOptions& options() const { return options_; }
  const ConstIntBoundAnalyzer& bounds() const { return bounds_; }
  // The bound of a linear form's value, read term by term.
  ConstIntBound LinearBound(const LinearSum& s) const;
  const std::vector<Expr>& literal_facts() const { return literal_facts_; }

  // Rule statistics: when set, every rule application is counted there.
  void set_rule_counts(RuleCounts* counts) { counts_ = counts; }
  void CountRule(const std::string& name) {
    if (counts_ != nullptr) ++(*counts_)[name];
  }

 private:
  friend class Scope;
  void AddComparisonFacts(const Expr& cond);
  void NarrowVarBounds(const LinearSum& fact);

  AnalyzerOptions options_;
  ConstIntBoundAnalyzer bounds_;
  std::vector<LinearSum> linear_facts_;  // Each one holds as `sum <= 0`.
  std::vector<Expr> literal_facts_;      // Conditions known true, as written.
  RuleCounts* counts_ = nullptr;
};

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_ANALYZER_H_
