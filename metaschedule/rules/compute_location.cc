// compute-location: moves a producer that stays a buffer of its own under the
// outermost loop of its consumers, so that what it writes is read while still
// in cache, and the consumers' parallel loop covers it too.
//
//   for i { for k { block y_max } }             for i {
//   for i { for k { block y_exp } }     ->        for ax0 { block y_max }
//   for i { for j { block y } }                   for ax0 { block y_exp }
//                                                 for j { block y } }
//
// Offered consumers first, so that a chain of producers gathers under one loop.
// The location is a sample_compute_location: the heuristic takes the consumers'
// outermost shared loop that runs more than once (past loops of one iteration)
// when all consumers are under it, and the move recomputes nothing (the producer's instances under
// it, times its extent, are no more than before); a design space draws any legal location.
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

// The root-level loop above sref `s`, or -1.
int OutermostLoop(const sch::StmtIndex& index, int s) {
  std::vector<int> loops = index.LoopsAbove(s);
  return loops.empty() ? -1 : loops[0];
}

// The instances of block `s` the nest under loop sref `loop` runs per iteration.
std::optional<int64_t> InstancesPerIteration(const sch::StmtIndex& index, int s, int loop) {
  int64_t n = 1;
  for (int l : index.LoopsAbove(s)) {
    if (l == loop || !index.IsAncestor(loop, l)) continue;
    std::optional<int64_t> e = ir::arith::AsConstInt(index.loop(l)->extent);
    if (!e) return std::nullopt;
    n *= *e;
  }
  return n;
}

class ComputeLocation : public ScheduleRule {
 public:
  std::string name() const override { return "compute-location"; }
  bool consumers_first() const override { return true; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::BlockNode* b = index.block(sref);
    int own = OutermostLoop(index, sref);
    if (own < 0 || index.ChildBlocks(own) != std::vector<int>{sref} ||
        index.ScopeBlock(sref) != index.ScopeBlock(own)) {
      return RuleOutcome::NotApplicable("it does not have a loop nest of its own");
    }
    // The loops above each consumer, outermost first.
    std::vector<std::vector<int>> above;
    for (const ir::BufferRegion& w : b->writes) {
      if (sch::IsParam(s.func(), w.buffer.get())) {
        return RuleOutcome::NotApplicable("it writes a parameter");
      }
      for (const std::string& reader : sch::ReadersOf(index, w.buffer.get())) {
        above.push_back(index.LoopsAbove(index.FindBlock(reader)));
        if (above.back().empty() || above.back()[0] != above[0][0]) {
          return RuleOutcome::NotApplicable("its consumers are not under one loop");
        }
      }
    }
    if (above.empty() || above[0][0] == own)
      return RuleOutcome::NotApplicable("it has no consumer");
    // The outermost loop all consumers share that runs more than once: past the
    // loops of one iteration a tiling leaves outermost (attention's batch of 1).
    int target = above[0][0];
    for (size_t d = 1; ir::arith::IsConstInt(index.loop(target)->extent, 1); ++d) {
      bool shared = true;
      for (const std::vector<int>& loops : above) {
        shared &= d < loops.size() && loops[d] == above[0][d];
      }
      if (!shared) break;
      target = above[0][d];
    }
    std::optional<int64_t> extent = ir::arith::AsConstInt(index.loop(target)->extent);
    std::optional<int64_t> before = DomainSize(b);
    if (!extent || *extent <= 1 || !before) {
      return RuleOutcome::NotApplicable("its consumers' outer loop runs once or symbolically");
    }
    // The decision: the target's position among the scope's loops in program order.
    int64_t decision = 0;
    for (int x = 0; x < target; ++x) {
      if (index.loop(x) != nullptr && index.ScopeBlock(x) == index.ScopeBlock(target)) ++decision;
    }
    const std::string target_name = index.loop(target)->loop_var->name;
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_ASSIGN_OR_RETURN(sch::Location loc, s.SampleComputeLocation(rv, ctx.Decide(decision)));
    TESSEL_RETURN_IF_ERROR(s.Apply(sch::primitive::ComputeAt{rv, loc, false}));
    if (!ctx.sample) {
      const sch::StmtIndex& now = s.state().index();
      int moved = now.FindBlock(block);
      int at = -1;  // The target loop, found again in the changed function.
      for (int l : now.LoopsAbove(moved)) {
        if (now.loop(l)->loop_var->name == target_name) at = l;
      }
      std::optional<int64_t> per = at < 0 ? std::nullopt : InstancesPerIteration(now, moved, at);
      if (!per || *per * *extent > *before) {
        return RuleOutcome::NotApplicable(
            absl::StrCat("under ", target_name, " it would compute ", per ? *per * *extent : -1,
                         " instances instead of ", *before));
      }
    }
    return RuleOutcome::Applied(absl::StrCat("under ", target_name));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 200, ComputeLocation);

}  // namespace

}  // namespace tessel::metaschedule
