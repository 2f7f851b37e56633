// rfactor and decompose_reduction: one negative test for each rule that
// schedule_reduction_{rfactor,decompose}_test.cc do not reach. Each shows the
// message and that the failed call left the module and the trace as they were.
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// A row reduction B[vi] over A[vi, vk], with the loops, the block header and
// its body written by each test.
std::string RowReduce(const std::string& loops_open, const std::string& header,
                      const std::string& body, const std::string& loops_close,
                      const std::string& params = "A: f32[4, 6], B: f32[4]") {
  return absl::StrCat("func @f(", params, ") {\n", loops_open, "\n", header, " {\n", body,
                      "\n}\n", loops_close, "\n}");
}

constexpr const char* kSumBody = R"(reads(A[vi, vk])
writes(B[vi])
init {
  B[vi] = 0.0f32
}
B[vi] = B[vi] + A[vi, vk])";

TEST(ScheduleRulesRFactor, InitOfOnlyOneOfTwoBuffers) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, 6) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)",
      "reads(A[vi, vk])\nwrites(B[vi], E[vi])\ninit {\nB[vi] = 0.0f32\n}\n"
      "B[vi] = B[vi] + A[vi, vk]\nE[vi] = A[vi, vk]",
      "}\n}", "A: f32[4, 6], B: f32[4], E: f32[4]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"sch.rfactor(loop=",
                        "block B writes 2 buffer(s), stores 2 update(s) and 1 init(s); rfactor "
                        "needs one reduction per buffer written",
                        ">>"});
}

// Two reductions in one block split together only when neither reads the
// other's accumulator: E's partial results would need B's final value.
TEST(ScheduleRulesRFactor, AnUpdateReadsTheOtherAccumulator) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, 6) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)",
      "reads(A[vi, vk])\nwrites(B[vi], E[vi])\ninit {\nB[vi] = 0.0f32\nE[vi] = 0.0f32\n}\n"
      "B[vi] = B[vi] + A[vi, vk]\nE[vi] = E[vi] + B[vi]",
      "}\n}", "A: f32[4, 6], B: f32[4], E: f32[4]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"the update of block B is not `C[...] = C[...] op x`", ">>"});
}

TEST(ScheduleRulesRFactor, InitStoresAnotherElement) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, 6) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)",
      "reads(A[vi, vk])\nwrites(B[0 +: 4])\ninit {\nB[0] = 0.0f32\n}\nB[vi] = B[vi] + A[vi, vk]",
      "}\n}"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"the init of block B does not store to the element the update accumulates "
                        "into",
                        ">>"});
}

TEST(ScheduleRulesRFactor, OpaqueIterVar) {
  Schedule sch = MustSchedule(
      RowReduce("for i in range(0, 4) {\nfor k in range(0, 6) {",
                "block B(vi: opaque[0, 4] = i, vk: reduce[0, 6] = k)", kSumBody, "}\n}"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
      {"block B has opaque iter var vi; rfactor needs spatial and reduce iter vars only", ">>"});
}

TEST(ScheduleRulesRFactor, LoopBoundToNoReduceIterVar) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor r in range(0, 3) {\nfor k in range(0, 6) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)", kSumBody, "}\n}\n}"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"loop r is bound to no reduce iter var of block B; rfactor needs a loop of "
                        "reduce iter vars only",
                        ">>"});
}

TEST(ScheduleRulesRFactor, AnotherLoopBoundToBothKinds) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, 6) {\nfor r in range(0, 3) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k, vr: reduce[0, 3] = r)",
      "reads(A[vi, vk])\nwrites(B[vi])\ninit {\nB[vi] = 0.0f32\n}\nB[vi] = B[vi] + A[vi, vk]",
      "}\n}\n}"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  LoopRV ik = Must(sch.Fuse({l[0], l[1]}));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[2], 0)); },
                       {"is bound to both spatial and reduce iter vars of block B", ">>"});
  (void)ik;
}

TEST(ScheduleRulesRFactor, LoopRangeDependsOnAnotherLoop) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, i + 1) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 4] = k)",
      "reads(A[vi, vk])\nwrites(B[vi])\ninit {\nB[vi] = 0.0f32\n}\nB[vi] = B[vi] + A[vi, vk]",
      "}\n}", "A: f32[4, 4], B: f32[4]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"the range of loop k depends on another loop; rfactor needs a box", ">>"});
}

TEST(ScheduleRulesRFactor, AnotherBlockUnderTheNestUsesTheOutput) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k in range(0, 6) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k)", kSumBody,
      "}\nblock E(vi_1: spatial[0, 4] = i) {\nreads(B[vi_1])\nwrites(E[vi_1])\n"
      "E[vi_1] = B[vi_1] * 2.0f32\n}\n}",
      "A: f32[4, 6], B: f32[4], E: f32[4]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"block E uses buffer B under the loop nest of block B; the write-back after "
                        "the nest comes too late",
                        ">>"});
}

TEST(ScheduleRulesRFactor, PredicateOverOtherReduceLoopsIsNotATailBound) {
  Schedule sch = MustSchedule(RowReduce(
      "for i in range(0, 4) {\nfor k_0 in range(0, 2) {\nfor k_1 in range(0, 3) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = k_0 * 3 + k_1) where k_0 * 3 + k_1 != 4",
      kSumBody, "}\n}\n}"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[2], 0)); },
                       {"the predicate of block B has a term over the loops the write-back does "
                        "not run over that is not a tail bound `a < b`",
                        ">>"});
}

TEST(ScheduleRulesDecomposeReduction, ReduceIterVarNotAtItsMinimum) {
  Schedule sch = MustSchedule(
      RowReduce("for i in range(0, 4) {\nfor k in range(0, 6) {",
                "block B(vi: spatial[0, 4] = i, vk: reduce[0, 6] = 5 - k)", kSumBody, "}\n}"));
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(b, l[1])); },
                       {"sch.decompose_reduction(block=",
                        "reduce iter var vk of block B is not at its minimum where its loops are: "
                        "the first reduce instance is unknown",
                        ">>"});
}

TEST(ScheduleRulesDecomposeReduction, CopiedLoopRangeUsesALoopTheInitDoesNotRunOver) {
  Schedule sch = MustSchedule(RowReduce(
      "for k in range(0, 4) {\nfor i in range(0, k + 1) {",
      "block B(vi: spatial[0, 4] = i, vk: reduce[0, 4] = k)",
      "reads(A[vi, vk])\nwrites(B[vi])\ninit {\nB[vi] = 0.0f32\n}\nB[vi] = B[vi] + A[vi, vk]",
      "}\n}", "A: f32[4, 4], B: f32[4]"));
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.DecomposeReduction(b, l[0])); },
                       {"the range of loop i depends on a loop the init does not run over", ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
