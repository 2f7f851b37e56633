// A first, small arithmetic simplifier for the `simplify` pass: constant folding
// and the identities that index arithmetic needs most. Kept on its own so that
// the full simplifier (ir/arith/, with the schedule work) can replace it.
//
//   (i + 2) + 3        ->  i + 5         reassociate-constants
//   4 * 8 + j * 1      ->  32 + j -> j + 32   fold-constant, identity, move-constant-right
//   min(3, 7) < 4      ->  true          fold-constant
//   select(false, a, b)->  b             constant-select
//   i32(7i64)          ->  7             fold-constant
//
// Folding follows the interpreter's semantics exactly: integers wrap at their
// width, division truncates (floordiv/floormod round down), division by zero is
// never folded (it stays an error at run time), float arithmetic is folded only
// for f32/f64 where rounding the double result once gives the same value. Nothing
// that calls an external function is dropped (it may have side effects).
#ifndef TESSEL_PASSES_TRANSFORMS_ARITH_FOLD_H_
#define TESSEL_PASSES_TRANSFORMS_ARITH_FOLD_H_

#include <map>
#include <string>

#include "ir/mutator.h"

namespace tessel::passes {

// Rewrites by rule name, for the pass log.
using FoldCounts = std::map<std::string, int>;

// Folds every expression reached; statements are rebuilt only where an
// expression inside changed. Subclasses add statement rules.
class ArithFolder : public ir::IRMutator {
 public:
  explicit ArithFolder(FoldCounts* counts = nullptr) : counts_(counts) {}

  ir::Expr VisitBinary(const ir::BinaryNode* op) override;
  ir::Expr VisitNot(const ir::NotNode* op) override;
  ir::Expr VisitSelect(const ir::SelectNode* op) override;
  ir::Expr VisitCast(const ir::CastNode* op) override;

 protected:
  // Counts one application of `rule` and returns `result`.
  template <typename T>
  T Applied(const char* rule, T result) {
    if (counts_ != nullptr) ++(*counts_)[rule];
    return result;
  }

 private:
  ir::Expr FoldBinary(const ir::Expr& e);
  FoldCounts* counts_;
};

// Folds one expression tree.
ir::Expr FoldExpr(const ir::Expr& e, FoldCounts* counts = nullptr);

// True when `e` calls an external function (which may have side effects).
bool HasExternCall(const ir::Expr& e);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_TRANSFORMS_ARITH_FOLD_H_
