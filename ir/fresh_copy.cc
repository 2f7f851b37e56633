// Copies with fresh bindings (see fresh_copy.h).
#include "ir/fresh_copy.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/fallible_mutator.h"

namespace tessel::ir {
namespace {

class FreshCopier : public FallibleMutator<> {
 public:
  FreshCopier(const VarMap& replace, const RenameBlockFn& rename)
      : vars_(replace), rename_(rename) {}

  Expr VisitVar(const VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? GetRef(op) : it->second;
  }
  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitBufferLoad(op);
    Buffer b = Mapped(op->buffer);
    if (b.same_as(op->buffer)) return e;
    auto n = MakeNode<BufferLoadNode>(*cast<BufferLoadNode>(e));
    n->buffer = b;
    return Expr(std::move(n));
  }
  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitBufferStore(op);
    Buffer b = Mapped(op->buffer);
    if (b.same_as(op->buffer)) return s;
    auto n = MakeNode<BufferStoreNode>(*cast<BufferStoreNode>(s));
    n->buffer = b;
    return Stmt(std::move(n));
  }
  Stmt VisitFor(const ForNode* op) override {
    Var v = Fresh(op->loop_var);
    auto n = MakeNode<ForNode>(*op);
    n->loop_var = v;
    n->min = VisitExpr(op->min);
    n->extent = VisitExpr(op->extent);
    n->body = VisitStmt(op->body);
    return Stmt(std::move(n));
  }
  Stmt VisitLetStmt(const LetStmtNode* op) override {
    Expr value = VisitExpr(op->value);
    Var v = Fresh(op->var);
    return Stmt(MakeNode<LetStmtNode>(v, value, VisitStmt(op->body)));
  }
  Stmt VisitAllocate(const AllocateNode* op) override {
    Buffer b = FreshBuffer(op->buffer);
    return Stmt(MakeNode<AllocateNode>(b, VisitStmt(op->body)));
  }
  Stmt VisitDeclBuffer(const DeclBufferNode* op) override {
    Buffer src = Mapped(op->source);
    Buffer b = FreshBuffer(op->buffer);
    return Stmt(MakeNode<DeclBufferNode>(b, src, VisitStmt(op->body)));
  }
  Stmt VisitBlock(const BlockNode* op) override {
    if (!rename_) {
      return Fail(absl::FailedPreconditionError(absl::StrCat(
                      "block '", op->name, "' cannot be copied (run remove-blocks first)")),
                  GetRef<StmtNode>(op));
    }
    auto n = MakeNode<BlockNode>(*op);
    n->name = rename_(op->name);
    for (IterVar& iv : n->iter_vars) {
      iv.dom = {VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)};
      iv.var = Fresh(iv.var);
    }
    for (Buffer& b : n->alloc_buffers) b = FreshBuffer(b);
    n->reads = Regions(op->reads);
    n->writes = Regions(op->writes);
    if (op->init) n->init = VisitStmt(op->init);
    n->body = VisitStmt(op->body);
    return Stmt(std::move(n));
  }

 private:
  Var Fresh(const Var& v) {
    Var n = MakeVar(v->name, v->dtype);
    vars_[v.get()] = n;
    return n;
  }
  Buffer FreshBuffer(const Buffer& b) {
    auto n = MakeNode<BufferNode>(*b);
    std::vector<Expr> shape;
    for (const Expr& e : b->shape) shape.push_back(VisitExpr(e));
    n->shape = std::move(shape);
    std::vector<Expr> strides;
    for (const Expr& e : b->strides) strides.push_back(VisitExpr(e));
    n->strides = std::move(strides);
    if (b->elem_offset) n->elem_offset = VisitExpr(b->elem_offset);
    Buffer fresh(std::move(n));
    buffers_[b.get()] = fresh;
    return fresh;
  }
  Buffer Mapped(const Buffer& b) {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

  std::vector<BufferRegion> Regions(const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      BufferRegion m{Mapped(r.buffer), {}};
      for (const Range& range : r.region) {
        m.region.push_back({VisitExpr(range.min), VisitExpr(range.extent)});
      }
      out.push_back(std::move(m));
    }
    return out;
  }

  VarMap vars_;
  const RenameBlockFn& rename_;
  absl::flat_hash_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

absl::StatusOr<Stmt> FreshCopy(const Stmt& s, const VarMap& replace,
                               const RenameBlockFn& rename_block) {
  FreshCopier c(replace, rename_block);
  Stmt out = c.VisitStmt(s);
  if (!c.ok()) return c.status();
  return out;
}

}  // namespace tessel::ir
