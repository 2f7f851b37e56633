// A mutator that keeps an arithmetic Analyzer told of the loops and integer lets
// around the node it visits, so that index expressions a lowering pass builds
// can be simplified in their context:
//
//   for i in range(0, 4) { for j in range(0, 8) { ... Index((i * 8 + j) // 8) ... } }
//   -> i   (the analyzer knows 0 <= j < 8)
//
// Only loops and lets are entered, never `if` or `select` conditions: a load in
// a select arm runs whatever the condition says (ir/expr.h), so its index must
// stay in bounds where the condition is false too (a clamp like
// min(max(i - 1, 0), 11) under `select(i >= 1, ...)` must survive).
#ifndef TESSEL_PASSES_LOWERING_CONTEXT_MUTATOR_H_
#define TESSEL_PASSES_LOWERING_CONTEXT_MUTATOR_H_

#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"

namespace tessel::passes::lowering {

class ContextMutator : public ir::IRMutator {
 public:
  ContextMutator() : ana_(ir::arith::AnalyzerOptions{.assume_no_overflow = false}) {}

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::arith::Analyzer::Scope scope(&ana_);
    ana_.Bind(op->loop_var, ir::Range{op->min, op->extent});
    return IRMutator::VisitFor(op);
  }
  ir::Stmt VisitLetStmt(const ir::LetStmtNode* op) override {
    ir::arith::Analyzer::Scope scope(&ana_);
    if (ir::arith::IsIndexType(op->var->dtype)) ana_.Bind(op->var, op->value);
    return IRMutator::VisitLetStmt(op);
  }

 protected:
  // An index expression simplified in the context of the enclosing loops.
  ir::Expr Index(const ir::Expr& e) { return ir::arith::IsIndexType(e->dtype) ? ana_.Simplify(e) : e; }
  ir::arith::Analyzer& analyzer() { return ana_; }

 private:
  ir::arith::Analyzer ana_;
};

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_CONTEXT_MUTATOR_H_
