// Substitution of variables and buffers in expressions (see substitute.h).
//
//   Substitute(A[i] + i, {i -> vi}, {A -> A'})   ==   A'[vi] + vi
#include "ir/te/substitute.h"

#include "ir/mutator.h"

namespace tessel::ir::te {
namespace {

class Substituter : public IRMutator {
 public:
  Substituter(const VarMap& vars, const BufferMap& buffers) : vars_(vars), buffers_(buffers) {}

  Expr VisitVar(const VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? GetRef(op) : it->second;
  }

  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr visited = IRMutator::VisitBufferLoad(op);
    auto it = buffers_.find(op->buffer.get());
    if (it == buffers_.end()) return visited;
    // Rebuilt directly: the replacement has the same rank and dtype, and a load
    // that was unchecked stays exactly as (un)checked as it was.
    auto n = MakeNode<BufferLoadNode>(*cast<BufferLoadNode>(visited));
    n->buffer = it->second;
    return Expr(std::move(n));
  }

 private:
  const VarMap& vars_;
  const BufferMap& buffers_;
};

}  // namespace

Expr Substitute(const Expr& e, const VarMap& vars, const BufferMap& buffers) {
  if (vars.empty() && buffers.empty()) return e;
  Substituter s(vars, buffers);
  return s.VisitExpr(e);
}

}  // namespace tessel::ir::te
