// Schedule queries (see queries.h).
#include "ir/schedule/primitive/queries.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

std::vector<std::string> Names(const StmtIndex& index, const std::vector<int>& srefs) {
  std::vector<std::string> names;
  for (int s : srefs) names.push_back(index.block(s)->name);
  return names;
}

// True when a region of `regions` is on a buffer of `of`.
bool TouchesAny(const std::vector<BufferRegion>& regions, const std::vector<BufferRegion>& of) {
  return std::any_of(of.begin(), of.end(),
                     [&](const BufferRegion& r) { return Touches(regions, r.buffer.get()); });
}

// Siblings of `block` in its scope that come before (producers) or after
// (consumers) it and are linked by a buffer.
absl::StatusOr<std::vector<std::string>> Neighbours(const ScheduleState& state,
                                                    const std::string& block, bool producers) {
  TESSEL_ASSIGN_OR_RETURN(int s, state.BlockSRef(block));
  const StmtIndex& index = state.index();
  const BlockNode* me = index.block(s);
  std::vector<int> siblings = index.ChildBlocks(index.ScopeBlock(s));
  std::vector<int> out;
  for (int o : siblings) {
    if (o == s || (producers ? o > s : o < s)) continue;
    const BlockNode* other = index.block(o);
    bool linked =
        producers ? TouchesAny(other->writes, me->reads) : TouchesAny(other->reads, me->writes);
    if (linked) out.push_back(o);
  }
  return Names(index, out);
}

}  // namespace

absl::StatusOr<std::string> GetBlock(const ScheduleState& state, const std::string& name) {
  if (state.index().FindBlock(name) >= 0) return name;
  std::vector<std::string> names = state.index().BlockNames();
  std::string known = names.empty() ? "it has no blocks"
                                    : absl::StrCat("its blocks are ", absl::StrJoin(names, ", "));
  return absl::NotFoundError(
      absl::StrCat("no block named '", name, "' in function '", state.func_name(), "'; ", known));
}

absl::StatusOr<std::vector<Var>> GetLoops(const ScheduleState& state, const std::string& block) {
  TESSEL_ASSIGN_OR_RETURN(int s, state.BlockSRef(block));
  std::vector<Var> loops;
  for (int l : state.index().LoopsAbove(s)) loops.push_back(state.index().loop(l)->loop_var);
  return loops;
}

absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const std::string& block) {
  TESSEL_ASSIGN_OR_RETURN(int s, state.BlockSRef(block));
  return Names(state.index(), state.index().ChildBlocks(s));
}

absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const Var& loop) {
  TESSEL_ASSIGN_OR_RETURN(int s, state.LoopSRef(loop));
  return Names(state.index(), state.index().ChildBlocks(s));
}

absl::StatusOr<std::vector<std::string>> GetProducers(const ScheduleState& state,
                                                      const std::string& block) {
  return Neighbours(state, block, /*producers=*/true);
}

absl::StatusOr<std::vector<std::string>> GetConsumers(const ScheduleState& state,
                                                      const std::string& block) {
  return Neighbours(state, block, /*producers=*/false);
}

TESSEL_REGISTER_PRIMITIVE(primitive::GetBlock);
TESSEL_REGISTER_PRIMITIVE(primitive::GetLoops);
TESSEL_REGISTER_PRIMITIVE(primitive::GetChildBlocks);
TESSEL_REGISTER_PRIMITIVE(primitive::GetProducers);
TESSEL_REGISTER_PRIMITIVE(primitive::GetConsumers);

}  // namespace tessel::ir::schedule
