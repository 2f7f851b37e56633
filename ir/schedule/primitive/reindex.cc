// reindex (see reindex.h).
#include "ir/schedule/primitive/reindex.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/fallible_mutator.h"
#include "ir/printer.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The indices of every access of `buffer` in a statement.
class AccessIndices : public IRVisitor {
 public:
  explicit AccessIndices(const BufferNode* buffer) : buffer_(buffer) {}
  std::vector<std::vector<Expr>> found;
  void VisitBufferLoad(const BufferLoadNode* op) override {
    if (op->buffer.get() == buffer_) found.push_back(op->indices);
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    if (op->buffer.get() == buffer_) found.push_back(op->indices);
    IRVisitor::VisitBufferStore(op);
  }
  // The loops of the body (tensorize's outer block holds some).
  absl::flat_hash_map<const VarNode*, int> loops;
  void VisitFor(const ForNode* op) override {
    loops[op->loop_var.get()] = 0;
    IRVisitor::VisitFor(op);
  }

 private:
  const BufferNode* buffer_;
};

// Every access of `from` becomes an access of `to` at `indices`; status() holds
// the first access that cannot (a vector access of a scalar position).
class Redirect : public FallibleMutator<> {
 public:
  Redirect(const BufferNode* from, Buffer to, std::vector<Expr> indices)
      : from_(from), to_(std::move(to)), indices_(std::move(indices)) {}
  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    if (op->buffer.get() != from_) return IRMutator::VisitBufferLoad(op);
    return Keep(MakeBufferLoad(to_, indices_), Expr(GetRef(op)));
  }
  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    if (op->buffer.get() != from_) return IRMutator::VisitBufferStore(op);
    return Keep(MakeBufferStore(to_, VisitExpr(op->value), indices_), Stmt(GetRef(op)));
  }

 private:
  template <typename T>
  T Keep(absl::StatusOr<T> made, T old) {
    if (made.ok()) return *std::move(made);
    return Fail(made.status(), std::move(old));
  }
  const BufferNode* from_;
  Buffer to_;
  std::vector<Expr> indices_;
};

std::vector<BufferRegion> Redirected(const std::vector<BufferRegion>& regions,
                                     const BufferNode* from, const BufferRegion& to) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& r : regions) out.push_back(r.buffer.get() == from ? to : r);
  return out;
}

}  // namespace

absl::StatusOr<std::string> Reindex(ScheduleState* state, const std::string& block,
                                    int64_t buffer_index, bool is_write) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const StmtIndex& index = state->index();
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* blk = realize->block.get();
  TESSEL_ASSIGN_OR_RETURN(Buffer buffer, BufferAtIndex(*state, blk, buffer_index, is_write));
  const std::string what = DescribeBlock(blk);
  bool writes = false;
  for (const BufferRegion& w : blk->writes) writes |= w.buffer.get() == buffer.get();
  if (!is_write && writes) {
    return state->Error(blk, absl::StrCat(what, " also writes buffer ", buffer->name,
                                          "; reindex it as a write buffer"));
  }
  // Under an outer block (blockize) the accesses are the inner blocks', at
  // their iter vars: no index of the outer block's iter vars names them.
  if (absl::flat_hash_set<std::string> inner = BlocksIn(blk->body); !inner.empty()) {
    return state->Error(blk, absl::StrCat("reindex: ", what, " holds inner block ",
                                          *inner.begin(), ", whose iter vars index ",
                                          buffer->name, "; reindex the inner block"));
  }
  AccessIndices acc(buffer.get());
  if (blk->init) acc.VisitStmt(blk->init);
  acc.VisitStmt(blk->body);
  if (acc.found.empty()) {
    return state->Error(
        blk, absl::StrCat(what, " declares buffer ", buffer->name, " but never accesses it"));
  }
  for (const std::vector<Expr>& other : acc.found) {
    bool same = other.size() == acc.found[0].size();
    for (size_t d = 0; same && d < other.size(); ++d) {
      same = StructuralEqual(other[d], acc.found[0][d]);
    }
    if (!same) {
      return state->Error(blk, absl::StrCat(what, " accesses buffer ", buffer->name,
                                            " at different indices; reindex needs one pattern"));
    }
  }
  const std::vector<Expr>& indices = acc.found[0];
  for (const Expr& e : indices) {
    if (!e->dtype.is_scalar()) {
      return state->Error(blk, absl::StrCat("reindex: ", what, " accesses buffer ", buffer->name,
                                            " at the vector index ", PrintExpr(e),
                                            "; reindex needs scalar indices"));
    }
    if (UsesAnyVar(e, acc.loops)) {
      return state->Error(blk, absl::StrCat("reindex: ", what, " accesses buffer ", buffer->name,
                                            " at ", PrintExpr(e),
                                            ", which uses a loop of its body; the indices "
                                            "may use only the block's iter vars"));
    }
  }
  // The iter vars the indices use, in the block's order, each a dimension.
  std::vector<const IterVar*> covered;
  for (const IterVar& iv : blk->iter_vars) {
    bool used = false;
    for (const Expr& e : indices) used |= arith::UsesVar(e, iv.var.get());
    if (!used) continue;
    if (is_write && iv.kind != IterKind::kSpatial) {
      return state->Error(blk,
                          absl::StrCat(what, " writes buffer ", buffer->name, " at an index using ",
                                       IterKindName(iv.kind), " iter var ", iv.var->name,
                                       "; reindex needs spatial ones"));
    }
    covered.push_back(&iv);
  }
  if (is_write) {
    if (std::string why = CheckReadBeforeWritten(blk, buffer, "its reindex buffer");
        !why.empty()) {
      return state->Error(blk, absl::StrCat("reindex: ", why));
    }
  }
  if (is_write && !arith::IsConstTrue(realize->predicate)) {
    return state->Error(blk, absl::StrCat(what,
                                          " has a predicate; reindex a written buffer "
                                          "before splitting its loops unevenly (the copy "
                                          "covers the whole domain)"));
  }
  // The copy runs over the block's whole domain: a block that runs only part
  // of it (a cache_read copy bound to the rows a strided read uses) would copy
  // elements it never wrote, or load ones it never reads.
  if (std::string why = CheckCoversDomain(index, sref); !why.empty()) {
    return state->Error(blk, absl::StrCat("reindex: ", what,
                                          " does not run every point of its domain once, "
                                          "and the copy covers the whole domain: ",
                                          why));
  }
  int scope = index.ScopeBlock(sref);
  BufferAccessors users = FindAccessors(index, scope, buffer.get());
  const int child = ChildUnder(index, scope, sref);
  for (int w : users.writers) {
    if (is_write && w != sref) {
      return state->Error(
          index.block(w),
          absl::StrCat("reindex needs the only writer of buffer ", buffer->name, " in its scope; ",
                       DescribeBlock(index.block(w)), " writes it too"));
    }
  }
  for (const std::vector<int>* list : {&users.readers, &users.writers}) {
    for (int u : *list) {
      if (u == sref || !index.IsAncestor(child, u)) continue;
      return state->Error(index.block(u),
                          absl::StrCat(DescribeBlock(index.block(u)), " uses buffer ", buffer->name,
                                       " under the same statement as ", what,
                                       ": there is no place for the copy between them"));
    }
  }

  std::string name = UniqueBlockName(index, absl::StrCat(buffer->name, "_reindex"));
  arith::Analyzer ana;
  std::vector<Expr> shape, new_indices;
  std::vector<CopyDim> dims;
  for (const IterVar* iv : covered) {
    shape.push_back(iv->dom.extent);
    new_indices.push_back(ana.Simplify(Sub(iv->var, iv->dom.min)));
    dims.push_back({iv->dom.min, iv->dom.extent, iv->dom});
  }
  Buffer reindexed = CacheBuffer(buffer, name, buffer->scope);
  {
    auto n = MakeNode<BufferNode>(*reindexed);
    n->shape = shape;
    n->strides.clear();
    reindexed = Buffer(std::move(n));
  }
  // The copy, in terms of its own iter vars v (one per covered iter var).
  auto at_original = [&](const std::vector<Expr>& v) {
    VarMap m;
    for (size_t d = 0; d < covered.size(); ++d) m[covered[d]->var.get()] = v[d];
    std::vector<Expr> out;
    for (const Expr& e : indices) out.push_back(Substitute(e, m));
    return out;
  };
  auto at_reindexed = [&](const std::vector<Expr>& v) {
    std::vector<Expr> out;
    for (size_t d = 0; d < covered.size(); ++d) {
      out.push_back(ana.Simplify(Sub(v[d], covered[d]->dom.min)));
    }
    return out;
  };
  TESSEL_ASSIGN_OR_RETURN(
      Stmt copy,
      is_write ? MakeCopyNest(name, dims, buffer, at_original, reindexed, at_reindexed, &ana)
               : MakeCopyNest(name, dims, reindexed, at_reindexed, buffer, at_original, &ana));
  // The block, redirected.
  Redirect redirect(buffer.get(), reindexed, new_indices);
  auto b = MakeNode<BlockNode>(*blk);
  b->body = redirect.VisitStmt(blk->body);
  if (blk->init) b->init = redirect.VisitStmt(blk->init);
  if (!redirect.ok()) {
    return state->Error(blk, absl::StrCat("the accesses of ", buffer->name, " in ", what,
                                          " cannot be redirected: ", redirect.status().message()));
  }
  BufferRegion point = PointRegion(reindexed, new_indices);
  b->reads = Redirected(blk->reads, buffer.get(), point);
  b->writes = Redirected(blk->writes, buffer.get(), point);
  Stmt new_realize(
      MakeNode<BlockRealizeNode>(realize->iter_values, realize->predicate, Block(std::move(b))));
  PrimFunc f = InsertNextTo(state->func(), index.at(child).stmt, copy, /*before=*/!is_write);
  f = ReplaceStmts(f, {{realize, new_realize}});
  f = AllocateInScope(f, StmtIndex(f), scope < 0 ? "" : index.block(scope)->name, {reindexed});
  state->Replace(f);
  return name;
}

TESSEL_REGISTER_PRIMITIVE(primitive::Reindex);

}  // namespace tessel::ir::schedule
