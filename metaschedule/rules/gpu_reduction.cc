// gpu-reduction: a reduction block gets one block of threads per output element;
// the threads split the reduction along threadIdx.x (consecutive threads read
// consecutive elements), each reduces its share serially, and lowering combines
// the shares with warp shuffles (passes/lowering/thread_reduction.h).
//
//   for i in range(0, 4096) {               for i in thread_binding(0, 4096, "blockIdx.x") {
//     for k in range(0, 4096) {       ->      for k_1 in thread_binding(0, 256, "threadIdx.x") {
//       block y(vi: spatial,                    for k_0 in range(0, 16) {
//               vk: reduce) ...                   block y(vi = i, vk = k_0 * 256 + k_1) ...
//
// It is the row reduction of TVM dlight's Reduction and GEMV rules: GEMV, row sums
// and maxima, softmax's and norms' reductions, matmul-like blocks whose reduction is
// long. The spatial loops are fused and bound to blockIdx.x; the reduction loops are
// fused, split by the thread count and the threads put outside. Threads per block
// are a sample_categorical decision over the powers of two from 32 to the target's
// limit (heuristic: the largest up to 256 that the reduction fills, preferring one
// that divides it; otherwise the split's predicate guards the tail). Not applicable
// to a block without reduction, with a reduction shorter than 64, with more than
// 8192 outputs and a shorter reduction (a matmul: a thread per output fills the
// GPU), or whose body
// the lowering cannot turn into a collective (several outputs, an init that reads),
// which gpu-fallback then schedules with the reduction inside each thread.
// Extents may be shape variables: the sum of f32[n, 4096]'s rows takes a grid of n
// blocks; a reduction of length n, 256 threads whose strided walk the split's
// predicate (k_0 * 256 + k_1 < n) guards. A symbolic reduction counts as long. Symbolic
// outputs with a warp or more of constant ones per row (a dense layer over n tokens)
// are left to gpu-fallback's thread per output.

#include "absl/strings/str_cat.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"
#include "passes/lowering/thread_reduction.h"

namespace tessel::metaschedule {

namespace {

// Below this many elements per output the fallback's one-thread-per-output wins:
// the shuffles and the block launch cost more than the serial loop.
constexpr int64_t kMinReduction = 64;
// With more outputs than this and a shorter reduction, one thread per output already
// fills a GPU (a matmul's many outputs), and a block per output would spend its
// threads on shuffles: gpu-fallback is the better default there.
constexpr int64_t kManyOutputs = 8192;
// Constant outputs per symbolic row from which a thread per output wins.
constexpr int64_t kWarpOfOutputs = 32;

class GpuReduction : public ScheduleRule {
 public:
  std::string name() const override { return "gpu-reduction"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    std::variant<TrivialNest, std::string> analyzed =
        AnalyzeGpuNest(ctx.machine.gpu, s, block, /*symbolic=*/true);
    if (const std::string* why = std::get_if<std::string>(&analyzed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const TrivialNest& nest = std::get<TrivialNest>(analyzed);
    const ir::BlockNode* b = nest.block;
    if (!HasReduce(b)) return RuleOutcome::NotApplicable("it does not reduce");
    if (absl::Status body = passes::lowering::CheckReductionBody(b); !body.ok()) {
      return RuleOutcome::NotApplicable(
          absl::StrCat("its reduction is not one the threads can combine: ", body.message()));
    }
    const NestLoops loops = SplitNestLoops(nest);
    const std::vector<sch::LoopRV>&unit = loops.unit, &spatial = loops.spatial,
          &reduce = loops.reduce;
    const int64_t reduction = loops.reduce_extent;
    // A symbolic reduction is taken to be long; symbolic outputs count as at least
    // the product of the constant spatial extents.
    int64_t outputs = 1;
    for (size_t k = 0; k < nest.block->iter_vars.size(); ++k) {
      const int64_t e = nest.extents[nest.loop_of_iter[k]];
      if (nest.block->iter_vars[k].kind == ir::IterKind::kSpatial && e != kSymbolicExtent) {
        outputs *= e;
      }
    }
    const bool symbolic = reduction == kSymbolicExtent;
    // Symbolic rows of constant columns, a warp of them at least (a dense layer of n
    // tokens, [n, 4096]): a thread per output reads the columns coalesced, where a
    // block per output would read a weight column with a stride.
    if (loops.spatial_extent == kSymbolicExtent && outputs >= kWarpOfOutputs) {
      return RuleOutcome::NotApplicable(absl::StrCat(
          "its symbolic number of outputs, ", outputs,
          " per row, fills the GPU with a thread each"));
    }
    if (!symbolic && reduction < kMinReduction) {
      return RuleOutcome::NotApplicable(absl::StrCat("its reduction of ", reduction,
                                                     " elements is shorter than ", kMinReduction));
    }
    if (!symbolic && outputs > kManyOutputs && reduction < outputs) {
      return RuleOutcome::NotApplicable(
          absl::StrCat("its ", outputs, " outputs fill the GPU with a thread each (reduction of ",
                       reduction, ")"));
    }
    std::vector<sch::LoopRV> order = unit;
    order.insert(order.end(), spatial.begin(), spatial.end());
    order.insert(order.end(), reduce.begin(), reduce.end());
    TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    if (!spatial.empty()) {
      sch::LoopRV rows = spatial[0];
      if (spatial.size() > 1) {
        TESSEL_ASSIGN_OR_RETURN(rows, s.Fuse(spatial));
      }
      TESSEL_RETURN_IF_ERROR(s.Bind(rows, "blockIdx.x"));
    }
    sch::LoopRV k = reduce[0];
    if (reduce.size() > 1) {
      TESSEL_ASSIGN_OR_RETURN(k, s.Fuse(reduce));
    }

    TESSEL_ASSIGN_OR_RETURN(int64_t threads, SampleThreadCount(ctx, s, reduction));
    TESSEL_ASSIGN_OR_RETURN(int64_t per_thread,
                            SampleElementsPerThread(ctx, s, reduction, threads));
    TESSEL_RETURN_IF_ERROR(SpreadOverThreads(s, k, threads, per_thread));
    return RuleOutcome::Applied(absl::StrCat(
        spatial.empty() ? "one block" : "a block per output", ", ", threads,
        " threads across the reduction of ",
        symbolic ? std::string("symbolic length") : absl::StrCat(reduction),
        per_thread > 1 ? absl::StrCat(", ", per_thread, " neighbouring elements per step") : ""));
  }
};

}  // namespace

TESSEL_REGISTER_SCHEDULE_RULE("cuda", 10, GpuReduction);

}  // namespace tessel::metaschedule
