#include "ir/visitor.h"

namespace tessel::ir {

void IRVisitor::VisitExpr(const Expr& e) {
  const ExprNode* n = e.get();
  if (n == nullptr) return;
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
      return;
  }
}

void IRVisitor::VisitStmt(const Stmt& s) {
  const StmtNode* n = s.get();
  if (n == nullptr) return;
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
    default: return;
  }
}

void IRVisitor::VisitPrimFunc(const PrimFunc& f) {
  for (const Param& p : f->params) {
    if (p.is_buffer()) {
      VisitBufferDef(p.buffer);
    } else {
      VisitExpr(p.var);
    }
  }
  VisitStmt(f->body);
}

void IRVisitor::VisitVar(const VarNode*) {}
void IRVisitor::VisitIntImm(const IntImmNode*) {}
void IRVisitor::VisitFloatImm(const FloatImmNode*) {}
void IRVisitor::VisitBinary(const BinaryNode* op) {
  VisitExpr(op->a);
  VisitExpr(op->b);
}
void IRVisitor::VisitNot(const NotNode* op) { VisitExpr(op->a); }
void IRVisitor::VisitSelect(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void IRVisitor::VisitCast(const CastNode* op) { VisitExpr(op->value); }
void IRVisitor::VisitBufferLoad(const BufferLoadNode* op) {
  for (const Expr& i : op->indices) VisitExpr(i);
}
void IRVisitor::VisitRamp(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void IRVisitor::VisitBroadcast(const BroadcastNode* op) { VisitExpr(op->value); }
void IRVisitor::VisitCall(const CallNode* op) {
  for (const Expr& a : op->args) VisitExpr(a);
}

void IRVisitor::VisitBufferStore(const BufferStoreNode* op) {
  VisitExpr(op->value);
  for (const Expr& i : op->indices) VisitExpr(i);
}
void IRVisitor::VisitFor(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}
void IRVisitor::VisitIfThenElse(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  VisitStmt(op->else_case);
}
void IRVisitor::VisitLetStmt(const LetStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void IRVisitor::VisitSeqStmt(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}
void IRVisitor::VisitEvaluate(const EvaluateNode* op) { VisitExpr(op->value); }
void IRVisitor::VisitAllocate(const AllocateNode* op) {
  VisitBufferDef(op->buffer);
  VisitStmt(op->body);
}
void IRVisitor::VisitDeclBuffer(const DeclBufferNode* op) {
  VisitBufferDef(op->buffer);
  VisitStmt(op->body);
}
void IRVisitor::VisitBlock(const BlockNode* op) {
  for (const IterVar& iv : op->iter_vars) {
    VisitExpr(iv.dom.min);
    VisitExpr(iv.dom.extent);
  }
  for (const Buffer& b : op->alloc_buffers) VisitBufferDef(b);
  for (const BufferRegion& r : op->reads) VisitRegion(r);
  for (const BufferRegion& r : op->writes) VisitRegion(r);
  VisitStmt(op->init);
  VisitStmt(op->body);
}
void IRVisitor::VisitBlockRealize(const BlockRealizeNode* op) {
  for (const Expr& v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}

void IRVisitor::VisitBufferDef(const Buffer& buffer) {
  for (const Expr& e : buffer->shape) VisitExpr(e);
  for (const Expr& e : buffer->strides) VisitExpr(e);
  VisitExpr(buffer->elem_offset);
}

void IRVisitor::VisitRegion(const BufferRegion& region) {
  for (const Range& r : region.region) {
    VisitExpr(r.min);
    VisitExpr(r.extent);
  }
}

}  // namespace tessel::ir
