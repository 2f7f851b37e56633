// gpu-general-reduction: a row-wise function -- reductions along each row and
// elementwise work that reads them (softmax, rms_norm, layer_norm) -- computed a row per
// block of threads in one kernel: the elementwise producers inlined, each
// reduction moved under the row and combined across the threads into shared
// memory, the output written by the same threads.
//
//   block y_maxelem (max over k)        for i in thread_binding(0, 4096, "blockIdx.x") {
//   block y_exp     (exp(x - max))        for k_1 in thread_binding(0, 256, "threadIdx.x")
//   block y_expsum  (sum over k)    ->      for k_0: block y_maxelem   (-> thread_max_x, shared)
//   block y         (exp / sum)           for k_1 in thread_binding(...)
//                                           for k_0: block y_expsum    (exp inlined, thread_sum_x)
//                                         for i1_1 in thread_binding(...)
//                                           for i1_0: block y          (exp inlined)
//
// It is TVM dlight's GeneralReduction: where gpu-reduction gives each reduction
// its own kernel and gpu-fallback each elementwise block, the row is read from
// global memory once per pass over it and its reductions never leave the chip.
// Lowering puts a barrier between a reduction's store to shared memory and the
// threads' loads of it (thread-sync).
//
// Applies to the last block of a function when it is elementwise over [rows...,
// cols] in a trivial nest, every other block of the function is either
// elementwise (inlined) or a reduction of the rows along cols that lowering can
// combine across threads (each output by +, *, max or min), and there is at
// least one reduction. Rows are fused and bound to blockIdx.x; every cols loop is split by
// the thread count and bound to threadIdx.x, a sample_categorical decision over
// the powers of two from 32 to the target's limit (heuristic: the largest up to
// 256 that divides the row, else up to 256 with the tail guarded). layer_norm's
// tuple reduction (sum and sum of squares) combines each output on its own. Not
// applicable to a reduction that is itself an output of the function. Extents may
// be shape variables: softmax of f32[n, 4096] takes a grid of n blocks, and a
// row of symbolic length 256 threads that the split's predicate guards.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"
#include "passes/lowering/thread_reduction.h"

namespace tessel::metaschedule {

namespace {

class GpuGeneralReduction : public ScheduleRule {
 public:
  std::string name() const override { return "gpu-general-reduction"; }
  // The output block comes first: the rule moves its producers under its rows.
  bool consumers_first() const override { return true; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    std::variant<TrivialNest, std::string> analyzed =
        AnalyzeGpuNest(ctx.machine.gpu, s, block, /*symbolic=*/true);
    if (const std::string* why = std::get_if<std::string>(&analyzed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const TrivialNest nest = std::get<TrivialNest>(analyzed);
    if (!AllSpatial(nest.block) || nest.loops.size() < 2) {
      return RuleOutcome::NotApplicable("it is not elementwise over rows and columns");
    }
    const sch::StmtIndex& index = s.state().index();
    const int sref = index.FindBlock(block);
    const std::vector<int> siblings = index.ChildBlocks(index.ScopeBlock(sref));
    if (siblings.empty() || siblings.back() != sref) {
      return RuleOutcome::NotApplicable("it is not the function's last block");
    }
    // The output's rows and columns, as expressions: n rows of 33 for softmax of f32[n, 33].
    ir::Expr rows, cols;
    for (size_t l = 0; l < nest.loops.size(); ++l) {
      TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(nest.loops[l]));
      if (l + 1 == nest.loops.size()) {
        cols = f->extent;
      } else {
        rows = rows.defined() ? ir::Mul(rows, f->extent) : f->extent;
      }
    }
    const int64_t cols_extent = nest.extents.back();
    ir::arith::Analyzer ana;
    std::vector<std::string> spatial, reductions;
    for (int o : siblings) {
      if (o == sref) continue;
      const ir::BlockNode* ob = index.block(o);
      if (AllSpatial(ob)) {
        spatial.push_back(ob->name);
        continue;
      }
      // It reduces rows x cols elements along the columns: its spatial extents
      // multiply to the rows, its reduce extents to the columns.
      ir::Expr kept = ir::IntImm(rows->dtype, 1), reduced = ir::IntImm(cols->dtype, 1);
      for (const ir::IterVar& iv : ob->iter_vars) {
        ir::Expr& product = iv.kind == ir::IterKind::kReduce ? reduced : kept;
        product = ir::Mul(product, ir::Cast(product->dtype, iv.dom.extent));
      }
      if (!ana.CanProveEqual(reduced, cols) || !ana.CanProveEqual(kept, rows)) {
        return RuleOutcome::NotApplicable(
            absl::StrCat("block ", ob->name, " is not a reduction of the rows along the columns"));
      }
      if (sch::IsParam(s.func(), ob->writes[0].buffer.get())) {
        return RuleOutcome::NotApplicable(
            absl::StrCat("block ", ob->name, " reduces into an output of the function"));
      }
      if (absl::Status body = passes::lowering::CheckReductionBody(ob); !body.ok()) {
        return RuleOutcome::NotApplicable(absl::StrCat("block ", ob->name,
                                                       " is not a reduction the threads can "
                                                       "combine: ",
                                                       body.message()));
      }
      reductions.push_back(ob->name);
    }
    if (reductions.empty()) return RuleOutcome::NotApplicable("no block reduces the rows");

    for (const std::string& name : spatial) {
      TESSEL_ASSIGN_OR_RETURN(sch::BlockRV p, s.GetBlock(name));
      TESSEL_RETURN_IF_ERROR(s.ComputeInline(p));
    }
    // The row: the output's leading loops fused, a block of threads each.
    sch::LoopRV row = nest.loops[0];
    if (nest.loops.size() > 2) {
      TESSEL_ASSIGN_OR_RETURN(
          row, s.Fuse(std::vector<sch::LoopRV>(nest.loops.begin(), nest.loops.end() - 1)));
    }
    TESSEL_RETURN_IF_ERROR(s.Bind(row, "blockIdx.x"));

    TESSEL_ASSIGN_OR_RETURN(int64_t threads, SampleThreadCount(ctx, s, cols_extent));
    TESSEL_ASSIGN_OR_RETURN(int64_t per_thread,
                            SampleElementsPerThread(ctx, s, cols_extent, threads));
    TESSEL_RETURN_IF_ERROR(SpreadOverThreads(s, nest.loops.back(), threads, per_thread));

    // The reductions under the row, consumers first, their results in shared memory.
    for (size_t r = reductions.size(); r-- > 0;) {
      TESSEL_ASSIGN_OR_RETURN(sch::BlockRV red, s.GetBlock(reductions[r]));
      TESSEL_RETURN_IF_ERROR(s.ComputeAt(red, row));
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> k, LoopsBelow(s, red, row));
      if (k.empty()) return absl::InternalError("the reduction has no loop under the row");
      sch::LoopRV fused = k[0];
      if (k.size() > 1) {
        TESSEL_ASSIGN_OR_RETURN(fused, s.Fuse(k));
      }
      TESSEL_RETURN_IF_ERROR(SpreadOverThreads(s, fused, threads, per_thread));
      TESSEL_ASSIGN_OR_RETURN(ir::Block rb, s.Get(red));
      for (size_t w = 0; w < rb->writes.size(); ++w) {  // layer_norm's sum and sum of squares
        TESSEL_RETURN_IF_ERROR(s.SetScope(red, static_cast<int64_t>(w), "shared"));
      }
    }
    std::vector<std::string> did = {absl::StrCat(
        "a block of ", threads, " threads per row of ",
        cols_extent == kSymbolicExtent ? std::string("symbolic length") : absl::StrCat(cols_extent),
        per_thread > 1 ? absl::StrCat(" (", per_thread, " neighbouring elements each per step)")
                       : "",
        ", reductions ", absl::StrJoin(reductions, ", "))};
    if (!spatial.empty()) did.push_back(absl::StrCat("inlined ", absl::StrJoin(spatial, ", ")));
    return RuleOutcome::Applied(absl::StrJoin(did, "; "));
  }
};

}  // namespace

TESSEL_REGISTER_SCHEDULE_RULE("cuda", 30, GpuGeneralReduction);

}  // namespace tessel::metaschedule
