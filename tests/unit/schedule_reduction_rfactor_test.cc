// rfactor: before/after IR, the interpreter on random inputs (a row sum, a
// matmul, odd sizes under a tail split, max and product combiners), the trace,
// and one negative test per rule (the message, and the schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// A row sum whose k is already split into k_0 * 4 + k_1.
const std::string kRowSum =
    RowReductionText("rowsum(A: f32[8, 64], B: f32[8])",
                     {"i in range(0, 8)", "k_0 in range(0, 16)", "k_1 in range(0, 4)"},
                     "B(vi: spatial[0, 8] = i, vk: reduce[0, 64] = k_0 * 4 + k_1)");

// B[vi] = <update> over A: f32[6, 12] with init B[vi] = <init>.
std::string RowReduction(const std::string& init, const std::string& update) {
  return RowReductionText("red(A: f32[6, 12], B: f32[6])",
                          {"i in range(0, 6)", "k in range(0, 12)"},
                          "B(vi: spatial[0, 6] = i, vk: reduce[0, 12] = k)", "B", init, update);
}

TEST(ScheduleRFactor, RowSumOverTheInnerPart) {
  Schedule sch = MustSchedule(kRowSum);
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  BlockRV rf = Must(sch.RFactor(l[2], 0));
  ExpectFunc(sch, R"(
func @rowsum(A: f32[8, 64], B: f32[8]) {
  block root() {
    alloc_buffer B_rf: f32[4, 8]
    for i in range(0, 8) {
      for k_0 in range(0, 16) {
        for k_1 in range(0, 4) {
          block B_rf(vk_1: spatial[0, 4] = k_1, vi: spatial[0, 8] = i, vk_0: reduce[0, 16] = k_0) {
            reads(A[vi, vk_0 * 4 + vk_1])
            writes(B_rf[vk_1, vi])
            init {
              B_rf[vk_1, vi] = 0.0f32
            }
            B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
          }
        }
      }
    }
    for i_1 in range(0, 8) {
      for k_1_1 in range(0, 4) {
        block B(vi_1: spatial[0, 8] = i_1, vk_1_1: reduce[0, 4] = k_1_1) {
          reads(B_rf[vk_1_1, vi_1])
          writes(B[vi_1])
          init {
            B[vi_1] = 0.0f32
          }
          B[vi_1] = B[vi_1] + B_rf[vk_1_1, vi_1]
        }
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(rf))->name, "B_rf");
  EXPECT_EQ(Must(sch.Get(b))->name, "B");  // Now the write-back block.
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr("b4 = sch.rfactor(loop=l3, factor_axis=0)"));
  // The rfactor loop is now spatial: it can run in parallel.
  Must(sch.Reorder({l[2], l[1]}));
  Must(sch.Parallel(l[2]));
  ExpectSameResults(original, sch);
}

TEST(ScheduleRFactor, FactorAxisLastAndNegative) {
  for (int64_t axis : {1, -1}) {
    Schedule sch = MustSchedule(kRowSum);
    PrimFunc original = sch.func();
    std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
    Must(sch.RFactor(l[1], axis));
    EXPECT_THAT(PrintFunction(sch.func(), sch.func_name()),
                ::testing::HasSubstr("alloc_buffer B_rf: f32[8, 16]"));
    ExpectSameResults(original, sch);
  }
}

// Odd sizes: k = 23 split by 4 leaves a tail; the write-back keeps the part of
// the predicate over the rfactor loop (k_1 < 23 at k_0 = 0).
TEST(ScheduleRFactor, MatmulOddSizesUnderATailSplit) {
  const std::string text = MatmulText(5, 7, 23);
  Schedule sch = MustSchedule(text);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<LoopRV> k = Must(sch.Split(l[2], {std::nullopt, 4}));
  Must(sch.RFactor(k[0], 2));
  ExpectSameResults(original, sch);
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
  Schedule sch2 = MustSchedule(text);
  std::vector<LoopRV> l2 = Must(sch2.GetLoops(Must(sch2.GetBlock("C"))));
  std::vector<LoopRV> k2 = Must(sch2.Split(l2[2], {std::nullopt, 4}));
  Must(sch2.RFactor(k2[1], 0));
  ExpectSameResults(original, sch2);
}

TEST(ScheduleRFactor, MaxAndProductCombiners) {
  for (const char* combine : {"max(B[vi], A[vi, vk])", "B[vi] * A[vi, vk]"}) {
    bool is_max = std::string(combine).find("max") == 0;
    Schedule sch = MustSchedule(RowReduction(is_max ? "-inf_f32" : "1.0f32", combine));
    PrimFunc original = sch.func();
    std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
    std::vector<LoopRV> k = Must(sch.Split(l[1], {3, std::nullopt}));
    Must(sch.RFactor(k[0], 0));
    ExpectSameResults(original, sch);
  }
}

// The loop is the whole reduction: each partial result is one term, with no
// init (a block without reduce iter vars has none).
TEST(ScheduleRFactor, TheWholeReduction) {
  for (const char* combine : {"B[vi] + A[vi, vk]", "max(B[vi], A[vi, vk])"}) {
    bool is_max = std::string(combine).find("max") == 0;
    Schedule sch = MustSchedule(RowReduction(is_max ? "-inf_f32" : "0.0f32", combine));
    PrimFunc original = sch.func();
    Must(sch.RFactor(Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1], 1));
    const std::string printed = PrintFunction(sch.func(), sch.func_name());
    EXPECT_THAT(printed, ::testing::HasSubstr(is_max ? "B_rf[vi, vk] = max(-inf_f32, A[vi, vk])"
                                                     : "B_rf[vi, vk] = A[vi, vk]"));
    ExpectSameResults(original, sch);
  }
}

// Layer norm's statistics: a sum and a maximum in one block, through lets,
// split together; each buffer gets its rfactor buffer (named after it) and the
// one write-back combines both.
TEST(ScheduleRFactor, TwoReductionsInOneBlock) {
  for (bool whole : {false, true}) {
    Schedule sch = MustSchedule(R"(
func @stats(A: f32[6, 12], S: f32[6], M: f32[6]) {
  for i in range(0, 6) {
    for k in range(0, 12) {
      block B(vi: spatial[0, 6] = i, vk: reduce[0, 12] = k) {
        reads(A[vi, vk])
        writes(S[vi], M[vi])
        init {
          S[vi] = 0.0f32
          M[vi] = -inf_f32
        }
        let s: f32 = S[vi] + A[vi, vk]
        let m: f32 = max(M[vi], A[vi, vk] * A[vi, vk])
        S[vi] = s
        M[vi] = m
      }
    }
  }
})");
    PrimFunc original = sch.func();
    std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
    LoopRV rf_loop = l[1];
    if (!whole) rf_loop = Must(sch.Split(l[1], {std::nullopt, 4}))[1];
    BlockRV rf = Must(sch.RFactor(rf_loop, -1));
    const std::string printed = PrintFunction(sch.func(), sch.func_name());
    EXPECT_THAT(printed, ::testing::HasSubstr(whole ? "alloc_buffer S_rf: f32[6, 12]"
                                                    : "alloc_buffer S_rf: f32[6, 4]"));
    EXPECT_THAT(printed, ::testing::HasSubstr(whole ? "M_rf[vi, vk] = max(-inf_f32, A[vi, vk] * "
                                                    : "writes(S_rf[vi, vk_1], M_rf[vi, vk_1])"));
    EXPECT_EQ(Must(sch.Get(rf))->name, "B_rf");
    ExpectSameResults(original, sch);
  }
}

TEST(ScheduleRFactor, ReplaysFromJson) {
  Schedule sch = MustSchedule(kRowSum);
  Must(sch.RFactor(Must(sch.GetLoops(Must(sch.GetBlock("B"))))[2], 0));
  Schedule replay = MustSchedule(kRowSum);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

TEST(ScheduleRFactor, LoopOfASpatialIterVar) {
  Schedule sch = MustSchedule(kRowSum);
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[0], 0)); },
                       {"sch.rfactor(loop=l1, factor_axis=0)",
                        "loop i is bound to a spatial iter var of block B; rfactor needs a loop "
                        "of reduce iter vars only",
                        ">>"});
}

TEST(ScheduleRFactor, FactorAxisOutOfRange) {
  Schedule sch = MustSchedule(kRowSum);
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.RFactor(l[2], 2)); },
      {"factor_axis 2 is out of range: the rfactor buffer has 2 dimensions", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[2], -3)); },
                       {"factor_axis -3 is out of range"});
}

TEST(ScheduleRFactor, NotACommutativeReduction) {
  Schedule sch = MustSchedule(RowReduction("0.0f32", "B[vi] - A[vi, vk]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
                       {"the update of block B is not `C[...] = C[...] op x` with op one of +, *, "
                        "max, min",
                        ">>"});
}

TEST(ScheduleRFactor, InitMustBeTheIdentity) {
  Schedule sch = MustSchedule(RowReduction("1.0f32", "B[vi] + A[vi, vk]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.RFactor(l[1], 0)); },
      {"the init value of block B is not the identity of its combiner (0 for +)", ">>"});
}

TEST(ScheduleRFactor, BlockWithoutInit) {
  Schedule sch = MustSchedule(kRowSum);
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  Must(sch.DecomposeReduction(b, l[1]));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(l[2], 0)); },
                       {"block B has no init; rfactor needs a reduction block", ">>"});
}

TEST(ScheduleRFactor, ExactlyOneBlockBelowTheLoop) {
  Schedule sch = MustSchedule(kRowSum);
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  Must(sch.DecomposeReduction(b, l[1]));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.RFactor(l[0], 0)); },
      {"rfactor needs exactly one block below loop i; it has 2 (B_init, B)", ">>"});
}

TEST(ScheduleRFactor, LoopBoundToBothKinds) {
  Schedule sch = MustSchedule(RowReduction("0.0f32", "B[vi] + A[vi, vk]"));
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  LoopRV ik = Must(sch.Fuse({l[0], l[1]}));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.RFactor(ik, 0)); },
                       {"is bound to a spatial iter var of block B", ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
