// The Schedule's compute-location primitives (see schedule.h): compute_inline,
// reverse_compute_inline, compute_at, reverse_compute_at and
// sample_compute_location, traced like the loop primitives.
//
//   b0 = sch.get_block(name="T_add")
//   l1 = sch.sample_compute_location(block=b0, decision=3)   // the 4th loop of the scope
//   sch.compute_at(block=b0, loop=l1, preserve_unit_loops=False)
//
// A sampled location is a loop handle; root (decision -1) and inline (-2) are
// handles that name no loop: compute_at at root changes nothing and at inline
// is compute_inline, as in TVM, so a tuner can treat the three alike.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/compute_at.h"
#include "ir/schedule/compute_inline.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

#define TESSEL_SCHEDULE_BLOCK_EDIT(kind_name, call)                            \
  Instruction inst{kind_name, {RV{'b', block.id}}, {}, {}, std::nullopt};      \
  absl::StatusOr<std::string> name = Resolve(block);                           \
  if (!name.ok()) return Fail(inst, name.status());                            \
  if (absl::Status ok = call(&state_, *name); !ok.ok()) return Fail(inst, ok); \
  Commit(kind_name);                                                           \
  Record(std::move(inst));                                                     \
  return absl::OkStatus()

absl::Status Schedule::ComputeInline(BlockRV block) {
  TESSEL_SCHEDULE_BLOCK_EDIT("compute_inline", schedule::ComputeInline);
}

absl::Status Schedule::ReverseComputeInline(BlockRV block) {
  TESSEL_SCHEDULE_BLOCK_EDIT("reverse_compute_inline", schedule::ReverseComputeInline);
}

#undef TESSEL_SCHEDULE_BLOCK_EDIT

std::optional<int64_t> Schedule::SpecialLocation(LoopRV rv) const {
  if (!CheckHandle(rv.id, 'l').ok() || handles_[rv.id].loop) return std::nullopt;
  return handles_[rv.id].value;
}

#define TESSEL_SCHEDULE_MOVE(kind_name, move_fn)                                            \
  Instruction inst{kind_name,                                                               \
                   {RV{'b', block.id}, RV{'l', loop.id}},                                   \
                   {{"preserve_unit_loops", AttrValue(preserve_unit_loops)}},               \
                   {},                                                                      \
                   std::nullopt};                                                           \
  absl::StatusOr<std::string> name = Resolve(block);                                        \
  if (!name.ok()) return Fail(inst, name.status());                                         \
  absl::Status ok;                                                                          \
  if (std::optional<int64_t> where = SpecialLocation(loop)) {                               \
    /* Root: the block stays. Inline: folded into its consumers (producer). */              \
    if (*where == kInlineLocation) {                                                        \
      ok = std::string(kind_name) == "compute_at"                                           \
               ? schedule::ComputeInline(&state_, *name)                                    \
               : schedule::ReverseComputeInline(&state_, *name);                            \
    }                                                                                       \
  } else {                                                                                  \
    absl::StatusOr<Var> var = Resolve(loop);                                                \
    if (!var.ok()) return Fail(inst, var.status());                                         \
    ok = move_fn(&state_, *name, *var, preserve_unit_loops);                                \
  }                                                                                         \
  if (!ok.ok()) return Fail(inst, ok);                                                      \
  Commit(kind_name);                                                                        \
  Record(std::move(inst));                                                                  \
  return absl::OkStatus()

absl::Status Schedule::ComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops) {
  TESSEL_SCHEDULE_MOVE("compute_at", schedule::ComputeAt);
}

absl::Status Schedule::ReverseComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops) {
  TESSEL_SCHEDULE_MOVE("reverse_compute_at", schedule::ReverseComputeAt);
}

#undef TESSEL_SCHEDULE_MOVE

absl::StatusOr<LoopRV> Schedule::SampleComputeLocation(BlockRV block,
                                                       std::optional<int64_t> decision) {
  Instruction inst{"sample_compute_location", {RV{'b', block.id}}, {}, {}, std::nullopt};
  if (decision) inst.decision = TraceValue(*decision);
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  absl::StatusOr<int> sref = state_.BlockSRef(*name);
  if (!sref.ok()) return Fail(inst, sref.status());

  // Every candidate is tried on a copy of the state: legal exactly when the
  // primitive itself accepts it.
  const StmtIndex& index = state_.index();
  int scope = index.ScopeBlock(*sref);
  std::vector<int64_t> legal = {kRootLocation};
  std::vector<Var> scope_loops;
  {
    ScheduleState trial = state_;
    if (schedule::ComputeInline(&trial, *name).ok()) legal.push_back(kInlineLocation);
  }
  for (int s = 0; s < index.size(); ++s) {
    const ForNode* f = index.loop(s);
    if (f == nullptr || index.ScopeBlock(s) != scope) continue;
    scope_loops.push_back(f->loop_var);
    ScheduleState trial = state_;
    if (schedule::ComputeAt(&trial, *name, f->loop_var, false).ok()) {
      legal.push_back(static_cast<int64_t>(scope_loops.size()) - 1);
    }
  }
  int64_t chosen;
  if (decision) {
    if (std::find(legal.begin(), legal.end(), *decision) == legal.end()) {
      return Fail(inst, state_.ArgError(index.realize(*sref),
                                        absl::StrCat("the decision ", *decision,
                                                     " is not a legal compute location of block ",
                                                     *name, "; the legal ones are ",
                                                     absl::StrJoin(legal, ", "),
                                                     " (-1 root, -2 inline, k the k-th loop "
                                                     "of the block's scope)")));
    }
    chosen = *decision;
  } else {
    chosen = legal[rng_.Below(legal.size())];
    inst.decision = TraceValue(chosen);
  }
  Handle h{'l', state_.func_name(), "", nullptr, chosen, ""};
  if (chosen >= 0) h.loop = scope_loops[chosen];
  LoopRV out{NewHandle(std::move(h))};
  inst.outputs = {RV{'l', out.id}};
  Record(std::move(inst));
  return out;
}

}  // namespace tessel::ir::schedule
