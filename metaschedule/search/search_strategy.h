// Search strategies: how a tuner picks the next candidates of a design space
// from what it has measured so far. Each is seeded (the same seed, the same
// proposals) and pluggable: a class deriving SearchStrategy, registered by name.
//
//   absl::StatusOr<std::unique_ptr<SearchStrategy>> s = MakeSearchStrategy("genetic");
//   (*s)->Init({.mod = mod, .func = "mm", .space = &space, .seed = 7});
//   std::vector<Trace> next = *(*s)->Propose(history, 16);   // never one of history's
//   ... measure them, history.Add(...), (*s)->Observe(next, results) ...
//
// The strategies (strategies/*.cc, one file each):
//   random     independent draws of the design space;
//   grid       every combination of the heuristic trace's decisions, in order;
//              refuses a space larger than `max_grid` points, saying so;
//   genetic    a population bred from the fastest measured: tournament selection,
//              crossover of decisions, mutation (mutator.h);
//   annealing  a walk of mutations from the heuristic's point (or a random draw:
//              heuristic_start), a slower step
//              accepted with probability exp(-relative slowdown / temperature);
//   evolutionary  guided by a cost model: the fastest measured and random draws
//              evolve by mutation for a few generations scored by the model; the
//              best-scored are measured, with an epsilon share of random draws.
#ifndef TESSEL_METASCHEDULE_SEARCH_SEARCH_STRATEGY_H_
#define TESSEL_METASCHEDULE_SEARCH_SEARCH_STRATEGY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/trace.h"
#include "metaschedule/cost_model/cost_model.h"
#include "metaschedule/design_space.h"
#include "metaschedule/search/candidate.h"

namespace tessel::metaschedule {

// Every candidate measured for a task (this run's and, on resume, the database's).
class SearchHistory {
 public:
  struct Entry {
    ir::schedule::Trace trace;
    double seconds;  // Mean; infinity when it failed.
  };
  void Add(const ir::schedule::Trace& trace, double seconds);
  bool Seen(const ir::schedule::Trace& trace) const;
  const std::vector<Entry>& entries() const { return entries_; }
  // The k fastest successful entries, fastest first.
  std::vector<const Entry*> Best(size_t k) const;
  // The key that identifies a candidate: its trace, handles renumbered (Renumbered).
  static std::string Key(const ir::schedule::Trace& trace);

 private:
  std::vector<Entry> entries_;
  absl::flat_hash_set<std::string> keys_;
};

struct SearchContext {
  ir::IRModule mod;  // The workload (one function).
  std::string func;
  const DesignSpace* space = nullptr;
  uint64_t seed = 1;
  int64_t max_grid = 4096;  // grid: the largest space it enumerates.
  // evolutionary and annealing: measure the heuristic's point (default-schedule's)
  // first and, annealing, walk from it; false: start from a random draw, so that a
  // run shows what the search and its model find on their own (warm start's effect).
  bool heuristic_start = true;
  // evolutionary: the cost model it ranks candidates with and trains (shared by
  // the tasks of a run, so what one task teaches serves the next).
  std::shared_ptr<CostModel> model;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  virtual absl::Status Init(const SearchContext& ctx) = 0;
  // Up to `n` candidates none of which `history` holds; fewer (or none) when the
  // strategy has no more to offer (a finished grid).
  virtual absl::StatusOr<std::vector<ir::schedule::Trace>> Propose(const SearchHistory& history,
                                                                   int n) = 0;
  // The results of the last proposals, in order.
  virtual void Observe(const std::vector<ir::schedule::Trace>& traces,
                       const std::vector<MeasureResult>& results) {}
};

using SearchStrategyFactory = std::function<std::unique_ptr<SearchStrategy>()>;

// Registers a strategy under `name` (strategies/*.cc do, from a static initializer).
bool RegisterSearchStrategy(const std::string& name, SearchStrategyFactory factory);
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeSearchStrategy(const std::string& name);
std::vector<std::string> SearchStrategyNames();

#define TESSEL_REGISTER_SEARCH_STRATEGY(name, Class)                                 \
  [[maybe_unused]] static const bool kRegistered_##Class =                           \
      ::tessel::metaschedule::RegisterSearchStrategy(name, [] {                      \
        return std::unique_ptr<::tessel::metaschedule::SearchStrategy>(new Class()); \
      })

// Draws of `space` (seeds from `rng`) not in `history` nor among `taken`, until
// `n` or `4n + 16` tries: what random search is, and how the others fill up.
std::vector<ir::schedule::Trace> FreshDraws(const DesignSpace& space, const SearchHistory& history,
                                            int n, ir::schedule::RandomEngine* rng,
                                            absl::flat_hash_set<std::string>* taken);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_SEARCH_STRATEGY_H_
