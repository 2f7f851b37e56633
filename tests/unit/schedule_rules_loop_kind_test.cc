// parallel, vectorize and bind (the independence rule, loop_independence.h):
// one negative test for each refusal that schedule_loop_kind_test.cc and
// schedule_parallel_rule_test.cc do not reach. Each shows the message and that
// the failed call left the module and the trace as they were.
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// An opaque iter var says nothing about which places an instance touches: a
// loop bound to one cannot be shown independent.
TEST(ScheduleRulesLoopKind, LoopBoundToAnOpaqueIterVar) {
  Schedule sch = MustSchedule(
      InPlaceText("f(A: f32[8])", {"i in range(0, 8)"}, "B(vi: opaque[0, 8] = i)", "vi"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(i); },
                       {"sch.parallel(loop=", "iter var vi of block B is opaque and bound to loop i",
                        "its iterations have no known independence, so the loop cannot be parallel",
                        ">>"});
}

// W writes row i of T over a triangle of inner loops (k's range depends on
// j), R reads it back over a rectangle: the region W touches in one iteration
// of i still names j once relaxed, so it is no function of the iteration and
// the two cannot be shown apart across iterations.
TEST(ScheduleRulesLoopKind, RegionThatDependsOnInnerLoops) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], T: f32[8, 8], C: f32[8, 8]) {
  for i in range(0, 8) {
    for j in range(0, 8) {
      for k in range(0, j + 1) {
        block W(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j, vk: spatial[0, 8] = k) {
          reads(A[vi])
          writes(T[vi, vk])
          T[vi, vk] = A[vi] + 1.0f32
        }
      }
    }
    for j_1 in range(0, 8) {
      block R(vi_1: spatial[0, 8] = i, vj_1: spatial[0, 8] = j_1) {
        reads(T[vi_1, vj_1])
        writes(C[vi_1, vj_1])
        C[vi_1, vj_1] = T[vi_1, vj_1]
      }
    }
  }
})");
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("R"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.Parallel(i); },
                       {"sch.parallel(loop=", "block R reads buffer T that block W writes",
                        "a region that depends on loops below it", ">>"});
}

// One block reading the element the iteration before wrote (a running sum
// written in place): each instance writes its own element, but the loop
// carries a dependence, and run in another order the result differs.
TEST(ScheduleRulesLoopKind, BlockReadsWhatAnotherIterationOfItWrites) {
  Schedule sch = MustSchedule(FuncText("f(A: f32[8])",
                                       {BlockNestText({.loops = {"i in range(1, 7)"},
                                                       .block = "B(vi: spatial[1, 7] = i)",
                                                       .reads = "A[vi - 1]",
                                                       .writes = "A[vi]",
                                                       .body = "A[vi] = A[vi - 1] + 1.0f32"})}));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  for (auto make : {+[](Schedule& s, LoopRV l) { return s.Parallel(l); },
                    +[](Schedule& s, LoopRV l) { return s.Vectorize(l); }}) {
    ExpectFailsUnchanged(sch, [&] { return make(sch, i); },
                         {"block B reads buffer A that block B writes, at a place that may belong "
                          "to another iteration of loop i",
                          ">>"});
  }
}

// The same dependence with the load left out of the block's reads, or R
// loading T, which W writes, undeclared: the verifier refuses both functions
// (every load of a block lies in its declared regions), so no primitive ever
// meets a load its regions hide. The rule still counts a block's loads
// (ReadsOf), should an unverified function reach it.
TEST(ScheduleRulesLoopKind, UndeclaredLoadsAreRefusedByTheVerifier) {
  IRModule self = ParseOrDie(FuncText("f(A: f32[8])",
                                      {BlockNestText({.loops = {"i in range(1, 7)"},
                                                      .block = "B(vi: spatial[1, 7] = i)",
                                                      .writes = "A[vi]",
                                                      .body = "A[vi] = A[vi - 1] + 1.0f32"})}));
  EXPECT_THAT(std::string(VerifyModule(self).message()),
              ::testing::HasSubstr("block 'B': the load A[vi - 1] reads buffer 'A', of which "
                                   "the block declares no read region"));
  IRModule other = ParseOrDie(R"(
func @f(A: f32[8], T: f32[8], C: f32[8]) {
  for i in range(1, 7) {
    block W(vi: spatial[1, 7] = i) {
      reads(A[vi])
      writes(T[vi])
      T[vi] = A[vi]
    }
    block R(vj: spatial[1, 7] = i) {
      writes(C[vj])
      C[vj] = T[vj - 1]
    }
  }
})");
  EXPECT_THAT(std::string(VerifyModule(other).message()),
              ::testing::HasSubstr("block 'R': the load T[vj - 1] reads buffer 'T', of which "
                                   "the block declares no read region"));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
