// Simplifying every expression of a statement in its context: a loop binds its
// variable to its range, an `if` holds in its then branch (and fails in its
// else branch), a let binds its variable, a block binds its iter vars to their
// domains. The `simplify` pass runs this.
//
//   for i in range(0, 16) {                      for i in range(0, 16) {
//     if i < 8 {                                   if i < 8 {
//       A[min(i, 8) + (i // 16) * 4] = 1.0f32  ->    A[i] = 1.0f32
//     }                                            }
//     B[(i * 4 + 1) // 4] = select(i < 16, 2, 3)   B[i] = 2
//   }                                            }
//
// Statement rule: an `if` whose condition is constant in its context becomes the
// branch taken (rule "constant-branch"); expression rules are counted by the
// analyzer (Analyzer::set_rule_counts). Unchanged subtrees are returned as the
// same objects. Subclasses add statement rules of their own.
#ifndef TESSEL_IR_ARITH_STMT_SIMPLIFY_H_
#define TESSEL_IR_ARITH_STMT_SIMPLIFY_H_

#include "ir/arith/analyzer.h"
#include "ir/mutator.h"

namespace tessel::ir::arith {

class StmtSimplifier : public IRMutator {
 public:
  explicit StmtSimplifier(Analyzer* analyzer) : ana_(analyzer) {}

  // The function with its body simplified; variables that are buffer shapes of
  // its parameters are known to be non-negative while it runs.
  PrimFunc SimplifyFunction(const PrimFunc& func);

  Expr VisitBinary(const BinaryNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitNot(const NotNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitSelect(const SelectNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitCast(const CastNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitBufferLoad(const BufferLoadNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitRamp(const RampNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitBroadcast(const BroadcastNode* op) override { return Simplified(GetRef(op)); }
  Expr VisitCall(const CallNode* op) override { return Simplified(GetRef(op)); }

  Stmt VisitFor(const ForNode* op) override;
  Stmt VisitIfThenElse(const IfThenElseNode* op) override;
  Stmt VisitLetStmt(const LetStmtNode* op) override;
  Stmt VisitBlock(const BlockNode* op) override;

 protected:
  Analyzer* analyzer() const { return ana_; }
  // Counts one application of `rule` and returns `result`.
  template <typename T>
  T Applied(const char* rule, T result) {
    ana_->CountRule(rule);
    return result;
  }

 private:
  // `e` simplified; `e` itself when nothing changed.
  Expr Simplified(const Expr& e);

  Analyzer* ana_;
};

// Shorthands: a statement or function simplified with `analyzer`'s context.
Stmt SimplifyStmt(const Stmt& stmt, Analyzer* analyzer);
PrimFunc SimplifyFunction(const PrimFunc& func, Analyzer* analyzer);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_STMT_SIMPLIFY_H_
