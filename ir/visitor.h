// A recursive read-only walk over expressions and statements.
//
//   class CountLoads : public IRVisitor {
//    public:
//     int n = 0;
//     void VisitBufferLoad(const BufferLoadNode* op) override { ++n; IRVisitor::VisitBufferLoad(op); }
//   };
//   CountLoads c; c.VisitStmt(func->body);
//
// Each Visit* default visits the node's children in field order; override the
// ones you care about and call the base to keep descending. Buffers are not
// descended into (their shapes are visited by VisitBufferDef where they are bound).
#ifndef TESSEL_IR_VISITOR_H_
#define TESSEL_IR_VISITOR_H_

#include "ir/function.h"

namespace tessel::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;

  void VisitExpr(const Expr& e);
  void VisitStmt(const Stmt& s);
  // Visits the body of a PrimFunc after its parameters' buffer definitions.
  void VisitPrimFunc(const PrimFunc& f);

  virtual void VisitVar(const VarNode* op);
  virtual void VisitIntImm(const IntImmNode* op);
  virtual void VisitFloatImm(const FloatImmNode* op);
  virtual void VisitBinary(const BinaryNode* op);
  virtual void VisitNot(const NotNode* op);
  virtual void VisitSelect(const SelectNode* op);
  virtual void VisitCast(const CastNode* op);
  virtual void VisitBufferLoad(const BufferLoadNode* op);
  virtual void VisitRamp(const RampNode* op);
  virtual void VisitBroadcast(const BroadcastNode* op);
  virtual void VisitCall(const CallNode* op);

  virtual void VisitBufferStore(const BufferStoreNode* op);
  virtual void VisitFor(const ForNode* op);
  virtual void VisitIfThenElse(const IfThenElseNode* op);
  virtual void VisitLetStmt(const LetStmtNode* op);
  virtual void VisitSeqStmt(const SeqStmtNode* op);
  virtual void VisitEvaluate(const EvaluateNode* op);
  virtual void VisitAllocate(const AllocateNode* op);
  virtual void VisitDeclBuffer(const DeclBufferNode* op);
  virtual void VisitBlock(const BlockNode* op);
  virtual void VisitBlockRealize(const BlockRealizeNode* op);

  // Called where a buffer is bound (params, Allocate, DeclBuffer, alloc_buffers);
  // the default visits its shape, strides and offset.
  virtual void VisitBufferDef(const Buffer& buffer);
  void VisitRegion(const BufferRegion& region);
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_VISITOR_H_
