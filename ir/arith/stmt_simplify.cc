// Statement simplification in context; see stmt_simplify.h.
//
//   for i in range(0, 4 * 2) { ... }   -> for i in range(0, 8), i bound to [0, 8) inside
//   if 1 < 2 { A } else { B }          -> A                     (constant-branch)
//   if i < n { C[min(i, n)] = 0 }      -> if i < n { C[i] = 0 }  (the condition holds inside)
#include "ir/arith/stmt_simplify.h"

#include "ir/arith/expr_util.h"

namespace tessel::ir::arith {

Expr StmtSimplifier::Simplified(const Expr& e) {
  Expr r = ana_->Simplify(e);
  return ExprIdentical(r, e) ? e : r;
}

PrimFunc StmtSimplifier::SimplifyFunction(const PrimFunc& func) {
  Analyzer::Scope scope(ana_);
  for (const Param& p : func->params) {
    if (!p.is_buffer()) continue;
    for (const Expr& dim : p.buffer->shape) {
      // A shape variable is an extent of the argument: never negative.
      if (const auto* v = dyn_cast<VarNode>(dim); v != nullptr && IsIndexType(v->dtype)) {
        ana_->Bind(GetRef(v), ConstIntBound::Range(0, DtypeMax(v->dtype)));
      }
    }
  }
  return VisitPrimFunc(func);
}

Stmt StmtSimplifier::VisitFor(const ForNode* op) {
  Expr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
  Stmt body;
  {
    Analyzer::Scope scope(ana_);
    ana_->Bind(op->loop_var, Range{min, extent});
    body = VisitStmt(op->body);
  }
  return UpdateFor(op, std::move(min), std::move(extent), std::move(body));
}

Stmt StmtSimplifier::VisitIfThenElse(const IfThenElseNode* op) {
  Expr c = VisitExpr(op->condition);
  if (std::optional<bool> v = AsConstBool(c)) {
    if (*v) return Applied("constant-branch", VisitStmt(op->then_case));
    if (op->else_case) return Applied("constant-branch", VisitStmt(op->else_case));
    return Applied("constant-branch", Stmt(MakeNode<SeqStmtNode>(std::vector<Stmt>{})));
  }
  Stmt t, e;
  {
    Analyzer::Scope scope(ana_);
    ana_->EnterSimplifiedConstraint(c);
    t = VisitStmt(op->then_case);
  }
  if (op->else_case) {
    Analyzer::Scope scope(ana_);
    ana_->EnterConstraint(Not(c));
    e = VisitStmt(op->else_case);
  }
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
    return GetRef(op);
  }
  return Stmt(MakeNode<IfThenElseNode>(c, t, e));
}

Stmt StmtSimplifier::VisitLetStmt(const LetStmtNode* op) {
  Expr value = VisitExpr(op->value);
  Stmt body;
  {
    Analyzer::Scope scope(ana_);
    ana_->Bind(op->var, value);
    body = VisitStmt(op->body);
  }
  if (value.same_as(op->value) && body.same_as(op->body)) return GetRef(op);
  return Stmt(MakeNode<LetStmtNode>(op->var, value, body));
}

Stmt StmtSimplifier::VisitBlock(const BlockNode* op) {
  Analyzer::Scope scope(ana_);
  for (const IterVar& iv : op->iter_vars) ana_->Bind(iv.var, iv.dom);
  return IRMutator::VisitBlock(op);
}

Stmt SimplifyStmt(const Stmt& stmt, Analyzer* analyzer) {
  StmtSimplifier s(analyzer);
  return s.VisitStmt(stmt);
}

PrimFunc SimplifyFunction(const PrimFunc& func, Analyzer* analyzer) {
  StmtSimplifier s(analyzer);
  return s.SimplifyFunction(func);
}

}  // namespace tessel::ir::arith
