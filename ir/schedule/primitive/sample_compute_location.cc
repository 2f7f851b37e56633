#include "ir/schedule/primitive/sample_compute_location.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/primitive/compute_at.h"
#include "ir/schedule/primitive/compute_inline.h"
#include "ir/schedule/primitive_registration.h"

namespace tessel::ir::schedule {

absl::StatusOr<ResolvedLocation> primitive::SampleComputeLocation::Apply(
    PrimitiveContext& ctx, const std::string& block, const std::optional<int64_t>& decision) {
  const ScheduleState& state = *ctx.state();
  TESSEL_ASSIGN_OR_RETURN(int sref, state.BlockSRef(block));
  const StmtIndex& index = state.index();
  int scope = index.ScopeBlock(sref);
  std::vector<int64_t> legal = {kRootLocation};
  std::vector<Var> scope_loops;
  {
    ScheduleState trial = state;
    if (schedule::ComputeInline(&trial, block).ok()) legal.push_back(kInlineLocation);
  }
  for (int s = 0; s < index.size(); ++s) {
    const ForNode* f = index.loop(s);
    if (f == nullptr || index.ScopeBlock(s) != scope) continue;
    scope_loops.push_back(f->loop_var);
    ScheduleState trial = state;
    if (schedule::ComputeAt(&trial, block, f->loop_var, false).ok()) {
      legal.push_back(static_cast<int64_t>(scope_loops.size()) - 1);
    }
  }
  int64_t chosen;
  if (decision) {
    if (std::find(legal.begin(), legal.end(), *decision) == legal.end()) {
      return state.ArgError(
          index.realize(sref),
          absl::StrCat("the decision ", *decision, " is not a legal compute location of block ",
                       block, "; the legal ones are ", absl::StrJoin(legal, ", "),
                       " (-1 root, -2 inline, k the k-th loop of the block's "
                       "scope)"));
    }
    chosen = *decision;
  } else {
    chosen = legal[ctx.rng()->Below(legal.size())];
    ctx.Decide(TraceValue(chosen));
  }
  if (chosen >= 0) return ResolvedLocation(scope_loops[chosen]);
  return ResolvedLocation(chosen);
}

TESSEL_REGISTER_PRIMITIVE(primitive::SampleComputeLocation);

}  // namespace tessel::ir::schedule
