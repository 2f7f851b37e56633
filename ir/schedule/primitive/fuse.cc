// fuse (see fuse.h).
#include "ir/schedule/primitive/fuse.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/simplify_nest.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

absl::StatusOr<Var> Fuse(ScheduleState* state, const std::vector<Var>& loops) {
  if (loops.empty()) return state->ArgError(nullptr, "fuse needs at least one loop");
  const StmtIndex& index = state->index();
  std::vector<const ForNode*> nest;
  absl::flat_hash_map<const VarNode*, int> vars;
  for (const Var& v : loops) {
    TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(v));
    const ForNode* f = index.loop(s);
    if (vars.contains(v.get())) {
      return state->ArgError(f, absl::StrCat(DescribeLoop(f), " is given twice"));
    }
    vars[v.get()] = static_cast<int>(nest.size());
    nest.push_back(f);
  }
  std::vector<std::string> names;
  for (size_t k = 0; k < nest.size(); ++k) {
    const ForNode* f = nest[k];
    names.push_back(f->loop_var->name);
    if (k > 0 && nest[k - 1]->body.get() != f) {
      return state->Error(
          nest[k - 1],
          absl::StrCat(DescribeLoop(f), " is not the whole body of ", DescribeLoop(nest[k - 1]),
                       "; fuse needs a perfect nest given outermost first"));
    }
    if (f->for_kind != ForKind::kSerial) {
      return state->Error(f, absl::StrCat(DescribeLoop(f), " is ", ForKindName(f->for_kind),
                                          "; fuse only serial loops"));
    }
    if (!f->annotations.empty()) {
      return state->Error(f, absl::StrCat(DescribeLoop(f),
                                          " has annotations; fuse only unannotated loops "
                                          "(annotate the fused loop)"));
    }
    if (f->loop_var->dtype != nest[0]->loop_var->dtype) {
      return state->Error(
          f, absl::StrCat(DescribeLoop(f), " is ", f->loop_var->dtype.ToString(), " but ",
                          DescribeLoop(nest[0]), " is ", nest[0]->loop_var->dtype.ToString()));
    }
    if (UsesAnyVar(f->min, vars) || UsesAnyVar(f->extent, vars)) {
      return state->Error(
          f, absl::StrCat("the bounds of ", DescribeLoop(f), " use a loop being fused"));
    }
  }

  // v_k = min_k + (fused // (e_{k+1} * ... * e_{n-1})) %% e_k, without the
  // floormod for the outermost loop and the floordiv for the innermost.
  const DataType t = nest[0]->loop_var->dtype;
  Var fused = MakeVar(absl::StrCat(absl::StrJoin(names, "_"), "_fused"), t);
  VarMap map;
  Expr stride = IntImm(t, 1);
  for (size_t k = nest.size(); k-- > 0;) {
    const ForNode* f = nest[k];
    Expr digit = arith::FloorDivE(fused, stride);
    if (k > 0) digit = arith::FloorModE(digit, f->extent);
    map[f->loop_var.get()] = arith::AddE(f->min, digit);
    stride = arith::MulE(stride, f->extent);
  }
  if (std::optional<int64_t> total = arith::AsConstInt(stride); !total) {
    // A product of constants that did not fold overflowed the loop type.
    bool all_const = true;
    for (const ForNode* f : nest) all_const &= arith::AsConstInt(f->extent).has_value();
    if (all_const) {
      return state->ArgError(nest[0], absl::StrCat("the fused extent does not fit the type ",
                                                   t.ToString(), " of the loops"));
    }
  }
  Stmt body = Substitute(nest.back()->body, map);
  TESSEL_ASSIGN_OR_RETURN(Stmt loop, MakeFor(fused, IntImm(t, 0), stride, ForKind::kSerial, body));
  Stmt simplified = SimplifyNest(index, index.at(index.FindStmt(nest[0])).parent, loop);
  state->Replace(ReplaceStmts(state->func(), {{nest[0], simplified}}));
  return fused;
}

TESSEL_REGISTER_PRIMITIVE(primitive::Fuse);

}  // namespace tessel::ir::schedule
