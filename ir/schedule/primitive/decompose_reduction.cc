// decompose_reduction (see decompose_reduction.h).
#include "ir/schedule/primitive/decompose_reduction.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

namespace {

std::vector<BufferRegion> Regions(const std::vector<arith::AccessRegion>& rs) {
  std::vector<BufferRegion> out;
  for (const arith::AccessRegion& r : rs) out.push_back(r.region);
  return out;
}

}  // namespace

absl::StatusOr<std::string> DecomposeReduction(ScheduleState* state, const std::string& block,
                                               const Var& loop) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  TESSEL_ASSIGN_OR_RETURN(int lsref, state->LoopSRef(loop));
  const StmtIndex& index = state->index();
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* blk = realize->block.get();
  const ForNode* at = index.loop(lsref);
  if (!blk->init) {
    return state->Error(blk, absl::StrCat(DescribeBlock(blk),
                                          " has no init; decompose_reduction splits the init "
                                          "off a reduction block"));
  }
  std::vector<int> loops = index.LoopsAbove(sref);
  size_t first = 0;
  while (first < loops.size() && loops[first] != lsref) ++first;
  if (first == loops.size()) {
    return state->Error(at, absl::StrCat(DescribeLoop(at), " is not one of the loops above ",
                                         DescribeBlock(blk), " (up to its enclosing block)"));
  }
  // Which loops the spatial and the reduce bindings use.
  absl::flat_hash_map<const VarNode*, int> all_loops;
  for (size_t k = 0; k < loops.size(); ++k) all_loops[index.loop(loops[k])->loop_var.get()] = k;
  absl::flat_hash_set<int> spatial_loops, reduce_loops;
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    if (iv.kind == IterKind::kOpaque) {
      return state->Error(blk,
                          absl::StrCat(DescribeBlock(blk), " has opaque iter var ", iv.var->name,
                                       "; decompose_reduction needs spatial "
                                       "and reduce iter vars only"));
    }
    for (size_t k = 0; k < loops.size(); ++k) {
      if (!arith::UsesVar(realize->iter_values[v], index.loop(loops[k])->loop_var.get())) continue;
      (iv.kind == IterKind::kReduce ? reduce_loops : spatial_loops).insert(k);
    }
  }
  for (size_t k = 0; k < first; ++k) {
    if (!reduce_loops.contains(k)) continue;
    const ForNode* outer = index.loop(loops[k]);
    return state->Error(
        outer, absl::StrCat(DescribeLoop(outer), " is above ", DescribeLoop(at),
                            " and bound to a reduce iter var of ", DescribeBlock(blk),
                            ": the init would run again in each of its iterations; decompose at ",
                            DescribeLoop(outer), " or above"));
  }
  // A loop below `at` bound to no iter var runs the reduction again in each
  // iteration (after compute_at, a recomputation), each time from its init; one
  // init block before `at` would start only the first.
  for (size_t k = first; k < loops.size(); ++k) {
    const ForNode* f = index.loop(loops[k]);
    std::optional<int64_t> extent = arith::AsConstInt(f->extent);
    if (spatial_loops.contains(k) || reduce_loops.contains(k) || (extent && *extent == 1)) continue;
    return state->Error(
        f, absl::StrCat(DescribeLoop(f), " is bound to no iter var of ", DescribeBlock(blk),
                        ": it repeats the reduction, each time from the init; "
                        "decompose at a loop below it"));
  }
  // The loops copied above the init: those below `at` the spatial bindings use.
  VarMap loop_map;
  std::vector<int> copied;
  std::vector<Var> copied_new;
  for (size_t k = first; k < loops.size(); ++k) {
    if (!spatial_loops.contains(k)) continue;
    const ForNode* f = index.loop(loops[k]);
    if (reduce_loops.contains(k)) {
      return state->Error(f,
                          absl::StrCat(DescribeLoop(f),
                                       " is bound to both spatial and "
                                       "reduce iter vars of ",
                                       DescribeBlock(blk), "; the init cannot run over it alone"));
    }
    copied.push_back(k);
    copied_new.push_back(MakeVar(absl::StrCat(f->loop_var->name, "_init"), f->loop_var->dtype));
    loop_map[f->loop_var.get()] = copied_new.back();
  }
  auto uses_below_uncopied = [&](const Expr& e) {
    for (size_t k = first; k < loops.size(); ++k) {
      const VarNode* v = index.loop(loops[k])->loop_var.get();
      if (!loop_map.contains(v) && arith::UsesVar(e, v)) return true;
    }
    return false;
  };
  // The init ran where the instance at the reduce loops' minimum ran: that is
  // where every reduce iter var is at its minimum, and the predicate there
  // (with the loops below `loop` that the init does not run over at their
  // minimum) is the init's.
  arith::Analyzer ana;
  VarMap at_min;
  for (size_t k = first; k < loops.size(); ++k) {
    const ForNode* f = index.loop(loops[k]);
    if (!loop_map.contains(f->loop_var.get())) at_min[f->loop_var.get()] = f->min;
  }
  for (int l : loops)
    ana.Bind(index.loop(l)->loop_var, Range{index.loop(l)->min, index.loop(l)->extent});
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    if (iv.kind != IterKind::kReduce) continue;
    if (!ana.CanProve(EQ(Substitute(realize->iter_values[v], at_min), iv.dom.min))) {
      return state->Error(blk,
                          absl::StrCat("reduce iter var ", iv.var->name, " of ", DescribeBlock(blk),
                                       " is not at its minimum where its loops are: the "
                                       "first reduce instance is unknown"));
    }
  }
  Expr init_pred = Bool(true);
  for (const Expr& t : arith::SplitConjuncts(realize->predicate)) {
    Expr at_first = ana.Simplify(Substitute(t, at_min));
    if (ana.CanProve(at_first)) continue;
    init_pred = arith::AndE(init_pred, Substitute(at_first, loop_map));
  }
  // The init block: the spatial iter vars, fresh, bound as before.
  VarMap iter_map;
  std::vector<IterVar> iters;
  std::vector<Expr> bindings;
  for (size_t v = 0; v < blk->iter_vars.size(); ++v) {
    const IterVar& iv = blk->iter_vars[v];
    if (iv.kind != IterKind::kSpatial) continue;
    Var nv = MakeVar(iv.var->name, iv.var->dtype);
    iter_map[iv.var.get()] = nv;
    iters.push_back(IterVar{nv, iv.dom, iv.kind});
    bindings.push_back(Substitute(realize->iter_values[v], loop_map));
  }
  Stmt init_body = Substitute(blk->init, iter_map);
  std::string name = UniqueBlockName(index, absl::StrCat(blk->name, "_init"));
  TESSEL_ASSIGN_OR_RETURN(Block probe, MakeBlock(name, iters, {}, {}, init_body));
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions access, arith::InferBlockAccess(probe, &ana));
  TESSEL_ASSIGN_OR_RETURN(Block init_block, MakeBlock(name, iters, Regions(access.reads),
                                                      Regions(access.writes), init_body));
  TESSEL_ASSIGN_OR_RETURN(Stmt nest, MakeBlockRealize(bindings, init_pred, init_block));
  for (size_t c = copied.size(); c-- > 0;) {
    const ForNode* f = index.loop(loops[copied[c]]);
    if (uses_below_uncopied(f->min) || uses_below_uncopied(f->extent)) {
      return state->Error(f, absl::StrCat("the range of ", DescribeLoop(f),
                                          " depends on a loop the init does not run over"));
    }
    TESSEL_ASSIGN_OR_RETURN(nest, MakeFor(copied_new[c], Substitute(f->min, loop_map),
                                          Substitute(f->extent, loop_map), f->for_kind, nest,
                                          f->thread_tag, f->annotations));
  }
  // The update block: the same block without its init. What it loads of its
  // writes (the accumulator) is now read from the init block's result, so it
  // is declared in its reads, as TVM's update declares it.
  auto update = MakeNode<BlockNode>(*blk);
  update->init = nullptr;
  std::vector<BufferRegion> accumulators = AccumulatorReads(*blk);
  update->reads.insert(update->reads.begin(), accumulators.begin(), accumulators.end());
  Stmt new_realize(MakeNode<BlockRealizeNode>(realize->iter_values, realize->predicate,
                                              Block(std::move(update))));
  PrimFunc f = InsertNextTo(state->func(), at, nest, /*before=*/true);
  f = ReplaceStmts(f, {{realize, new_realize}});
  state->Replace(f);
  return name;
}

TESSEL_REGISTER_PRIMITIVE(primitive::DecomposeReduction);

}  // namespace tessel::ir::schedule
