// Placing block allocations at the innermost loop that holds their accesses
// (see allocation_place.h).
#include "passes/lowering/allocation_place.h"

#include <optional>
#include <vector>

#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"

namespace tessel::passes::lowering {
namespace {

// The loops common to every access of one buffer, outermost first.
class CommonLoops : public ir::IRVisitor {
 public:
  explicit CommonLoops(const ir::BufferNode* buffer) : buffer_(buffer) {}
  std::optional<std::vector<const ir::ForNode*>> common;  // Unset: no access seen.

  void VisitFor(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kVectorized) ++vector_depth_;
    else if (vector_depth_ == 0) stack_.push_back(op);
    IRVisitor::VisitFor(op);
    if (op->for_kind == ir::ForKind::kVectorized) --vector_depth_;
    else if (vector_depth_ == 0) stack_.pop_back();
  }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    if (op->buffer.get() == buffer_) Access();
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    if (op->buffer.get() == buffer_) Access();
    IRVisitor::VisitBufferStore(op);
  }
  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    if (op->source.get() == buffer_) Access();
    IRVisitor::VisitDeclBuffer(op);
  }

 private:
  void Access() {
    if (!common) {
      common = stack_;
      return;
    }
    size_t n = 0;
    while (n < common->size() && n < stack_.size() && (*common)[n] == stack_[n]) ++n;
    common->resize(n);
  }
  const ir::BufferNode* buffer_;
  std::vector<const ir::ForNode*> stack_;
  int vector_depth_ = 0;
};

class AllocateInLoop : public ir::IRMutator {
 public:
  AllocateInLoop(const ir::ForNode* loop, ir::Buffer buffer) : loop_(loop), buffer_(std::move(buffer)) {}
  ir::Stmt VisitFor(const ir::ForNode* op) override {
    if (op != loop_) return IRMutator::VisitFor(op);
    auto n = ir::MakeNode<ir::ForNode>(*op);
    n->body = ir::Stmt(ir::MakeNode<ir::AllocateNode>(buffer_, op->body));
    return ir::Stmt(std::move(n));
  }

 private:
  const ir::ForNode* loop_;
  ir::Buffer buffer_;
};

}  // namespace

ir::Stmt PlaceAllocation(const ir::Stmt& body, const ir::Buffer& buffer,
                         const std::vector<ir::Expr>& carried) {
  CommonLoops loops(buffer.get());
  loops.VisitStmt(body);
  if (loops.common) {
    for (size_t n = 0; n < loops.common->size(); ++n) {
      const ir::VarNode* v = (*loops.common)[n]->loop_var.get();
      bool carries = false;
      for (const ir::Expr& e : carried) {
        carries |= ir::arith::AnyVar(e, [v](const ir::VarNode* u) { return u == v; });
      }
      if (carries) {
        loops.common->resize(n);
        break;
      }
    }
  }
  if (!loops.common || loops.common->empty()) {
    return ir::Stmt(ir::MakeNode<ir::AllocateNode>(buffer, body));
  }
  return AllocateInLoop(loops.common->back(), buffer).VisitStmt(body);
}

}  // namespace tessel::passes::lowering
