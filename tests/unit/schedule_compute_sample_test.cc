// sample_compute_location: the locations it draws are exactly those where
// compute_at is legal (root and inline included), every draw scheduled by
// compute_at computes what the original does, decisions replay and can be
// replaced, and an illegal decision fails leaving the schedule unchanged.
#include <set>

#include "tests/unit/schedule_compute_te.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kChain = ChainText(17);

TEST(ScheduleSampleComputeLocation, DrawsExactlyTheLegalLocations) {
  std::set<int64_t> drawn;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Schedule sch = MustSchedule(kChain, seed);
    PrimFunc original = sch.func();
    std::vector<LoopRV> c = Must(sch.Split(Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0],
                                           {std::nullopt, 8}));
    BlockRV b = Must(sch.GetBlock("B"));
    LoopRV where = Must(sch.SampleComputeLocation(b));
    const Instruction& inst = sch.trace().instructions().back();
    ASSERT_TRUE(inst.decision && inst.decision->is_int());
    drawn.insert(inst.decision->as_int());
    Must(sch.ComputeAt(b, where));
    ExpectSameResults(original, sch);
  }
  // Loops of the scope: 0 B's i, 1 C's i_0, 2 C's i_1; B's own loop is not legal.
  EXPECT_EQ(drawn, (std::set<int64_t>{-2, -1, 1, 2}));
}

TEST(ScheduleSampleComputeLocation, DecisionsReplayAndCanBeReplaced) {
  Schedule sch = MustSchedule(kChain);
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV where = Must(sch.SampleComputeLocation(b, 1));  // C's loop i
  Must(sch.ComputeAt(b, where, /*preserve_unit_loops=*/true));
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr("l1 = sch.sample_compute_location(block=b0, decision=1)\n"
                                   "sch.compute_at(block=b0, loop=l1, preserve_unit_loops=True)"));
  Schedule replay = MustSchedule(kChain);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(AssertStructuralEqual(replay.func(), sch.func()).ok());

  // Decision -2 (inline): compute_at at that location inlines B.
  Trace inlined = Must(sch.trace().WithDecision(1, TraceValue(int64_t{-2})));
  Schedule other = MustSchedule(kChain);
  Must(inlined.ApplyToSchedule(&other));
  EXPECT_FALSE(other.GetBlock("B").ok());
  ExpectSameResults(MustSchedule(kChain).func(), other);
}

TEST(ScheduleSampleComputeLocation, RootStaysAndIsNoLoop) {
  Schedule sch = MustSchedule(kChain);
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV root = Must(sch.SampleComputeLocation(b, -1));
  Must(sch.ComputeAt(b, root));
  EXPECT_TRUE(sch.func().same_as(original));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Split(root, {std::nullopt, 2})); },
                       {"loop handle l1 is the compute location root, not a loop"});
}

TEST(ScheduleSampleComputeLocation, IllegalDecisionFailsUnchanged) {
  Schedule sch = MustSchedule(kChain);
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.SampleComputeLocation(b, 0)); },
                       {"sch.sample_compute_location(block=b0, decision=0)",
                        "the decision 0 is not a legal compute location of block B",
                        "the legal ones are -1, -2, 1"});
}

TEST(ScheduleSampleComputeLocation, MatmulEpilogueCandidatesAllSchedule) {
  // The bias block of a 17x31x23 matmul+bias+relu under every legal loop of
  // the relu's tile.
  Schedule base = TeSchedule(MatmulBiasRelu(17, 31, 23));
  std::vector<LoopRV> l = Must(base.GetLoops(Must(base.GetBlock("T_relu"))));
  Must(base.Tile({l[0], l[1]}, {{std::nullopt, 8}, {std::nullopt, 8}}));
  for (int64_t decision : {-2, -1, 5, 6, 7, 8}) {
    Schedule sch = base;
    BlockRV add = Must(sch.GetBlock("T_add"));
    absl::StatusOr<LoopRV> where = sch.SampleComputeLocation(add, decision);
    ASSERT_TRUE(where.ok()) << decision << ": " << where.status().message();
    Must(sch.ComputeAt(add, *where));
    ExpectSameResults(TeSchedule(MatmulBiasRelu(17, 31, 23)).func(), sch);
  }
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
