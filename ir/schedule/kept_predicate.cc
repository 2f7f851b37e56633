// The predicate a moved block keeps (see kept_predicate.h).
#include "ir/schedule/kept_predicate.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/ir_util.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::vector<Expr>> KeptPredicate(const ScheduleState& state, int sref,
                                                const std::string& primitive) {
  const StmtIndex& index = state.index();
  const BlockRealizeNode* r = index.realize(sref);
  const BlockNode* b = r->block.get();
  if (arith::IsConstTrue(r->predicate)) return std::vector<Expr>{};
  absl::flat_hash_map<const VarNode*, int> loop_vars;
  for (int l : index.LoopsAbove(sref)) loop_vars[index.loop(l)->loop_var.get()] = l;
  VarMap to_iter;  // loops bound as they are to an iter var.
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const auto* v = dyn_cast<VarNode>(r->iter_values[k]);
    if (v != nullptr && loop_vars.contains(v) && !to_iter.contains(v)) {
      to_iter[v] = b->iter_vars[k].var;
    }
  }
  // The loops' ranges and the scope block's iter vars: a term over loops
  // that no iter var is bound to alone (`i_1 * 2 < 7` with i_1 in [0, 4)) may
  // still hold on every iteration, and then there is nothing to keep.
  arith::Analyzer ana;
  BindLoopsAround(index, index.at(sref).parent, &ana);
  for (const IterVar& iv : b->iter_vars) ana.Bind(iv.var, iv.dom);
  std::vector<Expr> kept;
  for (const Expr& term : arith::SplitConjuncts(r->predicate)) {
    Expr t = Substitute(term, to_iter);
    const auto* cmp = dyn_cast<BinaryNode>(t.get());
    if (UsesAnyVar(t, loop_vars) && cmp != nullptr &&
        (t->kind() == NodeKind::kLT || t->kind() == NodeKind::kLE) &&
        !UsesAnyVar(cmp->b, loop_vars)) {
      // `a < c` where a is an iter var's binding plus an offset.
      for (size_t k = 0; k < b->iter_vars.size(); ++k) {
        Expr d = ana.Simplify(Sub(cmp->a, r->iter_values[k]));
        if (UsesAnyVar(d, loop_vars)) continue;
        absl::StatusOr<Expr> on_iter =
            MakeBinary(t->kind(), arith::AddE(b->iter_vars[k].var, d), cmp->b);
        if (on_iter.ok()) t = *on_iter;
        break;
      }
    }
    if (UsesAnyVar(t, loop_vars)) {
      if (ana.CanProve(t)) continue;
      return state.Error(r, absl::StrCat(primitive, ": the predicate term ", PrintExpr(term),
                                         " of ", DescribeBlock(b),
                                         " cannot be written over its iter vars; the moved "
                                         "block's loops could not keep it"));
    }
    if (!ana.CanProve(t)) kept.push_back(t);
  }
  return kept;
}

}  // namespace tessel::ir::schedule
