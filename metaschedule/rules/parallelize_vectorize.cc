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
// block under the nest, the loop bound to the spatial iter var of its outputs'
// last dimension -- moved inside the loops below it when each runs one iter var
// of the block (a partial-sum block of add-rfactor) -- split by the vector
// lanes of the output's dtype (a tail is guarded) and the inner part vectorized;
// a block that refuses keeps its loops. The prefix length and the vector width
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
    const std::optional<std::string> none;
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::BlockRealizeNode* r = index.realize(sref);
    const ir::BlockNode* b = r->block.get();
    // One spatial iter var indexes the last dimension of every buffer written
    // (both of layer norm's partial statistics); the widest dtype (fewest lanes) sets them.
    int k = -1;
    int64_t lanes = 1 << 30;
    for (const ir::BufferRegion& out : b->writes) {
      const int dim = out.region.empty() ? -1 : IterIndexingDim(b, out, out.region.size() - 1);
      if (dim < 0 || (k >= 0 && dim != k)) return none;
      k = dim;
      lanes = std::min<int64_t>(lanes, ctx.machine.Lanes(out.buffer->dtype));
    }
    if (k < 0 || b->iter_vars[k].kind != ir::IterKind::kSpatial) return none;
    // The loop bound to that iter var, and the loops below it: each bound to
    // another iter var of this block alone (they move outside it: the reductions
    // of add-rfactor's partial block, and its rows when it sits under a loop
    // that is not its row loop).
    std::vector<int> above = index.LoopsAbove(sref);
    int at = -1;
    for (size_t l = 0; l < above.size(); ++l) {
      if (index.loop(above[l])->loop_var.get() == r->iter_values[k].get()) at = static_cast<int>(l);
    }
    if (at < 0) return none;
    for (size_t l = static_cast<size_t>(at); l < above.size(); ++l) {
      const ir::ForNode* f = index.loop(above[l]);
      const ir::StmtNode* next = l + 1 < above.size()
                                     ? static_cast<const ir::StmtNode*>(index.loop(above[l + 1]))
                                     : static_cast<const ir::StmtNode*>(r);
      if (f->for_kind != ir::ForKind::kSerial || f->body.get() != next) return none;
      if (static_cast<int>(l) == at) continue;
      bool bound = false;
      for (size_t v = 0; v < b->iter_vars.size(); ++v) {
        bound |= r->iter_values[v].get() == f->loop_var.get();
      }
      if (!bound) return none;
    }
    std::optional<int64_t> extent = ir::arith::AsConstInt(index.loop(above[at])->extent);
    if (!extent || *extent < 2) return none;
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(rv));
    const size_t first = loops.size() - (above.size() - static_cast<size_t>(at));
    sch::LoopRV l = loops[first];
    if (first + 1 < loops.size()) {  // Reductions outside, the lanes inside.
      std::vector<sch::LoopRV> order(loops.begin() + static_cast<std::ptrdiff_t>(first) + 1,
                                     loops.end());
      order.push_back(l);
      TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    }
    std::vector<int64_t> widths = {lanes / 2 > 0 ? lanes / 2 : 1, lanes, 2 * lanes};
    std::vector<double> probs(widths.size(), 1.0 / static_cast<double>(widths.size()));
    // One vector, or two where they are the whole loop (add-rfactor's partial results).
    const int64_t heuristic = *extent == 2 * lanes ? 2 : 1;
    TESSEL_ASSIGN_OR_RETURN(sch::ExprRV w_rv,
                            s.SampleCategorical(widths, probs, ctx.Decide(heuristic)));
    TESSEL_ASSIGN_OR_RETURN(int64_t width, s.Get(w_rv));
    if (*extent > width) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts, s.Split(l, {std::nullopt, width}));
      l = parts.back();
    }
    TESSEL_RETURN_IF_ERROR(s.Vectorize(l));
    return std::optional<std::string>(
        absl::StrCat("vectorized ", block, " by ", std::min(width, *extent)));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 100, ParallelizeVectorize);

}  // namespace

}  // namespace tessel::metaschedule
