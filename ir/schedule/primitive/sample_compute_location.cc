#include "ir/schedule/primitive/sample_compute_location.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/primitive/compute_at.h"
#include "ir/schedule/primitive/compute_inline.h"
#include "ir/schedule/primitive_registration.h"

namespace tessel::ir::schedule {

namespace {

// The loops of `block`'s scope, in program order: decision k names the k-th.
std::vector<Var> ScopeLoops(const ScheduleState& state, int sref) {
  const StmtIndex& index = state.index();
  int scope = index.ScopeBlock(sref);
  std::vector<Var> loops;
  for (int s = 0; s < index.size(); ++s) {
    const ForNode* f = index.loop(s);
    if (f != nullptr && index.ScopeBlock(s) == scope) loops.push_back(f->loop_var);
  }
  return loops;
}

// Whether compute_at (or compute_inline) of `block` at `decision` succeeds.
bool Legal(const ScheduleState& state, const std::string& block, const std::vector<Var>& loops,
           int64_t decision) {
  if (decision == kRootLocation) return true;
  ScheduleState trial = state;
  if (decision == kInlineLocation) return schedule::ComputeInline(&trial, block).ok();
  if (decision < 0 || decision >= static_cast<int64_t>(loops.size())) return false;
  return schedule::ComputeAt(&trial, block, loops[decision], false).ok();
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> LegalComputeLocations(const ScheduleState& state,
                                                           const std::string& block) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state.BlockSRef(block));
  std::vector<Var> loops = ScopeLoops(state, sref);
  std::vector<int64_t> legal = {kRootLocation};
  if (Legal(state, block, loops, kInlineLocation)) legal.push_back(kInlineLocation);
  for (int64_t k = 0; k < static_cast<int64_t>(loops.size()); ++k) {
    if (Legal(state, block, loops, k)) legal.push_back(k);
  }
  return legal;
}

absl::StatusOr<ResolvedLocation> primitive::SampleComputeLocation::Apply(
    PrimitiveContext& ctx, const std::string& block, const std::optional<int64_t>& decision) {
  const ScheduleState& state = *ctx.state();
  TESSEL_ASSIGN_OR_RETURN(int sref, state.BlockSRef(block));
  std::vector<Var> loops = ScopeLoops(state, sref);
  int64_t chosen;
  if (decision) {
    // A given decision is checked alone (replay stays linear in the trace); the
    // whole legal list is computed only to say what would have been legal.
    if (!Legal(state, block, loops, *decision)) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> legal, LegalComputeLocations(state, block));
      return state.ArgError(
          state.index().realize(sref),
          absl::StrCat("the decision ", *decision, " is not a legal compute location of block ",
                       block, "; the legal ones are ", absl::StrJoin(legal, ", "),
                       " (-1 root, -2 inline, k the k-th loop of the block's "
                       "scope)"));
    }
    chosen = *decision;
  } else {
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> legal, LegalComputeLocations(state, block));
    chosen = legal[ctx.rng()->Below(legal.size())];
    ctx.Decide(TraceValue(chosen));
  }
  if (chosen >= 0) return ResolvedLocation(loops[chosen]);
  return ResolvedLocation(chosen);
}

TESSEL_REGISTER_PRIMITIVE(primitive::SampleComputeLocation);

}  // namespace tessel::ir::schedule
