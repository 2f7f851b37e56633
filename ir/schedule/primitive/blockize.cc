// blockize (see blockize.h).
#include "ir/schedule/primitive/blockize.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/linear_form.h"
#include "ir/arith/region.h"
#include "ir/printer.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/simplify_nest.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

namespace {

using VarSet = absl::flat_hash_map<const VarNode*, int>;

// binding = extent * outer + inner.
struct Division {
  bool has_outer = false;  // `outer` uses the loops above (else it is a constant).
  Expr outer;
  Expr inner;  // Over the inner loops, each value of [0, extent) once.
  int64_t extent = 1;
  std::vector<const VarNode*> inner_loops;
};

// Divides `binding` at the inner loops `inner` (outermost first; `inner_vars`
// maps their variables to positions). Returns "" or why it cannot.
std::string Divide(const Expr& binding, const std::vector<const ForNode*>& inner,
                   const VarSet& inner_vars, Division* out) {
  std::optional<arith::LinearSum> sum = arith::ToLinear(binding);
  if (!sum) return "it is not an affine expression of the loops";
  arith::LinearSum outer{sum->dtype, {}, sum->base};
  std::vector<std::pair<const ForNode*, int64_t>> terms;  // Inner loop, scale.
  for (const arith::SplitTerm& t : sum->terms) {
    if (!UsesAnyVar(t.index, inner_vars)) {
      outer.terms.push_back(t);
      continue;
    }
    const auto* v = dyn_cast<VarNode>(t.index);
    if (!t.is_plain() || v == nullptr || !inner_vars.contains(v)) {
      return absl::StrCat("its term ", PrintExpr(arith::SplitValue(t)),
                          " splits an inner loop; only whole inner loops can form the inner part");
    }
    if (t.scale <= 0) {
      return absl::StrCat("inner loop ", v->name, " has scale ", t.scale,
                          "; the inner part must grow with its loops");
    }
    terms.emplace_back(inner[inner_vars.at(v)], t.scale);
  }
  std::sort(terms.begin(), terms.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  arith::LinearSum in{sum->dtype, {}, 0};
  int64_t dense = 1;
  for (const auto& [loop, scale] : terms) {
    std::optional<int64_t> lo = arith::AsConstInt(loop->min), n = arith::AsConstInt(loop->extent);
    if (!lo || !n || *n <= 0) {
      return absl::StrCat("inner loop ", loop->loop_var->name, " has no constant positive extent");
    }
    if (scale != dense) {
      return absl::StrCat("inner loop ", loop->loop_var->name, " has scale ", scale,
                          " where a dense inner part needs ", dense,
                          " (the inner loops must form a mixed radix)");
    }
    in.terms.push_back(arith::SplitTerm{loop->loop_var, 1, 0, scale});
    in.base -= scale * *lo;
    outer.base += scale * *lo;
    if (__builtin_mul_overflow(dense, *n, &dense)) return "the inner extent overflows";
    out->inner_loops.push_back(loop->loop_var.get());
  }
  for (arith::SplitTerm& t : outer.terms) {
    if (t.scale % dense != 0) {
      return absl::StrCat("its outer term ", PrintExpr(arith::SplitValue(t)), " has scale ",
                          t.scale, ", not a multiple of the inner extent ", dense);
    }
    t.scale /= dense;
  }
  if (outer.base % dense != 0) {
    return absl::StrCat("its offset ", outer.base, " is not a multiple of the inner extent ",
                        dense);
  }
  outer.base /= dense;
  out->has_outer = !outer.terms.empty();
  out->outer = arith::ToExpr(outer);
  out->inner = arith::ToExpr(in);
  out->extent = dense;
  return "";
}

Expr AllOf(const std::vector<Expr>& conds) {
  Expr all = Bool(true);
  for (const Expr& c : conds) all = arith::AndE(all, c);
  return all;
}

}  // namespace

absl::StatusOr<std::string> Blockize(ScheduleState* state, const Var& loop_var) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->LoopSRef(loop_var));
  const StmtIndex& index = state->index();
  const ForNode* top = index.loop(sref);

  // The chain of inner loops down to the one block.
  std::vector<const ForNode*> inner;
  VarSet inner_vars;
  const StmtNode* cur = top;
  while (const auto* f = dyn_cast<ForNode>(cur)) {
    inner_vars[f->loop_var.get()] = static_cast<int>(inner.size());
    inner.push_back(f);
    cur = f->body.get();
  }
  const auto* realize = dyn_cast<BlockRealizeNode>(cur);
  if (realize == nullptr) {
    return state->Error(top, absl::StrCat("the subtree under ", DescribeLoop(top),
                                          " is not a chain of loops ending in one block; "
                                          "blockize needs exactly one block and no other "
                                          "statement below the loop"));
  }
  const BlockNode* block = realize->block.get();

  // Variables of the enclosing scope that the new block cannot see.
  VarSet outer_vars;
  for (int l : index.LoopsAbove(sref)) outer_vars[index.loop(l)->loop_var.get()] = 0;
  if (int scope = index.ScopeBlock(sref); scope >= 0) {
    for (const IterVar& iv : index.block(scope)->iter_vars) outer_vars[iv.var.get()] = 0;
  }
  for (const ForNode* f : inner) {
    if (UsesAnyVar(f->min, outer_vars) || UsesAnyVar(f->extent, outer_vars)) {
      return state->Error(f, absl::StrCat("the bounds of inner ", DescribeLoop(f),
                                          " use a loop above ", DescribeLoop(top),
                                          ", which the new block cannot see"));
    }
  }

  // Divide every binding.
  std::vector<Division> divs(block->iter_vars.size());
  VarSet used_inner;
  for (size_t k = 0; k < divs.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv.var->dtype != realize->iter_values[k]->dtype ||
        iv.dom.min->dtype != iv.var->dtype) {
      return state->Error(block, absl::StrCat("iter var ", iv.var->name, " of ",
                                              DescribeBlock(block),
                                              " differs in type from its binding or domain"));
    }
    std::string why = Divide(realize->iter_values[k], inner, inner_vars, &divs[k]);
    if (!why.empty()) {
      return state->Error(block, absl::StrCat("the binding ", iv.var->name, " = ",
                                              PrintExpr(realize->iter_values[k]), " of ",
                                              DescribeBlock(block),
                                              " cannot be divided into an outer and an inner "
                                              "part at ",
                                              DescribeLoop(top), ": ", why));
    }
    for (const VarNode* l : divs[k].inner_loops) {
      if (!used_inner.emplace(l, static_cast<int>(k)).second) {
        return state->Error(block, absl::StrCat("inner loop ", l->name, " feeds two bindings of ",
                                                DescribeBlock(block),
                                                "; blockize needs each inner loop in one binding"));
      }
    }
  }

  // The loops above, to tell whether an outer binding stays in its domain.
  arith::Analyzer around;
  for (int l : index.LoopsAbove(sref)) {
    around.Bind(index.loop(l)->loop_var, Range{index.loop(l)->min, index.loop(l)->extent});
  }
  std::vector<Expr> domain_conds;  // `outer < hi` where the loops may pass hi.

  // Outer iter vars, and the inner bindings in terms of them.
  std::vector<IterVar> outer_ivs;
  std::vector<Expr> outer_values, inner_values;
  VarMap outer_loop_to_iv;  // An outer loop that is exactly an outer binding.
  bool outer_reduces = false;
  for (size_t k = 0; k < divs.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const Division& d = divs[k];
    DataType t = realize->iter_values[k]->dtype;
    Expr e = IntImm(t, d.extent);
    if (!d.has_outer) {
      inner_values.push_back(arith::AddE(arith::MulE(d.outer, e), d.inner));
      continue;
    }
    Var vo = MakeVar(absl::StrCat(iv.var->name, "_o"), iv.var->dtype);
    Expr lo = arith::FloorDivE(iv.dom.min, IntImm(iv.dom.min->dtype, d.extent));
    Expr hi = arith::FloorDivE(arith::AddE(arith::AddE(iv.dom.min, iv.dom.extent),
                                           IntImm(iv.dom.min->dtype, d.extent - 1)),
                               IntImm(iv.dom.min->dtype, d.extent));
    Expr ext = arith::AddE(hi, arith::MulE(lo, IntImm(lo->dtype, -1)));
    outer_ivs.push_back(IterVar{vo, Range{lo, ext}, iv.kind});
    outer_values.push_back(d.outer);
    // An over-split loop (a split whose factors multiply past the extent) runs
    // the outer part past ceil(end / extent); those outer instances have every
    // inner instance predicated off, so the outer block skips them too.
    if (!around.CanProve(LT(d.outer, around.Simplify(hi)))) {
      domain_conds.push_back(LT(d.outer, around.Simplify(hi)));
    }
    inner_values.push_back(arith::AddE(arith::MulE(vo, e), d.inner));
    if (const auto* v = dyn_cast<VarNode>(d.outer)) outer_loop_to_iv[v] = vo;
    outer_reduces |= iv.kind == IterKind::kReduce;
  }

  // The predicate: outer conjuncts go up, the rest stay with outer loops renamed.
  std::vector<Expr> conds = arith::SplitConjuncts(realize->predicate);
  std::vector<Expr> outer_conds, inner_conds;
  for (const Expr& c : conds) {
    if (!UsesAnyVar(c, inner_vars)) {
      outer_conds.push_back(c);
      continue;
    }
    Expr r = Substitute(c, outer_loop_to_iv);
    if (UsesAnyVar(r, outer_vars)) {
      return state->Error(block, absl::StrCat("the predicate ", PrintExpr(c), " of ",
                                              DescribeBlock(block),
                                              " uses a loop above ", DescribeLoop(top),
                                              " that no outer iter var stands for"));
    }
    inner_conds.push_back(r);
  }
  outer_conds.insert(outer_conds.end(), domain_conds.begin(), domain_conds.end());

  // The init moves up when the outer block reduces.
  Stmt outer_init;
  auto inner_block = MakeNode<BlockNode>(*block);
  std::vector<BufferRegion> accumulators;  // Read by the inner block once its init is gone.
  if (block->init && outer_reduces) {
    VarMap fresh;  // Spatial iter vars and their inner loops -> fresh copies.
    std::vector<IterVar> init_ivs;
    std::vector<Expr> init_values;
    VarSet spatial_loops;
    for (size_t k = 0; k < divs.size(); ++k) {
      const IterVar& iv = block->iter_vars[k];
      if (iv.kind != IterKind::kSpatial) continue;
      for (const VarNode* l : divs[k].inner_loops) spatial_loops[l] = 0;
      Var nv = MakeVar(iv.var->name, iv.var->dtype);
      fresh[iv.var.get()] = nv;
      init_ivs.push_back(IterVar{nv, iv.dom, IterKind::kSpatial});
      init_values.push_back(inner_values[k]);
    }
    absl::flat_hash_map<const VarNode*, Var> fresh_loops;
    for (const ForNode* f : inner) {
      if (spatial_loops.contains(f->loop_var.get())) {
        Var nv = MakeVar(f->loop_var->name, f->loop_var->dtype);
        fresh_loops[f->loop_var.get()] = nv;
        fresh[f->loop_var.get()] = nv;
      }
    }
    VarSet reduce_loops;
    for (const auto& [l, k] : inner_vars) {
      if (!spatial_loops.contains(l)) reduce_loops[l] = 0;
    }
    for (const Expr& c : inner_conds) {
      if (UsesAnyVar(c, reduce_loops)) {
        return state->Error(block, absl::StrCat("the predicate ", PrintExpr(c), " of ",
                                                DescribeBlock(block),
                                                " uses an inner reduction loop, so the init "
                                                "cannot move to the outer block"));
      }
    }
    for (Expr& v : init_values) v = Substitute(v, fresh);
    Stmt init_body = Substitute(block->init, fresh);
    {
      VarMap zero;  // Copy-on-write: the init is the same object iff it uses no reduce var.
      for (const IterVar& iv : block->iter_vars) {
        if (iv.kind != IterKind::kSpatial) zero[iv.var.get()] = IntImm(iv.var->dtype, 0);
      }
      if (!Substitute(block->init, zero).same_as(block->init)) {
        return state->Error(block, absl::StrCat("the init of ", DescribeBlock(block),
                                                " uses a reduce iter var, so it cannot move to "
                                                "the outer block"));
      }
    }
    TESSEL_ASSIGN_OR_RETURN(Block init_block,
                            MakeBlock(UniqueBlockName(index, absl::StrCat(block->name, "_init")),
                                      init_ivs, {}, {}, init_body));
    arith::Analyzer ana;
    TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions acc, arith::InferBlockAccess(init_block, &ana));
    auto ib = MakeNode<BlockNode>(*init_block);
    for (const arith::AccessRegion& r : acc.reads) ib->reads.push_back(r.region);
    for (const arith::AccessRegion& r : acc.writes) ib->writes.push_back(r.region);
    std::vector<Expr> init_conds;
    for (const Expr& c : inner_conds) init_conds.push_back(Substitute(c, fresh));
    TESSEL_ASSIGN_OR_RETURN(Stmt nest,
                            MakeBlockRealize(init_values, AllOf(init_conds), Block(std::move(ib))));
    for (size_t k = inner.size(); k-- > 0;) {
      auto it = fresh_loops.find(inner[k]->loop_var.get());
      if (it == fresh_loops.end()) continue;
      TESSEL_ASSIGN_OR_RETURN(
          nest, MakeFor(it->second, inner[k]->min, inner[k]->extent, ForKind::kSerial, nest));
    }
    outer_init = nest;
    inner_block->init = nullptr;
    // Without its init the inner block reads the accumulator the outer init
    // wrote, so it declares it.
    accumulators = AccumulatorReads(*block);
    inner_block->reads.insert(inner_block->reads.begin(), accumulators.begin(), accumulators.end());
  }

  // The inner nest: the same loops around the block with its new bindings.
  TESSEL_ASSIGN_OR_RETURN(
      Stmt body, MakeBlockRealize(inner_values, AllOf(inner_conds), Block(std::move(inner_block))));
  for (size_t k = inner.size(); k-- > 0;) {
    auto n = MakeNode<ForNode>(*inner[k]);
    n->body = body;
    body = Stmt(std::move(n));
  }

  // The outer block's regions: the inner ones relaxed over the inner loops.
  arith::Analyzer ana;
  for (const IterVar& iv : outer_ivs) ana.Bind(iv.var, iv.dom);
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions acc, arith::InferSubtreeAccess(body, &ana));
  std::vector<BufferRegion> reads, writes;
  for (const arith::AccessRegion& r : acc.reads) {
    // The outer block has the init: like the block it came from, it leaves the
    // accumulator its update reads implicit.
    if (Touches(accumulators, r.region.buffer.get())) continue;
    reads.push_back(ClipToShape(r.region, &ana));
  }
  for (const arith::AccessRegion& r : acc.writes) writes.push_back(ClipToShape(r.region, &ana));
  const std::string name = UniqueBlockName(index, absl::StrCat(block->name, "_o"));
  TESSEL_ASSIGN_OR_RETURN(Block outer, MakeBlock(name, outer_ivs, reads, writes, body, outer_init));
  TESSEL_ASSIGN_OR_RETURN(Stmt outer_realize,
                          MakeBlockRealize(outer_values, AllOf(outer_conds), outer));
  Stmt placed = SimplifyNest(index, index.at(sref).parent, outer_realize);
  state->Replace(ReplaceStmts(state->func(), {{top, placed}}));
  return name;
}

TESSEL_REGISTER_PRIMITIVE(primitive::Blockize);

}  // namespace tessel::ir::schedule
