// Rewrites for the schedule primitives (see ir_util.h).
#include "ir/schedule/ir_util.h"

#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

class Replacer : public IRMutator {
 public:
  explicit Replacer(const absl::flat_hash_map<const StmtNode*, Stmt>& repl) : repl_(repl) {}
  // Every statement kind goes through VisitStmt's switch, so one hook suffices;
  // expressions never hold statements, so they are not descended into.
  Stmt Visit(const Stmt& s) {
    if (!s) return s;
    auto it = repl_.find(s.get());
    if (it != repl_.end()) return it->second;
    return VisitStmt(s);
  }
  Stmt VisitFor(const ForNode* op) override {
    return UpdateFor(op, op->min, op->extent, Visit(op->body));
  }
  Stmt VisitIfThenElse(const IfThenElseNode* op) override {
    Stmt t = Visit(op->then_case), e = Visit(op->else_case);
    if (t.same_as(op->then_case) && e.same_as(op->else_case)) return GetRef(op);
    return Stmt(MakeNode<IfThenElseNode>(op->condition, std::move(t), std::move(e)));
  }
  Stmt VisitLetStmt(const LetStmtNode* op) override {
    Stmt b = Visit(op->body);
    if (b.same_as(op->body)) return GetRef(op);
    return Stmt(MakeNode<LetStmtNode>(op->var, op->value, std::move(b)));
  }
  Stmt VisitSeqStmt(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      seq.push_back(Visit(s));
      changed |= !seq.back().same_as(s);
    }
    if (!changed) return GetRef(op);
    return Stmt(MakeNode<SeqStmtNode>(std::move(seq)));
  }
  Stmt VisitAllocate(const AllocateNode* op) override {
    Stmt b = Visit(op->body);
    if (b.same_as(op->body)) return GetRef(op);
    return Stmt(MakeNode<AllocateNode>(op->buffer, std::move(b)));
  }
  Stmt VisitDeclBuffer(const DeclBufferNode* op) override {
    Stmt b = Visit(op->body);
    if (b.same_as(op->body)) return GetRef(op);
    return Stmt(MakeNode<DeclBufferNode>(op->buffer, op->source, std::move(b)));
  }
  Stmt VisitBlock(const BlockNode* op) override {
    Stmt init = Visit(op->init), body = Visit(op->body);
    if (init.same_as(op->init) && body.same_as(op->body)) return GetRef(op);
    auto n = MakeNode<BlockNode>(*op);
    n->init = std::move(init);
    n->body = std::move(body);
    return Stmt(std::move(n));
  }
  Stmt VisitBlockRealize(const BlockRealizeNode* op) override {
    Stmt b = Visit(op->block);
    if (b.same_as(op->block)) return GetRef(op);
    return Stmt(MakeNode<BlockRealizeNode>(op->iter_values, op->predicate, cast_ref<BlockNode>(b)));
  }
  Stmt VisitBufferStore(const BufferStoreNode* op) override { return GetRef(op); }
  Stmt VisitEvaluate(const EvaluateNode* op) override { return GetRef(op); }

 private:
  const absl::flat_hash_map<const StmtNode*, Stmt>& repl_;
};

}  // namespace

PrimFunc ReplaceStmts(const PrimFunc& func,
                      const absl::flat_hash_map<const StmtNode*, Stmt>& repl) {
  Replacer r(repl);
  Stmt body = r.Visit(func->body);
  if (body.same_as(func->body)) return func;
  auto n = MakeNode<PrimFuncNode>(*func);
  n->body = std::move(body);
  return PrimFunc(std::move(n));
}

bool UsesAnyVar(const Expr& e, const absl::flat_hash_map<const VarNode*, int>& vars) {
  if (vars.empty()) return false;
  return arith::AnyVar(e, [&](const VarNode* v) { return vars.contains(v); });
}

namespace {

class OutsideBlocks : public IRVisitor {
 public:
  bool found = false;
  void VisitBufferStore(const BufferStoreNode*) override { found = true; }
  void VisitEvaluate(const EvaluateNode*) override { found = true; }
  void VisitBlockRealize(const BlockRealizeNode*) override {}
  void VisitBlock(const BlockNode*) override {}
};

class PredicateAdder : public IRMutator {
 public:
  explicit PredicateAdder(Expr cond) : cond_(std::move(cond)) {}
  Stmt VisitBlockRealize(const BlockRealizeNode* op) override {
    return Stmt(
        MakeNode<BlockRealizeNode>(op->iter_values, arith::AndE(op->predicate, cond_), op->block));
  }
  Stmt VisitBlock(const BlockNode* op) override { return GetRef(op); }

 private:
  Expr cond_;
};

}  // namespace

bool ReducesOver(const BlockRealizeNode* r, const VarNode* loop_var) {
  const std::vector<IterVar>& iters = r->block->iter_vars;
  for (size_t k = 0; k < iters.size() && k < r->iter_values.size(); ++k) {
    if (iters[k].kind == IterKind::kReduce && arith::UsesVar(r->iter_values[k], loop_var)) {
      return true;
    }
  }
  return false;
}

bool HasStmtOutsideBlocks(const Stmt& s) {
  OutsideBlocks v;
  v.VisitStmt(s);
  return v.found;
}

Stmt AddPredicateToBlocks(const Stmt& s, const Expr& cond) {
  PredicateAdder adder(cond);
  return adder.VisitStmt(s);
}

}  // namespace tessel::ir::schedule
