// parallelize-vectorize: runs each loop nest of the function on all cores and
// its innermost elementwise loops on vector lanes.
//
//   for i in range(0, 4096) {                 for i in parallel(0, 4096) {
//     for j in range(0, 4096) {        ->       for j_0 in range(0, 256) {
//       block y(vi, vj: spatial) ...              for j_1 in vectorized(0, 16) { block y ... }
//
// Offered the first block of each nest at the function's root. Parallel: the
// outer loops of the nest's perfect prefix, fused until they give every core
// kJobsPerCore iterations (or the prefix ends), then marked parallel; when
// parallel refuses (a dependence), a shorter prefix is tried. Vectorize: for each
// block under the nest with spatial iter vars only, whose innermost loop is bound
// to the iter var of its output's last dimension, that loop split by the vector
// lanes of the output's dtype (a tail is guarded) and the inner part vectorized;
// a block that refuses keeps its loop. The prefix length and the vector width
// are sample_categorical decisions.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

constexpr int64_t kJobsPerCore = 4;

class ParallelizeVectorize : public ScheduleRule {
 public:
  std::string name() const override { return "parallelize-vectorize"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    if (sref < 0) return RuleOutcome::NotApplicable("no such block");
    std::vector<int> above = index.LoopsAbove(sref);
    if (above.empty() || index.ScopeBlock(above[0]) != index.ScopeBlock(sref) ||
        index.ChildBlocks(above[0])[0] != sref) {
      return RuleOutcome::NotApplicable("it is not the first block of a loop nest");
    }
    const int root = above[0];
    std::vector<std::string> nest_blocks;
    for (int c : index.ChildBlocks(root)) nest_blocks.push_back(index.block(c)->name);
    std::vector<std::string> did;
    TESSEL_ASSIGN_OR_RETURN(std::optional<std::string> par, Parallelize(ctx, s, block));
    if (par) did.push_back(*par);
    for (const std::string& name : nest_blocks) {
      sch::Schedule before = s;
      absl::StatusOr<std::optional<std::string>> vec = Vectorize(ctx, s, name);
      if (!vec.ok()) {
        s = std::move(before);
        continue;
      }
      if (*vec) did.push_back(**vec);
    }
    if (did.empty()) return RuleOutcome::NotApplicable("no loop could run in parallel or vectors");
    return RuleOutcome::Applied(absl::StrJoin(did, ", "));
  }

 private:
  static absl::StatusOr<std::optional<std::string>> Parallelize(const RuleContext& ctx,
                                                                sch::Schedule& s,
                                                                const std::string& block) {
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(rv));
    // The perfect prefix: serial loops with constant extents, each the next one's only parent.
    std::vector<sch::LoopRV> prefix;
    std::vector<int64_t> extents;
    for (size_t l = 0; l < loops.size(); ++l) {
      TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(loops[l]));
      std::optional<int64_t> e = ir::arith::AsConstInt(f->extent);
      if (f->for_kind != ir::ForKind::kSerial || !e) break;
      prefix.push_back(loops[l]);
      extents.push_back(*e);
      if (l + 1 >= loops.size()) break;
      TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> next, s.Get(loops[l + 1]));
      if (f->body.get() != next.get()) break;
    }
    if (prefix.empty()) return std::optional<std::string>();
    // The heuristic: the shortest prefix that gives every core kJobsPerCore iterations.
    const int64_t want = kJobsPerCore * ctx.machine.num_cores;
    int64_t heuristic = static_cast<int64_t>(prefix.size());
    int64_t product = 1;
    for (size_t l = 0; l < prefix.size(); ++l) {
      product *= extents[l];
      if (product >= want) {
        heuristic = static_cast<int64_t>(l) + 1;
        break;
      }
    }
    std::vector<int64_t> lengths;
    for (int64_t n = 1; n <= static_cast<int64_t>(prefix.size()); ++n) lengths.push_back(n);
    std::vector<double> probs(lengths.size(), 1.0 / static_cast<double>(lengths.size()));
    TESSEL_ASSIGN_OR_RETURN(sch::ExprRV len_rv,
                            s.SampleCategorical(lengths, probs, ctx.Decide(heuristic - 1)));
    TESSEL_ASSIGN_OR_RETURN(int64_t len, s.Get(len_rv));
    for (; len >= 1; --len) {
      sch::Schedule before = s;
      std::vector<sch::LoopRV> fused(prefix.begin(), prefix.begin() + len);
      absl::StatusOr<sch::LoopRV> f =
          len == 1 ? absl::StatusOr<sch::LoopRV>(fused[0]) : s.Fuse(fused);
      if (f.ok() && s.Parallel(*f).ok()) {
        return std::optional<std::string>(absl::StrCat("parallel over ", len, " loop(s)"));
      }
      s = std::move(before);
    }
    return std::optional<std::string>();
  }

  static absl::StatusOr<std::optional<std::string>> Vectorize(const RuleContext& ctx,
                                                              sch::Schedule& s,
                                                              const std::string& block) {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::BlockRealizeNode* r = index.realize(sref);
    const ir::BlockNode* b = r->block.get();
    std::vector<int> above = index.LoopsAbove(sref);
    if (!AllSpatial(b) || b->writes.size() != 1 || above.empty()) return std::optional<std::string>();
    const ir::ForNode* inner = index.loop(above.back());
    if (inner->for_kind != ir::ForKind::kSerial || inner->body.get() != r) {
      return std::optional<std::string>();
    }
    const ir::BufferRegion& out = b->writes[0];
    int k = IterIndexingDim(b, out, out.region.size() - 1);
    if (out.region.empty() || k < 0 || r->iter_values[k].get() != inner->loop_var.get()) {
      return std::optional<std::string>();
    }
    std::optional<int64_t> extent = ir::arith::AsConstInt(inner->extent);
    if (!extent || *extent < 2) return std::optional<std::string>();
    const int64_t lanes = ctx.machine.Lanes(out.buffer->dtype);
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(rv));
    sch::LoopRV l = loops.back();
    std::vector<int64_t> widths = {lanes / 2 > 0 ? lanes / 2 : 1, lanes, 2 * lanes};
    std::vector<double> probs(widths.size(), 1.0 / static_cast<double>(widths.size()));
    TESSEL_ASSIGN_OR_RETURN(sch::ExprRV w_rv,
                            s.SampleCategorical(widths, probs, ctx.Decide(int64_t{1})));
    TESSEL_ASSIGN_OR_RETURN(int64_t width, s.Get(w_rv));
    if (*extent > width) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts, s.Split(l, {std::nullopt, width}));
      l = parts.back();
    }
    TESSEL_RETURN_IF_ERROR(s.Vectorize(l));
    return std::optional<std::string>(absl::StrCat("vectorized ", block, " by ", std::min(width, *extent)));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 100, ParallelizeVectorize);

}  // namespace

}  // namespace tessel::metaschedule
