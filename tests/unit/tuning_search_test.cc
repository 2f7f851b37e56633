// The search side of tuning: decision spaces (choices and sizes), mutators and
// crossover (children replay and differ in decisions only), and the strategies
// (seeded, never proposing a measured candidate, grid complete and bounded).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ir/schedule/sampling.h"
#include "ir/te/workloads.h"
#include "metaschedule/design_space.h"
#include "metaschedule/search/decision_space.h"
#include "metaschedule/search/mutator.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {
namespace {

namespace sch = ir::schedule;

struct Fixture {
  ir::IRModule mod;
  std::string func;
  DesignSpace space;
};

Fixture Make(const std::string& workload) {
  absl::StatusOr<ir::IRModule> mod = ir::te::BuildWorkload(workload);
  EXPECT_TRUE(mod.ok()) << mod.status();
  std::string func = (*mod)->functions[0].first;
  absl::StatusOr<DesignSpace> space = DesignSpace::Create(*mod, func, "llvm -num-cores=2");
  EXPECT_TRUE(space.ok()) << space.status();
  return {*mod, func, *std::move(space)};
}

SearchContext Context(const Fixture& f, uint64_t seed, int64_t max_grid) {
  return {.mod = f.mod,
          .func = f.func,
          .space = &f.space,
          .seed = seed,
          .max_grid = max_grid,
          .model = nullptr};
}

sch::Trace HeuristicTrace(const Fixture& f) {
  absl::StatusOr<RuleSchedule> h = f.space.Heuristic();
  EXPECT_TRUE(h.ok()) << h.status();
  return h->schedule.trace();
}

TEST(PerfectTilings, EnumeratesEveryOrderedFactoringWithinTheBound) {
  std::vector<std::vector<int64_t>> t = PerfectTilings(12, 2, 4);
  // Innermost 1, 2, 3, 4: [12, 1], [6, 2], [4, 3], [3, 4].
  EXPECT_EQ(t, (std::vector<std::vector<int64_t>>{{3, 4}, {4, 3}, {6, 2}, {12, 1}}));
  EXPECT_EQ(PerfectTilings(64, 3, 0).size(), 28u);  // C(6 + 2, 2)
  EXPECT_TRUE(PerfectTilings(0, 2, 4).empty());
}

TEST(SamplingSites, CountsMatchTheListedChoicesAndTheCurrentDecisionIsOne) {
  Fixture f = Make("matmul_17x31x23_f32");
  sch::Trace t = HeuristicTrace(f);
  absl::StatusOr<std::vector<SamplingSite>> sites = SamplingSites(f.mod, f.func, t);
  ASSERT_TRUE(sites.ok()) << sites.status();
  ASSERT_FALSE(sites->empty());
  for (const SamplingSite& s : *sites) {
    EXPECT_EQ(s.count, static_cast<double>(s.choices.size())) << s.kind;
    const sch::Instruction& inst = t.instructions()[s.index];
    ASSERT_TRUE(inst.decision.has_value());
    bool found = false;
    for (const sch::TraceValue& c : s.choices) found |= c.ToPython() == inst.decision->ToPython();
    EXPECT_TRUE(found) << s.kind << " decision " << inst.decision->ToPython();
  }
  double product = 1;
  for (const SamplingSite& s : *sites) product *= s.count;
  EXPECT_EQ(SpaceSize(*sites), product);
  EXPECT_GT(SpaceSize(*sites), 1);
}

TEST(SamplingSites, AnUnreplayableTraceIsAnError) {
  Fixture f = Make("matmul_17x31x23_f32");
  Fixture other = Make("softmax_16x33");
  absl::StatusOr<std::vector<SamplingSite>> sites =
      SamplingSites(f.mod, f.func, HeuristicTrace(other));
  EXPECT_FALSE(sites.ok());
}

TEST(Renumbered, ADrawAndItsReplayHaveOneKey) {
  Fixture f = Make("softmax_16x33");
  for (uint64_t seed : {1, 2, 3}) {
    absl::StatusOr<RuleSchedule> draw = f.space.Draw(seed);
    ASSERT_TRUE(draw.ok()) << draw.status();
    absl::StatusOr<sch::Schedule> replay = Replay(f.mod, f.func, draw->schedule.trace());
    ASSERT_TRUE(replay.ok()) << replay.status();
    EXPECT_EQ(Renumbered(draw->schedule.trace()).AsPython(),
              Renumbered(replay->trace()).AsPython());
    EXPECT_EQ(SearchHistory::Key(draw->schedule.trace()), SearchHistory::Key(replay->trace()));
  }
}

TEST(Mutate, MakesANewScheduleThatReplays) {
  Fixture f = Make("matmul_17x31x23_f32");
  sch::Trace parent = HeuristicTrace(f);
  sch::RandomEngine rng(3);
  std::set<std::string> mutators;
  for (int i = 0; i < 30; ++i) {
    absl::StatusOr<Mutation> m = Mutate(f.space, parent, &rng);
    ASSERT_TRUE(m.ok()) << m.status();
    mutators.insert(m->mutator);
    EXPECT_NE(SearchHistory::Key(parent), SearchHistory::Key(m->trace));
    EXPECT_TRUE(Replay(f.mod, f.func, m->trace).ok());
  }
  EXPECT_TRUE(mutators.contains("tile-size"));
}

TEST(Crossover, TakesEachDecisionFromAParent) {
  Fixture f = Make("matmul_17x31x23_f32");
  sch::Trace a = HeuristicTrace(f);
  sch::RandomEngine rng(5);
  // b: a with two decisions changed, so that some mix differs from both.
  absl::StatusOr<Mutation> b1 = Mutate(f.space, a, &rng);
  ASSERT_TRUE(b1.ok()) << b1.status();
  absl::StatusOr<Mutation> b = Mutate(f.space, b1->trace, &rng);
  ASSERT_TRUE(b.ok()) << b.status();
  std::vector<std::optional<sch::TraceValue>> da = Decisions(a), db = Decisions(b->trace);
  for (int round = 0; round < 5; ++round) {
    absl::StatusOr<sch::Trace> child = Crossover(f.space, a, b->trace, &rng);
    if (!child.ok()) continue;  // No new mix this time: allowed, said as an error.
    std::vector<std::optional<sch::TraceValue>> dc = Decisions(*child);
    ASSERT_EQ(dc.size(), da.size());
    for (size_t k = 0; k < dc.size(); ++k) {
      std::string d = dc[k]->ToPython();
      EXPECT_TRUE(d == da[k]->ToPython() || d == db[k]->ToPython()) << k << ": " << d;
    }
    EXPECT_NE(SearchHistory::Key(*child), SearchHistory::Key(a));
    EXPECT_NE(SearchHistory::Key(*child), SearchHistory::Key(b->trace));
  }
  // Identical parents have no new mix.
  EXPECT_FALSE(Crossover(f.space, a, a, &rng).ok());
}

// A strategy's proposals for `rounds` batches, every one recorded as measured
// with a time from `cost` (the number of the decisions' characters: any fixed
// function of the trace serves to check the mechanics).
std::vector<std::string> RunStrategy(const std::string& name, const Fixture& f, uint64_t seed,
                                     int rounds, int batch, SearchHistory* history) {
  absl::StatusOr<std::unique_ptr<SearchStrategy>> s = MakeSearchStrategy(name);
  EXPECT_TRUE(s.ok()) << s.status();
  absl::Status init = (*s)->Init(Context(f, seed, 4096));
  EXPECT_TRUE(init.ok()) << init;
  std::vector<std::string> keys;
  for (int r = 0; r < rounds; ++r) {
    absl::StatusOr<std::vector<sch::Trace>> next = (*s)->Propose(*history, batch);
    EXPECT_TRUE(next.ok()) << next.status();
    std::vector<MeasureResult> results;
    for (const sch::Trace& t : *next) {
      EXPECT_FALSE(history->Seen(t)) << name << " proposed a measured candidate";
      EXPECT_TRUE(Replay(f.mod, f.func, t).ok());
      double cost = 1e-3 * static_cast<double>(DecisionKey(t).size());
      history->Add(t, cost);
      MeasureResult r;
      r.seconds = {cost};
      results.push_back(r);
      keys.push_back(DecisionKey(t));
    }
    (*s)->Observe(*next, results);
  }
  return keys;
}

TEST(SearchStrategies, AreSeededAndNeverRepeatACandidate) {
  Fixture f = Make("matmul_17x31x23_f32");
  for (const std::string name : {"random", "genetic", "annealing", "evolutionary"}) {
    SearchHistory h1, h2, h3;
    std::vector<std::string> a = RunStrategy(name, f, 11, 3, 6, &h1);
    std::vector<std::string> b = RunStrategy(name, f, 11, 3, 6, &h2);
    std::vector<std::string> c = RunStrategy(name, f, 12, 3, 6, &h3);
    EXPECT_EQ(a, b) << name;
    EXPECT_NE(a, c) << name;
    EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size()) << name;
    EXPECT_GE(a.size(), 12u) << name;
  }
}

TEST(SearchStrategies, StartAtTheHeuristicPointUnlessToldNotTo) {
  Fixture f = Make("matmul_64x64x64_f32");  // A space where a draw is rarely the heuristic.
  const std::string heuristic = SearchHistory::Key(HeuristicTrace(f));
  for (const std::string name : {"annealing", "evolutionary"}) {
    for (bool from_heuristic : {true, false}) {
      absl::StatusOr<std::unique_ptr<SearchStrategy>> s = MakeSearchStrategy(name);
      ASSERT_TRUE(s.ok()) << s.status();
      SearchContext ctx = Context(f, 5, 4096);
      ctx.heuristic_start = from_heuristic;
      ASSERT_TRUE((*s)->Init(ctx).ok());
      absl::StatusOr<std::vector<sch::Trace>> first = (*s)->Propose(SearchHistory(), 4);
      ASSERT_TRUE(first.ok()) << first.status();
      ASSERT_FALSE(first->empty());
      EXPECT_EQ(SearchHistory::Key((*first)[0]) == heuristic, from_heuristic) << name;
    }
  }
}

TEST(SearchStrategies, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<std::unique_ptr<SearchStrategy>> s = MakeSearchStrategy("hill-climb");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("random"), std::string::npos) << s.status();
}

TEST(GridSearch, VisitsEveryPointOnceThenStops) {
  Fixture f = Make("softmax_16x33");
  absl::StatusOr<std::vector<SamplingSite>> sites = SamplingSites(f.mod, f.func, HeuristicTrace(f));
  ASSERT_TRUE(sites.ok()) << sites.status();
  double size = SpaceSize(*sites);
  ASSERT_LE(size, 4096);
  SearchHistory history;
  std::vector<std::string> keys =
      RunStrategy("grid", f, 1, static_cast<int>(size) + 2, 1, &history);
  EXPECT_LE(keys.size(), static_cast<size_t>(size));
  EXPECT_GE(keys.size(), 1u);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
}

TEST(GridSearch, RefusesASpaceOverItsBound) {
  Fixture f = Make("matmul_17x31x23_f32");
  absl::StatusOr<std::unique_ptr<SearchStrategy>> s = MakeSearchStrategy("grid");
  ASSERT_TRUE(s.ok());
  absl::Status init = (*s)->Init(Context(f, 1, 4));
  EXPECT_FALSE(init.ok());
  EXPECT_NE(init.message().find("more than max_grid = 4"), std::string::npos) << init;
}

}  // namespace
}  // namespace tessel::metaschedule
