// Seeded random schedules on the small workloads: every primitive that is
// accepted keeps the results (the interpreter on random inputs), every one
// that is refused leaves the schedule unchanged, and the trace, written as
// JSON and read back, replays onto a fresh schedule to the same function.
//
//   seed 7 on softmax_16x33: split(l2, [None, 4]) ok, parallel(l5) refused
//   (reduce), reorder(l6, l3) ok, ... -> CheckSameResults(original, scheduled)
#include "ir/schedule/ir_util.h"
#include "ir/schedule/sampling.h"
#include "ir/te/workloads.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// One random primitive on a random block's loops; the result is ignored (a
// refusal is a fine outcome), only the unchanged-on-failure rule is checked.
void RandomStep(Schedule& sch, RandomEngine& rng) {
  std::vector<std::string> blocks = sch.state().index().BlockNames();
  if (blocks.empty()) return;
  BlockRV b = Must(sch.GetBlock(blocks[rng.Below(blocks.size())]));
  std::vector<LoopRV> loops = Must(sch.GetLoops(b));
  if (loops.empty()) {
    Must(sch.AddUnitLoop(b));
    return;
  }
  LoopRV l = loops[rng.Below(loops.size())];
  IRModule before = sch.mod();
  absl::Status s;
  switch (rng.Below(9)) {
    case 0: {
      std::optional<int64_t> extent = ConstInt(Must(sch.Get(l))->extent);
      if (extent && *extent > 0 && rng.Below(2) == 0) {
        std::vector<ExprRV> t = Must(sch.SamplePerfectTile(l, 2, 8));
        s = StatusOf(sch.Split(l, {t[0], t[1]}));
      } else {
        s = StatusOf(sch.Split(l, {std::nullopt, static_cast<int64_t>(rng.Below(6) + 1)}));
      }
      break;
    }
    case 1: {
      size_t start = rng.Below(loops.size());
      size_t n = 1 + rng.Below(std::min<size_t>(3, loops.size() - start));
      s = StatusOf(sch.Fuse(std::vector<LoopRV>(loops.begin() + start, loops.begin() + start + n)));
      break;
    }
    case 2: {
      std::vector<LoopRV> order = loops;
      for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng.Below(k)]);
      order.resize(1 + rng.Below(order.size()));
      s = sch.Reorder(order);
      break;
    }
    case 3:
      s = sch.Parallel(l);
      break;
    case 4:
      s = sch.Vectorize(l);
      break;
    case 5:
      s = sch.Unroll(l);
      break;
    case 6:
      s = sch.Bind(l, rng.Below(2) ? "threadIdx.x" : "blockIdx.x");
      break;
    case 7:
      s = sch.Annotate(l, "pragma", AttrValue(static_cast<int64_t>(rng.Below(8))));
      break;
    default:
      s = StatusOf(sch.AddUnitLoop(l));
      break;
  }
  if (!s.ok()) {
    EXPECT_TRUE(sch.mod().same_as(before)) << "refused but changed: " << s.message();
    EXPECT_FALSE(s.message().empty());
  }
}

TEST(ScheduleRandom, AcceptedPrimitivesKeepResultsAndTracesReplay) {
  int checked = 0;
  for (const te::Workload& w : te::AllWorkloads()) {
    if (!w.small) continue;
    IRModule mod = Must(w.build());
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      Schedule sch = Must(Schedule::Create(mod, "", seed));
      RandomEngine rng(seed * 7919 + 1);
      for (int step = 0; step < 10; ++step) RandomStep(sch, rng);
      SCOPED_TRACE(w.name + ", seed " + std::to_string(seed) + "\n" + sch.trace().AsPython());
      ASSERT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok())
          << VerifyFunction(sch.func(), sch.func_name()).message();
      absl::Status same = CheckSameResults(mod->functions[0].second, sch.func(), seed);
      ASSERT_TRUE(same.ok()) << same.message() << "\n"
                             << PrintFunction(sch.func(), sch.func_name());
      Trace back = Must(Trace::FromJson(Must(sch.trace().ToJson())));
      Schedule replay = Must(Schedule::Create(mod, "", /*seed=*/12345));
      Must(back.ApplyToSchedule(&replay));
      EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
      Schedule simple = Must(Schedule::Create(mod));
      Must(back.Simplified().ApplyToSchedule(&simple));
      EXPECT_TRUE(StructuralEqual(simple.func(), sch.func()));
      ++checked;
    }
  }
  EXPECT_GE(checked, 60);
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
