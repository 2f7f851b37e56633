// compute_inline and reverse_compute_inline (see compute_inline.h).
#include "ir/schedule/primitive/compute_inline.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/fallible_mutator.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive/storage_align.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The single store of an elementwise block and its indices as iter vars.
struct SpatialStore {
  const BlockRealizeNode* realize = nullptr;
  const BufferStoreNode* store = nullptr;
  std::vector<Var> index_vars;  // store->indices, each an iter var of the block.
};

// The shared rule of both primitives: the block at `sref` is a leaf with only
// spatial iter vars, no init and one store B[v_1, ..., v_n] = value where the
// v_k are distinct iter vars and value uses no other iter var and not B.
absl::StatusOr<SpatialStore> CheckSpatialStore(const ScheduleState& state, int sref,
                                               const std::string& primitive) {
  const StmtIndex& index = state.index();
  const BlockRealizeNode* r = index.realize(sref);
  const BlockNode* b = r->block.get();
  const std::string what = DescribeBlock(b);
  auto fail = [&](const std::string& why) {
    return state.Error(r, absl::StrCat(primitive, ": ", why));
  };
  if (!index.ChildBlocks(sref).empty()) return fail(absl::StrCat(what, " has blocks inside it"));
  for (const IterVar& iv : b->iter_vars) {
    if (iv.kind != IterKind::kSpatial) {
      return fail(absl::StrCat(what, " has ", IterKindName(iv.kind), " iter var ", iv.var->name,
                               "; only blocks with spatial iter vars are inlined"));
    }
  }
  if (b->init) return fail(absl::StrCat(what, " has an init statement"));
  const auto* store = dyn_cast<BufferStoreNode>(b->body);
  if (store == nullptr) {
    return fail(absl::StrCat("the body of ", what, " is not a single buffer store"));
  }
  absl::flat_hash_map<const VarNode*, int> iter_vars;
  for (const IterVar& iv : b->iter_vars) iter_vars.emplace(iv.var.get(), 0);
  SpatialStore out{r, store, {}};
  absl::flat_hash_map<const VarNode*, int> used;
  for (const Expr& e : store->indices) {
    const auto* v = dyn_cast<VarNode>(e);
    if (v == nullptr || !iter_vars.contains(v) || !used.emplace(v, 0).second) {
      return fail(absl::StrCat("the store of ", what, " writes ", store->buffer->name, " at ",
                               PrintExpr(e),
                               "; each index must be a distinct iter var of the block"));
    }
    out.index_vars.push_back(cast_ref<VarNode>(e));
  }
  for (const IterVar& iv : b->iter_vars) {
    if (!used.contains(iv.var.get()) && arith::UsesVar(store->value, iv.var.get())) {
      return fail(absl::StrCat("the value stored by ", what, " uses iter var ", iv.var->name,
                               ", which is not an index of the store"));
    }
  }
  if (LoadedBuffers(store->value).contains(store->buffer.get())) {
    return fail(absl::StrCat(what, " reads the buffer ", store->buffer->name, " it writes"));
  }
  return out;
}

// The buffer must be private to the function and written by this block only.
absl::Status CheckPrivateAndSoleWriter(const ScheduleState& state, const SpatialStore& s,
                                       const std::string& primitive) {
  const BufferNode* buf = s.store->buffer.get();
  const std::string what = DescribeBlock(s.realize->block.get());
  if (IsParam(state.func(), buf)) {
    return state.Error(s.realize, absl::StrCat(primitive, ": ", what, " writes ", buf->name,
                                               ", a parameter of the function; its contents "
                                               "are seen by the caller, so it must stay"));
  }
  std::vector<std::string> writers = WritersOf(state.index(), buf);
  if (writers.size() != 1 || CountStores(state.func()->body, buf) != 1) {
    return state.Error(s.realize, absl::StrCat(primitive, ": ", what, " is not the only writer of ",
                                               buf->name));
  }
  return absl::OkStatus();
}

// Replaces every load of the inlined buffer by the stored value, and updates
// the declared reads of the blocks that held those loads.
class LoadInliner : public FallibleMutator<> {
 public:
  explicit LoadInliner(const SpatialStore& s) : s_(s), buf_(s.store->buffer.get()) {
    changed_ = LoadedBuffers(s.store->value);
  }
  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    if (op->buffer.get() != buf_) return IRMutator::VisitBufferLoad(op);
    VarMap map;
    for (size_t k = 0; k < s_.index_vars.size(); ++k) {
      map.emplace(s_.index_vars[k].get(), VisitExpr(op->indices[k]));
    }
    return Substitute(s_.store->value, map);
  }
  Stmt VisitBlock(const BlockNode* op) override {
    Stmt s = IRMutator::VisitBlock(op);
    if (!Touches(op->reads, buf_)) return s;
    const auto* b = cast<BlockNode>(s.get());
    // An outer block's (blockize's) regions are relaxed over its inner loops:
    // clipped to the buffer as blockize clips them (a padded window's region
    // hangs over the edge), under the ranges of its iter vars.
    const bool outer = !BlocksIn(b->body).empty();
    arith::Analyzer ana;
    if (outer) {
      for (const IterVar& iv : b->iter_vars) ana.Bind(iv.var, iv.dom);
    }
    absl::StatusOr<arith::AccessRegions> access = arith::InferBlockAccess(GetRef(b), &ana);
    if (!access.ok()) return Fail(access.status(), s);
    if (outer) {
      for (arith::AccessRegion& r : access->reads) r.region = ClipToShape(r.region, &ana);
    }
    auto n = MakeNode<BlockNode>(*b);
    n->reads = MergeReads(b->reads, access->reads, changed_, buf_);
    return Stmt(std::move(n));
  }

 private:
  const SpatialStore& s_;
  const BufferNode* buf_;
  absl::flat_hash_set<const BufferNode*> changed_;
};

// Blocks of the scope strictly between srefs `a` and `b` (program order).
std::vector<int> BlocksBetween(const StmtIndex& index, int a, int b) {
  std::vector<int> out;
  for (int s : index.ChildBlocks(index.ScopeBlock(a))) {
    if (s > a && s < b && !index.IsAncestor(s, b)) out.push_back(s);
  }
  return out;
}

}  // namespace

absl::Status ComputeInline(ScheduleState* state, const std::string& block) {
  const std::string primitive = "compute_inline";
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  TESSEL_ASSIGN_OR_RETURN(SpatialStore s, CheckSpatialStore(*state, sref, primitive));
  TESSEL_RETURN_IF_ERROR(CheckPrivateAndSoleWriter(*state, s, primitive));
  const BufferNode* buf = s.store->buffer.get();
  // A tensorized reader's body is an intrinsic's implementation (vector code
  // over the matched tile), not the computation it matched: putting the value
  // in its loads would rewrite that code (a transposing copy would leave a
  // ramp in a leading index).
  for (const std::string& reader : ReadersOf(state->index(), buf)) {
    const BlockNode* rb = state->index().block(state->index().FindBlock(reader));
    if (rb->annotations.contains("tensorized")) {
      return state->Error(s.realize,
                          absl::StrCat(primitive, ": ", DescribeBlock(s.realize->block.get()),
                                       " is read by ", DescribeBlock(rb),
                                       ", which is tensorized: its body is an intrinsic's "
                                       "implementation, which inlining would rewrite"));
    }
  }

  const StmtNode* root = BlockNestRoot(state->index(), sref);
  absl::StatusOr<PrimFunc> without = RemoveStmt(state->func(), root);
  if (!without.ok()) {
    return state->Error(s.realize, absl::StrCat(primitive, ": cannot remove ",
                                                DescribeBlock(s.realize->block.get()), ": ",
                                                without.status().message()));
  }
  LoadInliner inliner(s);
  PrimFunc g = inliner.VisitPrimFunc(*without);
  if (!inliner.ok()) {
    return state->Error(s.realize, absl::StrCat(primitive,
                                                ": cannot infer the reads of a reader "
                                                "after inlining: ",
                                                inliner.status().message()));
  }
  // The block's annotations, storage_align's among them, go with it: its
  // buffer is gone, so there is nothing left to lay out.
  state->Replace(RemoveAlloc(g, buf));
  return absl::OkStatus();
}

absl::Status ReverseComputeInline(ScheduleState* state, const std::string& block) {
  const std::string primitive = "reverse_compute_inline";
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const StmtIndex& index = state->index();
  TESSEL_ASSIGN_OR_RETURN(SpatialStore c, CheckSpatialStore(*state, sref, primitive));
  const BlockRealizeNode* cr = c.realize;
  const BlockNode* cb = cr->block.get();
  const std::string what = DescribeBlock(cb);
  auto fail = [&](const Node* at, const std::string& why) {
    return state->Error(at, absl::StrCat(primitive, ": ", why));
  };

  // The one producer and the buffer it hands over.
  std::vector<int> producers;
  for (int o : index.ChildBlocks(index.ScopeBlock(sref))) {
    if (o >= sref) break;
    for (const BufferRegion& w : index.block(o)->writes) {
      if (Touches(cb->reads, w.buffer.get())) {
        producers.push_back(o);
        break;
      }
    }
  }
  if (producers.size() != 1) {
    return fail(cr, absl::StrCat(what, " has ", producers.size(),
                                 " producer blocks; it is inlined into exactly one"));
  }
  int psref = producers[0];
  TESSEL_ASSIGN_OR_RETURN(SpatialStore p, CheckSpatialStore(*state, psref, primitive));
  TESSEL_RETURN_IF_ERROR(CheckPrivateAndSoleWriter(*state, p, primitive));
  const Buffer& buf = p.store->buffer;
  if (ReadersOf(index, buf.get()).size() != 1 ||
      CountLoads(state->func()->body, buf.get()) != CountLoads(cb->body, buf.get())) {
    return fail(cr, absl::StrCat(what, " is not the only reader of ", buf->name));
  }

  // Every load of the buffer in C reads it at the same distinct iter vars,
  // which cover C's iter vars and, like P's store, the whole buffer.
  std::vector<const BufferLoadNode*> loads;
  class Loads : public IRVisitor {
   public:
    Loads(const BufferNode* b, std::vector<const BufferLoadNode*>* out) : b_(b), out_(out) {}
    void VisitBufferLoad(const BufferLoadNode* op) override {
      if (op->buffer.get() == b_) out_->push_back(op);
      IRVisitor::VisitBufferLoad(op);
    }

   private:
    const BufferNode* b_;
    std::vector<const BufferLoadNode*>* out_;
  } finder(buf.get(), &loads);
  finder.VisitExpr(c.store->value);
  absl::flat_hash_map<const VarNode*, const IterVar*> civ;
  for (const IterVar& iv : cb->iter_vars) civ.emplace(iv.var.get(), &iv);
  std::vector<Var> load_vars;
  absl::flat_hash_map<const VarNode*, int> seen;
  for (const Expr& e : loads.empty() ? std::vector<Expr>{} : loads[0]->indices) {
    const auto* v = dyn_cast<VarNode>(e);
    if (v == nullptr || !civ.contains(v) || !seen.emplace(v, 0).second) {
      return fail(cr, absl::StrCat(what, " reads ", buf->name, " at ", PrintExpr(e),
                                   "; each index must be a distinct iter var of the block"));
    }
    load_vars.push_back(cast_ref<VarNode>(e));
  }
  for (const BufferLoadNode* l : loads) {
    for (size_t k = 0; k < l->indices.size(); ++k) {
      if (!l->indices[k].same_as(load_vars[k])) {
        return fail(cr, absl::StrCat(what, " reads ", buf->name,
                                     " at different indices; every load must read the element "
                                     "the producer writes in the same instance"));
      }
    }
  }
  if (seen.size() != cb->iter_vars.size()) {
    return fail(cr, absl::StrCat("not every iter var of ", what, " indexes its load of ",
                                 buf->name, ", so its instances do not map onto the producer's"));
  }
  arith::Analyzer ana;
  auto spans = [&](const BlockNode* b, const std::vector<Var>& vars) {
    for (size_t k = 0; k < vars.size(); ++k) {
      for (const IterVar& iv : b->iter_vars) {
        if (iv.var.get() != vars[k].get()) continue;
        if (!ana.CanProveEqual(iv.dom.min, IntImm(iv.dom.min->dtype, 0)) ||
            !ana.CanProveEqual(iv.dom.extent, buf->shape[k])) {
          return false;
        }
      }
    }
    return true;
  };
  if (!spans(cb, load_vars) || !spans(p.realize->block.get(), p.index_vars)) {
    return fail(cr, absl::StrCat("the domains of ", what, " and its producer do not both span ",
                                 buf->name, "'s shape, so the inlined block would compute a "
                                            "different set of elements"));
  }
  if (!arith::IsConstTrue(cr->predicate)) {
    return fail(cr, absl::StrCat(what, " has the predicate ", PrintExpr(cr->predicate),
                                 "; only unconditional blocks are inlined into their producer"));
  }
  if (std::string why = CheckCoversDomain(index, sref); !why.empty()) {
    return fail(cr, absl::StrCat(what, " does not run every point of its domain once: ", why));
  }
  for (int o : BlocksBetween(index, psref, sref)) {
    const BlockNode* ob = index.block(o);
    bool clash =
        Touches(ob->reads, c.store->buffer.get()) || Touches(ob->writes, c.store->buffer.get());
    for (const BufferRegion& r : cb->reads) clash |= Touches(ob->writes, r.buffer.get());
    if (clash) {
      return fail(index.realize(o),
                  absl::StrCat(DescribeBlock(ob), " between the producer and ", what,
                               " touches a buffer ", what, " reads or writes"));
    }
  }

  // C's store, in P's iter vars, with the loads of the buffer replaced by P's value.
  VarMap to_p;
  for (size_t k = 0; k < load_vars.size(); ++k) to_p.emplace(load_vars[k].get(), p.index_vars[k]);
  class Replace : public IRMutator {
   public:
    Replace(const BufferNode* b, Expr v) : b_(b), v_(std::move(v)) {}
    Expr VisitBufferLoad(const BufferLoadNode* op) override {
      return op->buffer.get() == b_ ? v_ : IRMutator::VisitBufferLoad(op);
    }

   private:
    const BufferNode* b_;
    Expr v_;
  } replace(buf.get(), p.store->value);
  Stmt store = replace.VisitStmt(Substitute(GetRef(c.store), to_p));
  const BlockNode* pb = p.realize->block.get();
  auto nb = MakeNode<BlockNode>(*pb);
  nb->body = store;
  nb->writes.clear();
  for (const BufferRegion& w : cb->writes) {
    BufferRegion nw{w.buffer, {}};
    for (const Range& rg : w.region) {
      nw.region.push_back({Substitute(rg.min, to_p), Substitute(rg.extent, to_p)});
    }
    nb->writes.push_back(std::move(nw));
  }
  // storage_align follows the buffers: the producer's entries go with its
  // buffer, the consumer's come along with the buffers it writes.
  nb->annotations.erase(kBufferDimAlign);
  for (size_t w = 0; w < cb->writes.size(); ++w) {
    if (AttrValue::List aligns = DimAlignsOf(*cb, w); !aligns.empty()) {
      nb->annotations = WithDimAligns(*nb, w, std::move(aligns));
    }
  }
  Block written(std::move(nb));
  absl::StatusOr<arith::AccessRegions> access = arith::InferBlockAccess(written, &ana);
  if (!access.ok()) {
    return fail(cr, absl::StrCat("cannot infer the reads: ", access.status().message()));
  }
  absl::flat_hash_set<const BufferNode*> changed;
  for (const BufferRegion& rd : cb->reads) {
    if (rd.buffer.get() != buf.get()) changed.insert(rd.buffer.get());
  }
  auto merged = MakeNode<BlockNode>(*written);
  merged->reads = MergeReads(pb->reads, access->reads, changed, buf.get());

  const StmtNode* root = BlockNestRoot(index, sref);
  absl::StatusOr<PrimFunc> without = RemoveStmt(state->func(), root);
  if (!without.ok()) {
    return fail(cr, absl::StrCat("cannot remove ", what, ": ", without.status().message()));
  }
  PrimFunc g = ReplaceStmts(*without, {{pb, Stmt(Block(std::move(merged)))}});
  state->Replace(RemoveAlloc(g, buf.get()));
  return absl::OkStatus();
}

TESSEL_REGISTER_PRIMITIVE(primitive::ComputeInline);
TESSEL_REGISTER_PRIMITIVE(primitive::ReverseComputeInline);

}  // namespace tessel::ir::schedule
