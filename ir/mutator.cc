#include "ir/mutator.h"

namespace tessel::ir {

Expr IRMutator::VisitExpr(const Expr& e) {
  const ExprNode* n = e.get();
  if (n == nullptr) return e;
  switch (n->kind()) {
    case NodeKind::kVar: return VisitVar(static_cast<const VarNode*>(n));
    case NodeKind::kIntImm: return VisitIntImm(static_cast<const IntImmNode*>(n));
    case NodeKind::kFloatImm: return VisitFloatImm(static_cast<const FloatImmNode*>(n));
    case NodeKind::kNot: return VisitNot(static_cast<const NotNode*>(n));
    case NodeKind::kSelect: return VisitSelect(static_cast<const SelectNode*>(n));
    case NodeKind::kCast: return VisitCast(static_cast<const CastNode*>(n));
    case NodeKind::kBufferLoad: return VisitBufferLoad(static_cast<const BufferLoadNode*>(n));
    case NodeKind::kRamp: return VisitRamp(static_cast<const RampNode*>(n));
    case NodeKind::kBroadcast: return VisitBroadcast(static_cast<const BroadcastNode*>(n));
    case NodeKind::kCall: return VisitCall(static_cast<const CallNode*>(n));
    default:
      if (isa<BinaryNode>(n)) return VisitBinary(static_cast<const BinaryNode*>(n));
      return e;
  }
}

Stmt IRMutator::VisitStmt(const Stmt& s) {
  const StmtNode* n = s.get();
  if (n == nullptr) return s;
  switch (n->kind()) {
    case NodeKind::kBufferStore: return VisitBufferStore(static_cast<const BufferStoreNode*>(n));
    case NodeKind::kFor: return VisitFor(static_cast<const ForNode*>(n));
    case NodeKind::kIfThenElse: return VisitIfThenElse(static_cast<const IfThenElseNode*>(n));
    case NodeKind::kLetStmt: return VisitLetStmt(static_cast<const LetStmtNode*>(n));
    case NodeKind::kSeqStmt: return VisitSeqStmt(static_cast<const SeqStmtNode*>(n));
    case NodeKind::kEvaluate: return VisitEvaluate(static_cast<const EvaluateNode*>(n));
    case NodeKind::kAllocate: return VisitAllocate(static_cast<const AllocateNode*>(n));
    case NodeKind::kDeclBuffer: return VisitDeclBuffer(static_cast<const DeclBufferNode*>(n));
    case NodeKind::kBlock: return VisitBlock(static_cast<const BlockNode*>(n));
    case NodeKind::kBlockRealize: return VisitBlockRealize(static_cast<const BlockRealizeNode*>(n));
    default: return s;
  }
}

PrimFunc IRMutator::VisitPrimFunc(const PrimFunc& f) {
  Stmt body = VisitStmt(f->body);
  if (body.same_as(f->body)) return f;
  auto n = MakeNode<PrimFuncNode>(*f);
  n->body = std::move(body);
  return PrimFunc(std::move(n));
}

bool IRMutator::VisitExprs(const std::vector<Expr>& in, std::vector<Expr>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const Expr& e : in) {
    out->push_back(VisitExpr(e));
    changed |= !out->back().same_as(e);
  }
  return changed;
}

bool IRMutator::VisitRegions(const std::vector<BufferRegion>& in, std::vector<BufferRegion>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const BufferRegion& r : in) {
    BufferRegion nr{r.buffer, {}};
    for (const Range& range : r.region) {
      Range rr{VisitExpr(range.min), VisitExpr(range.extent)};
      changed |= !rr.min.same_as(range.min) || !rr.extent.same_as(range.extent);
      nr.region.push_back(std::move(rr));
    }
    out->push_back(std::move(nr));
  }
  return changed;
}

Expr IRMutator::VisitVar(const VarNode* op) { return GetRef(op); }
Expr IRMutator::VisitIntImm(const IntImmNode* op) { return GetRef(op); }
Expr IRMutator::VisitFloatImm(const FloatImmNode* op) { return GetRef(op); }

Expr IRMutator::VisitBinary(const BinaryNode* op) {
  Expr a = VisitExpr(op->a), b = VisitExpr(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return GetRef(op);
  auto n = MakeNode<BinaryNode>(*op);
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr IRMutator::VisitNot(const NotNode* op) {
  Expr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return GetRef(op);
  auto n = MakeNode<NotNode>(*op);
  n->a = std::move(a);
  return Expr(std::move(n));
}

Expr IRMutator::VisitSelect(const SelectNode* op) {
  Expr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return GetRef(op);
  }
  auto n = MakeNode<SelectNode>(*op);
  n->condition = std::move(c);
  n->true_value = std::move(t);
  n->false_value = std::move(f);
  return Expr(std::move(n));
}

Expr IRMutator::VisitCast(const CastNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef(op);
  auto n = MakeNode<CastNode>(*op);
  n->value = std::move(v);
  return Expr(std::move(n));
}

Expr IRMutator::VisitBufferLoad(const BufferLoadNode* op) {
  std::vector<Expr> indices;
  if (!VisitExprs(op->indices, &indices)) return GetRef(op);
  auto n = MakeNode<BufferLoadNode>(*op);
  n->indices = std::move(indices);
  return Expr(std::move(n));
}

Expr IRMutator::VisitRamp(const RampNode* op) {
  Expr base = VisitExpr(op->base), stride = VisitExpr(op->stride);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return GetRef(op);
  auto n = MakeNode<RampNode>(*op);
  n->base = std::move(base);
  n->stride = std::move(stride);
  return Expr(std::move(n));
}

Expr IRMutator::VisitBroadcast(const BroadcastNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef(op);
  auto n = MakeNode<BroadcastNode>(*op);
  n->value = std::move(v);
  return Expr(std::move(n));
}

Expr IRMutator::VisitCall(const CallNode* op) {
  std::vector<Expr> args;
  if (!VisitExprs(op->args, &args)) return GetRef(op);
  auto n = MakeNode<CallNode>(*op);
  n->args = std::move(args);
  return Expr(std::move(n));
}

Stmt IRMutator::VisitBufferStore(const BufferStoreNode* op) {
  Expr value = VisitExpr(op->value);
  std::vector<Expr> indices;
  bool changed = VisitExprs(op->indices, &indices);
  if (!changed && value.same_as(op->value)) return GetRef(op);
  auto n = MakeNode<BufferStoreNode>(*op);
  n->value = std::move(value);
  n->indices = std::move(indices);
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitFor(const ForNode* op) {
  Expr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
  return UpdateFor(op, std::move(min), std::move(extent), VisitStmt(op->body));
}

Stmt IRMutator::UpdateFor(const ForNode* op, Expr min, Expr extent, Stmt body) {
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
    return GetRef(op);
  }
  auto n = MakeNode<ForNode>(*op);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitIfThenElse(const IfThenElseNode* op) {
  Expr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case), e = VisitStmt(op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
    return GetRef(op);
  }
  auto n = MakeNode<IfThenElseNode>(*op);
  n->condition = std::move(c);
  n->then_case = std::move(t);
  n->else_case = std::move(e);
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitLetStmt(const LetStmtNode* op) {
  Expr value = VisitExpr(op->value);
  Stmt body = VisitStmt(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return GetRef(op);
  auto n = MakeNode<LetStmtNode>(*op);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitSeqStmt(const SeqStmtNode* op) {
  std::vector<Stmt> seq;
  seq.reserve(op->seq.size());
  bool changed = false;
  for (const Stmt& s : op->seq) {
    seq.push_back(VisitStmt(s));
    changed |= !seq.back().same_as(s);
  }
  if (!changed) return GetRef(op);
  auto n = MakeNode<SeqStmtNode>(std::move(seq));
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitEvaluate(const EvaluateNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef(op);
  return Stmt(MakeNode<EvaluateNode>(std::move(v)));
}

Stmt IRMutator::VisitAllocate(const AllocateNode* op) {
  Stmt body = VisitStmt(op->body);
  if (body.same_as(op->body)) return GetRef(op);
  return Stmt(MakeNode<AllocateNode>(op->buffer, std::move(body)));
}

Stmt IRMutator::VisitDeclBuffer(const DeclBufferNode* op) {
  Stmt body = VisitStmt(op->body);
  if (body.same_as(op->body)) return GetRef(op);
  return Stmt(MakeNode<DeclBufferNode>(op->buffer, op->source, std::move(body)));
}

Stmt IRMutator::VisitBlock(const BlockNode* op) {
  bool changed = false;
  std::vector<IterVar> iter_vars;
  iter_vars.reserve(op->iter_vars.size());
  for (const IterVar& iv : op->iter_vars) {
    IterVar n{iv.var, {VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)}, iv.kind};
    changed |= !n.dom.min.same_as(iv.dom.min) || !n.dom.extent.same_as(iv.dom.extent);
    iter_vars.push_back(std::move(n));
  }
  std::vector<BufferRegion> reads, writes;
  changed |= VisitRegions(op->reads, &reads);
  changed |= VisitRegions(op->writes, &writes);
  Stmt init = VisitStmt(op->init);
  Stmt body = VisitStmt(op->body);
  changed |= !init.same_as(op->init) || !body.same_as(op->body);
  if (!changed) return GetRef(op);
  auto n = MakeNode<BlockNode>(*op);
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->init = std::move(init);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt IRMutator::VisitBlockRealize(const BlockRealizeNode* op) {
  std::vector<Expr> values;
  bool changed = VisitExprs(op->iter_values, &values);
  Expr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  changed |= !pred.same_as(op->predicate) || !block.same_as(op->block);
  if (!changed) return GetRef(op);
  if (!isa<BlockNode>(block)) std::abort();  // A mutator must map a Block to a Block.
  return Stmt(MakeNode<BlockRealizeNode>(std::move(values), std::move(pred), cast_ref<BlockNode>(block)));
}

}  // namespace tessel::ir
