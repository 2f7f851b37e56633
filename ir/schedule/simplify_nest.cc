// Simplifying a rebuilt loop nest (see simplify_nest.h).
#include "ir/schedule/simplify_nest.h"

#include <memory>
#include <vector>

#include "ir/arith/analyzer.h"
#include "ir/mutator.h"
#include "ir/arith/expr_util.h"

namespace tessel::ir::schedule {

namespace {

class NestSimplifier : public IRMutator {
 public:
  explicit NestSimplifier(arith::Analyzer* ana) : ana_(ana) {}

  Expr SimplifyIndex(const Expr& e) { return e && IsIndex(e) ? ana_->Simplify(e) : e; }

  Stmt VisitFor(const ForNode* op) override {
    Expr min = SimplifyIndex(op->min), extent = SimplifyIndex(op->extent);
    arith::Analyzer::Scope scope(ana_);
    ana_->Bind(op->loop_var, Range{min, extent});
    Stmt body = IRMutator::VisitStmt(op->body);
    return UpdateFor(op, std::move(min), std::move(extent), std::move(body));
  }

  Stmt VisitBlockRealize(const BlockRealizeNode* op) override {
    std::vector<Expr> values;
    bool changed = false;
    for (const Expr& v : op->iter_values) {
      values.push_back(SimplifyIndex(v));
      changed |= !values.back().same_as(v);
    }
    Expr pred = SimplifyCondition(op->predicate);
    changed |= !pred.same_as(op->predicate);
    if (!changed) return GetRef(op);
    return Stmt(MakeNode<BlockRealizeNode>(std::move(values), std::move(pred), op->block));
  }

  Stmt VisitIfThenElse(const IfThenElseNode* op) override {
    Expr cond = SimplifyCondition(op->condition);
    Stmt then_case = IRMutator::VisitStmt(op->then_case);
    Stmt else_case = IRMutator::VisitStmt(op->else_case);
    if (arith::IsConstTrue(cond)) return then_case;
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case)) {
      return GetRef(op);
    }
    return Stmt(
        MakeNode<IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case)));
  }

  Stmt VisitBlock(const BlockNode* op) override { return GetRef(op); }

 private:
  static bool IsIndex(const Expr& e) { return e->dtype.is_int() && e->dtype.is_scalar(); }

  // A condition the context proves becomes `true`; others keep their form
  // (the simplifier may still tidy their operands).
  Expr SimplifyCondition(const Expr& cond) {
    if (!cond || arith::IsConstTrue(cond) || cond->dtype != DataType::Bool()) return cond;
    if (ana_->CanProve(cond)) return Bool(true);
    return ana_->Simplify(cond);
  }

  arith::Analyzer* ana_;
};

}  // namespace

Stmt SimplifyNest(const StmtIndex& index, int parent, const Stmt& nest) {
  arith::Analyzer ana;
  for (int p = parent; p >= 0; p = index.at(p).parent) {
    if (const ForNode* f = index.loop(p)) {
      ana.Bind(f->loop_var, Range{f->min, f->extent});
      continue;
    }
    // The enclosing block: its iter vars are what bindings inside may use.
    for (const IterVar& iv : index.block(p)->iter_vars) ana.Bind(iv.var, iv.dom);
    break;
  }
  NestSimplifier simplifier(&ana);
  return simplifier.VisitStmt(nest);
}

}  // namespace tessel::ir::schedule
