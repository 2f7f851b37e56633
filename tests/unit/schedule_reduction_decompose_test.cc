// decompose_reduction: before/after IR at the innermost and an outer loop, the
// interpreter on random inputs (matmul, odd sizes under tail splits), the trace,
// and one negative test per rule (the message, and the schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kMatmul = MatmulText(16, 16, 16);

// What decomposing kMatmul leaves: block C_init zeroing C[vi, vj] with vi and
// vj bound to `i` and `j`, and the update without its init under loop k, which
// declares the accumulator it loads (C[vi_1, vj_1]) in its reads.
std::string InitBlock(const std::string& i, const std::string& j) {
  return BlockNestText(
      {.block = absl::StrCat("C_init(vi: spatial[0, 16] = ", i, ", vj: spatial[0, 16] = ", j, ")"),
       .writes = "C[vi, vj]",
       .body = "C[vi, vj] = 0.0f32"});
}
const std::string kUpdateUnderK = BlockNestText(
    {.loops = {"k in range(0, 16)"},
     .block = "C(vi_1: spatial[0, 16] = i, vj_1: spatial[0, 16] = j, vk: reduce[0, 16] = k)",
     .reads = "C[vi_1, vj_1], A[vi_1, vk], B[vk, vj_1]",
     .writes = "C[vi_1, vj_1]",
     .body = "C[vi_1, vj_1] = C[vi_1, vj_1] + A[vi_1, vk] * B[vk, vj_1]"});
const std::string kSignature = "mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16])";

TEST(ScheduleDecomposeReduction, AtTheReduceLoop) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  BlockRV init = Must(sch.DecomposeReduction(c, l[2]));
  ExpectFunc(
      sch,
      FuncText(kSignature,
               {LoopText("i in range(0, 16)",
                         {LoopText("j in range(0, 16)", {InitBlock("i", "j"), kUpdateUnderK})})}));
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(init))->name, "C_init");
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr("b4 = sch.decompose_reduction(block=b0, loop=l3)"));
}

// At an outer loop the spatial loops below it are copied above the init.
TEST(ScheduleDecomposeReduction, AtAnOuterLoopCopiesTheSpatialLoops) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.DecomposeReduction(c, l[0]));
  ExpectFunc(
      sch,
      FuncText(kSignature,
               {LoopText("i_init in range(0, 16)",
                         {LoopText("j_init in range(0, 16)", {InitBlock("i_init", "j_init")})}),
                LoopText("i in range(0, 16)", {LoopText("j in range(0, 16)", {kUpdateUnderK})})}));
  ExpectSameResults(original, sch);
}

// Odd sizes: a tail split of a spatial loop (its predicate goes with the init)
// and of the reduce loop (its predicate stays with the update).
TEST(ScheduleDecomposeReduction, OddSizesUnderTailSplits) {
  Schedule sch = MustSchedule(MatmulText(17, 31, 23));
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 8}));
  std::vector<LoopRV> k = Must(sch.Split(l[2], {std::nullopt, 4}));
  Must(sch.Reorder({j[0], k[0], j[1], k[1]}));
  Must(sch.DecomposeReduction(c, k[0]));
  ExpectSameResults(original, sch);
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
  std::string printed = PrintFunction(sch.func(), sch.func_name());
  EXPECT_THAT(printed, ::testing::HasSubstr("for j_1_init in range(0, 8)"));
  EXPECT_THAT(printed, ::testing::HasSubstr("where j_0 * 8 + j_1_init < 31"));
}

TEST(ScheduleDecomposeReduction, ReplaysFromJson) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.DecomposeReduction(c, Must(sch.GetLoops(c))[1]));
  Schedule replay = MustSchedule(kMatmul);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

TEST(ScheduleDecomposeReduction, BlockWithoutInit) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.DecomposeReduction(c, l[2]));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(c, l[2])); },
                       {"sch.decompose_reduction(block=b0, loop=l3)",
                        "block C has no init; decompose_reduction splits the init off a "
                        "reduction block",
                        ">>"});
}

TEST(ScheduleDecomposeReduction, LoopMustBeAboveTheBlock) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], B: f32[8], C: f32[8]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi]
    }
  }
  for i_1 in range(0, 8) {
    for k in range(0, 8) {
      block C(vi_1: spatial[0, 8] = i_1, vk: reduce[0, 8] = k) {
        reads(B[vk])
        writes(C[vi_1])
        init {
          C[vi_1] = 0.0f32
        }
        C[vi_1] = C[vi_1] + B[vk]
      }
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(c, i)); },
                       {"loop i is not one of the loops above block C", ">>"});
}

TEST(ScheduleDecomposeReduction, NoReduceLoopAboveTheLoop) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.Reorder({l[2], l[0]}));  // k, j, i
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(c, l[1])); },
                       {"loop k is above loop j and bound to a reduce iter var of block C: the "
                        "init would run again in each of its iterations; decompose at loop k or "
                        "above",
                        ">>"});
}

TEST(ScheduleDecomposeReduction, LoopBoundToSpatialAndReduce) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  LoopRV jk = Must(sch.Fuse({l[1], l[2]}));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(c, jk)); },
                       {"is bound to both spatial and reduce iter vars of block C", ">>"});
}

TEST(ScheduleDecomposeReduction, OpaqueIterVar) {
  Schedule sch = MustSchedule(
      RowReductionText("f(A: f32[8, 8], C: f32[8])", {"i in range(0, 8)", "k in range(0, 8)"},
                       "C(vi: opaque[0, 8] = i, vk: reduce[0, 8] = k)", "C"));
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV k = Must(sch.GetLoops(c))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(c, k)); },
                       {"block C has opaque iter var vi", ">>"});
}

// A loop bound to no iter var repeats the reduction (here: a row sum
// recomputed for every column of its consumer); a unit loop does not.
TEST(ScheduleDecomposeReduction, LoopThatRepeatsTheReduction) {
  Schedule sch = MustSchedule(RowReductionText(
      "f(A: f32[4, 6], B: f32[4])", {"i in range(0, 4)", "r in range(0, 3)", "k in range(0, 6)"},
      "B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)"));
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(b, l[0])); },
                       {"loop r is bound to no iter var of block B: it repeats the reduction, "
                        "each time from the init; decompose at a loop below it",
                        ">>"});
  Must(sch.DecomposeReduction(b, l[2]));  // Below r: each repetition starts from its init.
  ExpectSameResults(original, sch);
  Schedule unit = MustSchedule(MatmulText(5, 4, 3));
  PrimFunc unit_original = unit.func();
  BlockRV c = Must(unit.GetBlock("C"));
  LoopRV k = Must(unit.GetLoops(c))[2];
  Must(unit.AddUnitLoop(k));
  Must(unit.DecomposeReduction(c, Must(unit.GetLoops(c))[0]));
  ExpectSameResults(unit_original, unit);
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
