// annealing: simulated annealing over decisions. The walk starts at the
// heuristic's point (what default-schedule applies); each batch holds mutations
// of the current point; each measured one is taken as the new point when faster,
// or when slower with probability exp(-(t - t_cur) / t_cur / T). The temperature
// starts at 0.2 and cools by 0.85 per batch, so late in the search only
// improvements are taken.
//
//   current 1.00 ms, T = 0.2: a mutation at 1.10 ms is taken with p = exp(-0.5) = 0.61
//   ten batches later, T = 0.039: the same step with p = 0.08
#include <cmath>
#include <limits>

#include "ir/schedule/sampling.h"
#include "metaschedule/search/mutator.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {
namespace {

namespace sch = ir::schedule;

class AnnealingSearch : public SearchStrategy {
 public:
  std::string name() const override { return "annealing"; }
  absl::Status Init(const SearchContext& ctx) override {
    ctx_ = ctx;
    rng_ = sch::RandomEngine(ctx.seed);
    if (!ctx.heuristic_start) {
      absl::flat_hash_set<std::string> taken;
      std::vector<sch::Trace> draw = FreshDraws(*ctx.space, SearchHistory(), 1, &rng_, &taken);
      if (draw.empty())
        return absl::FailedPreconditionError("annealing: no draw of the space succeeds");
      current_ = draw[0];
      return absl::OkStatus();
    }
    absl::StatusOr<RuleSchedule> h = ctx.space->Heuristic();
    if (!h.ok()) return h.status();
    current_ = h->schedule.trace();
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<sch::Trace>> Propose(const SearchHistory& history, int n) override {
    absl::flat_hash_set<std::string> taken;
    std::vector<sch::Trace> out;
    if (!started_) {  // The starting point itself is measured first.
      started_ = true;
      if (!history.Seen(current_)) {
        out.push_back(current_);
        taken.insert(SearchHistory::Key(current_));
      }
    }
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < 4 * n; ++tries) {
      absl::StatusOr<Mutation> m = Mutate(*ctx_.space, current_, &rng_);
      if (!m.ok()) break;
      // Two steps now and then, so the walk leaves a point whose neighbours were all seen.
      if (rng_.Below(4) == 0) {
        absl::StatusOr<Mutation> m2 = Mutate(*ctx_.space, m->trace, &rng_);
        if (m2.ok()) m = std::move(m2);
      }
      if (history.Seen(m->trace) || !taken.insert(SearchHistory::Key(m->trace)).second) continue;
      out.push_back(m->trace);
    }
    std::vector<sch::Trace> fill =
        FreshDraws(*ctx_.space, history, n - static_cast<int>(out.size()), &rng_, &taken);
    out.insert(out.end(), fill.begin(), fill.end());
    return out;
  }

  void Observe(const std::vector<sch::Trace>& traces,
               const std::vector<MeasureResult>& results) override {
    for (size_t i = 0; i < traces.size() && i < results.size(); ++i) {
      double t = results[i].MeanSeconds();
      if (!std::isfinite(t)) continue;
      bool take = !std::isfinite(current_s_) || t < current_s_ ||
                  rng_.Unit() < std::exp(-(t - current_s_) / current_s_ / temperature_);
      if (take) current_ = traces[i], current_s_ = t;
    }
    temperature_ *= 0.85;
  }

 private:
  SearchContext ctx_;
  sch::RandomEngine rng_;
  sch::Trace current_;
  double current_s_ = std::numeric_limits<double>::infinity();
  double temperature_ = 0.2;
  bool started_ = false;
};

TESSEL_REGISTER_SEARCH_STRATEGY("annealing", AnnealingSearch);

}  // namespace
}  // namespace tessel::metaschedule
