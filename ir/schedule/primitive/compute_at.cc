// compute_at and reverse_compute_at (see compute_at.h).
#include "ir/schedule/primitive/compute_at.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/kept_predicate.h"
#include "ir/schedule/loop_independence.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/simplify_nest.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

namespace {

// What a region index is in terms of the moved block's iter vars: iter var
// `k` plus `offset`.
struct IterIndex {
  int k = -1;
  int64_t offset = 0;
};

std::optional<IterIndex> MatchIterIndex(const Expr& e, const BlockNode* b) {
  auto var_of = [&](const Expr& x) -> int {
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      if (x.get() == b->iter_vars[k].var.get()) return static_cast<int>(k);
    }
    return -1;
  };
  if (int k = var_of(e); k >= 0) return IterIndex{k, 0};
  const auto* bin = dyn_cast<BinaryNode>(e);
  if (bin == nullptr || (bin->kind() != NodeKind::kAdd && bin->kind() != NodeKind::kSub)) {
    return std::nullopt;
  }
  std::optional<int64_t> c = arith::AsConstInt(bin->b);
  int k = var_of(bin->a);
  if (!c || k < 0) return std::nullopt;
  return IterIndex{k, bin->kind() == NodeKind::kAdd ? *c : -*c};
}

// The inclusive range [lo, hi] of one iter var per loop iteration; unset: its
// whole domain.
struct IterRange {
  Expr lo, hi;
};

// Narrows the ranges of `b`'s iter vars by a region `need` of a buffer the
// block accesses at `declared` (one iter var plus a constant per dimension).
// `intersect`: a second constraint must agree with the first (reverse), else
// the union is taken (compute_at). Returns "" or why not.
std::string Narrow(const BlockNode* b, const BufferRegion& declared, const BufferRegion& need,
                   bool intersect, arith::Analyzer* ana, std::vector<std::optional<IterRange>>* out) {
  for (size_t d = 0; d < declared.region.size(); ++d) {
    const Range& r = declared.region[d];
    std::optional<IterIndex> m = MatchIterIndex(r.min, b);
    if (!m || !ana->CanProveEqual(r.extent, IntImm(r.extent->dtype, 1))) {
      std::string idx = PrintExpr(r.min);
      if (!arith::IsConstInt(r.extent, 1)) idx += " +: " + PrintExpr(r.extent);
      return absl::StrCat(DescribeBlock(b), " accesses ", declared.buffer->name, " at ", idx,
                          " in dimension ", d,
                          "; the region maps back to its iter vars only through an index that "
                          "is an iter var plus a constant");
    }
    DataType t = b->iter_vars[m->k].var->dtype;
    const Range& n = need.region[d];
    if (n.min->dtype != t || n.extent->dtype != t) {
      return absl::StrCat("the region of ", declared.buffer->name, " is indexed by ",
                          n.min->dtype.ToString(), " where iter var ",
                          b->iter_vars[m->k].var->name, " of ", DescribeBlock(b), " is ",
                          t.ToString());
    }
    Expr lo = ana->Simplify(Sub(n.min, IntImm(t, m->offset)));
    Expr hi = ana->Simplify(Sub(Add(n.min, n.extent), IntImm(t, m->offset + 1)));
    std::optional<IterRange>& cur = (*out)[m->k];
    if (!cur) {
      cur = IterRange{lo, hi};
    } else if (intersect) {
      if (!ana->CanProveEqual(cur->lo, lo) || !ana->CanProveEqual(cur->hi, hi)) {
        return absl::StrCat("the regions produced for ", DescribeBlock(b), " give iter var ",
                            b->iter_vars[m->k].var->name, " the ranges [", PrintExpr(cur->lo),
                            ", ", PrintExpr(cur->hi), "] and [", PrintExpr(lo), ", ",
                            PrintExpr(hi), "], which are not provably the same");
      }
    } else {
      cur = IterRange{ana->Simplify(Min(cur->lo, lo)), ana->Simplify(Max(cur->hi, hi))};
    }
  }
  return "";
}

bool UsesLoopsAround(const StmtIndex& index, int loop, const Expr& e) {
  for (int p = loop; p >= 0 && index.loop(p) != nullptr; p = index.at(p).parent) {
    if (arith::UsesVar(e, index.loop(p)->loop_var.get())) return true;
  }
  return false;
}

// `floordiv(x, c) * c` (c > 0) as `x - floormod(x, c)`: the same value, in a
// form the analyzer bounds (floormod lies in [0, c)), so that it can prove
// `(n + 7) // 8 * 8 >= n`.
class ExpandTileProducts : public IRMutator {
 public:
  Expr VisitBinary(const BinaryNode* op) override {
    Expr e = IRMutator::VisitBinary(op);
    const auto* mul = dyn_cast<BinaryNode>(e);
    if (mul == nullptr || mul->kind() != NodeKind::kMul) return e;
    const auto* div = dyn_cast<BinaryNode>(mul->a);
    std::optional<int64_t> c = arith::AsConstInt(mul->b);
    if (div == nullptr || div->kind() != NodeKind::kFloorDiv || !c || *c <= 0 ||
        arith::AsConstInt(div->b) != c) {
      return e;
    }
    return Sub(div->a, FloorMod(div->a, div->b));
  }
};

// Whether `made` (what the producers under loop `loop` write of a buffer,
// per iteration), over every iteration of `loop` and the loops around it in
// the scope, covers all that `b` reads of it at `declared` (an iter var plus a
// constant per dimension, checked by Narrow). Under the loop, `b` runs only
// the instances whose inputs are written there: an instance reading beyond
// (pad_einsum's padding copy, whose padding reads nothing written) would never
// run. The union is taken as its hull: each iteration's region is exact, and a
// tile that does not divide its extent trims the last one (a `min`, which
// relaxes to a hull, not an exact region). The hull must provably cover the
// domain; a symbolic tile count times the tile (`(n + 7) // 8 * 8` against
// `n`) is proved through ExpandTileProducts. Holes inside the hull (a strided
// producer) go unseen. Returns "" or why not.
std::string CheckProducedCovers(const StmtIndex& index, int loop, const BlockNode* b,
                                const BufferRegion& declared, const BufferRegion& made,
                                arith::Analyzer* ana) {
  arith::IntSetMap dom;
  for (int p = loop; p >= 0 && index.loop(p) != nullptr; p = index.at(p).parent) {
    const ForNode* f = index.loop(p);
    dom[f->loop_var.get()] = arith::IntSet::FromRange(Range{f->min, f->extent});
  }
  arith::AccessRegion all = arith::RelaxRegion(made, dom, ana);
  for (size_t d = 0; d < declared.region.size(); ++d) {
    std::optional<IterIndex> m = MatchIterIndex(declared.region[d].min, b);
    if (!m) continue;  // Narrow refused it already.
    const IterVar& iv = b->iter_vars[m->k];
    DataType t = iv.var->dtype;
    Expr need_lo = ana->Simplify(Add(iv.dom.min, IntImm(t, m->offset)));
    Expr need_hi = ana->Simplify(Add(need_lo, iv.dom.extent));
    const Range& got = all.region.region[d];
    Expr got_hi = ana->Simplify(Add(got.min, got.extent));
    ExpandTileProducts expand;
    if (got.min->dtype == t && ana->CanProve(LE(expand.VisitExpr(got.min), need_lo)) &&
        ana->CanProve(GE(expand.VisitExpr(got_hi), need_hi))) {
      continue;
    }
    return absl::StrCat("over all iterations of ", DescribeLoop(index.loop(loop)),
                        " its producers write ", arith::AccessRegionToString(all), ", which does "
                        "not cover [", PrintExpr(need_lo), ", ", PrintExpr(need_hi),
                        ") in dimension ", d, ", all that ", DescribeBlock(b), " reads there (iter var ",
                        iv.var->name, "); the instances beyond would never run");
  }
  return "";
}

// An upper bound of hi - lo + 1 that sees through the min and max that
// clipping and predicate trimming create: min(a, b) - lo + 1 is at most both
// a - lo + 1 and b - lo + 1 (interval arithmetic alone loses that a and lo move
// together).
int64_t ExtentUpperBound(const Expr& lo, const Expr& hi, arith::Analyzer* ana) {
  if (const auto* m = dyn_cast<BinaryNode>(hi); m != nullptr && m->kind() == NodeKind::kMin) {
    return std::min(ExtentUpperBound(lo, m->a, ana), ExtentUpperBound(lo, m->b, ana));
  }
  if (const auto* m = dyn_cast<BinaryNode>(lo); m != nullptr && m->kind() == NodeKind::kMax) {
    return std::min(ExtentUpperBound(m->a, hi, ana), ExtentUpperBound(m->b, hi, ana));
  }
  Expr e = ana->Simplify(Add(Sub(hi, lo), IntImm(lo->dtype, 1)));
  return ana->GetConstIntBound(e).max_value;
}

// The arms of a min: `value <= min(a, b)` is `value < a + 1 && value < b + 1`.
void MinArms(const Expr& e, std::vector<Expr>* out) {
  if (const auto* m = dyn_cast<BinaryNode>(e); m != nullptr && m->kind() == NodeKind::kMin) {
    MinArms(m->a, out);
    MinArms(m->b, out);
    return;
  }
  out->push_back(e);
}

// The block's new nest: one loop per iter var over its range (clipped to the
// domain), bindings `lo + ax`, and predicates where an extent is not constant.
absl::StatusOr<Stmt> BuildNest(const ScheduleState& state, int loop, const BlockRealizeNode* r,
                               const std::vector<std::optional<IterRange>>& ranges,
                               const std::vector<Expr>& kept_predicate,
                               bool preserve_unit_loops, const std::string& primitive,
                               arith::Analyzer* ana) {
  const BlockNode* b = r->block.get();
  std::vector<Expr> bindings;
  Expr predicate = Bool(true);
  std::vector<std::pair<Var, Expr>> loops;  // (var, extent), outermost first.
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    DataType t = iv.var->dtype;
    Expr dom_hi = ana->Simplify(Sub(Add(iv.dom.min, iv.dom.extent), IntImm(t, 1)));
    Expr lo = iv.dom.min, hi = dom_hi;
    if (ranges[k]) {
      lo = ana->Simplify(Max(ranges[k]->lo, iv.dom.min));
      hi = ana->Simplify(Min(ranges[k]->hi, dom_hi));
    }
    Expr extent = ana->Simplify(Add(Sub(hi, lo), IntImm(t, 1)));
    std::optional<int64_t> c = arith::AsConstInt(extent);
    bool guard = false;
    if (!c && UsesLoopsAround(state.index(), loop, extent)) {
      int64_t bound = ExtentUpperBound(lo, hi, ana);
      if (bound >= arith::kPosInf || bound > (int64_t{1} << 31)) {
        return state.Error(r, absl::StrCat(primitive, ": cannot bound the extent ",
                                           PrintExpr(extent), " of iter var ", iv.var->name,
                                           " of ", DescribeBlock(b), " by a constant"));
      }
      c = bound;
      guard = true;
    }
    if (c && *c <= 0) {
      return state.Error(r, absl::StrCat(primitive, ": the range of iter var ", iv.var->name,
                                         " of ", DescribeBlock(b), " needed at this loop is empty"));
    }
    if (c && *c == 1 && !guard && !preserve_unit_loops) {
      bindings.push_back(lo);
      continue;
    }
    Var ax = MakeVar(absl::StrCat("ax", loops.size()), t);
    loops.emplace_back(ax, c ? IntImm(t, *c) : extent);
    Expr value = arith::AddE(lo, ax);
    bindings.push_back(value);
    if (!guard) continue;
    // Only the arms of `hi` the loop's range does not already imply.
    arith::Analyzer::Scope scope(ana);
    ana->Bind(ax, Range{IntImm(t, 0), IntImm(t, *c)});
    std::vector<Expr> arms;
    MinArms(hi, &arms);
    for (const Expr& arm : arms) {
      Expr cond = LT(value, ana->Simplify(Add(arm, IntImm(t, 1))));
      if (!ana->CanProve(cond)) predicate = arith::AndE(predicate, cond);
    }
  }
  VarMap at_new;  // the original predicate's terms, over the new bindings.
  for (size_t k = 0; k < b->iter_vars.size(); ++k) at_new[b->iter_vars[k].var.get()] = bindings[k];
  for (const Expr& t : kept_predicate) predicate = arith::AndE(predicate, Substitute(t, at_new));
  TESSEL_ASSIGN_OR_RETURN(Stmt nest, MakeBlockRealize(bindings, predicate, r->block));
  for (size_t k = loops.size(); k-- > 0;) {
    TESSEL_ASSIGN_OR_RETURN(nest, MakeFor(loops[k].first, IntImm(loops[k].first->dtype, 0),
                                          loops[k].second, ForKind::kSerial, nest));
  }
  return SimplifyNest(state.index(), loop, nest);
}

// The statements of a loop's body: the entries of its sequence, or the body alone.
std::vector<Stmt> BodyEntries(const ForNode* loop) {
  if (const auto* s = dyn_cast<SeqStmtNode>(loop->body)) return s->seq;
  return {loop->body};
}

// `func` with `nest` inserted as statement `pos` of loop `loop`'s body.
PrimFunc InsertIntoLoop(const PrimFunc& func, const ForNode* loop, size_t pos, const Stmt& nest) {
  std::vector<Stmt> seq = BodyEntries(loop);
  seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(std::min(pos, seq.size())), nest);
  auto n = MakeNode<ForNode>(*loop);
  n->body = Stmt(MakeNode<SeqStmtNode>(std::move(seq)));
  return ReplaceStmts(func, {{loop, Stmt(std::move(n))}});
}

// The block and loop a move names, checked to share a scope with the loop not
// already around the block.
struct Move {
  int sref = -1, lsref = -1;
  const BlockRealizeNode* r = nullptr;
  const BlockNode* b = nullptr;
  const ForNode* l = nullptr;
  std::string what;  // "block B"
};

absl::StatusOr<Move> ResolveMove(const ScheduleState& state, const std::string& block,
                                 const Var& loop, const std::string& primitive) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state.BlockSRef(block));
  TESSEL_ASSIGN_OR_RETURN(int lsref, state.LoopSRef(loop));
  const StmtIndex& index = state.index();
  Move m{sref, lsref, index.realize(sref), index.block(sref), index.loop(lsref), ""};
  m.what = DescribeBlock(m.b);
  if (index.ScopeBlock(m.sref) != index.ScopeBlock(m.lsref)) {
    return state.Error(m.l, absl::StrCat(primitive, ": ", DescribeLoop(m.l),
                                         " is not in the scope of ", m.what,
                                         " (they must have the same enclosing block)"));
  }
  if (index.IsAncestor(m.lsref, m.sref)) {
    return state.Error(m.l, absl::StrCat(primitive, ": ", m.what, " is already under ",
                                         DescribeLoop(m.l)));
  }
  return m;
}

// The block writes only buffers nobody else writes.
absl::Status CheckSoleWriter(const ScheduleState& state, int sref, const std::string& primitive) {
  const BlockRealizeNode* r = state.index().realize(sref);
  for (const BufferRegion& w : r->block->writes) {
    const BufferNode* buf = w.buffer.get();
    if (WritersOf(state.index(), buf).size() != 1 ||
        CountStores(state.func()->body, buf) != CountStores(GetRef(r), buf)) {
      return state.Error(r, absl::StrCat(primitive, ": ", DescribeBlock(r->block.get()),
                                         " is not the only writer of ", buf->name));
    }
  }
  return absl::OkStatus();
}

// What both moves require of the block: it runs every point of its domain
// once, and nothing else writes what it writes.
absl::Status CheckMovable(const ScheduleState& state, const Move& m, const std::string& primitive) {
  if (std::string why = CheckCoversDomain(state.index(), m.sref); !why.empty()) {
    return state.Error(m.r, absl::StrCat(primitive, ": ", m.what,
                                         " does not run every point of its domain once: ", why));
  }
  return CheckSoleWriter(state, m.sref, primitive);
}

// The index of the first (`first`) or last entry of the loop's body that holds
// one of `blocks`; nullopt when none does.
std::optional<size_t> EntryHolding(const StmtIndex& index, const ForNode* loop,
                                   const std::vector<int>& blocks, bool first) {
  std::vector<Stmt> entries = BodyEntries(loop);
  std::optional<size_t> found;
  for (size_t e = 0; e < entries.size(); ++e) {
    absl::flat_hash_set<std::string> names = BlocksIn(entries[e]);
    for (int s : blocks) {
      if (names.contains(index.block(s)->name)) found = e;
    }
    if (found && first) return found;
  }
  return found;
}

// What the loop's body reads and writes per iteration, with `ana` bound to the
// loops around it.
absl::StatusOr<arith::AccessRegions> AccessUnder(const ScheduleState& state, const Move& m,
                                                 const std::string& primitive,
                                                 arith::Analyzer* ana) {
  BindLoopsAround(state.index(), m.lsref, ana);
  absl::StatusOr<arith::AccessRegions> access = arith::InferSubtreeAccess(m.l->body, ana);
  if (!access.ok()) {
    return state.Error(m.l, absl::StrCat(primitive, ": region inference failed: ",
                                         access.status().message()));
  }
  return access;
}

// The region of `buffer` in `access`, or null.
const arith::AccessRegion* FindAccess(const std::vector<arith::AccessRegion>& access,
                                      const BufferNode* buffer) {
  for (const arith::AccessRegion& a : access) {
    if (a.region.buffer.get() == buffer) return &a;
  }
  return nullptr;
}

// Builds the block's nest over `ranges` and moves it to statement `pos` of the loop.
absl::Status Place(ScheduleState* state, const Move& m,
                   const std::vector<std::optional<IterRange>>& ranges, size_t pos,
                   bool preserve_unit_loops, const std::string& primitive,
                   arith::Analyzer* ana) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> kept, KeptPredicate(*state, m.sref, primitive));
  TESSEL_ASSIGN_OR_RETURN(Stmt nest, BuildNest(*state, m.lsref, m.r, ranges, kept,
                                               preserve_unit_loops, primitive, ana));
  absl::StatusOr<PrimFunc> without =
      RemoveStmt(state->func(), BlockNestRoot(state->index(), m.sref));
  if (!without.ok()) {
    return state->Error(m.r, absl::StrCat(primitive, ": cannot move ", m.what, ": ",
                                          without.status().message()));
  }
  // The parallel, vectorized and thread-bound loops around the old and the new
  // place must still run their iterations independently (loop_independence.h).
  std::vector<const VarNode*> kinds = NonSerialLoopsAround(state->index(), m.lsref);
  for (const VarNode* v : NonSerialLoopsAround(state->index(), m.sref)) kinds.push_back(v);
  const std::string doing =
      absl::StrCat(primitive, ": moving ", m.what, " under ", DescribeLoop(m.l));
  PrimFunc before = state->func();
  state->Replace(InsertIntoLoop(*without, m.l, pos, nest));
  return KeepLoopKindsOrUndo(state, before, kinds, doing);
}

bool WritesAnyOf(const BlockNode* b, const std::vector<BufferRegion>& regions) {
  for (const BufferRegion& r : regions) {
    if (Touches(b->writes, r.buffer.get())) return true;
  }
  return false;
}

bool ReadsAnyOf(const StmtIndex& index, int s, const std::vector<BufferRegion>& regions) {
  for (const BufferRegion& r : regions) {
    if (Touches(index.block(s)->reads, r.buffer.get()) ||
        CountLoads(GetRef(index.realize(s)), r.buffer.get()) > 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::Status ComputeAt(ScheduleState* state, const std::string& block, const Var& loop,
                       bool preserve_unit_loops) {
  const std::string primitive = "compute_at";
  TESSEL_ASSIGN_OR_RETURN(Move m, ResolveMove(*state, block, loop, primitive));
  const StmtIndex& index = state->index();
  const auto& [sref, lsref, r, b, l, what] = m;
  auto fail = [&](const Node* at, const std::string& why) {
    return state->Error(at, absl::StrCat(primitive, ": ", why));
  };
  for (const IterVar& iv : b->iter_vars) {
    if (iv.kind == IterKind::kOpaque) {
      return fail(r, absl::StrCat(what, " has opaque iter var ", iv.var->name,
                                  "; its loops cannot be regenerated"));
    }
  }
  TESSEL_RETURN_IF_ERROR(CheckMovable(*state, m, primitive));
  for (const BufferRegion& w : b->writes) {
    if (IsParam(state->func(), w.buffer.get())) {
      return fail(r, absl::StrCat(what, " writes ", w.buffer->name,
                                  ", a parameter of the function; at a loop it would compute "
                                  "only what the consumers there read"));
    }
  }

  // Consumers: all under the loop. Writers of P's inputs: none from P onwards.
  std::vector<int> consumers;
  for (int o : index.ChildBlocks(index.ScopeBlock(sref))) {
    if (o <= sref) continue;
    if (ReadsAnyOf(index, o, b->writes)) {
      if (!index.IsAncestor(lsref, o)) {
        return fail(index.realize(o),
                    absl::StrCat("consumer ", DescribeBlock(index.block(o)), " of ", what,
                                 " is not under ", DescribeLoop(l),
                                 "; every consumer must be, or it would read unwritten "
                                 "elements"));
      }
      consumers.push_back(o);
    }
    bool in_range = o < lsref || index.IsAncestor(lsref, o);
    if (in_range && WritesAnyOf(index.block(o), b->reads)) {
      return fail(index.realize(o),
                  absl::StrCat(DescribeBlock(index.block(o)), " writes a buffer ", what,
                               " reads and would run before it once it moves under ",
                               DescribeLoop(l)));
    }
  }
  if (consumers.empty()) {
    return fail(r, absl::StrCat(what, " has no consumer under ", DescribeLoop(l)));
  }

  // Where it goes: before the first statement of the loop's body holding a consumer.
  size_t pos = EntryHolding(index, l, consumers, true).value_or(BodyEntries(l).size());

  // The region the consumers read per iteration, mapped onto P's iter vars.
  arith::Analyzer ana;
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions access, AccessUnder(*state, m, primitive, &ana));
  std::vector<std::optional<IterRange>> ranges(b->iter_vars.size());
  for (const BufferRegion& w : b->writes) {
    const arith::AccessRegion* need = FindAccess(access.reads, w.buffer.get());
    if (need == nullptr) continue;
    if (std::string why = Narrow(b, w, need->region, false, &ana, &ranges); !why.empty()) {
      return fail(r, why);
    }
  }
  return Place(state, m, ranges, pos, preserve_unit_loops, primitive, &ana);
}

absl::Status ReverseComputeAt(ScheduleState* state, const std::string& block, const Var& loop,
                              bool preserve_unit_loops) {
  const std::string primitive = "reverse_compute_at";
  TESSEL_ASSIGN_OR_RETURN(Move m, ResolveMove(*state, block, loop, primitive));
  const StmtIndex& index = state->index();
  const auto& [sref, lsref, r, b, l, what] = m;
  auto fail = [&](const Node* at, const std::string& why) {
    return state->Error(at, absl::StrCat(primitive, ": ", why));
  };
  if (lsref > sref) {
    return fail(l, absl::StrCat(DescribeLoop(l), " comes after ", what,
                                "; a block moves only under a loop of its producers"));
  }
  for (const IterVar& iv : b->iter_vars) {
    if (iv.kind != IterKind::kSpatial) {
      return fail(r, absl::StrCat(what, " has ", IterKindName(iv.kind), " iter var ",
                                  iv.var->name,
                                  "; only blocks with spatial iter vars move under a producer's "
                                  "loop (a reduction would be split across its iterations)"));
    }
  }
  TESSEL_RETURN_IF_ERROR(CheckMovable(*state, m, primitive));

  // Producers under the loop; nobody else in the way touches C's buffers.
  std::vector<int> producers;
  for (int o : index.ChildBlocks(index.ScopeBlock(sref))) {
    if (o >= sref) break;
    const BlockNode* ob = index.block(o);
    bool under = index.IsAncestor(lsref, o);
    if (!under && o < lsref) continue;
    if (under && WritesAnyOf(ob, b->reads)) {
      producers.push_back(o);
      continue;
    }
    if (WritesAnyOf(ob, b->reads) || WritesAnyOf(ob, b->writes) || ReadsAnyOf(index, o, b->writes)) {
      return fail(index.realize(o),
                  absl::StrCat(DescribeBlock(ob), " touches a buffer ", what,
                               (WritesAnyOf(ob, b->reads) ? " reads" : " writes"),
                               " and would run after it once it moves under ", DescribeLoop(l)));
    }
  }
  if (producers.empty()) {
    return fail(l, absl::StrCat("no producer of ", what, " is under ", DescribeLoop(l)));
  }
  for (int p : producers) {
    const BlockRealizeNode* pr = index.realize(p);
    for (size_t k = 0; k < pr->block->iter_vars.size(); ++k) {
      if (pr->block->iter_vars[k].kind == IterKind::kSpatial) continue;
      if (UsesLoopsAround(index, lsref, pr->iter_values[k])) {
        return fail(pr, absl::StrCat("producer ", DescribeBlock(pr->block.get()), " binds its ",
                                     IterKindName(pr->block->iter_vars[k].kind), " iter var ",
                                     pr->block->iter_vars[k].var->name, " to ",
                                     PrintExpr(pr->iter_values[k]), ", which uses ",
                                     DescribeLoop(l), " or a loop around it; ", what,
                                     " would read partial results"));
      }
    }
  }

  // Where it goes: after the last statement of the loop's body holding a producer.
  std::optional<size_t> last = EntryHolding(index, l, producers, false);
  size_t pos = last ? *last + 1 : 0;

  arith::Analyzer ana;
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions access, AccessUnder(*state, m, primitive, &ana));
  std::vector<std::optional<IterRange>> ranges(b->iter_vars.size());
  for (const BufferRegion& rd : b->reads) {
    const arith::AccessRegion* made = FindAccess(access.writes, rd.buffer.get());
    if (made == nullptr) continue;
    if (!made->exact) {
      return fail(l, absl::StrCat("the region of ", rd.buffer->name, " written under ",
                                  DescribeLoop(l), " is ", arith::AccessRegionToString(*made),
                                  ", not exact; what ", what, " may read there is unknown"));
    }
    if (std::string why = Narrow(b, rd, made->region, true, &ana, &ranges); !why.empty()) {
      return fail(r, why);
    }
    if (std::string why = CheckProducedCovers(index, lsref, b, rd, made->region, &ana);
        !why.empty()) {
      return fail(r, why);
    }
  }
  return Place(state, m, ranges, pos, preserve_unit_loops, primitive, &ana);
}

namespace {

// Root leaves the block where it is; inline folds it into its consumers
// (compute_at) or its producer (reverse_compute_at), as in TVM, so that a
// tuner can treat the three alike.
template <typename MoveFn, typename InlineFn>
absl::Status MoveTo(ScheduleState* state, const std::string& block, const ResolvedLocation& loop,
                    bool preserve_unit_loops, MoveFn move, InlineFn inline_fn) {
  if (const Var* var = std::get_if<Var>(&loop)) {
    return move(state, block, *var, preserve_unit_loops);
  }
  if (std::get<int64_t>(loop) == kInlineLocation) return inline_fn(state, block);
  return absl::OkStatus();
}

}  // namespace

absl::Status primitive::ComputeAt::Apply(PrimitiveContext& ctx, const std::string& block,
                                         const ResolvedLocation& loop, bool preserve_unit_loops) {
  return MoveTo(ctx.state(), block, loop, preserve_unit_loops, schedule::ComputeAt,
                schedule::ComputeInline);
}

absl::Status primitive::ReverseComputeAt::Apply(PrimitiveContext& ctx, const std::string& block,
                                                const ResolvedLocation& loop,
                                                bool preserve_unit_loops) {
  return MoveTo(ctx.state(), block, loop, preserve_unit_loops, schedule::ReverseComputeAt,
                schedule::ReverseComputeInline);
}

TESSEL_REGISTER_PRIMITIVE(primitive::ComputeAt);
TESSEL_REGISTER_PRIMITIVE(primitive::ReverseComputeAt);

}  // namespace tessel::ir::schedule
