// Rewrites and folding builders for the schedule primitives (see ir_util.h).
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
    Stmt body = Visit(op->body);
    if (body.same_as(op->body)) return GetRef(op);
    auto n = MakeNode<ForNode>(*op);
    n->body = std::move(body);
    return Stmt(std::move(n));
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

bool Fits(DataType t, int64_t v) {
  if (t.bits() >= 64) return true;
  int64_t lo = -(int64_t{1} << (t.bits() - 1)), hi = (int64_t{1} << (t.bits() - 1)) - 1;
  return v >= lo && v <= hi;
}

// A folded constant when it fits `t`, else nothing (the caller builds the node).
std::optional<Expr> Folded(DataType t, std::optional<int64_t> v) {
  if (!v || !t.is_int() || !Fits(t, *v)) return std::nullopt;
  return ConstOf(t, *v);
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

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

std::optional<int64_t> ConstInt(const Expr& e) {
  const auto* imm = dyn_cast<IntImmNode>(e);
  if (imm == nullptr || !imm->dtype.is_integer() || !imm->dtype.is_scalar()) return std::nullopt;
  return imm->value;
}

Expr ConstOf(DataType t, int64_t v) { return IntImm(t, v); }

absl::StatusOr<Expr> ZeroOf(DataType t) {
  return t.is_float() ? MakeFloatImm(t, 0.0) : MakeIntImm(t, 0);
}

Expr AddE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = ConstInt(a), cb = ConstInt(b);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  int64_t r;
  if (ca && cb && !__builtin_add_overflow(*ca, *cb, &r)) {
    if (auto f = Folded(a->dtype, r)) return *f;
  }
  return Add(a, b);
}

Expr MulE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = ConstInt(a), cb = ConstInt(b);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  int64_t r;
  if (ca && cb && !__builtin_mul_overflow(*ca, *cb, &r)) {
    if (auto f = Folded(a->dtype, r)) return *f;
  }
  return Mul(a, b);
}

Expr FloorDivE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = ConstInt(a), cb = ConstInt(b);
  if (cb && *cb == 1) return a;
  if (ca && cb && *cb != 0) {
    if (auto f = Folded(a->dtype, FloorDivInt(*ca, *cb))) return *f;
  }
  return FloorDiv(a, b);
}

Expr FloorModE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = ConstInt(a), cb = ConstInt(b);
  if (cb && *cb == 1) return ConstOf(a->dtype, 0);
  if (ca && cb && *cb != 0) {
    if (auto f = Folded(a->dtype, *ca - FloorDivInt(*ca, *cb) * *cb)) return *f;
  }
  return FloorMod(a, b);
}

bool IsConstTrue(const Expr& e) {
  const auto* imm = dyn_cast<IntImmNode>(e);
  return imm != nullptr && imm->dtype == DataType::Bool() && imm->value != 0;
}

namespace {

void AddConjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind() == NodeKind::kAnd) {
    const auto* b = static_cast<const BinaryNode*>(e.get());
    AddConjuncts(b->a, out);
    AddConjuncts(b->b, out);
  } else if (!IsConstTrue(e)) {
    out->push_back(e);
  }
}

}  // namespace

std::vector<Expr> SplitConjuncts(const Expr& e) {
  std::vector<Expr> out;
  if (e) AddConjuncts(e, &out);
  return out;
}

Expr AndE(const Expr& a, const Expr& b) {
  if (!a || IsConstTrue(a)) return b;
  if (IsConstTrue(b)) return a;
  return And(a, b);
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
    return Stmt(MakeNode<BlockRealizeNode>(op->iter_values, AndE(op->predicate, cond_), op->block));
  }
  Stmt VisitBlock(const BlockNode* op) override { return GetRef(op); }

 private:
  Expr cond_;
};

}  // namespace

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
