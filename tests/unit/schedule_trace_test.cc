// Traces: Python printing, the JSON round trip, replay onto structurally equal
// functions (and a clear failure where a block is missing), sampling with
// seeds and decisions, with_decision, and dead-code removal.
#include "absl/strings/str_replace.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kMatmul = MatmulText(32, 32, 32);

// The same program with other variable and buffer names (structurally equal).
std::string Renamed() {
  return absl::StrReplaceAll(kMatmul, {{"@mm", "@other"},
                                       {"vi", "x"},
                                       {"vj", "y"},
                                       {"vk", "z"},
                                       {"for i", "for a"},
                                       {"= i,", "= a,"},
                                       {"A[", "P["},
                                       {"A:", "P:"}});
}

// A schedule with every kind of instruction the trace must carry.
Schedule Scheduled(uint64_t seed = 1) {
  Schedule sch = MustSchedule(kMatmul, seed);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<ExprRV> t = Must(sch.SamplePerfectTile(l[0], 2, 8));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {t[0], t[1]}));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 8}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  LoopRV f = Must(sch.Fuse({i[0], j[0]}));
  Must(sch.Parallel(f));
  Must(sch.Vectorize(j[1]));
  ExprRV u = Must(sch.SampleCategorical({0, 16, 64}, {0.25, 0.25, 0.5}));
  Must(sch.Annotate(l[2], "unroll_max", u));
  Must(sch.Annotate(c, "note", AttrValue("tiled \"C\"")));
  return sch;
}

TEST(ScheduleTrace, PrintsAsPython) {
  Schedule sch = Scheduled();
  const std::vector<Instruction>& insts = sch.trace().instructions();
  ASSERT_EQ(insts.size(), 12u);
  const std::string tile = insts[2].decision->ToPython();
  const std::string cat = insts[9].decision->ToPython();
  EXPECT_EQ(sch.trace().AsPython(),
            absl::StrCat("b0 = sch.get_block(name=\"C\")\n"
                         "l1, l2, l3 = sch.get_loops(block=b0)\n"
                         "v4, v5 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=8, "
                         "decision=",
                         tile,
                         ")\n"
                         "l6, l7 = sch.split(loop=l1, factors=[v4, v5])\n"
                         "l8, l9 = sch.split(loop=l2, factors=[None, 8])\n"
                         "sch.reorder(l6, l8, l3, l7, l9)\n"
                         "l10 = sch.fuse(l6, l8)\n"
                         "sch.parallel(loop=l10)\n"
                         "sch.vectorize(loop=l9)\n"
                         "v11 = sch.sample_categorical(candidates=[0, 16, 64], "
                         "probs=[0.25, 0.25, 0.5], decision=",
                         cat,
                         ")\n"
                         "sch.annotate(block_or_loop=l3, ann_val=v11, ann_key=\"unroll_max\")\n"
                         "sch.annotate(block_or_loop=b0, ann_key=\"note\", "
                         "ann_val=\"tiled \\\"C\\\"\")\n"));
}

TEST(ScheduleTrace, JsonRoundTripAndReplay) {
  Schedule sch = Scheduled();
  std::string json = Must(sch.trace().ToJson());
  EXPECT_THAT(json, ::testing::StartsWith(
                        "{\"format\": \"tessel-trace\", \"version\": 1, \"instructions\": [\n"
                        "  {\"kind\": \"get_block\", \"inputs\": [], \"attrs\": {\"name\": \"C\"}, "
                        "\"outputs\": [\"b0\"]},\n"));
  Trace back = Must(Trace::FromJson(json));
  EXPECT_EQ(back.AsPython(), sch.trace().AsPython());
  EXPECT_EQ(Must(back.ToJson()), json);
  // Replay onto a fresh schedule of the same function: the same IR, the same trace.
  Schedule fresh = MustSchedule(kMatmul, /*seed=*/99);
  Must(back.ApplyToSchedule(&fresh));
  EXPECT_TRUE(StructuralEqual(fresh.func(), sch.func()));
  EXPECT_EQ(fresh.trace().AsPython(), sch.trace().AsPython());
  // Onto a structurally equal function with other names.
  Schedule other = MustSchedule(Renamed());
  ASSERT_TRUE(StructuralEqual(other.func(), MustSchedule(kMatmul).func()));
  Must(back.ApplyToSchedule(&other));
  EXPECT_TRUE(AssertStructuralEqual(other.func(), sch.func()).ok())
      << AssertStructuralEqual(other.func(), sch.func()).message();
  ExpectSameResults(MustSchedule(kMatmul).func(), other);
}

TEST(ScheduleTrace, ReplayWithoutTheBlockFailsAndChangesNothing) {
  Trace trace = Scheduled().trace();
  Schedule sch = MustSchedule(
      InPlaceText("f(A: f32[8])", {"i in range(0, 8)"}, "D(vi: spatial[0, 8] = i)", "vi"));
  IRModule before = sch.mod();
  absl::Status s = trace.ApplyToSchedule(&sch);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              ::testing::HasSubstr("replaying instruction 0: sch.get_block(name=\"C\"): no "
                                   "block named 'C' in function 'f'; its blocks are D"));
  EXPECT_TRUE(sch.mod().same_as(before));
  EXPECT_TRUE(sch.trace().empty());
}

TEST(ScheduleTrace, ReplayFailingHalfwayChangesNothing) {
  // The block exists but the loop is too short for the recorded decision.
  Trace trace = Scheduled().trace();
  Schedule sch = MustSchedule(MatmulText(24, 32, 32));
  IRModule before = sch.mod();
  absl::Status s = trace.ApplyToSchedule(&sch);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("replaying instruction 2"));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("not to the loop's extent 24"));
  EXPECT_TRUE(sch.mod().same_as(before));
  EXPECT_TRUE(sch.trace().empty());
}

TEST(ScheduleTrace, SamplingIsSeededAndValid) {
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Schedule a = MustSchedule(kMatmul, seed);
    Schedule b = MustSchedule(kMatmul, seed);
    LoopRV la = Must(a.GetLoops(Must(a.GetBlock("C"))))[2];
    LoopRV lb = Must(b.GetLoops(Must(b.GetBlock("C"))))[2];
    std::vector<ExprRV> ta = Must(a.SamplePerfectTile(la, 3, 4));
    std::vector<ExprRV> tb = Must(b.SamplePerfectTile(lb, 3, 4));
    int64_t product = 1;
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(Must(a.Get(ta[k])), Must(b.Get(tb[k])));  // Same seed, same tiles.
      product *= Must(a.Get(ta[k]));
    }
    EXPECT_EQ(product, 32);
    EXPECT_LE(Must(a.Get(ta[2])), 4);
    seen.insert(a.trace().instructions().back().decision->ToPython());
  }
  EXPECT_GT(seen.size(), 3u);  // Seeds give different tilings.
  // n = 1 gives the extent, whatever the seed.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Schedule s = MustSchedule(kMatmul, seed);
    LoopRV k = Must(s.GetLoops(Must(s.GetBlock("C"))))[2];
    std::vector<ExprRV> t = Must(s.SamplePerfectTile(k, 1, 0));
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(Must(s.Get(t[0])), 32);
  }
  // A categorical draw never picks a zero-weight candidate.
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Schedule s = MustSchedule(kMatmul, seed);
    EXPECT_NE(Must(s.Get(Must(s.SampleCategorical({1, 2, 3}, {1.0, 0.0, 2.0})))), 2);
  }
}

TEST(ScheduleTrace, SamplingRules) {
  Schedule sch = MustSchedule(kMatmul);
  LoopRV k = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[2];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.SamplePerfectTile(k, 0, 4)); },
                       {"n must be in [1, 64], not 0"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SamplePerfectTile(k, 2, 4, {{4, 4}}));
                       },
                       {"decision=[4, 4]",
                        "the decision [4, 4] multiplies to 16, not to the "
                        "loop's extent 32"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SamplePerfectTile(k, 2, 4, {{4, 8}}));
                       },
                       {"innermost factor 8 exceeds max_innermost_factor 4"});
  // With n = 1 the only perfect tiling is the extent itself.
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.SamplePerfectTile(k, 1, 4)); },
                       {"with n = 1 the only tiling is [32], above max_innermost_factor = 4"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.SamplePerfectTile(k, 2, 4, {{32}})); },
                       {"the decision has 1 factors, not n = 2"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SampleCategorical({1, 2}, {1.0}));
                       },
                       {"2 candidates but 1 probabilities"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.SampleCategorical({}, {})); },
                       {"there are no candidates"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SampleCategorical({1, 2}, {-1.0, 1.0}));
                       },
                       {"probability -1 is not a finite non-negative number"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SampleCategorical({1, 2}, {0.0, 0.0}));
                       },
                       {"the probabilities sum to 0"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.SampleCategorical({1, 2}, {1.0, 1.0}, 2));
                       },
                       {"the decision 2 is not an index into the 2 candidates"});
  Schedule sym = MustSchedule(
      InPlaceText("f[n](A: f32[n])", {"i in range(0, n)"}, "B(vi: spatial[0, n] = i)", "vi"));
  LoopRV i = Must(sym.GetLoops(Must(sym.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sym, [&] { return StatusOf(sym.SamplePerfectTile(i, 2, 4)); },
                       {"loop i needs a constant extent in [1, 2^40] to be tiled perfectly"});
}

TEST(ScheduleTrace, WithDecisionReplaysTheRest) {
  Trace trace = Scheduled().trace();
  Trace changed =
      Must(trace.WithDecision(2, TraceValue::List{TraceValue(int64_t{8}), TraceValue(int64_t{4})}));
  Schedule sch = MustSchedule(kMatmul);
  Must(changed.ApplyToSchedule(&sch));
  // The split that used the sampled values follows the new decision.
  EXPECT_THAT(PrintFunction(sch.func(), "mm"),
              ::testing::HasSubstr("vi: spatial[0, 32] = i_0_j_0_fused // 4 * 4 + i_1"));
  EXPECT_EQ(sch.trace().instructions()[2].decision->ToPython(), "[8, 4]");
  ExpectSameResults(MustSchedule(kMatmul).func(), sch);
  // The categorical decision is an index.
  Trace pick = Must(trace.WithDecision(9, TraceValue(int64_t{0})));
  Schedule s2 = MustSchedule(kMatmul);
  Must(pick.ApplyToSchedule(&s2));
  std::vector<LoopRV> loops = Must(s2.GetLoops(Must(s2.GetBlock("C"))));
  EXPECT_EQ(Must(s2.Get(loops[1]))->annotations.at("unroll_max").as<int64_t>(), 0);
  // Rules.
  absl::StatusOr<Trace> not_sampling = trace.WithDecision(3, TraceValue(int64_t{1}));
  EXPECT_THAT(std::string(not_sampling.status().message()),
              ::testing::HasSubstr("instruction 3 (split) is not a sampling instruction"));
  EXPECT_THAT(std::string(trace.WithDecision(40, TraceValue()).status().message()),
              ::testing::HasSubstr("the trace has 12 instructions, no index 40"));
  Trace bad = Must(trace.WithDecision(9, TraceValue(int64_t{7})));
  Schedule s3 = MustSchedule(kMatmul);
  EXPECT_THAT(std::string(bad.ApplyToSchedule(&s3).message()),
              ::testing::HasSubstr("the decision 7 is not an index into the 3 candidates"));
}

TEST(ScheduleTrace, SimplifiedDropsDeadQueriesAndSamples) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.GetLoops(c));                    // Dead: nothing uses its loops.
  Must(sch.SamplePerfectTile(l[2], 2, 4));  // Dead sample.
  ExprRV v = Must(sch.SampleCategorical({4, 8}, {1.0, 1.0}));
  Must(sch.Split(l[0], {std::nullopt, v}));  // Uses v: the sample stays.
  Must(sch.GetProducers(c));                 // Dead.
  Trace simple = sch.trace().Simplified();
  EXPECT_EQ(simple.instructions().size(), 4u);
  EXPECT_EQ(simple.instructions()[0].kind, "get_block");
  EXPECT_EQ(simple.instructions()[1].kind, "get_loops");
  EXPECT_EQ(simple.instructions()[2].kind, "sample_categorical");
  EXPECT_EQ(simple.instructions()[3].kind, "split");
  Schedule again = MustSchedule(kMatmul);
  Must(simple.ApplyToSchedule(&again));
  EXPECT_TRUE(StructuralEqual(again.func(), sch.func()));
  // Only queries: everything goes.
  Schedule q = MustSchedule(kMatmul);
  Must(q.GetLoops(Must(q.GetBlock("C"))));
  EXPECT_TRUE(q.trace().Simplified().empty());
}

TEST(ScheduleTrace, JsonErrors) {
  auto error = [](const std::string& text) {
    absl::StatusOr<Trace> t = Trace::FromJson(text, "t.json");
    return t.ok() ? std::string("ok") : std::string(t.status().message());
  };
  const std::string head = "{\"format\": \"tessel-trace\", \"version\": 1, \"instructions\": [";
  EXPECT_THAT(error("[1, 2]"), ::testing::HasSubstr("t.json: a trace is a JSON object"));
  EXPECT_THAT(error("{\"format\": \"other\"}"), ::testing::HasSubstr("not a tessel trace"));
  EXPECT_THAT(error("{\"format\": \"tessel-trace\", \"version\": 2, \"instructions\": []}"),
              ::testing::HasSubstr("trace format version 2 is newer than the version this "
                                   "build reads (1)"));
  EXPECT_THAT(error("{\"format\": \"tessel-trace\", \"version\": \"1\"}"),
              ::testing::HasSubstr("\"version\" must be an int"));
  EXPECT_THAT(error(head + "], \"extra\": 1}"), ::testing::HasSubstr("unknown key \"extra\""));
  EXPECT_THAT(error(head + "{\"kind\": \"splitt\", \"inputs\": []}]}"),
              ::testing::HasSubstr("instruction 0: unknown instruction kind 'splitt'"));
  EXPECT_THAT(error(head + "{\"kind\": \"get_loops\", \"inputs\": [\"b3\"]}]}"),
              ::testing::HasSubstr("b3 is used before any instruction defines it"));
  EXPECT_THAT(error(head + "{\"kind\": \"get_block\", \"attrs\": {\"name\": \"C\"}, "
                           "\"outputs\": [\"b0\"]}, {\"kind\": \"get_block\", \"attrs\": "
                           "{\"name\": \"D\"}, \"outputs\": [\"b0\"]}]}"),
              ::testing::HasSubstr("instruction 1: b0 is defined twice"));
  EXPECT_THAT(error(head + "{\"kind\": \"parallel\", \"inputs\": [\"loop\"]}]}"),
              ::testing::HasSubstr("\"loop\" is not a handle (b<n>, l<n> or v<n>)"));
  EXPECT_THAT(
      error(head + "{\"kind\": \"parallel\", \"inputs\": [1.5]}]}"),
      ::testing::HasSubstr("an input is null, an int, a handle or a list of those, not float"));
  EXPECT_THAT(error(head + "{\"kind\": \"parallel\", \"decision\": 1}]}"),
              ::testing::HasSubstr("parallel takes no decision"));
  EXPECT_THAT(error(head + "{\"kind\": \"parallel\", \"input\": []}]}"),
              ::testing::HasSubstr("unknown key \"input\""));
  EXPECT_THAT(error(head + "{\"kind\": \"get_block\", \"attrs\": {\"name\": null}}]}"),
              ::testing::HasSubstr(
                  "attr 'name': an attr is an int, a float, a bool, a string or a list, not null"));
  EXPECT_THAT(error(head + "\n  {\"kind\": \"get_block\",]}"),
              ::testing::HasSubstr("t.json: parse error at line 2, column 24"));
  // Well-formed JSON whose inputs are wrong for the kind fails at replay.
  Trace wrong = Must(Trace::FromJson(head + "{\"kind\": \"parallel\", \"inputs\": [7]}]}"));
  Schedule sch = MustSchedule(kMatmul);
  EXPECT_THAT(std::string(wrong.ApplyToSchedule(&sch).message()),
              ::testing::HasSubstr("replaying instruction 0 (sch.parallel(loop=7)): parallel: "
                                   "'loop' must be a loop handle, not 7"));
  // Values JSON cannot hold are refused when writing (annotate refuses them
  // first; a trace built by hand can still carry one).
  Trace nan;
  nan.Append(Instruction{"annotate",
                         {TraceValue(RV{'b', 0})},
                         {{"ann_key", AttrValue("x")}, {"ann_val", AttrValue(std::nan(""))}},
                         {},
                         std::nullopt});
  EXPECT_THAT(std::string(nan.ToJson().status().message()),
              ::testing::HasSubstr("attr 'ann_val': the value nan has no JSON form"));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
