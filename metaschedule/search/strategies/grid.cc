// grid: every combination of the decisions of the heuristic's trace, in order
// (the last decision varying fastest), for spaces of at most `max_grid` points.
//
//   sites: tile i (4 choices) x tile j (4) x parallel length (2)   -> 32 points
//   Propose(history, 8) -> points 0..7, then 8..15, ...; none once all 32 were proposed
//   a space of 1.2e6 points -> "grid: the design space has 1.2e+06 points, more than
//   max_grid = 4096; use random, genetic, annealing or evolutionary search"
//
// Each point is rebuilt by the rules from its decisions (DesignSpace::Rebuild);
// one whose decisions the rules cannot take together comes out as a schedule
// already proposed and is skipped.
#include "absl/strings/str_cat.h"
#include "metaschedule/search/decision_space.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {
namespace {

namespace sch = ir::schedule;

class GridSearch : public SearchStrategy {
 public:
  std::string name() const override { return "grid"; }

  absl::Status Init(const SearchContext& ctx) override {
    ctx_ = ctx;
    absl::StatusOr<RuleSchedule> h = ctx.space->Heuristic();
    if (!h.ok()) return h.status();
    skeleton_ = h->schedule.trace();
    absl::StatusOr<std::vector<SamplingSite>> sites = SamplingSites(ctx.mod, ctx.func, skeleton_);
    if (!sites.ok()) return sites.status();
    size_ = SpaceSize(*sites);
    if (size_ > static_cast<double>(ctx.max_grid)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "grid: the design space has ", size_, " points, more than max_grid = ", ctx.max_grid,
          "; use random, genetic, annealing or evolutionary search"));
    }
    sites_ = *std::move(sites);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<sch::Trace>> Propose(const SearchHistory& history, int n) override {
    std::vector<sch::Trace> out;
    const int64_t total = static_cast<int64_t>(size_);
    absl::flat_hash_set<std::string> taken;
    while (static_cast<int>(out.size()) < n && next_ < total) {
      int64_t point = next_++;
      std::vector<std::optional<sch::TraceValue>> decisions(sites_.size());
      for (size_t k = sites_.size(); k-- > 0;) {  // Mixed radix, the last site fastest.
        int64_t radix = static_cast<int64_t>(sites_[k].choices.size());
        decisions[k] = sites_[k].choices[point % radix];
        point /= radix;
      }
      // Decisions shape the schedule (a parallel length, which loops are fused), so
      // the rules rebuild it; a point the rules cannot take as given comes out as
      // one already proposed and is skipped.
      absl::StatusOr<RuleSchedule> built = ctx_.space->Rebuild(decisions, 1);
      if (!built.ok()) continue;
      const sch::Trace& t = built->schedule.trace();
      if (history.Seen(t) || !taken.insert(SearchHistory::Key(t)).second) continue;
      out.push_back(t);
    }
    return out;
  }

 private:
  SearchContext ctx_;
  sch::Trace skeleton_;
  std::vector<SamplingSite> sites_;
  double size_ = 0;
  int64_t next_ = 0;
};

TESSEL_REGISTER_SEARCH_STRATEGY("grid", GridSearch);

}  // namespace
}  // namespace tessel::metaschedule
