// rfactor (see rfactor.h).
#include "ir/schedule/primitive/rfactor.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// `C[idx] = C[idx] op rhs` with init `C[idx] = init`.
struct Reduction {
  NodeKind op;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr rhs;
  Expr init;
};

bool ReadsBuffer(const Expr& e, const BufferNode* buffer) {
  class Finder : public IRVisitor {
   public:
    const BufferNode* buffer = nullptr;
    bool found = false;
    void VisitBufferLoad(const BufferLoadNode* op) override {
      found |= op->buffer.get() == buffer;
      IRVisitor::VisitBufferLoad(op);
    }
  } f;
  f.buffer = buffer;
  f.VisitExpr(e);
  return f.found;
}

bool IsConstValue(const Expr& e, double v) {
  if (const auto* f = dyn_cast<FloatImmNode>(e.get())) return f->value == v;
  if (const auto* i = dyn_cast<IntImmNode>(e.get())) return static_cast<double>(i->value) == v;
  return false;
}

// The stores of `s` in order, each with the values of the lets above it put in
// place of their variables; false when `s` holds anything but lets and stores.
// Variables are bound once per function, so the map never needs scoping.
bool InlinedStores(const Stmt& s, VarMap* lets, std::vector<Stmt>* out) {
  if (const auto* let = dyn_cast<LetStmtNode>(s.get())) {
    (*lets)[let->var.get()] = Substitute(let->value, *lets);
    return InlinedStores(let->body, lets, out);
  }
  if (const auto* seq = dyn_cast<SeqStmtNode>(s.get())) {
    for (const Stmt& part : seq->seq) {
      if (!InlinedStores(part, lets, out)) return false;
    }
    return true;
  }
  if (s->kind() != NodeKind::kBufferStore) return false;
  out->push_back(Substitute(s, *lets));
  return true;
}

// The reason `block` is not a commutative reduction into each buffer it
// writes, or "": one update `C[idx] = C[idx] op x` per written buffer, x
// reading none of them (so the updates are independent and each splits on its
// own), and one init `C[idx] = c` per buffer. Lets in the body are inlined, so
// layer norm's `let s = sum[i] + x; let q = sqsum[i] + x * x; sum[i] = s; sqsum[i] = q`
// is two reductions.
std::string MatchReductions(const BlockNode* block, std::vector<Reduction>* out) {
  const std::string what = DescribeBlock(block);
  if (!block->init) return absl::StrCat(what, " has no init; rfactor needs a reduction block");
  const std::string shape = "is not `C[...] = C[...] op x` with op one of +, *, max, min";
  std::vector<Stmt> updates, inits;
  VarMap lets;
  if (!InlinedStores(block->body, &lets, &updates)) {
    return absl::StrCat("the update of ", what, " ", shape);
  }
  if (!InlinedStores(block->init, &lets, &inits) || inits.size() != updates.size() ||
      updates.size() != block->writes.size()) {
    return absl::StrCat(what, " writes ", block->writes.size(), " buffer(s), stores ",
                        updates.size(), " update(s) and ", inits.size(),
                        " init(s); rfactor needs one reduction per buffer written");
  }
  auto written = [&](const BufferNode* b) {
    for (const BufferRegion& r : block->writes) {
      if (r.buffer.get() == b) return true;
    }
    return false;
  };
  auto reads_any = [&](const Expr& e) {
    for (const BufferRegion& r : block->writes) {
      if (ReadsBuffer(e, r.buffer.get())) return true;
    }
    return false;
  };
  out->clear();
  for (const Stmt& u : updates) {
    const auto* store = static_cast<const BufferStoreNode*>(u.get());
    const BufferNode* c = store->buffer.get();
    const auto* bin = dyn_cast<BinaryNode>(store->value.get());
    NodeKind op = store->value->kind();
    bool combiner = op == NodeKind::kAdd || op == NodeKind::kMul || op == NodeKind::kMax ||
                    op == NodeKind::kMin;
    bool repeated = false;
    for (const Reduction& r : *out) repeated |= r.buffer.get() == c;
    if (!written(c) || repeated || bin == nullptr || !combiner) {
      return absl::StrCat("the update of ", what, " ", shape);
    }
    auto is_acc = [&](const Expr& e) {
      const auto* load = dyn_cast<BufferLoadNode>(e.get());
      return load != nullptr && load->buffer.get() == c &&
             StructuralEqual(load->indices, store->indices);
    };
    Expr rhs = is_acc(bin->a) ? bin->b : is_acc(bin->b) ? bin->a : Expr();
    if (!rhs || reads_any(rhs)) return absl::StrCat("the update of ", what, " ", shape);
    const BufferStoreNode* init = nullptr;
    for (const Stmt& i : inits) {
      const auto* st = static_cast<const BufferStoreNode*>(i.get());
      if (st->buffer.get() == c) init = st;
    }
    if (init == nullptr || !StructuralEqual(init->indices, store->indices) ||
        reads_any(init->value)) {
      return absl::StrCat("the init of ", what,
                          " does not store to the element the update "
                          "accumulates into");
    }
    // Each partial result starts from the init value: only an identity keeps
    // the sum (product) what it was; max and min do not mind a repeat.
    if ((op == NodeKind::kAdd && !IsConstValue(init->value, 0)) ||
        (op == NodeKind::kMul && !IsConstValue(init->value, 1))) {
      return absl::StrCat("the init value of ", what, " is not the identity of its combiner (",
                          op == NodeKind::kAdd ? "0 for +" : "1 for *",
                          "): every partial result would add it again");
    }
    out->push_back(Reduction{op, store->buffer, store->indices, rhs, init->value});
  }
  return "";
}

// One statement as itself, more as a sequence (one reduction keeps its bare store).
Stmt InOrder(const std::vector<Stmt>& stmts) { return stmts.size() == 1 ? stmts[0] : Seq(stmts); }

Expr Combine(NodeKind op, const Expr& a, const Expr& b) { return ValueOrDie(MakeBinary(op, a, b)); }

std::vector<Expr> InsertAt(std::vector<Expr> v, int64_t axis, const Expr& e) {
  v.insert(v.begin() + axis, e);
  return v;
}

}  // namespace

absl::StatusOr<std::string> RFactor(ScheduleState* state, const Var& loop, int64_t factor_axis) {
  TESSEL_ASSIGN_OR_RETURN(int lsref, state->LoopSRef(loop));
  const StmtIndex& index = state->index();
  const ForNode* rf_loop = index.loop(lsref);
  std::vector<int> below = index.ChildBlocks(lsref);
  if (below.size() != 1) {
    std::vector<std::string> names;
    for (int b : below) names.push_back(index.block(b)->name);
    return state->Error(
        rf_loop, absl::StrCat("rfactor needs exactly one block below ", DescribeLoop(rf_loop),
                              "; it has ", below.size(), names.empty() ? "" : " (",
                              absl::StrJoin(names, ", "), names.empty() ? "" : ")"));
  }
  const int sref = below[0];
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* blk = realize->block.get();
  std::vector<Reduction> reds;
  if (std::string why = MatchReductions(blk, &reds); !why.empty()) return state->Error(blk, why);
  // Where the new dimension goes in each rfactor buffer (a negative axis
  // counts from each one's end).
  std::vector<int64_t> axes;
  for (const Reduction& red : reds) {
    const int64_t ndim = red.buffer->ndim();
    if (factor_axis < -(ndim + 1) || factor_axis > ndim) {
      return state->ArgError(
          rf_loop, absl::StrCat("factor_axis ", factor_axis, " is out of range: the rfactor buffer",
                                reds.size() > 1 ? absl::StrCat(" of ", red.buffer->name) : "",
                                " has ", ndim + 1, " dimensions"));
    }
    axes.push_back(factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis);
  }

  // Which loops the spatial and the reduce bindings use.
  std::vector<int> loops = index.LoopsAbove(sref);
  absl::flat_hash_map<const VarNode*, int> loop_pos;
  for (size_t k = 0; k < loops.size(); ++k) loop_pos[index.loop(loops[k])->loop_var.get()] = k;
  std::vector<bool> spatial(loops.size()), reduce(loops.size());
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    if (iv.kind == IterKind::kOpaque) {
      return state->Error(blk,
                          absl::StrCat(DescribeBlock(blk), " has opaque iter var ", iv.var->name,
                                       "; rfactor needs spatial and reduce "
                                       "iter vars only"));
    }
    for (size_t k = 0; k < loops.size(); ++k) {
      if (!arith::UsesVar(realize->iter_values[v], index.loop(loops[k])->loop_var.get())) continue;
      (iv.kind == IterKind::kReduce ? reduce : spatial)[k] = true;
    }
  }
  const size_t rf = loop_pos[rf_loop->loop_var.get()];
  if (spatial[rf] || !reduce[rf]) {
    return state->Error(rf_loop, absl::StrCat(DescribeLoop(rf_loop), " is bound to ",
                                              spatial[rf] ? "a spatial" : "no reduce",
                                              " iter var of ", DescribeBlock(blk),
                                              "; rfactor needs a loop of reduce iter vars only"));
  }
  for (size_t k = 0; k < loops.size(); ++k) {
    const ForNode* f = index.loop(loops[k]);
    if (spatial[k] && reduce[k]) {
      return state->Error(f, absl::StrCat(DescribeLoop(f),
                                          " is bound to both spatial and reduce "
                                          "iter vars of ",
                                          DescribeBlock(blk)));
    }
    if (UsesAnyVar(f->min, loop_pos) || UsesAnyVar(f->extent, loop_pos)) {
      return state->Error(f, absl::StrCat("the range of ", DescribeLoop(f),
                                          " depends on another loop; rfactor needs a box"));
    }
  }
  // Nothing else under the nest may touch C: the write-back comes after it.
  const int top = loops.front();
  for (int b : index.ChildBlocks(top)) {
    if (b == sref) continue;
    const BlockNode* other = index.block(b);
    for (const auto* regions : {&other->reads, &other->writes}) {
      for (const BufferRegion& r : *regions) {
        for (const Reduction& red : reds) {
          if (r.buffer.get() != red.buffer.get()) continue;
          return state->Error(other,
                              absl::StrCat(DescribeBlock(other), " uses buffer ", red.buffer->name,
                                           " under the loop nest of ", DescribeBlock(blk),
                                           "; the write-back after the nest comes too late"));
        }
      }
    }
  }

  // ---- The rfactor block: the rf loop's iteration is a spatial index. ----
  DataType lt = rf_loop->loop_var->dtype;
  Var v_rf = MakeVar(absl::StrCat("v", rf_loop->loop_var->name), lt);
  std::vector<IterVar> rf_iters = {
      IterVar{v_rf, Range{rf_loop->min, rf_loop->extent}, IterKind::kSpatial}};
  std::vector<Expr> rf_values = {rf_loop->loop_var};
  VarMap loop_to_iter = {{rf_loop->loop_var.get(), v_rf}};
  VarMap iter_subst;
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    const Expr& value = realize->iter_values[v];
    if (iv.kind == IterKind::kSpatial || !arith::UsesVar(value, rf_loop->loop_var.get())) {
      rf_iters.push_back(iv);
      rf_values.push_back(value);
      continue;
    }
    for (int l : loops) {
      const ForNode* f = index.loop(l);
      if (!arith::UsesVar(value, f->loop_var.get()) || loop_to_iter.contains(f->loop_var.get())) {
        continue;
      }
      Var nv = MakeVar(absl::StrCat("v", f->loop_var->name), f->loop_var->dtype);
      loop_to_iter[f->loop_var.get()] = nv;
      rf_iters.push_back(IterVar{nv, Range{f->min, f->extent}, IterKind::kReduce});
      rf_values.push_back(f->loop_var);
    }
    iter_subst[iv.var.get()] = Substitute(value, loop_to_iter);
  }
  std::string rf_name = UniqueBlockName(index, absl::StrCat(blk->name, "_rf"));
  // One rfactor buffer per reduction: named after the block when there is one
  // (B -> B_rf), after each buffer when there are more (sum -> sum_rf).
  std::vector<Buffer> rf_bufs;
  for (size_t p = 0; p < reds.size(); ++p) {
    const Buffer& c = reds[p].buffer;
    Buffer rf_buf =
        CacheBuffer(c, reds.size() == 1 ? rf_name : absl::StrCat(c->name, "_rf"), c->scope);
    auto n = MakeNode<BufferNode>(*rf_buf);
    n->shape = InsertAt(c->shape, axes[p], rf_loop->extent);
    n->strides.clear();
    rf_bufs.push_back(Buffer(std::move(n)));
  }
  arith::Analyzer ana;
  Expr rf_index = ana.Simplify(Sub(v_rf, rf_loop->min));
  bool reduces = false;
  for (const IterVar& iv : rf_iters) reduces |= iv.kind == IterKind::kReduce;
  std::vector<Stmt> rf_updates, rf_inits;
  std::vector<BufferRegion> rf_writes;
  for (size_t p = 0; p < reds.size(); ++p) {
    const Reduction& red = reds[p];
    std::vector<Expr> idx;
    for (const Expr& e : red.indices) idx.push_back(Substitute(e, iter_subst));
    std::vector<Expr> rf_idx = InsertAt(idx, axes[p], rf_index);
    Expr rhs = Substitute(red.rhs, iter_subst);
    Expr init_value = Substitute(red.init, iter_subst);
    rf_writes.push_back(PointRegion(rf_bufs[p], rf_idx));
    if (reduces) {
      TESSEL_ASSIGN_OR_RETURN(Expr acc, MakeBufferLoad(rf_bufs[p], rf_idx));
      TESSEL_ASSIGN_OR_RETURN(Stmt update,
                              MakeBufferStore(rf_bufs[p], Combine(red.op, acc, rhs), rf_idx));
      TESSEL_ASSIGN_OR_RETURN(Stmt init, MakeBufferStore(rf_bufs[p], init_value, rf_idx));
      rf_updates.push_back(update);
      rf_inits.push_back(init);
    } else {
      // The loop was the whole reduction: each partial result is one term (an
      // init needs a reduce iter var to start at). + and * start from their
      // identity, so the term alone; max and min combine it with the init.
      bool identity = red.op == NodeKind::kAdd || red.op == NodeKind::kMul;
      TESSEL_ASSIGN_OR_RETURN(
          Stmt update,
          MakeBufferStore(rf_bufs[p], identity ? rhs : Combine(red.op, init_value, rhs), rf_idx));
      rf_updates.push_back(update);
    }
  }
  Stmt rf_body = InOrder(rf_updates);
  Stmt rf_init = rf_inits.empty() ? Stmt() : InOrder(rf_inits);
  TESSEL_ASSIGN_OR_RETURN(Block probe, MakeBlock(rf_name, rf_iters, {}, {}, rf_body));
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions access, arith::InferBlockAccess(probe, &ana));
  std::vector<BufferRegion> rf_reads;
  for (const arith::AccessRegion& r : access.reads) {
    bool partial = false;
    for (const Buffer& rf_buf : rf_bufs) partial |= r.region.buffer.get() == rf_buf.get();
    if (!partial) rf_reads.push_back(r.region);
  }
  TESSEL_ASSIGN_OR_RETURN(Block rf_block,
                          MakeBlock(rf_name, rf_iters, rf_reads, rf_writes, rf_body, rf_init));
  TESSEL_ASSIGN_OR_RETURN(Stmt rf_realize,
                          MakeBlockRealize(rf_values, realize->predicate, rf_block));

  // ---- The write-back block: over the spatial loops and the rf loop. ----
  VarMap wb_loops;
  std::vector<int> copied;
  std::vector<Var> copied_vars;
  absl::flat_hash_map<const VarNode*, int> uncopied;
  for (size_t k = 0; k < loops.size(); ++k) {
    const ForNode* f = index.loop(loops[k]);
    if (!spatial[k] && k != rf) {
      uncopied[f->loop_var.get()] = 0;
      continue;
    }
    copied.push_back(loops[k]);
    copied_vars.push_back(MakeVar(f->loop_var->name, f->loop_var->dtype));
    wb_loops[f->loop_var.get()] = copied_vars.back();
  }
  // A predicate term over the loops the write-back does not run over holds for
  // some iteration of them iff it holds at their minimum, when its left side is
  // smallest there (a tail split: k_0 * 4 + k_1 < 23 holds for some k_0 iff k_1 < 23).
  std::vector<Expr> terms = arith::SplitConjuncts(realize->predicate);
  Expr wb_pred = Bool(true);
  {
    arith::Analyzer::Scope scope(&ana);
    for (int l : loops)
      ana.Bind(index.loop(l)->loop_var, Range{index.loop(l)->min, index.loop(l)->extent});
    VarMap at_min;
    for (int l : loops) {
      if (uncopied.contains(index.loop(l)->loop_var.get())) {
        at_min[index.loop(l)->loop_var.get()] = index.loop(l)->min;
      }
    }
    for (const Expr& t : terms) {
      if (!UsesAnyVar(t, uncopied)) {
        wb_pred = arith::AndE(wb_pred, Substitute(t, wb_loops));
        continue;
      }
      const auto* cmp = dyn_cast<BinaryNode>(t.get());
      bool ok = cmp != nullptr && (t->kind() == NodeKind::kLT || t->kind() == NodeKind::kLE) &&
                !UsesAnyVar(cmp->b, uncopied);
      Expr lo = ok ? Substitute(cmp->a, at_min) : Expr();
      if (!ok || !ana.CanProve(LE(lo, cmp->a))) {
        return state->Error(blk, absl::StrCat("the predicate of ", DescribeBlock(blk),
                                              " has a term over the loops the write-back does "
                                              "not run over that is not a tail bound `a < b`"));
      }
      Expr bound = ana.Simplify(ValueOrDie(MakeBinary(t->kind(), lo, cmp->b)));
      if (!ana.CanProve(bound)) wb_pred = arith::AndE(wb_pred, Substitute(bound, wb_loops));
    }
  }
  VarMap wb_iter;
  std::vector<IterVar> wb_iters;
  std::vector<Expr> wb_values;
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    if (iv.kind != IterKind::kSpatial) continue;
    Var nv = MakeVar(iv.var->name, iv.var->dtype);
    wb_iter[iv.var.get()] = nv;
    wb_iters.push_back(IterVar{nv, iv.dom, iv.kind});
    wb_values.push_back(Substitute(realize->iter_values[v], wb_loops));
  }
  Var wb_rf = MakeVar(v_rf->name, lt);
  wb_iters.push_back(IterVar{wb_rf, Range{rf_loop->min, rf_loop->extent}, IterKind::kReduce});
  wb_values.push_back(wb_loops[rf_loop->loop_var.get()]);
  std::vector<Stmt> wb_updates, wb_inits;
  std::vector<BufferRegion> wb_reads, wb_writes;
  for (size_t p = 0; p < reds.size(); ++p) {
    const Reduction& red = reds[p];
    std::vector<Expr> wb_idx;
    for (const Expr& e : red.indices) wb_idx.push_back(Substitute(e, wb_iter));
    std::vector<Expr> wb_rf_idx = InsertAt(wb_idx, axes[p], ana.Simplify(Sub(wb_rf, rf_loop->min)));
    TESSEL_ASSIGN_OR_RETURN(Expr partial, MakeBufferLoad(rf_bufs[p], wb_rf_idx));
    TESSEL_ASSIGN_OR_RETURN(Expr out, MakeBufferLoad(red.buffer, wb_idx));
    TESSEL_ASSIGN_OR_RETURN(Stmt update,
                            MakeBufferStore(red.buffer, Combine(red.op, out, partial), wb_idx));
    TESSEL_ASSIGN_OR_RETURN(Stmt init,
                            MakeBufferStore(red.buffer, Substitute(red.init, wb_iter), wb_idx));
    wb_updates.push_back(update);
    wb_inits.push_back(init);
    wb_reads.push_back(PointRegion(rf_bufs[p], wb_rf_idx));
    wb_writes.push_back(PointRegion(red.buffer, wb_idx));
  }
  TESSEL_ASSIGN_OR_RETURN(Block wb_block,
                          MakeBlock(blk->name, wb_iters, wb_reads, wb_writes, InOrder(wb_updates),
                                    InOrder(wb_inits), {}, blk->annotations));
  TESSEL_ASSIGN_OR_RETURN(Stmt wb, MakeBlockRealize(wb_values, wb_pred, wb_block));
  for (size_t c = copied.size(); c-- > 0;) {
    const ForNode* f = index.loop(copied[c]);
    TESSEL_ASSIGN_OR_RETURN(wb, MakeFor(copied_vars[c], f->min, f->extent, ForKind::kSerial, wb));
  }

  PrimFunc f = InsertNextTo(state->func(), index.at(top).stmt, wb, /*before=*/false);
  f = ReplaceStmts(f, {{realize, rf_realize}});
  int scope = index.ScopeBlock(sref);
  f = AllocateInScope(f, StmtIndex(f), scope < 0 ? "" : index.block(scope)->name, rf_bufs);
  state->Replace(f);
  return rf_name;
}

TESSEL_REGISTER_PRIMITIVE(primitive::RFactor);

}  // namespace tessel::ir::schedule
