// The simplifier's inside: one bottom-up rewrite whose handlers live in three
// files by concept. Not part of the API (use Analyzer::Simplify).
//
//   canonical_simplify.cc  + - * and division by constants, through LinearSum:
//                          (i * 16 + j) // 16 -> i + j // 16 -> i   (j in [0, 16))
//   compare_simplify.cc    comparisons as linear inequalities, decided by bounds
//                          and known facts: i * 2 < n * 2 -> i < n
//   rewrite_simplify.cc    the visitor, min/max/select/logic, the rule table
//                          (rewrite_rules.cc) and identities of other types.
#ifndef TESSEL_IR_ARITH_SIMPLIFY_INTERNAL_H_
#define TESSEL_IR_ARITH_SIMPLIFY_INTERNAL_H_

#include <optional>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/mutator.h"

namespace tessel::ir::arith::internal {

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(Analyzer* analyzer) : ana_(analyzer) {}

  Expr VisitVar(const VarNode* op) override;
  Expr VisitBufferLoad(const BufferLoadNode* op) override;
  Expr VisitBinary(const BinaryNode* op) override;
  Expr VisitNot(const NotNode* op) override;
  Expr VisitSelect(const SelectNode* op) override;
  Expr VisitCast(const CastNode* op) override;

  // canonical_simplify.cc: Add, Sub, Mul of an index type.
  std::optional<Expr> SimplifyLinear(const BinaryNode* op);
  // canonical_simplify.cc: Div, Mod, FloorDiv, FloorMod by a positive constant.
  std::optional<Expr> SimplifyDivMod(const BinaryNode* op);
  // compare_simplify.cc: comparisons of index types.
  std::optional<Expr> SimplifyCompare(const BinaryNode* op);

 private:
  // The node `e` whose operands are simplified already.
  Expr SimplifyNode(const Expr& e);
  // !e simplified, for an `e` simplified already.
  Expr Negate(const Expr& simplified);
  // true or false when a bool `e` (or its negation) is a known fact.
  std::optional<Expr> KnownFact(const Expr& e);
  std::optional<Expr> SimplifyMinMax(const BinaryNode* op);
  std::optional<Expr> SimplifyOtherTypes(const BinaryNode* op);
  // Simplifies an expression a rule produced, with a depth limit as the guard
  // against rule cycles.
  Expr Resimplify(const Expr& e, const char* rule);
  // A linear form with terms whose value the bounds fix folded into the constant,
  // and floormods that cannot wrap dropped.
  bool NormalizeTerms(LinearSum* s);
  // `s` as an expression when its exact value is sure to fit (a new operand for a
  // division or comparison); nothing otherwise.
  std::optional<Expr> ExactOperand(const LinearSum& s);

  Analyzer* ana_;
  int depth_ = 0;
};

// Decides a bool condition without simplifying it first (for rule conditions):
// constants, known facts, and comparisons of index types by bounds and facts.
std::optional<bool> TryDecide(const Analyzer& ana, const Expr& cond);

// The bound of floormod(floordiv(index, lower), extent), unscaled, from the
// bound of the term's index.
ConstIntBound TermValueBound(const ConstIntBound& index, const SplitTerm& t);

// a - b as a linear form, when both are index-typed and readable.
std::optional<LinearSum> LinearDifference(const Expr& a, const Expr& b);

}  // namespace tessel::ir::arith::internal

#endif  // TESSEL_IR_ARITH_SIMPLIFY_INTERNAL_H_
