// annotate, unannotate, add_unit_loop, the queries, and handles: what they
// name, when they are consumed, and the errors for misuse.
#include <cmath>
#include <limits>

#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// Function f: P writes T, which Q and R read, each in its own loop (i, i2, i3),
// with `q_loop_attrs` on Q's loop and `q_attrs` on block Q.
std::string Pipeline(const std::string& q_loop_attrs, const std::string& q_attrs) {
  return RootFuncText(
      "f(A: f32[8], B: f32[8], D: f32[8])", {"T: f32[8]"},
      {StageText("P", {8}, "A[vi]", "T[vi]", "T[vi] = A[vi] + 1.0f32"),
       StageText("Q", {8}, "T[vi]", "B[vi]", "B[vi] = T[vi] * 2.0f32",
                 {.loop_vars = {"i2"}, .block_attrs = q_attrs, .loop_attrs = q_loop_attrs}),
       StageText("R", {8}, "A[vi], T[vi]", "D[vi]", "D[vi] = A[vi] - T[vi]",
                 {.loop_vars = {"i3"}})});
}

// The pipeline and a second function g.
const std::string kPipeline =
    Pipeline("", "") +
    InPlaceText("g(A: f32[4])", {"i in range(0, 4)"}, "G(vi: spatial[0, 4] = i)", "vi", "* 3.0f32");

std::vector<std::string> Names(Schedule& sch, const std::vector<BlockRV>& blocks) {
  std::vector<std::string> out;
  for (BlockRV b : blocks) out.push_back(Must(sch.Get(b))->name);
  return out;
}

TEST(ScheduleQueries, BlocksLoopsProducersConsumers) {
  Schedule sch = MustSchedule(kPipeline);
  EXPECT_EQ(sch.func_name(), "f");
  BlockRV root = Must(sch.GetBlock("root"));
  BlockRV p = Must(sch.GetBlock("P"));
  BlockRV q = Must(sch.GetBlock("Q"));
  BlockRV r = Must(sch.GetBlock("R"));
  EXPECT_EQ(Names(sch, Must(sch.GetChildBlocks(root))), (std::vector<std::string>{"P", "Q", "R"}));
  std::vector<LoopRV> lp = Must(sch.GetLoops(p));
  ASSERT_EQ(lp.size(), 1u);
  EXPECT_EQ(Must(sch.Get(lp[0]))->loop_var->name, "i");
  EXPECT_TRUE(Must(sch.GetLoops(root)).empty());
  EXPECT_EQ(Names(sch, Must(sch.GetChildBlocks(lp[0]))), (std::vector<std::string>{"P"}));
  EXPECT_EQ(Names(sch, Must(sch.GetConsumers(p))), (std::vector<std::string>{"Q", "R"}));
  EXPECT_EQ(Names(sch, Must(sch.GetProducers(r))), (std::vector<std::string>{"P"}));
  EXPECT_TRUE(Must(sch.GetProducers(p)).empty());
  EXPECT_TRUE(Must(sch.GetConsumers(q)).empty());
  EXPECT_EQ(sch.trace().AsPython(),
            "b0 = sch.get_block(name=\"root\")\n"
            "b1 = sch.get_block(name=\"P\")\n"
            "b2 = sch.get_block(name=\"Q\")\n"
            "b3 = sch.get_block(name=\"R\")\n"
            "b4, b5, b6 = sch.get_child_blocks(block_or_loop=b0)\n"
            "l7, = sch.get_loops(block=b1)\n"
            "sch.get_loops(block=b0)\n"
            "b8, = sch.get_child_blocks(block_or_loop=l7)\n"
            "b9, b10 = sch.get_consumers(block=b1)\n"
            "b11, = sch.get_producers(block=b3)\n"
            "sch.get_producers(block=b1)\n"
            "sch.get_consumers(block=b2)\n");
}

TEST(ScheduleQueries, UnknownBlockListsTheBlocks) {
  Schedule sch = MustSchedule(kPipeline);
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.GetBlock("X")); },
                       {"sch.get_block(name=\"X\")", "no block named 'X' in function 'f'",
                        "its blocks are root, P, Q, R"});
}

TEST(ScheduleHandles, MisuseIsAnErrorNotACrash) {
  Schedule sch = MustSchedule(kPipeline);
  BlockRV p = Must(sch.GetBlock("P"));
  LoopRV i = Must(sch.GetLoops(p))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(LoopRV{p.id}); },
                       {"sch.parallel(loop=l0)", "handle b0 is a block, not a loop"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.GetLoops(BlockRV{i.id})); },
                       {"handle l1 is a loop, not a block"});
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(LoopRV{42}); },
                       {"l42 is not a loop handle of this schedule"});
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(LoopRV{-1}); },
                       {"is not a loop handle of this schedule"});
  // Handles belong to their function.
  Must(sch.WorkOn("g"));
  EXPECT_EQ(sch.func_name(), "g");
  EXPECT_TRUE(sch.trace().empty());  // Traces are per function too.
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(i); },
                       {"loop handle l1 belongs to function 'f'; the schedule works on 'g'"});
  LoopRV gi = Must(sch.GetLoops(Must(sch.GetBlock("G"))))[0];
  Must(sch.Parallel(gi));
  Must(sch.WorkOn("f"));
  Must(sch.Vectorize(i));
  EXPECT_EQ(Must(sch.Get(i))->for_kind, ForKind::kVectorized);
  EXPECT_EQ(sch.mod()->Lookup("g")->body.get()->kind(), NodeKind::kFor);
  EXPECT_EQ(static_cast<const ForNode*>(sch.mod()->Lookup("g")->body.get())->for_kind,
            ForKind::kParallel);
  absl::Status missing = sch.WorkOn("h");
  EXPECT_THAT(std::string(missing.message()),
              ::testing::HasSubstr("no function 'h' in the module; it has f, g"));
}

TEST(ScheduleHandles, CreateChecksTheModule) {
  absl::StatusOr<Schedule> bad = Schedule::Create(ParseOrDie(kPipeline), "nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("no function 'nope'"));
  // Invalid IR (a duplicate block name) is refused before any primitive runs.
  absl::StatusOr<Schedule> invalid = Schedule::Create(ParseOrDie(R"(
func @f(A: f32[4]) {
  for i in range(0, 4) {
    block B(vi: spatial[0, 4] = i) {
      reads(A[vi])
      writes(A[vi])
      A[vi] = 1.0f32
    }
  }
  for j in range(0, 4) {
    block B(vi: spatial[0, 4] = j) {
      reads(A[vi])
      writes(A[vi])
      A[vi] = 2.0f32
    }
  }
})"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(std::string(invalid.status().message()),
              ::testing::HasSubstr("schedule: function 'f' is not valid IR"));
  EXPECT_FALSE(Schedule::Create(nullptr).ok());
}

TEST(ScheduleAnnotate, LoopsAndBlocks) {
  Schedule sch = MustSchedule(kPipeline);
  PrimFunc original = sch.func();
  BlockRV q = Must(sch.GetBlock("Q"));
  LoopRV i2 = Must(sch.GetLoops(q))[0];
  Must(sch.Annotate(i2, "pragma_unroll", AttrValue(int64_t{4})));
  Must(sch.Annotate(i2, "pragma_unroll", AttrValue(int64_t{8})));  // Overwrites.
  Must(sch.Annotate(i2, "ratio", AttrValue(0.5)));
  Must(sch.Annotate(q, "rule", AttrValue("elementwise")));
  Must(
      sch.Annotate(q, "tiles", AttrValue(AttrValue::List{AttrValue(int64_t{2}), AttrValue(true)})));
  Must(sch.Unannotate(i2, "ratio"));
  ExpectFunc(sch, Pipeline("pragma_unroll = 8", "rule = \"elementwise\", tiles = [2, true]"));
  ExpectSameResults(original, sch);
  EXPECT_THAT(
      sch.trace().AsPython(),
      ::testing::HasSubstr("sch.annotate(block_or_loop=b0, ann_key=\"tiles\", ann_val=[2, True])\n"
                           "sch.unannotate(block_or_loop=l1, ann_key=\"ratio\")\n"));
  // The block handle survives annotation (blocks are followed by name).
  EXPECT_EQ(Must(sch.Get(q))->annotations.size(), 2u);
}

TEST(ScheduleAnnotate, WithASampledValue) {
  Schedule sch = MustSchedule(kPipeline);
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("P"))))[0];
  ExprRV v = Must(sch.SampleCategorical({16, 64}, {0.0, 1.0}));
  EXPECT_EQ(Must(sch.Get(v)), 64);
  Must(sch.Annotate(i, "unroll_max", v));
  EXPECT_EQ(Must(sch.Get(i))->annotations.at("unroll_max").as<int64_t>(), 64);
  EXPECT_THAT(
      sch.trace().AsPython(),
      ::testing::HasSubstr("sch.annotate(block_or_loop=l1, ann_val=v2, ann_key=\"unroll_max\")"));
}

TEST(ScheduleAnnotate, Rules) {
  Schedule sch = MustSchedule(kPipeline);
  BlockRV p = Must(sch.GetBlock("P"));
  LoopRV i = Must(sch.GetLoops(p))[0];
  Must(sch.Annotate(i, "a", AttrValue(int64_t{1})));
  ExpectFailsUnchanged(sch, [&] { return sch.Unannotate(i, "b"); },
                       {"sch.unannotate(block_or_loop=l1, ann_key=\"b\")",
                        "loop i has no annotation 'b'; its keys are a", ">>     for i in"});
  ExpectFailsUnchanged(sch, [&] { return sch.Unannotate(p, "b"); },
                       {"block P has no annotation 'b'; it has none"});
  ExpectFailsUnchanged(sch, [&] { return sch.Annotate(p, "", AttrValue(int64_t{1})); },
                       {"an annotation key must not be empty"});
  ExpectFailsUnchanged(sch, [&] { return sch.Annotate(p, "e", AttrValue(IntImm32(3))); },
                       {"an annotation value must not be an expression"});
  ExpectFailsUnchanged(
      sch, [&] { return sch.Annotate(p, "e", AttrValue(AttrValue::List{AttrValue(IntImm32(3))})); },
      {"an annotation value must not be an expression"});
  // A trace is JSON, which has no NaN or infinity.
  ExpectFailsUnchanged(sch, [&] { return sch.Annotate(p, "f", AttrValue(std::nan(""))); },
                       {"an annotation value must be a finite number, not nan"});
  ExpectFailsUnchanged(
      sch, [&] { return sch.Annotate(i, "f", AttrValue(-std::numeric_limits<double>::infinity())); },
      {"an annotation value must be a finite number, not -inf"});
  ExpectFailsUnchanged(sch, [&] { return sch.Annotate(i, "v", ExprRV{1}); },
                       {"v1 is not a value handle"});
}

TEST(ScheduleAddUnitLoop, AroundABlockAndALoop) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[4]) {
  block B() {
    reads(A[0])
    writes(A[0])
    A[0] = A[0] + 1.0f32
  }
})");
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV u = Must(sch.AddUnitLoop(b));
  LoopRV w = Must(sch.AddUnitLoop(u));
  ExpectFunc(sch, R"(
func @f(A: f32[4]) {
  for w in range(0, 1) {
    for u in range(0, 1) {
      block B() {
        reads(A[0])
        writes(A[0])
        A[0] = A[0] + 1.0f32
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.GetLoops(b)).size(), 2u);
  Must(sch.Bind(w, "blockIdx.x"));  // The point: a loop to bind.
  EXPECT_EQ(sch.trace().AsPython(),
            "b0 = sch.get_block(name=\"B\")\n"
            "l1 = sch.add_unit_loop(block_or_loop=b0)\n"
            "l2 = sch.add_unit_loop(block_or_loop=l1)\n"
            "l3, l4 = sch.get_loops(block=b0)\n"
            "sch.bind(loop=l2, thread_axis=\"blockIdx.x\")\n");
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
