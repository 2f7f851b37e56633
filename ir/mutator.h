// A copy-on-write rewrite of expressions and statements.
//
//   // Replace every use of `x` by `x + 1`:
//   class Shift : public IRMutator {
//    public:
//     Var x;
//     Expr VisitVar(const VarNode* op) override {
//       return op == x.get() ? Add(x, IntImm32(1)) : IRMutator::VisitVar(op);
//     }
//   };
//   Stmt s2 = Shift{...}.VisitStmt(s);   // s2.same_as(s) when x does not occur
//
// The defaults rebuild a node only when a child changed; an unchanged subtree is
// returned as the very same object (DESIGN.md decision 2). Rebuilt nodes keep their
// dtype, so a rewrite that changes operand types must rebuild with the Make*
// factories itself; the verifier catches any that do not.
#ifndef TESSEL_IR_MUTATOR_H_
#define TESSEL_IR_MUTATOR_H_

#include "ir/function.h"

namespace tessel::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;

  Expr VisitExpr(const Expr& e);
  Stmt VisitStmt(const Stmt& s);
  // A function with its body rewritten (the same object if the body is unchanged).
  PrimFunc VisitPrimFunc(const PrimFunc& f);

  virtual Expr VisitVar(const VarNode* op);
  virtual Expr VisitIntImm(const IntImmNode* op);
  virtual Expr VisitFloatImm(const FloatImmNode* op);
  virtual Expr VisitBinary(const BinaryNode* op);
  virtual Expr VisitNot(const NotNode* op);
  virtual Expr VisitSelect(const SelectNode* op);
  virtual Expr VisitCast(const CastNode* op);
  virtual Expr VisitBufferLoad(const BufferLoadNode* op);
  virtual Expr VisitRamp(const RampNode* op);
  virtual Expr VisitBroadcast(const BroadcastNode* op);
  virtual Expr VisitCall(const CallNode* op);

  virtual Stmt VisitBufferStore(const BufferStoreNode* op);
  virtual Stmt VisitFor(const ForNode* op);
  virtual Stmt VisitIfThenElse(const IfThenElseNode* op);
  virtual Stmt VisitLetStmt(const LetStmtNode* op);
  virtual Stmt VisitSeqStmt(const SeqStmtNode* op);
  virtual Stmt VisitEvaluate(const EvaluateNode* op);
  virtual Stmt VisitAllocate(const AllocateNode* op);
  virtual Stmt VisitDeclBuffer(const DeclBufferNode* op);
  virtual Stmt VisitBlock(const BlockNode* op);
  virtual Stmt VisitBlockRealize(const BlockRealizeNode* op);

 protected:
  // `op` with the given bounds and body: `op` itself when all three are the
  // objects it holds, else a copy (for overrides that visit the parts themselves).
  static Stmt UpdateFor(const ForNode* op, Expr min, Expr extent, Stmt body);
  // Rewrites each element; returns true if any changed.
  bool VisitExprs(const std::vector<Expr>& in, std::vector<Expr>* out);
  bool VisitRegions(const std::vector<BufferRegion>& in, std::vector<BufferRegion>* out);
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_MUTATOR_H_
