// cache_read and cache_write (see cache_read_write.h).
#include "ir/schedule/primitive/cache_read_write.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive/storage_align.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

namespace {

std::string Where(const StmtIndex& index, int pos) {
  if (pos < 0) return "the function body";
  if (const ForNode* f = index.loop(pos)) return DescribeLoop(f);
  return DescribeBlock(index.block(pos));
}

const arith::AccessRegion* FindRegion(const std::vector<arith::AccessRegion>& regions,
                                      const BufferNode* buffer) {
  for (const arith::AccessRegion& r : regions) {
    if (r.region.buffer.get() == buffer) return &r;
  }
  return nullptr;
}

std::vector<CopyDim> Dims(const Buffer& buffer, const std::vector<Range>& region) {
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < region.size(); ++d) {
    dims.push_back({region[d].min, region[d].extent,
                    Range{IntImm(buffer->shape[d]->dtype, 0), buffer->shape[d]}});
  }
  return dims;
}

std::vector<Expr> Same(const std::vector<Expr>& v) { return v; }

// The cache buffer and copy block share a name no block has yet.
std::string CacheName(const StmtIndex& index, const Buffer& buffer, const std::string& scope) {
  return UniqueBlockName(index, absl::StrCat(buffer->name, "_", scope));
}

// `realize`'s predicate without the terms over loops only reduce bindings use
// that hold at those loops' minimum (a reduce tail split: every spatial
// instance still runs, so the terms do not change what the block writes).
Expr WrittenPredicate(const StmtIndex& index, int sref, arith::Analyzer* ana) {
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* blk = realize->block.get();
  absl::flat_hash_map<const VarNode*, int> spatial_loops;
  VarMap reduce_only_at_min;
  for (int l : index.LoopsAbove(sref)) {
    const ForNode* f = index.loop(l);
    bool s = false, r = false;
    for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
      if (!arith::UsesVar(realize->iter_values[v], f->loop_var.get())) continue;
      (blk->iter_vars[v].kind == IterKind::kReduce ? r : s) = true;
    }
    if (s || !r) spatial_loops[f->loop_var.get()] = 0;
    if (r && !s) reduce_only_at_min[f->loop_var.get()] = f->min;
  }
  Expr kept = Bool(true);
  for (const Expr& t : arith::SplitConjuncts(realize->predicate)) {
    bool drop =
        !UsesAnyVar(t, spatial_loops) && ana->CanProve(Substitute(t, reduce_only_at_min));
    if (!drop) kept = arith::AndE(kept, t);
  }
  return kept;
}

// The statement `child` of the function as region inference should see it:
// with the block's predicate reduced to what limits its writes.
Stmt ForWrittenRegion(const ScheduleState& state, int sref, int child, arith::Analyzer* ana) {
  const StmtIndex& index = state.index();
  const BlockRealizeNode* realize = index.realize(sref);
  Expr pred = WrittenPredicate(index, sref, ana);
  if (StructuralEqual(pred, realize->predicate)) return GetRef(index.at(child).stmt);
  Stmt trimmed(MakeNode<BlockRealizeNode>(realize->iter_values, pred, realize->block));
  PrimFunc f = ReplaceStmts(state.func(), {{realize, trimmed}});
  return GetRef(StmtIndex(f).at(child).stmt);  // Same shape: the same sref numbers.
}

std::string ScopeName(const StmtIndex& index, int scope) {
  return scope < 0 ? "" : index.block(scope)->name;
}

}  // namespace

absl::StatusOr<std::string> CacheWrite(ScheduleState* state, const std::string& block,
                                       int64_t write_buffer_index,
                                       const std::string& storage_scope) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const StmtIndex& index = state->index();
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* blk = realize->block.get();
  TESSEL_ASSIGN_OR_RETURN(Buffer buffer, BufferAtIndex(*state, blk, write_buffer_index, true));
  if (std::string why = CheckStorageScope(storage_scope); !why.empty()) {
    return state->ArgError(blk, why);
  }
  int scope = index.ScopeBlock(sref);
  BufferAccessors acc = FindAccessors(index, scope, buffer.get());
  for (int w : acc.writers) {
    if (w == sref) continue;
    return state->Error(
        index.block(w),
        absl::StrCat("cache_write needs the only writer of buffer ", buffer->name,
                     " in its scope; ", DescribeBlock(index.block(w)), " writes it too"));
  }
  if (std::string why = CheckReadBeforeWritten(blk, buffer, "its cache"); !why.empty()) {
    return state->Error(blk, why);
  }
  std::vector<int> related = {sref};
  for (int r : acc.readers) {
    if (r == sref) continue;
    if (r > sref) related.push_back(r);  // Readers before the block see the old values.
  }
  int pos = LowestCommonPosition(index, scope, related);
  int child = ChildUnder(index, pos, sref);
  for (size_t k = 1; k < related.size(); ++k) {
    if (index.IsAncestor(child, related[k]) || child == related[k]) {
      return state->Error(
          index.block(related[k]),
          absl::StrCat(DescribeBlock(index.block(related[k])), " reads buffer ", buffer->name,
                       " under the same statement of ", Where(index, pos), " as ",
                       DescribeBlock(blk), ": there is no place for the copy between them"));
    }
  }
  arith::Analyzer ana;
  BindPath(index, pos, &ana);
  const Stmt child_stmt = GetRef(index.at(child).stmt);
  TESSEL_ASSIGN_OR_RETURN(
      arith::AccessRegions regions,
      arith::InferSubtreeAccess(ForWrittenRegion(*state, sref, child, &ana), &ana));
  const arith::AccessRegion* written = FindRegion(regions.writes, buffer.get());
  if (written == nullptr || !written->exact) {
    return state->Error(blk,
                        absl::StrCat("the region of ", buffer->name, " that ", DescribeBlock(blk),
                                     " writes below ", Where(index, pos), " is not exactly a box (",
                                     written ? arith::AccessRegionToString(*written) : "unknown",
                                     "): copying it back would copy elements never written"));
  }
  std::string name = CacheName(index, buffer, storage_scope);
  Buffer cache = CacheBuffer(buffer, name, storage_scope);
  TESSEL_ASSIGN_OR_RETURN(Stmt copy, MakeCopyNest(name, Dims(buffer, written->region.region),
                                                  buffer, Same, cache, Same, &ana));
  Stmt redirected = ReplaceBuffers(GetRef(realize), {{buffer.get(), cache}});
  // The block's storage_align entries for the buffer follow it to the copy
  // block, its writer now; the cache starts unaligned.
  const size_t w = static_cast<size_t>(write_buffer_index);
  AttrValue::List aligns = DimAlignsOf(*blk, w);
  if (!aligns.empty()) {
    const auto* r = cast<BlockRealizeNode>(redirected.get());
    auto b = MakeNode<BlockNode>(*r->block);
    b->annotations = WithDimAligns(*r->block, w, {});
    redirected = Stmt(MakeNode<BlockRealizeNode>(r->iter_values, r->predicate, Block(std::move(b))));
  }
  PrimFunc f = InsertNextTo(state->func(), child_stmt.get(), copy, /*before=*/false);
  f = ReplaceStmts(f, {{realize, redirected}});
  if (!aligns.empty()) {
    StmtIndex placed(f);
    const BlockRealizeNode* cr = placed.realize(placed.FindBlock(name));
    auto b = MakeNode<BlockNode>(*cr->block);
    b->annotations = WithDimAligns(*cr->block, 0, std::move(aligns));
    f = ReplaceStmts(
        f, {{cr, Stmt(MakeNode<BlockRealizeNode>(cr->iter_values, cr->predicate, Block(std::move(b))))}});
  }
  f = AllocateInScope(f, StmtIndex(f), ScopeName(index, scope), {cache});
  state->Replace(f);
  return name;
}

absl::StatusOr<std::string> CacheRead(ScheduleState* state, const std::string& block,
                                      int64_t read_buffer_index, const std::string& storage_scope) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const StmtIndex& index = state->index();
  const BlockNode* blk = index.block(sref);
  TESSEL_ASSIGN_OR_RETURN(Buffer buffer, BufferAtIndex(*state, blk, read_buffer_index, false));
  if (std::string why = CheckStorageScope(storage_scope); !why.empty()) {
    return state->ArgError(blk, why);
  }
  for (const BufferRegion& w : blk->writes) {
    if (w.buffer.get() == buffer.get()) {
      return state->Error(blk,
                          absl::StrCat(DescribeBlock(blk), " also writes buffer ", buffer->name,
                                       "; cache_read stages only a buffer "
                                       "the block reads (use cache_write)"));
    }
  }
  int scope = index.ScopeBlock(sref);
  BufferAccessors acc = FindAccessors(index, scope, buffer.get());
  std::vector<int> consumers;
  for (int r : acc.readers) {
    bool writes = false;
    for (int w : acc.writers) writes |= (w == r);
    if (!writes) consumers.push_back(r);
  }
  int pos = LowestCommonPosition(index, scope, consumers);
  int first = ChildUnder(index, pos, consumers.front());
  for (int w : acc.writers) {
    if (w > first) {
      return state->Error(
          index.block(w),
          absl::StrCat(DescribeBlock(index.block(w)), " writes buffer ", buffer->name,
                       " after the copy's place (before the first reader below ", Where(index, pos),
                       "): the readers would miss what it writes"));
    }
  }
  arith::Analyzer ana;
  BindPath(index, pos, &ana);
  std::vector<Range> region;
  int last_child = -1;
  for (int c : consumers) {
    int child = ChildUnder(index, pos, c);
    if (child == last_child) continue;
    last_child = child;
    TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions regions,
                            arith::InferSubtreeAccess(GetRef(index.at(child).stmt), &ana));
    const arith::AccessRegion* read = FindRegion(regions.reads, buffer.get());
    if (read == nullptr) continue;
    const std::vector<Range>& r = read->region.region;
    if (region.empty()) {
      region = r;
      continue;
    }
    for (size_t d = 0; d < r.size(); ++d) {
      Expr lo = ana.Simplify(Min(region[d].min, r[d].min));
      Expr hi = ana.Simplify(Max(Add(region[d].min, region[d].extent), Add(r[d].min, r[d].extent)));
      region[d] = Range{lo, ana.Simplify(Sub(hi, lo))};
    }
  }
  if (region.empty()) {
    for (const Expr& e : buffer->shape) region.push_back(Range{IntImm(e->dtype, 0), e});
  }
  std::string name = CacheName(index, buffer, storage_scope);
  Buffer cache = CacheBuffer(buffer, name, storage_scope);
  TESSEL_ASSIGN_OR_RETURN(
      Stmt copy, MakeCopyNest(name, Dims(buffer, region), cache, Same, buffer, Same, &ana));
  // Insert first: the insertion copies only the path to the first reader's
  // statement, so the readers' realizes stay the same objects for the rewrite.
  PrimFunc f = InsertNextTo(state->func(), index.at(first).stmt, copy, /*before=*/true);
  absl::flat_hash_map<const StmtNode*, Stmt> redirect;
  for (int c : consumers) {
    redirect[index.at(c).stmt] = ReplaceBuffers(GetRef(index.at(c).stmt), {{buffer.get(), cache}});
  }
  f = ReplaceStmts(f, redirect);
  f = AllocateInScope(f, StmtIndex(f), ScopeName(index, scope), {cache});
  state->Replace(f);
  return name;
}

TESSEL_REGISTER_PRIMITIVE(primitive::CacheRead);
TESSEL_REGISTER_PRIMITIVE(primitive::CacheWrite);

}  // namespace tessel::ir::schedule
