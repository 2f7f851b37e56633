// split (see split.h).
#include "ir/schedule/primitive/split.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/simplify_nest.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::vector<Var>> Split(ScheduleState* state, const Var& loop,
                                       const std::vector<std::optional<int64_t>>& factors) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->LoopSRef(loop));
  const ForNode* f = state->index().loop(sref);
  const std::string what = DescribeLoop(f);
  if (factors.size() < 2) {
    return state->ArgError(f,
                           absl::StrCat("split needs at least two factors, got ", factors.size()));
  }
  int inferred = -1;
  int64_t product = 1;
  const DataType t = f->loop_var->dtype;
  for (size_t k = 0; k < factors.size(); ++k) {
    if (!factors[k]) {
      if (inferred >= 0) {
        return state->ArgError(f, "at most one factor may be None (inferred)");
      }
      inferred = static_cast<int>(k);
      continue;
    }
    if (*factors[k] <= 0) {
      return state->ArgError(
          f, absl::StrCat("factor ", k, " is ", *factors[k], "; factors must be positive"));
    }
    if (!arith::FitsInt(t, *factors[k]) || __builtin_mul_overflow(product, *factors[k], &product) ||
        !arith::FitsInt(t, product)) {
      return state->ArgError(f, absl::StrCat("the factors' product does not fit the type ",
                                             t.ToString(), " of ", what));
    }
  }
  if (f->for_kind != ForKind::kSerial) {
    return state->Error(f,
                        absl::StrCat(what, " is ", ForKindName(f->for_kind),
                                     "; split only serial loops (set the kind after splitting)"));
  }

  // The extents of the new loops, and whether the product can exceed the extent.
  std::optional<int64_t> extent = arith::AsConstInt(f->extent);
  std::vector<Expr> extents;
  for (const std::optional<int64_t>& k : factors) extents.push_back(k ? IntImm(t, *k) : nullptr);
  bool guard = false;
  if (inferred >= 0) {
    if (extent) {
      int64_t n = *extent <= 0 ? 0 : (*extent - 1) / product + 1;
      extents[inferred] = IntImm(t, n);
      guard = n * product != std::max<int64_t>(*extent, 0);
    } else {
      extents[inferred] =
          arith::FloorDivE(arith::AddE(f->extent, IntImm(t, product - 1)), IntImm(t, product));
      guard = product != 1;
    }
  } else if (!extent) {
    return state->Error(
        f, absl::StrCat("cannot show that the factors' product ", product, " covers the extent ",
                        PrintExpr(f->extent), " of ", what, "; let one factor be inferred (None)"));
  } else if (product < *extent) {
    return state->Error(
        f, absl::StrCat("the factors' product ", product, " is smaller than the extent ", *extent,
                        " of ", what, "; the split would drop iterations"));
  } else {
    guard = product != *extent;
  }

  // i = min + ((i_0 * e_1 + i_1) * e_2 + i_2) ...
  std::vector<Var> vars;
  Expr fused;
  for (size_t k = 0; k < factors.size(); ++k) {
    vars.push_back(MakeVar(absl::StrCat(f->loop_var->name, "_", k), t));
    fused = k == 0 ? Expr(vars[0]) : arith::AddE(arith::MulE(fused, extents[k]), vars[k]);
  }
  Stmt body = Substitute(f->body, {{f->loop_var.get(), arith::AddE(f->min, fused)}});
  if (guard) {
    Expr cond = LT(fused, f->extent);
    if (HasStmtOutsideBlocks(body)) {
      TESSEL_ASSIGN_OR_RETURN(Stmt guarded, MakeIfThenElse(cond, body));
      body = guarded;
    } else {
      body = AddPredicateToBlocks(body, cond);
    }
  }
  for (size_t k = factors.size(); k-- > 0;) {
    TESSEL_ASSIGN_OR_RETURN(Stmt next, MakeFor(vars[k], IntImm(t, 0), extents[k], ForKind::kSerial,
                                               body, "", k == 0 ? f->annotations : Attrs{}));
    body = next;
  }
  body = SimplifyNest(state->index(), state->index().at(sref).parent, body);
  state->Replace(ReplaceStmts(state->func(), {{f, body}}));
  return vars;
}

TESSEL_REGISTER_PRIMITIVE(primitive::Split);

}  // namespace tessel::ir::schedule
