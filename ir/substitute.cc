// Variable substitution and buffer replacement (see substitute.h).
//
//   Substitute(A[i] + i, {i -> vi}, {A -> A'})   ==   A'[vi] + vi
#include "ir/substitute.h"

namespace tessel::ir {

namespace {

const VarMap& NoVars() {
  static const VarMap* none = new VarMap();
  return *none;
}

}  // namespace

Substituter::Substituter(const BufferMap& buffers) : Substituter(NoVars(), buffers) {}

Buffer Substituter::Replace(const Buffer& b) const {
  auto it = buffers_.find(b.get());
  return it == buffers_.end() ? b : it->second;
}

Expr Substituter::VisitVar(const VarNode* op) {
  auto it = vars_.find(op);
  return it == vars_.end() ? GetRef(op) : it->second;
}

Expr Substituter::VisitBufferLoad(const BufferLoadNode* op) {
  Expr e = IRMutator::VisitBufferLoad(op);
  const auto* load = cast<BufferLoadNode>(e);
  Buffer to = Replace(load->buffer);
  if (to.same_as(load->buffer)) return e;
  // Copied rather than rebuilt with MakeBufferLoad: the dtype and indices stay
  // exactly as they were, and nothing here can fail.
  auto n = MakeNode<BufferLoadNode>(*load);
  n->buffer = std::move(to);
  return Expr(std::move(n));
}

Stmt Substituter::VisitBufferStore(const BufferStoreNode* op) {
  Stmt s = IRMutator::VisitBufferStore(op);
  const auto* store = cast<BufferStoreNode>(s);
  Buffer to = Replace(store->buffer);
  if (to.same_as(store->buffer)) return s;
  auto n = MakeNode<BufferStoreNode>(*store);
  n->buffer = std::move(to);
  return Stmt(std::move(n));
}

Stmt Substituter::VisitAllocate(const AllocateNode* op) {
  Stmt s = IRMutator::VisitAllocate(op);
  const auto* alloc = cast<AllocateNode>(s);
  Buffer to = Replace(alloc->buffer);
  if (to.same_as(alloc->buffer)) return s;
  return Stmt(MakeNode<AllocateNode>(std::move(to), alloc->body));
}

Stmt Substituter::VisitDeclBuffer(const DeclBufferNode* op) {
  Stmt s = IRMutator::VisitDeclBuffer(op);
  const auto* decl = cast<DeclBufferNode>(s);
  Buffer view = Replace(decl->buffer), source = Replace(decl->source);
  if (view.same_as(decl->buffer) && source.same_as(decl->source)) return s;
  return Stmt(MakeNode<DeclBufferNode>(std::move(view), std::move(source), decl->body));
}

Stmt Substituter::VisitBlock(const BlockNode* op) {
  // The base rewrites iter var domains, region bounds, init and body; the
  // buffers the block names itself are replaced here.
  Stmt s = IRMutator::VisitBlock(op);
  if (buffers_.empty()) return s;
  const auto* block = cast<BlockNode>(s);
  bool changed = false;
  auto replace_regions = [&](std::vector<BufferRegion> regions) {
    for (BufferRegion& r : regions) {
      Buffer to = Replace(r.buffer);
      changed |= !to.same_as(r.buffer);
      r.buffer = std::move(to);
    }
    return regions;
  };
  std::vector<BufferRegion> reads = replace_regions(block->reads);
  std::vector<BufferRegion> writes = replace_regions(block->writes);
  std::vector<Buffer> allocs = block->alloc_buffers;
  for (Buffer& b : allocs) {
    Buffer to = Replace(b);
    changed |= !to.same_as(b);
    b = std::move(to);
  }
  if (!changed) return s;
  auto n = MakeNode<BlockNode>(*block);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->alloc_buffers = std::move(allocs);
  return Stmt(std::move(n));
}

Expr Substitute(const Expr& e, const VarMap& vars, const BufferMap& buffers) {
  if (vars.empty() && buffers.empty()) return e;
  return Substituter(vars, buffers).VisitExpr(e);
}

Stmt Substitute(const Stmt& s, const VarMap& vars, const BufferMap& buffers) {
  if (vars.empty() && buffers.empty()) return s;
  return Substituter(vars, buffers).VisitStmt(s);
}

Expr Substitute(const Expr& e, const VarMap& vars) { return Substitute(e, vars, BufferMap()); }
Stmt Substitute(const Stmt& s, const VarMap& vars) { return Substitute(s, vars, BufferMap()); }
Expr ReplaceBuffers(const Expr& e, const BufferMap& buffers) { return Substitute(e, NoVars(), buffers); }
Stmt ReplaceBuffers(const Stmt& s, const BufferMap& buffers) { return Substitute(s, NoVars(), buffers); }

}  // namespace tessel::ir
