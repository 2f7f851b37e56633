// Copies with fresh bindings (see fresh_copy.h).
#include "passes/lowering/fresh_copy.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/mutator.h"

namespace tessel::passes::lowering {
namespace {

class FreshCopier : public ir::IRMutator {
 public:
  explicit FreshCopier(const ir::VarMap& replace) : vars_(replace) {}
  absl::Status status;

  ir::Expr VisitVar(const ir::VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? ir::GetRef(op) : it->second;
  }
  ir::Expr VisitBufferLoad(const ir::BufferLoadNode* op) override {
    ir::Expr e = IRMutator::VisitBufferLoad(op);
    ir::Buffer b = Mapped(op->buffer);
    if (b.same_as(op->buffer)) return e;
    auto n = ir::MakeNode<ir::BufferLoadNode>(*ir::cast<ir::BufferLoadNode>(e));
    n->buffer = b;
    return ir::Expr(std::move(n));
  }
  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    ir::Buffer b = Mapped(op->buffer);
    if (b.same_as(op->buffer)) return s;
    auto n = ir::MakeNode<ir::BufferStoreNode>(*ir::cast<ir::BufferStoreNode>(s));
    n->buffer = b;
    return ir::Stmt(std::move(n));
  }
  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Var v = Fresh(op->loop_var);
    auto n = ir::MakeNode<ir::ForNode>(*op);
    n->loop_var = v;
    n->min = VisitExpr(op->min);
    n->extent = VisitExpr(op->extent);
    n->body = VisitStmt(op->body);
    return ir::Stmt(std::move(n));
  }
  ir::Stmt VisitLetStmt(const ir::LetStmtNode* op) override {
    ir::Expr value = VisitExpr(op->value);
    ir::Var v = Fresh(op->var);
    return ir::Stmt(ir::MakeNode<ir::LetStmtNode>(v, value, VisitStmt(op->body)));
  }
  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    ir::Buffer b = FreshBuffer(op->buffer);
    return ir::Stmt(ir::MakeNode<ir::AllocateNode>(b, VisitStmt(op->body)));
  }
  ir::Stmt VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    ir::Buffer src = Mapped(op->source);
    ir::Buffer b = FreshBuffer(op->buffer);
    return ir::Stmt(ir::MakeNode<ir::DeclBufferNode>(b, src, VisitStmt(op->body)));
  }
  ir::Stmt VisitBlock(const ir::BlockNode* op) override {
    if (status.ok()) {
      status = absl::FailedPreconditionError(
          absl::StrCat("block '", op->name, "' cannot be copied (run remove-blocks first)"));
    }
    return ir::GetRef<ir::StmtNode>(op);
  }

 private:
  ir::Var Fresh(const ir::Var& v) {
    ir::Var n = ir::MakeVar(v->name, v->dtype);
    vars_[v.get()] = n;
    return n;
  }
  ir::Buffer FreshBuffer(const ir::Buffer& b) {
    auto n = ir::MakeNode<ir::BufferNode>(*b);
    std::vector<ir::Expr> shape;
    for (const ir::Expr& e : b->shape) shape.push_back(VisitExpr(e));
    n->shape = std::move(shape);
    std::vector<ir::Expr> strides;
    for (const ir::Expr& e : b->strides) strides.push_back(VisitExpr(e));
    n->strides = std::move(strides);
    if (b->elem_offset) n->elem_offset = VisitExpr(b->elem_offset);
    ir::Buffer fresh(std::move(n));
    buffers_[b.get()] = fresh;
    return fresh;
  }
  ir::Buffer Mapped(const ir::Buffer& b) {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

  ir::VarMap vars_;
  absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> buffers_;
};

}  // namespace

absl::StatusOr<ir::Stmt> FreshCopy(const ir::Stmt& s, const ir::VarMap& replace) {
  FreshCopier c(replace);
  ir::Stmt out = c.VisitStmt(s);
  if (!c.status.ok()) return c.status;
  return out;
}

}  // namespace tessel::passes::lowering
