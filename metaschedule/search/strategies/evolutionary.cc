// evolutionary: search guided by a cost model (cost_model.h), after TVM
// MetaSchedule's evolutionary search.
//
//   first batch: the heuristic's point (default-schedule's) among the candidates
//                (unless SearchContext::heuristic_start is off)
//   population:  the 16 fastest measured candidates + random draws, 32 in all
//   2 generations: each member mutated (probability 0.85), members and children
//                  scored by the model, the 32 best-scored unmeasured kept
//   measured:    the best-scored 80% of the batch + 20% fresh random draws (epsilon-
//                greedy: the model only learns about what it is shown)
//   then the model is trained on every measured candidate: score = best / time.
//
// Features of a candidate (its trace replayed and lowered) are computed once and
// kept. Until the model has seen a batch, scores are its untrained guesses.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "ir/schedule/sampling.h"
#include "metaschedule/cost_model/features.h"
#include "metaschedule/search/mutator.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {
namespace {

namespace sch = ir::schedule;

constexpr size_t kPopulation = 32;
constexpr size_t kElite = 16;
constexpr int kGenerations = 2;
constexpr double kMutationProbability = 0.85;
constexpr double kEpsilon = 0.2;

class EvolutionarySearch : public SearchStrategy {
 public:
  std::string name() const override { return "evolutionary"; }

  absl::Status Init(const SearchContext& ctx) override {
    ctx_ = ctx;
    rng_ = sch::RandomEngine(ctx.seed);
    if (ctx_.model == nullptr) {
      absl::StatusOr<std::unique_ptr<CostModel>> m = MakeCostModel("xgboost", ctx.seed);
      if (!m.ok()) return m.status();
      ctx_.model = std::shared_ptr<CostModel>(*std::move(m));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<sch::Trace>> Propose(const SearchHistory& history, int n) override {
    if (absl::Status s = Train(history); !s.ok()) return s;
    absl::flat_hash_set<std::string> taken;
    // The first batch measures the heuristic's point (what default-schedule
    // applies), so that tuning starts from it and never ends below it.
    std::vector<sch::Trace> first;
    if (!started_ && ctx_.heuristic_start) {
      started_ = true;
      absl::StatusOr<RuleSchedule> h = ctx_.space->Heuristic();
      if (h.ok() && !history.Seen(h->schedule.trace()) && n > 0) {
        first.push_back(h->schedule.trace());
        taken.insert(SearchHistory::Key(first.back()));
        --n;
      }
    }
    // The population: the fastest measured (kept as parents in every generation;
    // never measured again), then draws.
    std::vector<sch::Trace> elite;
    for (const SearchHistory::Entry* e : history.Best(kElite)) elite.push_back(e->trace);
    absl::flat_hash_set<std::string> drawn;
    std::vector<sch::Trace> population = FreshDraws(
        *ctx_.space, history, static_cast<int>(kPopulation - elite.size()), &rng_, &drawn);
    for (int g = 0; g < kGenerations; ++g) {
      std::vector<sch::Trace> parents = elite;
      parents.insert(parents.end(), population.begin(), population.end());
      std::vector<sch::Trace> pool = population;
      for (const sch::Trace& t : parents) {
        if (rng_.Unit() >= kMutationProbability) continue;
        absl::StatusOr<Mutation> m = Mutate(*ctx_.space, t, &rng_);
        if (m.ok()) pool.push_back(m->trace);
      }
      absl::StatusOr<std::vector<sch::Trace>> best = BestScored(pool, history, kPopulation);
      if (!best.ok()) return best.status();
      if (!best->empty()) population = *std::move(best);
    }
    // The batch: the best-scored unmeasured, then epsilon-greedy random draws.
    int greedy = n - static_cast<int>(std::round(kEpsilon * n));
    absl::StatusOr<std::vector<sch::Trace>> scored = BestScored(population, history, n);
    if (!scored.ok()) return scored.status();
    std::vector<sch::Trace> out = std::move(first);
    int picked = 0;
    for (const sch::Trace& t : *scored) {
      if (picked >= greedy) break;
      if (taken.insert(SearchHistory::Key(t)).second) out.push_back(t), ++picked;
    }
    std::vector<sch::Trace> fill = FreshDraws(*ctx_.space, history, n - picked, &rng_, &taken);
    out.insert(out.end(), fill.begin(), fill.end());
    return out;
  }

 private:
  // The features of `t`, computed once; nothing when it does not lower.
  const FeatureVector* Features(const sch::Trace& t) {
    std::string key = SearchHistory::Key(t);
    auto it = features_.find(key);
    if (it == features_.end()) {
      absl::StatusOr<FeatureVector> f = CandidateFeatures(ctx_.mod, ctx_.func, t);
      it = features_.emplace(key, f.ok() ? std::optional<FeatureVector>(*f) : std::nullopt).first;
    }
    return it->second.has_value() ? &*it->second : nullptr;
  }

  // Trains the model on the history entries it has not seen.
  absl::Status Train(const SearchHistory& history) {
    const auto& entries = history.entries();
    if (trained_ >= entries.size()) return absl::OkStatus();
    double best = INFINITY;
    for (const SearchHistory::Entry& e : entries) best = std::min(best, e.seconds);
    std::vector<FeatureVector> x;
    std::vector<float> y;
    for (size_t i = trained_; i < entries.size(); ++i) {
      const FeatureVector* f = Features(entries[i].trace);
      if (f == nullptr) continue;
      x.push_back(*f);
      double s = entries[i].seconds;
      y.push_back(std::isfinite(s) && std::isfinite(best) ? static_cast<float>(best / s) : 0.0f);
    }
    trained_ = entries.size();
    return ctx_.model->Update(x, y);
  }

  // Up to `k` distinct traces of `pool` none of which `history` holds, best
  // predicted first.
  absl::StatusOr<std::vector<sch::Trace>> BestScored(const std::vector<sch::Trace>& pool,
                                                     const SearchHistory& history, size_t k) {
    std::vector<const sch::Trace*> fresh;
    std::vector<FeatureVector> x;
    absl::flat_hash_set<std::string> keys;
    for (const sch::Trace& t : pool) {
      if (history.Seen(t) || !keys.insert(SearchHistory::Key(t)).second) continue;
      const FeatureVector* f = Features(t);
      if (f == nullptr) continue;
      fresh.push_back(&t);
      x.push_back(*f);
    }
    absl::StatusOr<std::vector<float>> scores = ctx_.model->Predict(x);
    if (!scores.ok()) return scores.status();
    std::vector<size_t> order(fresh.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return (*scores)[a] > (*scores)[b]; });
    std::vector<sch::Trace> out;
    for (size_t i = 0; i < order.size() && out.size() < k; ++i) out.push_back(*fresh[order[i]]);
    return out;
  }

  SearchContext ctx_;
  sch::RandomEngine rng_;
  size_t trained_ = 0;
  bool started_ = false;
  absl::flat_hash_map<std::string, std::optional<FeatureVector>> features_;
};

TESSEL_REGISTER_SEARCH_STRATEGY("evolutionary", EvolutionarySearch);

}  // namespace
}  // namespace tessel::metaschedule
