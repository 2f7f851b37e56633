// add-rfactor: turns a reduction along contiguous memory into vector-wide
// partial reductions plus a short final one, so that GEMV, row sums and
// maxima (softmax) run on vector lanes.
//
//   for i, k in 4096: block y(vi spatial, vk reduce)      for i, k_0 in 128, k_1 in 32:
//     y[vi] += A[vi, vk] * x[vk]                     ->     block y_rf(vk_1 spatial, vi, vk_0 reduce)
//                                                             y_rf[vi, vk_1] += A[vi, vk_0 * 32 + vk_1] * ...
//                                                         for i, k_1 in 32: block y(vi, vk_1 reduce)
//                                                             y[vi] += y_rf[vi, vk_1]
//
// Applies to a reduction (into one buffer or several at once: layer norm's sum
// and sum of squares) alone in a trivially bound nest whose innermost
// loop is bound to a reduce iter var that indexes the last dimension of a read
// (so a vector of partial results reads contiguous memory), at least two vectors
// long. The innermost loop is split by a width that divides it (a
// sample_categorical among half, one or two vectors; the heuristic weighs the
// partial block's serial chain, extent / width, against the write-back's, which
// grows with the width) and
// rfactor'd with the new dimension last. compute-location then moves the partial
// block under its consumer and parallelize-vectorize vectorizes its lanes.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

class AddRFactor : public ScheduleRule {
 public:
  std::string name() const override { return "add-rfactor"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::Block b = ir::GetRef(index.block(sref));
    if (b->init == nullptr || !HasReduce(b.get())) {
      return RuleOutcome::NotApplicable("it is not a reduction");
    }
    std::variant<TrivialNest, std::string> analysed = AnalyzeNest(s, block);
    if (const std::string* why = std::get_if<std::string>(&analysed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const TrivialNest& nest = std::get<TrivialNest>(analysed);
    const int inner = static_cast<int>(nest.loops.size()) - 1;
    int k = -1;
    for (size_t v = 0; v < nest.loop_of_iter.size(); ++v) {
      if (nest.loop_of_iter[v] == inner) k = static_cast<int>(v);
    }
    if (k < 0 || b->iter_vars[k].kind != ir::IterKind::kReduce) {
      return RuleOutcome::NotApplicable("its innermost loop is not a reduction");
    }
    bool contiguous = false;
    for (const ir::BufferRegion& r : b->reads) {
      if (!r.region.empty() && IterIndexingDim(b.get(), r, r.region.size() - 1) == k) {
        contiguous = true;
      }
    }
    if (!contiguous) {
      return RuleOutcome::NotApplicable("its reduction does not run along the last dimension");
    }
    // The widest accumulator sets the lanes (all of layer norm's statistics are f32).
    int64_t lanes = 1 << 30;
    for (const ir::BufferRegion& out : b->writes) {
      lanes = std::min<int64_t>(lanes, ctx.machine.Lanes(out.buffer->dtype));
    }
    if (nest.extents[inner] < 2 * lanes) {
      return RuleOutcome::NotApplicable("its reduction is shorter than two vectors");
    }
    // Widths that divide the extent: a guarded tail would put a predicate over
    // the reduce and the lane loops on the partial block, which keeps the loops
    // around it from running in parallel.
    std::vector<int64_t> widths;
    for (int64_t cand : {lanes / 2, lanes, 2 * lanes}) {
      if (cand >= 2 && nest.extents[inner] % cand == 0) widths.push_back(cand);
    }
    if (widths.empty()) {
      return RuleOutcome::NotApplicable(absl::StrCat("no vector width divides its extent ",
                                                     nest.extents[inner]));
    }
    // The width that makes the two serial chains shortest: the partial block
    // adds extent / w vectors one after another per lane, the write-back then
    // adds the w partial results one after another, each about twice the cost
    // (it pulls them out of a vector). Layer norm 4096x768 takes 16 lanes (48 +
    // 2 * 16 steps against 24 + 2 * 32: 0.88 of memcpy, not 0.61); softmax's
    // 4096-long rows and GEMV take 32.
    int64_t heuristic = 0;
    auto cost = [&](int64_t w) { return nest.extents[inner] / w + 2 * w; };
    for (size_t c = 1; c < widths.size(); ++c) {
      if (cost(widths[c]) < cost(widths[heuristic])) heuristic = static_cast<int64_t>(c);
    }
    std::vector<double> probs(widths.size(), 1.0 / static_cast<double>(widths.size()));
    TESSEL_ASSIGN_OR_RETURN(sch::ExprRV w, s.SampleCategorical(widths, probs, ctx.Decide(heuristic)));
    TESSEL_ASSIGN_OR_RETURN(int64_t width, s.Get(w));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                            s.Split(nest.loops[inner], {std::nullopt, sch::Factor(w)}));
    // The partial results' dimension goes last in each rfactor buffer.
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rf, s.RFactor(parts[1], -1));
    TESSEL_ASSIGN_OR_RETURN(ir::Block rf_block, s.Get(rf));
    return RuleOutcome::Applied(
        absl::StrCat(width, " partial results in ", rf_block->name));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 250, AddRFactor);

}  // namespace

}  // namespace tessel::metaschedule
