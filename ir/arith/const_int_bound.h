// Constant integer bounds of expressions: the interval [min, max] that holds
// every value an expression can take, given bounds of its variables.
//
//   ConstIntBoundAnalyzer b(/*assume_no_overflow=*/true);
//   b.Update(i, ConstIntBound::Range(0, 63));     // i in [0, 63]
//   b.Update(j, ConstIntBound::Range(0, 15));
//   b.Bound(i * 16 + j)               -> [0, 1023]   (so i*16 + j < 1024 holds)
//   b.Bound(floormod(i * 16 + j, 7))  -> [0, 6]
//   b.Bound(x)                        -> [-2147483648, 2147483647] for an i32 x
//                                        nothing is known about
//
// Bounds are computed bottom-up in exact arithmetic, with INT64_MIN / INT64_MAX
// standing for -inf / +inf. What happens when an exact bound leaves the dtype's
// range (the value may wrap at run time) depends on the overflow mode:
// - assume_no_overflow (TVM's assumption for index arithmetic): values are taken
//   to fit, and the bound is clipped to the dtype's range;
// - otherwise the node's value may be anything the dtype holds, and the result
//   says the value may have wrapped.
// Bounds of variables live in a table with an undo log, so an Analyzer scope
// can narrow them (a loop range, an `if i < n`) and restore them on exit.
#ifndef TESSEL_IR_ARITH_CONST_INT_BOUND_H_
#define TESSEL_IR_ARITH_CONST_INT_BOUND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/arith/int_math.h"
#include "ir/expr.h"

namespace tessel::ir::arith {

struct ConstIntBound {
  int64_t min_value = kNegInf;  // kNegInf: no lower bound.
  int64_t max_value = kPosInf;  // kPosInf: no upper bound.

  static ConstIntBound Everything() { return {}; }
  static ConstIntBound Point(int64_t v) { return {v, v}; }
  static ConstIntBound Range(int64_t lo, int64_t hi) { return {lo, hi}; }
  // Every value of an integer or bool dtype; everything for other dtypes.
  static ConstIntBound OfDtype(DataType t);

  bool is_const() const { return min_value == max_value && !IsInf(min_value); }
  bool is_empty() const { return min_value > max_value; }
  bool contains(int64_t v) const { return v >= min_value && v <= max_value; }
  bool operator==(const ConstIntBound& o) const {
    return min_value == o.min_value && max_value == o.max_value;
  }
  ConstIntBound Intersect(const ConstIntBound& o) const;
  ConstIntBound Union(const ConstIntBound& o) const;
  // "[0, 63]", "[-inf, 5]".
  std::string ToString() const;
};

// Expressions whose bound is taken as the run-time one even when checking a new
// expression for overflow (see FitsExactly).
using TrustedSet = absl::flat_hash_set<const ExprNode*>;

class ConstIntBoundAnalyzer {
 public:
  explicit ConstIntBoundAnalyzer(bool assume_no_overflow) : assume_(assume_no_overflow) {}

  bool assume_no_overflow() const { return assume_; }

  // Every value `e` takes at run time lies in the result.
  ConstIntBound Bound(const Expr& e) const;

  // False when evaluating `e` may wrap somewhere, i.e. a subexpression's exact
  // value may leave its dtype. With assume_no_overflow this is always true.
  bool CannotOverflow(const Expr& e) const;

  // For an expression the simplifier is about to create: true when no node of
  // `e` can wrap, reading the expressions in `trusted` (parts of the input, which
  // the overflow mode speaks for) by their run-time bounds. Rewrites use it before
  // putting a new operand under a value-dependent operation (a division, a
  // comparison, min/max), where a wrapped value would change the result.
  bool FitsExactly(const Expr& e, const TrustedSet& trusted) const;

  // The bound of `v` (its dtype's range when nothing is known).
  ConstIntBound VarBound(const VarNode* v) const;
  // Narrows `v` to its current bound intersected with `b` (or sets it to `b` when
  // `replace`). Recorded in the undo log.
  void Update(const Var& v, const ConstIntBound& b, bool replace = false);

  // Undo support for scopes: the log position now, and a return to it.
  size_t Checkpoint() const { return undo_.size(); }
  void Rollback(size_t checkpoint);

 private:
  // What is known of one node. `runtime` bounds the value the program computes.
  // `math` bounds the value of the same tree in exact integer arithmetic; it is
  // meaningful when `congruent` (runtime == math modulo 2^bits, true of trees of
  // + - * over exact leaves). `exact` means runtime == math.
  struct Result {
    ConstIntBound runtime;
    ConstIntBound math;
    bool exact = true;
    bool congruent = true;
  };
  struct Entry {
    Var var;  // Keeps the key alive.
    ConstIntBound bound;
  };
  static Result Known(ConstIntBound b) { return {b, b, true, true}; }
  Result Eval(const Expr& e, bool assume, const TrustedSet* trusted) const;
  Result EvalBinary(const Expr& e, bool assume, const TrustedSet* trusted) const;
  // A + - * node of type `t` whose exact value lies in `math`.
  Result Ring(DataType t, ConstIntBound math, bool congruent, bool assume) const;
  // Any other integer node: `runtime` bounds its value, `exact` if its operands were.
  Result NonRing(DataType t, ConstIntBound runtime, bool exact, bool assume) const;

  bool assume_;
  absl::flat_hash_map<const VarNode*, Entry> vars_;
  std::vector<std::pair<const VarNode*, std::optional<Entry>>> undo_;
};

// Exact bound arithmetic, exposed for the interval code and the tests.
ConstIntBound BoundAdd(const ConstIntBound& a, const ConstIntBound& b);
ConstIntBound BoundSub(const ConstIntBound& a, const ConstIntBound& b);
ConstIntBound BoundMul(const ConstIntBound& a, const ConstIntBound& b);
ConstIntBound BoundScale(const ConstIntBound& a, int64_t c);
// `kind` is kDiv, kMod, kFloorDiv or kFloorMod; a divisor range containing 0 is
// read without 0 (division by zero is an error, not a value).
ConstIntBound BoundDivMod(NodeKind kind, const ConstIntBound& a, const ConstIntBound& b);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_CONST_INT_BOUND_H_
