// split and fuse: before/after IR and the interpreter on random inputs; their
// rules are the lit cases of tests/lit/schedule/split-errors.tsl and
// fuse-errors.tsl (the message, the function printed unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// B = A * 2 over 64x32, its block under `loops` with vi and vj bound to `vi`, `vj`.
std::string ScaleIn(const std::vector<std::string>& loops, const std::string& vi,
                    const std::string& vj) {
  return FuncText("f(A: f32[64, 32], B: f32[64, 32])",
                  {BlockNestText({.loops = loops,
                                  .block = absl::StrCat("B(vi: spatial[0, 64] = ", vi,
                                                        ", vj: spatial[0, 32] = ", vj, ")"),
                                  .reads = "A[vi, vj]",
                                  .writes = "B[vi, vj]",
                                  .body = "B[vi, vj] = A[vi, vj] * 2.0f32"})});
}

// B = A + 1 over 100 elements, its block under `loops` with vi bound to `vi`
// (under the predicate `vi` < 100 where `guarded`).
std::string OddIn(const std::vector<std::string>& loops, const std::string& vi, bool guarded) {
  std::string block = absl::StrCat("B(vi: spatial[0, 100] = ", vi, ")");
  if (guarded) absl::StrAppend(&block, " where ", vi, " < 100");
  return FuncText("f(A: f32[100], B: f32[100])",
                  {BlockNestText({.loops = loops,
                                  .block = block,
                                  .reads = "A[vi]",
                                  .writes = "B[vi]",
                                  .body = "B[vi] = A[vi] + 1.0f32"})});
}

const std::string kScale = ScaleIn({"i in range(0, 64)", "j in range(0, 32)"}, "i", "j");
const std::string kOdd = OddIn({"i in range(0, 100)"}, "i", /*guarded=*/false);

struct Fixture {
  explicit Fixture(const std::string& text) : sch(MustSchedule(text)), original(sch.func()) {}
  std::vector<LoopRV> Loops(const std::string& block = "B") {
    return Must(sch.GetLoops(Must(sch.GetBlock(block))));
  }
  Schedule sch;
  PrimFunc original;
};

TEST(ScheduleSplit, InferredOuterFactor) {
  Fixture t(kScale);
  std::vector<LoopRV> l = t.Loops();
  std::vector<LoopRV> parts = Must(t.sch.Split(l[0], {std::nullopt, 16}));
  ASSERT_EQ(parts.size(), 2u);
  ExpectFunc(t.sch, ScaleIn({"i_0 in range(0, 4)", "i_1 in range(0, 16)", "j in range(0, 32)"},
                            "i_0 * 16 + i_1", "j"));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.Get(parts[0]))->loop_var->name, "i_0");
  // The other loop's handle survives; the split one is consumed.
  EXPECT_EQ(Must(t.sch.Get(l[1]))->loop_var->name, "j");
  absl::StatusOr<Ref<const ForNode>> gone = t.sch.Get(l[0]);
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(std::string(gone.status().message()),
              ::testing::HasSubstr("loop handle l1 was consumed by split"));
}

TEST(ScheduleSplit, ThreeWayWithInnerInferredAndUnitFactor) {
  // The unit loop j_1 stays; the binding drops it (it is always 0).
  Fixture t(kScale);
  std::vector<LoopRV> parts = Must(t.sch.Split(t.Loops()[1], {2, 1, std::nullopt}));
  ExpectFunc(t.sch, ScaleIn({"i in range(0, 64)", "j_0 in range(0, 2)", "j_1 in range(0, 1)",
                             "j_2 in range(0, 16)"},
                            "i", "j_0 * 16 + j_2"));
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, NonDivisibleGetsAPredicate) {
  Fixture t(kOdd);
  Must(t.sch.Split(t.Loops()[0], {std::nullopt, 32}));
  ExpectFunc(t.sch, OddIn({"i_0 in range(0, 4)", "i_1 in range(0, 32)"}, "i_0 * 32 + i_1",
                          /*guarded=*/true));
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, AllFactorsGivenLargerThanExtent) {
  Fixture t(kOdd);
  Must(t.sch.Split(t.Loops()[0], {7, 16}));
  ExpectFunc(t.sch, OddIn({"i_0 in range(0, 7)", "i_1 in range(0, 16)"}, "i_0 * 16 + i_1",
                          /*guarded=*/true));
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, NonzeroMinAndStatementsOutsideBlocks) {
  // A loop from 4 holding a store outside any block: the guard is an `if`.
  Fixture t(R"(
func @f(A: f32[20], B: f32[20]) {
  for i in range(4, 6) {
    A[i] = A[i] + 1.0f32
    block B(vi: spatial[0, 20] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] * 2.0f32
    }
  }
})");
  Must(t.sch.Split(t.Loops()[0], {std::nullopt, 4}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[20], B: f32[20]) {
  for i_0 in range(0, 2) {
    for i_1 in range(0, 4) {
      if i_0 * 4 + i_1 < 6 {
        A[4 + (i_0 * 4 + i_1)] = A[4 + (i_0 * 4 + i_1)] + 1.0f32
        block B(vi: spatial[0, 20] = i_0 * 4 + i_1 + 4) {
          reads(A[vi])
          writes(B[vi])
          B[vi] = A[vi] * 2.0f32
        }
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, SymbolicExtentWithAnInferredFactor) {
  const std::string kSym = InPlaceText("f[n](A: f32[n])", {"i in range(0, n)"},
                                       "B(vi: spatial[0, n] = i)", "vi", "* 2.0f32");
  // A constant product is refused (tests/lit/schedule/split-errors.tsl).
  Fixture t(kSym);
  LoopRV i = t.Loops()[0];
  Must(t.sch.Split(i, {std::nullopt, 8}));
  ExpectFunc(t.sch,
             InPlaceText("f[n](A: f32[n])", {"i_0 in range(0, (n + 7) // 8)", "i_1 in range(0, 8)"},
                         "B(vi: spatial[0, n] = i_0 * 8 + i_1) where i_0 * 8 + i_1 < n", "vi",
                         "* 2.0f32"));
  for (int64_t n : {1, 7, 8, 13}) {
    std::vector<Arg> a = Must(RandomArgs(t.original, 5, {{"n", n}}));
    std::vector<Arg> b = CloneArgs(a);
    Must(ir::Run(t.original, a));
    Must(ir::Run(t.sch.func(), b));
    EXPECT_TRUE(CompareArgs(a, b, t.original).ok()) << "n = " << n;
  }
}

// The other rules are cases of tests/lit/schedule/split-errors.tsl; a handle
// that is not defined cannot be written in a trace, so it is checked here.
TEST(ScheduleSplit, RuleFactorHandles) {
  Fixture t(kOdd);
  LoopRV i = t.Loops()[0];
  ExpectFailsUnchanged(t.sch, [&] { return StatusOf(t.sch.Split(i, {ExprRV{99}, 4})); },
                       {"v99 is not a value handle"});
}

TEST(ScheduleFuse, TwoLoops) {
  Fixture t(kScale);
  std::vector<LoopRV> l = t.Loops();
  LoopRV f = Must(t.sch.Fuse({l[0], l[1]}));
  ExpectFunc(t.sch, ScaleIn({"i_j_fused in range(0, 2048)"}, "i_j_fused // 32", "i_j_fused %% 32"));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.Get(f))->loop_var->name, "i_j_fused");
  EXPECT_THAT(std::string(t.sch.Get(l[1]).status().message()),
              ::testing::HasSubstr("loop handle l2 was consumed by fuse"));
  // Split the fused loop again: the bindings simplify back to plain digits.
  std::vector<LoopRV> parts = Must(t.sch.Split(f, {std::nullopt, 32}));
  ExpectFunc(t.sch, ScaleIn({"i_j_fused_0 in range(0, 64)", "i_j_fused_1 in range(0, 32)"},
                            "i_j_fused_0", "i_j_fused_1"));
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleFuse, ThreeLoopsWithNonzeroMinAndUnitExtent) {
  Fixture t(InPlaceText(
      "f(A: f32[8, 1, 12])", {"i in range(0, 8)", "u in range(0, 1)", "k in range(2, 10)"},
      "B(vi: spatial[0, 8] = i, vu: spatial[0, 1] = u, vk: spatial[0, 12] = k)", "vi, vu, vk"));
  std::vector<LoopRV> l = t.Loops();
  Must(t.sch.Fuse({l[0], l[1], l[2]}));
  ExpectFunc(t.sch, InPlaceText("f(A: f32[8, 1, 12])", {"i_u_k_fused in range(0, 80)"},
                                "B(vi: spatial[0, 8] = i_u_k_fused // 10, vu: spatial[0, 1] = 0, "
                                "vk: spatial[0, 12] = i_u_k_fused %% 10 + 2)",
                                "vi, vu, vk"));
  ExpectSameResults(t.original, t.sch);
}

// fuse's rules are cases of tests/lit/schedule/fuse-errors.tsl and fuse.tsl.

}  // namespace
}  // namespace tessel::ir::schedule::testing
