// Whether the iterations of a loop may run at once (see loop_independence.h).
#include "ir/schedule/loop_independence.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/binding_map.h"
#include "ir/printer.h"
#include "ir/schedule/binding_analysis.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/state.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The regions of `regions` with the block's iter vars replaced by their
// bindings: what one block instance touches, in terms of the loops.
std::vector<BufferRegion> InLoopTerms(const BlockRealizeNode* r,
                                      const std::vector<BufferRegion>& regions) {
  VarMap map = BindingMap(r);
  std::vector<BufferRegion> out;
  for (const BufferRegion& br : regions) {
    BufferRegion n{br.buffer, {}};
    for (const Range& range : br.region) {
      n.region.push_back({Substitute(range.min, map), Substitute(range.extent, map)});
    }
    out.push_back(std::move(n));
  }
  return out;
}

// The block's declared reads, and the regions its body loads: the verifier
// lets a block with an init load what it writes undeclared (A[vi] = A[vi - 1]
// + 1 there reads another instance's element), and accepts a load it cannot
// show outside the declared reads. A block holding blocks is left to its
// declared regions (its inner blocks' loads are in their own iter vars).
std::vector<BufferRegion> ReadsOf(const BlockNode* block) {
  std::vector<BufferRegion> out = block->reads;
  if (!BlocksIn(block->body).empty()) return out;
  arith::Analyzer ana;
  absl::StatusOr<arith::AccessRegions> access = arith::InferBlockAccess(GetRef(block), &ana);
  if (!access.ok()) return out;
  for (const arith::AccessRegion& r : access->reads) out.push_back(r.region);
  return out;
}

bool SameRegion(const BufferRegion& a, const BufferRegion& b) {
  if (a.region.size() != b.region.size()) return false;
  for (size_t d = 0; d < a.region.size(); ++d) {
    if (!StructuralEqual(a.region[d].min, b.region[d].min) ||
        !StructuralEqual(a.region[d].extent, b.region[d].extent)) {
      return false;
    }
  }
  return true;
}

// Buffers allocated inside the loop are private to an iteration.
class LocalBuffers : public IRVisitor {
 public:
  absl::flat_hash_set<const BufferNode*> buffers;
  void VisitAllocate(const AllocateNode* op) override {
    buffers.insert(op->buffer.get());
    IRVisitor::VisitAllocate(op);
  }
  void VisitBlock(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) buffers.insert(b.get());
    IRVisitor::VisitBlock(op);
  }
};

// Whether anything outside loop `skip` loads, stores, views or declares a
// region of `buffer`.
class TouchedOutside : public IRVisitor {
 public:
  TouchedOutside(const ForNode* skip, const BufferNode* buffer) : skip_(skip), buffer_(buffer) {}
  bool found = false;

  void VisitFor(const ForNode* op) override {
    if (op != skip_) IRVisitor::VisitFor(op);
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    found |= op->buffer.get() == buffer_;
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    found |= op->buffer.get() == buffer_;
    IRVisitor::VisitBufferStore(op);
  }
  void VisitDeclBuffer(const DeclBufferNode* op) override {
    found |= op->source.get() == buffer_;
    IRVisitor::VisitDeclBuffer(op);
  }
  void VisitBlock(const BlockNode* op) override {
    found |= Touches(op->reads, buffer_) || Touches(op->writes, buffer_);
    IRVisitor::VisitBlock(op);
  }

 private:
  const ForNode* skip_;
  const BufferNode* buffer_;
};

// The first load of each buffer outside the blocks of a statement: in an
// `if` condition, a loop bound, a block's bindings or predicate.
class LoadsOutsideBlocks : public IRVisitor {
 public:
  absl::flat_hash_map<const BufferNode*, const BufferLoadNode*> loads;
  void VisitBufferLoad(const BufferLoadNode* op) override {
    loads.emplace(op->buffer.get(), op);
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBlock(const BlockNode*) override {}
};

bool CoveredPerIteration(const StmtIndex& index, int loop, const BufferNode* buffer);

// The buffers each iteration of loop sref `loop` has its own copy of (see
// loop_independence.h): allocated below it, or, for a parallel loop, allocated
// by a block around it and touched only below it, with no vectorized loop in
// between (remove-blocks' PlaceAllocation never allocates inside one).
absl::flat_hash_set<const BufferNode*> PrivateBuffers(const StmtIndex& index, int loop,
                                                      ForKind kind, const std::string& tag) {
  const ForNode* f = index.loop(loop);
  LocalBuffers local;
  local.VisitStmt(f->body);
  std::optional<int> axis =
      kind == ForKind::kThreadBinding ? LaunchAxisOf(tag) : std::optional<int>();
  auto own_copy = [&](const Buffer& buf) {
    if (kind == ForKind::kParallel) return true;
    return axis && (buf->scope == "local" || (!IsThreadIdxAxis(*axis) && buf->scope == "shared"));
  };
  if (kind != ForKind::kParallel && !axis) return local.buffers;
  for (int p = index.at(loop).parent; p >= 0; p = index.at(p).parent) {
    if (const ForNode* l = index.loop(p)) {
      if (l->for_kind == ForKind::kVectorized) break;
      continue;
    }
    const BlockNode* b = index.block(p);
    for (const Buffer& buf : b->alloc_buffers) {
      if (!own_copy(buf)) continue;
      TouchedOutside outside(f, buf.get());
      outside.VisitStmt(GetRef(b));
      if (!outside.found && CoveredPerIteration(index, loop, buf.get())) {
        local.buffers.insert(buf.get());
      }
    }
  }
  return local.buffers;
}

// What a block below loop `f` touches in one iteration of it: its region in
// terms of the loops, relaxed over the loops between `f` and the block. The
// loops around `f` stay symbolic: they are the same in every iteration.
class IterationRegions {
 public:
  IterationRegions(const StmtIndex& index, int loop) : index_(index), loop_(loop) {
    BindLoopsAround(index, loop, &ana_);
  }

  // nullopt when the relaxed region still names a loop below `f` (a loop whose
  // range depends on another): it is then no function of the iteration alone.
  std::optional<BufferRegion> Of(int block, const BufferRegion& in_loop_terms) {
    arith::IntSetMap dom;
    std::vector<const VarNode*> inner;
    for (int p = index_.at(block).parent; p != loop_; p = index_.at(p).parent) {
      const ForNode* l = index_.loop(p);
      dom[l->loop_var.get()] = arith::IntSet::FromRange(Range{l->min, l->extent});
      inner.push_back(l->loop_var.get());
    }
    BufferRegion out = arith::RelaxRegion(in_loop_terms, dom, &ana_).region;
    for (const Range& r : out.region) {
      for (const Expr& e : {r.min, r.extent}) {
        if (arith::AnyVar(e, [&](const VarNode* v) { return dom.contains(v); })) {
          return std::nullopt;
        }
      }
    }
    return out;
  }

  // Whether `x` touched in one iteration and `y` touched in any other are
  // provably disjoint: for each order of the two iterations (x's at `a`, y's
  // at `a + 1 + t`, t >= 0, and the reverse) some dimension separates them.
  bool DisjointAcrossIterations(const BufferRegion& x, const BufferRegion& y) {
    const ForNode* f = index_.loop(loop_);
    const VarNode* v = f->loop_var.get();
    DataType t = v->dtype;
    if (x.region.size() != y.region.size()) return false;
    for (bool x_first : {true, false}) {
      arith::Analyzer::Scope scope(&ana_);
      Var lo = MakeVar(absl::StrCat(v->name, "_a"), t);
      Var gap = MakeVar(absl::StrCat(v->name, "_gap"), t);
      ana_.Bind(lo, Range{f->min, f->extent});
      ana_.Bind(gap, Range{IntImm(t, 0), f->extent});
      Expr hi = arith::AddE(arith::AddE(lo, IntImm(t, 1)), gap);
      ana_.EnterConstraint(LT(hi, arith::AddE(f->min, f->extent)));
      VarMap at_x{{v, x_first ? Expr(lo) : hi}}, at_y{{v, x_first ? hi : Expr(lo)}};
      bool apart = false;
      for (size_t d = 0; d < x.region.size() && !apart; ++d) {
        const Range& rx = x.region[d];
        const Range& ry = y.region[d];
        DataType dt = rx.min->dtype;
        if (rx.extent->dtype != dt || ry.min->dtype != dt || ry.extent->dtype != dt) continue;
        Expr x_min = Substitute(rx.min, at_x);
        Expr x_end = Substitute(arith::AddE(rx.min, rx.extent), at_x);
        Expr y_min = Substitute(ry.min, at_y);
        Expr y_end = Substitute(arith::AddE(ry.min, ry.extent), at_y);
        apart = ana_.CanProve(LE(x_end, y_min)) || ana_.CanProve(LE(y_end, x_min));
      }
      if (!apart) return false;
    }
    return true;
  }

 private:
  const StmtIndex& index_;
  int loop_;
  arith::Analyzer ana_;
};

// What block sref `block` below loop sref `loop` reads (as ReadsOf counts a
// block's reads) or writes of `buffer` in one iteration of the loop: its
// regions relaxed over the loops between, trimmed by its predicate, with the
// loop and those around it symbolic; nullopt when it touches none of `buffer`
// that way. Region inference calls the result exact only when every element it
// names is touched (no holes, no part a predicate may skip).
std::optional<arith::AccessRegion> InOneIteration(const StmtIndex& index, int loop, int block,
                                                  const BufferNode* buffer, bool write,
                                                  arith::Analyzer* ana) {
  const BlockRealizeNode* r = index.realize(block);
  auto probe = MakeNode<BlockNode>(*r->block);
  probe->reads = ReadsOf(r->block.get());
  auto realize = MakeNode<BlockRealizeNode>(*r);
  realize->block = Block(std::move(probe));
  Stmt nest(std::move(realize));
  for (int p = index.at(block).parent; p != loop; p = index.at(p).parent) {
    const ForNode* l = index.loop(p);
    if (l == nullptr) return std::nullopt;
    absl::StatusOr<Stmt> wrapped =
        MakeFor(l->loop_var, l->min, l->extent, ForKind::kSerial, nest, "", {});
    if (!wrapped.ok()) return std::nullopt;
    nest = *std::move(wrapped);
  }
  absl::StatusOr<arith::AccessRegions> access = arith::InferSubtreeAccess(nest, ana);
  if (!access.ok()) return std::nullopt;
  for (const arith::AccessRegion& a : write ? access->writes : access->reads) {
    if (a.region.buffer.get() == buffer) return a;
  }
  return std::nullopt;
}

bool RegionInside(const BufferRegion& inner, const BufferRegion& outer, arith::Analyzer* ana) {
  if (inner.region.size() != outer.region.size()) return false;
  for (size_t d = 0; d < inner.region.size(); ++d) {
    const Range& i = inner.region[d];
    const Range& o = outer.region[d];
    DataType t = i.min->dtype;
    if (i.extent->dtype != t || o.min->dtype != t || o.extent->dtype != t) return false;
    if (!ana->CanProve(GE(i.min, o.min)) ||
        !ana->CanProve(LE(arith::AddE(i.min, i.extent), arith::AddE(o.min, o.extent)))) {
      return false;
    }
  }
  return true;
}

// Whether, in every iteration of loop sref `loop`, each block below it that
// reads `buffer` reads only what a block before it wrote in the same
// iteration: a copy of the buffer per iteration holds only what that
// iteration writes, so a reader must find there everything it reads. (A
// reader of what an earlier iteration wrote, or of what a writer skipped
// under a guard on loops its bindings do not use, found it in the shared
// buffer; with a copy per iteration it would read nothing.) A block with an
// init reads what it writes from its own init.
bool CoveredPerIteration(const StmtIndex& index, int loop, const BufferNode* buffer) {
  arith::Analyzer ana;
  BindLoopsAround(index, loop, &ana);
  std::vector<BufferRegion> written;  // What the blocks so far write per iteration, exactly.
  for (int b : index.ChildBlocks(loop)) {
    const BlockNode* block = index.block(b);
    const bool writes = Touches(block->writes, buffer);
    // The read is covered, not exact: trimmed by the reader's predicate like
    // the writes (a tail split's reader and writer both stop at the extent).
    if (!writes || !block->init) {
      std::optional<arith::AccessRegion> read =
          InOneIteration(index, loop, b, buffer, /*write=*/false, &ana);
      if (read) {
        bool covered = false;
        for (const BufferRegion& w : written) {
          covered = covered || RegionInside(read->region, w, &ana);
        }
        if (!covered) return false;
      }
    }
    if (!writes) continue;
    std::optional<arith::AccessRegion> w =
        InOneIteration(index, loop, b, buffer, /*write=*/true, &ana);
    if (w && w->exact) written.push_back(std::move(w->region));
  }
  return true;
}

std::string RegionText(const std::optional<BufferRegion>& r) {
  if (!r) return "a region that depends on loops below it";
  return arith::AccessRegionToString(arith::AccessRegion{*r, true});
}

}  // namespace

std::optional<LoopDependence> FindLoopDependence(const StmtIndex& index, int loop, ForKind kind,
                                                 const std::string& word,
                                                 const std::string& thread_tag) {
  const ForNode* f = index.loop(loop);
  const std::string what = DescribeLoop(f);
  if (HasStmtOutsideBlocks(f->body)) {
    return LoopDependence{f, absl::StrCat(what,
                                          " holds statements outside blocks, whose iterations "
                                          "cannot be shown independent; cannot make it ",
                                          word)};
  }
  const VarNode* v = f->loop_var.get();
  absl::flat_hash_set<const BufferNode*> private_buffers =
      PrivateBuffers(index, loop, kind, thread_tag);
  auto is_private = [&](const BufferRegion& r) { return private_buffers.contains(r.buffer.get()); };
  std::vector<int> blocks = index.ChildBlocks(loop);
  // A reduction bound to threadIdx.x is a cross-thread reduction, which lowering
  // turns into a collective (passes/lowering/thread_reduction.h, whose rules it
  // checks): the block must be alone under the loop.
  if (kind == ForKind::kThreadBinding && thread_tag == "threadIdx.x") {
    for (int b : blocks) {
      const BlockRealizeNode* r = index.realize(b);
      if (!ReducesOver(r, v)) continue;
      if (blocks.size() == 1) return std::nullopt;
      return LoopDependence{
          r->block.get(),
          absl::StrCat("block ", r->block->name, " reduces over ", what,
                       ", a cross-thread reduction, which needs the block alone under the loop "
                       "(",
                       blocks.size(), " blocks are); the loop cannot be ", word)};
    }
  }
  for (int b : blocks) {
    const BlockRealizeNode* r = index.realize(b);
    const BlockNode* block = r->block.get();
    for (size_t k = 0; k < block->iter_vars.size() && k < r->iter_values.size(); ++k) {
      const IterVar& iv = block->iter_vars[k];
      if (iv.kind == IterKind::kSpatial || !arith::UsesVar(r->iter_values[k], v)) continue;
      return LoopDependence{
          block, absl::StrCat("iter var ", iv.var->name, " of block ", block->name, " is ",
                              IterKindName(iv.kind), " and bound to ", what, ": its iterations ",
                              iv.kind == IterKind::kReduce ? "combine into the same output"
                                                           : "have no known independence",
                              ", so the loop cannot be ", word)};
    }
    // A block writing only private buffers may repeat its instances across
    // iterations (compute_at's overlapping halos): each writes its own copy.
    if (std::all_of(block->writes.begin(), block->writes.end(), is_private)) continue;
    std::string why = CheckDistinctInstances(index, b, loop);
    if (!why.empty()) {
      return LoopDependence{block, absl::StrCat(why, ", so the loop cannot be ", word)};
    }
  }
  // Data flow between iterations: every iteration writes its own place, and no
  // block reads or overwrites what another writes unless at the very same
  // place or at a place no other iteration touches.
  if (std::optional<int64_t> extent = arith::AsConstInt(f->extent); extent && *extent <= 1) {
    return std::nullopt;  // No other iteration to meet.
  }
  IterationRegions per_iteration(index, loop);
  absl::flat_hash_map<int, std::vector<BufferRegion>> reads_of;
  for (int b : blocks) reads_of[b] = ReadsOf(index.block(b));
  LoadsOutsideBlocks outside;
  outside.VisitStmt(f->body);
  for (int w : blocks) {
    const BlockNode* writer = index.block(w);
    for (const BufferRegion& wr : InLoopTerms(index.realize(w), writer->writes)) {
      if (is_private(wr)) continue;
      if (auto it = outside.loads.find(wr.buffer.get()); it != outside.loads.end()) {
        return LoopDependence{
            writer, absl::StrCat(what, " loads ", PrintExpr(GetRef(it->second)),
                                 " outside its blocks (a condition, bound or binding), and block ",
                                 writer->name, " writes buffer ", wr.buffer->name,
                                 " in some iteration; the loop cannot be ", word)};
      }
      bool depends = false;
      for (const Range& r : wr.region) {
        depends |= arith::UsesVar(r.min, v) || arith::UsesVar(r.extent, v);
      }
      if (!depends) {
        return LoopDependence{
            writer, absl::StrCat("block ", writer->name, " writes buffer ", wr.buffer->name,
                                 " at the same place in every iteration of ", what,
                                 " (the region does not depend on the loop); the loop cannot be ",
                                 word)};
      }
      for (int o : blocks) {
        const BlockNode* other = index.block(o);
        for (bool reads : {true, false}) {
          // A block's writes in two iterations are distinct instances (above),
          // but its reads are compared with its writes as another block's
          // would be: A[vi] = A[vi - 1] + 1 reads what the iteration before wrote.
          if (o == w && !reads) continue;
          for (const BufferRegion& orr :
               InLoopTerms(index.realize(o), reads ? reads_of.at(o) : other->writes)) {
            if (orr.buffer.get() != wr.buffer.get() || SameRegion(orr, wr)) continue;
            std::optional<BufferRegion> wi = per_iteration.Of(w, wr);
            std::optional<BufferRegion> oi = per_iteration.Of(o, orr);
            if (wi && oi && per_iteration.DisjointAcrossIterations(*wi, *oi)) continue;
            return LoopDependence{
                other,
                absl::StrCat("block ", other->name, (reads ? " reads " : " writes "), "buffer ",
                             wr.buffer->name, " that block ", writer->name,
                             " writes, at a place that may belong to another iteration of ", what,
                             " (in one iteration ", writer->name, " writes ", RegionText(wi),
                             " and ", other->name, (reads ? " reads " : " writes "),
                             RegionText(oi), "); the loop cannot be ", word)};
          }
        }
      }
    }
  }
  return std::nullopt;
}

std::vector<const VarNode*> NonSerialLoopsAround(const StmtIndex& index, int s) {
  std::vector<const VarNode*> out;
  for (int p = s; p >= 0; p = index.at(p).parent) {
    const ForNode* l = index.loop(p);
    if (l != nullptr && l->for_kind != ForKind::kSerial && l->for_kind != ForKind::kUnrolled) {
      out.push_back(l->loop_var.get());
    }
  }
  return out;
}

absl::Status KeepLoopKindsOrUndo(ScheduleState* state, const PrimFunc& before,
                                 const std::vector<const VarNode*>& loops,
                                 const std::string& doing) {
  for (const VarNode* v : loops) {
    const StmtIndex& index = state->index();
    int s = index.FindLoop(v);
    if (s < 0) continue;  // Removed with the moved block's old nest.
    const ForNode* f = index.loop(s);
    std::optional<LoopDependence> dep =
        FindLoopDependence(index, s, f->for_kind, LoopKindWord(f), f->thread_tag);
    if (!dep) continue;
    std::string why = absl::StrCat(doing, " would break the rule of ", DescribeLoop(f),
                                   ", which is ", LoopKindWord(f), ": ", dep->why);
    state->Replace(before);
    int old = state->index().FindLoop(v);
    return state->Error(old >= 0 ? state->index().loop(old) : nullptr, why);
  }
  return absl::OkStatus();
}

std::string LoopKindWord(const ForNode* loop) {
  if (loop->for_kind == ForKind::kThreadBinding) return absl::StrCat("bound to ", loop->thread_tag);
  return ForKindName(loop->for_kind);
}

}  // namespace tessel::ir::schedule
