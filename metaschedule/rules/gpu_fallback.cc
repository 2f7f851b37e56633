// gpu-fallback: the GPU rule that applies to any block in its own loop nest -- its
// spatial loops fused and spread over blocks of threads, one output element per
// thread, its reduction loops serial inside the thread. The other GPU rules
// (matmul, GEMV, reductions) come before it; it is what makes every function
// runnable on a cuda target.
//
//   for i in range(0, 128) {          for i_j_fused_0 in thread_binding(0, 128, "blockIdx.x") {
//     for j in range(0, 256) {    ->    for i_j_fused_1 in thread_binding(0, 256, "threadIdx.x") {
//       for k in range(0, 64) {           for k in range(0, 64) {
//         block C(vi, vj: spatial,           block C ...
//                 vk: reduce) ...
//
// The spatial loops are moved outside the reduction loops first (reorder); loops of
// extent 1 stay outermost, unbound. Threads per block are a sample_categorical
// decision over the powers of two from 32 to the target's limit (heuristic: the
// largest up to 256 that divides the domain, else 256); a domain smaller than a block
// is one block of exactly that many threads, and a domain that is not a multiple is
// guarded by the split's predicate. A large elementwise domain (4096 blocks or more
// with 4 elements a thread) gives each thread 4 neighbouring elements. A
// block without a spatial loop (a reduction to a scalar) is not applicable.
//
// A domain of symbolic extent (a shape variable's, f32[n]) takes 256 threads a
// block and ceil(n / 256) blocks, guarded: the launch's grid is then an expression
// of the shape variables that the runtime evaluates per call,
//   for i in range(0, n)  ->  for i_0 in thread_binding(0, (n + 255) // 256, "blockIdx.x") {
//                               for i_1 in thread_binding(0, 256, "threadIdx.x") {
//                                 block B(vi = i_0 * 256 + i_1) where i_0 * 256 + i_1 < n
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

// Elements per thread of a large elementwise domain, and the grid from which on
// it applies.
constexpr int64_t kPerThread = 4;
constexpr int64_t kManyBlocks = 4096;

class GpuFallback : public ScheduleRule {
 public:
  std::string name() const override { return "gpu-fallback"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    std::variant<TrivialNest, std::string> analyzed =
        AnalyzeGpuNest(ctx.machine.gpu, s, block, /*symbolic=*/true);
    if (const std::string* why = std::get_if<std::string>(&analyzed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const TrivialNest& nest = std::get<TrivialNest>(analyzed);
    // Unit loops stay outside, serial: fusing them in only hides the fused index's
    // structure from bind's bijection check.
    const NestLoops loops = SplitNestLoops(nest);
    const std::vector<sch::LoopRV>&unit = loops.unit, &spatial = loops.spatial,
          &reduce = loops.reduce;
    const int64_t domain = loops.spatial_extent;
    if (spatial.empty()) {
      return RuleOutcome::NotApplicable("it has no spatial loop to spread over threads");
    }
    std::vector<sch::LoopRV> order = unit;
    order.insert(order.end(), spatial.begin(), spatial.end());
    order.insert(order.end(), reduce.begin(), reduce.end());
    if (!loops.in_order) TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    sch::LoopRV fused = spatial[0];
    if (spatial.size() > 1) {
      TESSEL_ASSIGN_OR_RETURN(sch::LoopRV f, s.Fuse(spatial));
      fused = f;
    }

    const std::vector<int64_t> candidates = GpuThreadCounts(ctx.machine.max_threads_per_block);
    // The largest candidate up to kGpuHeuristicThreads that divides the domain (no
    // guard, and the bound loops stay a bijection of the fused index), else -- and
    // for a domain of unknown size -- the largest up to it.
    const bool symbolic = domain == kSymbolicExtent;
    int64_t heuristic = 0;
    for (size_t c = 0; !symbolic && c < candidates.size() && candidates[c] <= kGpuHeuristicThreads;
         ++c) {
      if (domain % candidates[c] == 0 || domain <= candidates[c]) {
        heuristic = static_cast<int64_t>(c);
        if (domain <= candidates[c]) break;
      }
    }
    if (heuristic == 0 && (symbolic || (domain % candidates[0] != 0 && domain > candidates[0]))) {
      while (heuristic + 1 < static_cast<int64_t>(candidates.size()) &&
             candidates[heuristic + 1] <= kGpuHeuristicThreads) {
        ++heuristic;
      }
    }
    std::vector<double> probs(candidates.size(), 1.0 / candidates.size());
    // bind refuses a split whose parts are not a provable bijection of the fused
    // index (a thread count that straddles the inner extents): the heuristic then
    // tries the other counts, smaller first. A drawn or forced count gets one try.
    std::vector<int64_t> tries = {heuristic};
    for (int64_t c = heuristic - 1; c >= 0; --c) tries.push_back(c);
    for (int64_t c = heuristic + 1; c < static_cast<int64_t>(candidates.size()); ++c) {
      tries.push_back(c);
    }
    if (ctx.Decide(heuristic) != heuristic) tries.resize(1);
    const sch::Schedule before = s;
    absl::Status last;
    for (int64_t t : tries) {
      s = before;
      absl::StatusOr<std::string> did =
          SplitAndBind(ctx, s, fused, domain, candidates, probs, t, reduce.empty());
      if (did.ok()) {
        return RuleOutcome::Applied(
            reduce.empty() ? *did : absl::StrCat(*did, ", reduction in the thread"));
      }
      last = did.status();
    }
    s = before;
    return last;
  }

 private:
  static absl::StatusOr<std::string> SplitAndBind(const RuleContext& ctx, sch::Schedule& s,
                                                  sch::LoopRV fused, int64_t domain,
                                                  const std::vector<int64_t>& candidates,
                                                  const std::vector<double>& probs, int64_t pick,
                                                  bool elementwise) {
    TESSEL_ASSIGN_OR_RETURN(sch::ExprRV choice,
                            s.SampleCategorical(candidates, probs, ctx.Decide(pick)));
    TESSEL_ASSIGN_OR_RETURN(int64_t threads, s.Get(choice));
    if (domain == kSymbolicExtent) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                              s.Split(fused, {std::nullopt, threads}));
      TESSEL_RETURN_IF_ERROR(s.Bind(parts[0], "blockIdx.x"));
      TESSEL_RETURN_IF_ERROR(s.Bind(parts[1], "threadIdx.x"));
      return absl::StrCat("a symbolic number of blocks of ", threads, " threads");
    }
    if (domain <= threads) {
      TESSEL_RETURN_IF_ERROR(s.Bind(fused, "threadIdx.x"));
      return absl::StrCat("one block of ", domain, " threads");
    }
    // A large elementwise domain gives each thread kPerThread neighbouring
    // elements: one 16-byte load of f32 (a warp's loads still one contiguous run),
    // more bytes in flight per thread, a quarter of the blocks.
    if (elementwise && domain % (threads * kPerThread) == 0 &&
        domain / (threads * kPerThread) >= kManyBlocks) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                              s.Split(fused, {std::nullopt, threads, kPerThread}));
      TESSEL_RETURN_IF_ERROR(s.Bind(parts[0], "blockIdx.x"));
      TESSEL_RETURN_IF_ERROR(s.Bind(parts[1], "threadIdx.x"));
      TESSEL_RETURN_IF_ERROR(s.Unroll(parts[2]));
      return absl::StrCat(domain / (threads * kPerThread), " blocks of ", threads, " threads, ",
                          kPerThread, " elements each");
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                            s.Split(fused, {std::nullopt, threads}));
    TESSEL_RETURN_IF_ERROR(s.Bind(parts[0], "blockIdx.x"));
    TESSEL_RETURN_IF_ERROR(s.Bind(parts[1], "threadIdx.x"));
    return absl::StrCat((domain + threads - 1) / threads, " blocks of ", threads, " threads");
  }
};

}  // namespace

TESSEL_REGISTER_SCHEDULE_RULE("cuda", 0, GpuFallback);

}  // namespace tessel::metaschedule
