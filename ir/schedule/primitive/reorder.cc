// reorder (see reorder.h).
#include "ir/schedule/primitive/reorder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/schedule/binding_analysis.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

absl::Status Reorder(ScheduleState* state, const std::vector<Var>& order) {
  const StmtIndex& index = state->index();
  std::vector<int> srefs;
  for (const Var& v : order) {
    TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(v));
    if (std::find(srefs.begin(), srefs.end(), s) != srefs.end()) {
      return state->ArgError(index.loop(s),
                             absl::StrCat(DescribeLoop(index.loop(s)), " is given twice"));
    }
    srefs.push_back(s);
  }
  if (srefs.empty()) return absl::OkStatus();

  // The given loops sorted outermost first must each enclose the next.
  std::vector<int> sorted = srefs;
  std::sort(sorted.begin(), sorted.end());  // Preorder: an ancestor has a smaller index.
  for (size_t k = 0; k + 1 < sorted.size(); ++k) {
    if (!index.IsAncestor(sorted[k], sorted[k + 1])) {
      return state->Error(
          index.loop(sorted[k + 1]),
          absl::StrCat(DescribeLoop(index.loop(sorted[k + 1])), " is not inside ",
                       DescribeLoop(index.loop(sorted[k])), "; reorder needs loops on one path"));
    }
  }
  // The chain from the outermost to the innermost given loop must be perfect.
  std::vector<const ForNode*> chain;
  absl::flat_hash_map<const VarNode*, int> chain_vars;
  for (const ForNode* f = index.loop(sorted.front());;
       f = static_cast<const ForNode*>(f->body.get())) {
    chain_vars[f->loop_var.get()] = static_cast<int>(chain.size());
    chain.push_back(f);
    if (f == index.loop(sorted.back())) break;
    if (!isa<ForNode>(f->body)) {
      return state->Error(f, absl::StrCat("the body of ", DescribeLoop(f),
                                          " is not a single loop; reorder needs perfectly nested "
                                          "loops between the outermost and innermost given loop"));
    }
  }
  for (const ForNode* f : chain) {
    if (UsesAnyVar(f->min, chain_vars) || UsesAnyVar(f->extent, chain_vars)) {
      return state->Error(f, absl::StrCat("the bounds of ", DescribeLoop(f),
                                          " use a loop of the nest being reordered"));
    }
  }
  // Blocks below: affine spatial/reduce bindings of the chain's loops.
  for (int b : index.ChildBlocks(sorted.back())) {
    std::string why = CheckReorderable(index, b, chain_vars);
    if (!why.empty()) return state->Error(index.block(b), why);
  }
  if (HasStmtOutsideBlocks(chain.back()->body)) {
    return state->Error(chain.back(), absl::StrCat(DescribeLoop(chain.back()),
                                                   " holds statements outside blocks, whose "
                                                   "iterations cannot be shown independent"));
  }

  // Chain positions of the given loops, outermost first, receive them in order.
  std::vector<const ForNode*> placed = chain;
  size_t next = 0;
  for (size_t pos = 0; pos < chain.size(); ++pos) {
    int s = index.FindStmt(chain[pos]);
    if (std::find(srefs.begin(), srefs.end(), s) != srefs.end()) {
      placed[pos] = index.loop(srefs[next++]);
    }
  }
  if (placed == chain) return absl::OkStatus();  // Already in this order: nothing changes.
  Stmt body = chain.back()->body;
  for (size_t pos = placed.size(); pos-- > 0;) {
    auto n = MakeNode<ForNode>(*placed[pos]);
    n->body = body;
    body = Stmt(std::move(n));
  }
  state->Replace(ReplaceStmts(state->func(), {{chain.front(), body}}));
  return absl::OkStatus();
}

TESSEL_REGISTER_PRIMITIVE(primitive::Reorder);

}  // namespace tessel::ir::schedule
