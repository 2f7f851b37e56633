// pad_einsum: an odd-size te matmul padded to tile multiples keeps its results
// (interpreter on random inputs), then tiles without predicates and
// tensorizes to the FMA kernel; a symbolic extent pads to an expression; one
// negative test per rule (message, unchanged).
#include "ir/te/ops/elementwise.h"
#include "tests/unit/schedule_te_util.h"

namespace tessel::ir::schedule::testing {
namespace {

TEST(SchedulePadEinsum, OddMatmulPadsToTileMultiples) {
  Schedule sch = TeMatmulSchedule(17, 31, 23);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.PadEinsum(c, {4, 16, 8}));
  std::string text = PrintFunction(sch.func(), "mm");
  EXPECT_THAT(text, ::testing::HasSubstr("A_pad: f32[20, 24]"));
  EXPECT_THAT(text, ::testing::HasSubstr("B_pad: f32[24, 32]"));
  EXPECT_THAT(text, ::testing::HasSubstr("C_pad: f32[20, 32]"));
  EXPECT_THAT(text, ::testing::HasSubstr("block C_crop("));
  EXPECT_TRUE(VerifyFunction(sch.func(), "mm").ok()) << text;
  ExpectSameResults(original, sch);
  EXPECT_EQ(sch.trace().instructions().back().ToPython(),
            "sch.pad_einsum(block=b0, padding=[4, 16, 8])");
  Trace tr = Must(Trace::FromJson(Must(sch.trace().ToJson())));
  Schedule again = TeMatmulSchedule(17, 31, 23);
  Must(tr.ApplyToSchedule(&again));
  EXPECT_TRUE(StructuralEqual(again.func(), sch.func()));
}

TEST(SchedulePadEinsum, ThenTilesDivideAndTensorize) {
  Schedule sch = TeMatmulSchedule(17, 31, 5);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.PadEinsum(c, {4, 16, 1}));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {std::nullopt, 4}));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 16}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  Must(sch.Tensorize(i[1], "f32_fma_4x16"));
  ExpectSameResults(original, sch);
}

TEST(SchedulePadEinsum, AlreadyMultiplesChangesNothing) {
  Schedule sch = TeMatmulSchedule(16, 32, 8);
  IRModule before = sch.mod();
  Must(sch.PadEinsum(Must(sch.GetBlock("C")), {4, 16, 8}));
  EXPECT_TRUE(sch.mod().same_as(before));
}

// A dense layer over n rows: the rows pad to an expression of n, and the padded
// row loop splits by the factor without a predicate.
constexpr char kDenseN[] = R"(
func @dense_n[n](A: f32[n, 24], W: f32[40, 24], C: f32[n, 40]) {
  for i in range(0, n) {
    for j in range(0, 40) {
      for k in range(0, 24) {
        block C(vi: spatial[0, n] = i, vj: spatial[0, 40] = j, vk: reduce[0, 24] = k) {
          reads(A[vi, vk], W[vj, vk])
          writes(C[vi, vj])
          init {
            C[vi, vj] = 0.0f32
          }
          C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vj, vk]
        }
      }
    }
  }
})";

TEST(SchedulePadEinsum, SymbolicRowsPadToAnExpression) {
  Schedule sch = MustSchedule(kDenseN);
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.PadEinsum(c, {16, 1, 1}));
  std::string text = PrintFunction(sch.func(), "dense_n");
  EXPECT_THAT(text, ::testing::HasSubstr("A_pad: f32[(n + 15) // 16 * 16, 24]"));
  EXPECT_THAT(text, ::testing::HasSubstr("C_pad: f32[(n + 15) // 16 * 16, 40]"));
  EXPECT_THAT(text, ::testing::HasSubstr("if v0 < n {"));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("W_pad")));
  EXPECT_TRUE(VerifyFunction(sch.func(), "dense_n").ok()) << text;
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.Split(l[0], {std::nullopt, 16}));
  text = PrintFunction(sch.func(), "dense_n");
  EXPECT_THAT(text,
              ::testing::HasSubstr("block C(vi: spatial[0, (n + 15) // 16 * 16] = i_0 * 16 + i_1"));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("where"))) << text;
}

TEST(SchedulePadEinsum, SymbolicExtentProvenAMultipleChangesNothing) {
  Schedule sch = MustSchedule(R"(
func @rows16[n](S: f32[n], A: f32[n * 16, 8], B: f32[n * 16, 8]) {
  for i in range(0, n * 16) {
    for j in range(0, 8) {
      block B(vi: spatial[0, n * 16] = i, vj: spatial[0, 8] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj]
      }
    }
  }
})");
  IRModule before = sch.mod();
  Must(sch.PadEinsum(Must(sch.GetBlock("B")), {16, 1}));
  EXPECT_TRUE(sch.mod().same_as(before));
}

// i64 iter vars over a shape variable of i64: the copies' vars, loops and guards
// take the extents' type.
TEST(SchedulePadEinsum, I64ExtentsKeepTheirType) {
  Schedule sch = MustSchedule(R"(
func @scale64[n: i64](A: f32[n, 8i64], B: f32[n, 8i64]) {
  for i: i64 in range(0i64, n) {
    for j: i64 in range(0i64, 8i64) {
      block B(vi: i64 spatial[0i64, n] = i, vj: i64 spatial[0i64, 8i64] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj] * 2.0f32
      }
    }
  }
})");
  Must(sch.PadEinsum(Must(sch.GetBlock("B")), {4, 16}));
  std::string text = PrintFunction(sch.func(), "scale64");
  EXPECT_THAT(text, ::testing::HasSubstr("A_pad: f32[(n + 3i64) // 4i64 * 4i64, 16i64]"));
  EXPECT_TRUE(VerifyFunction(sch.func(), "scale64").ok()) << text;
}

TEST(SchedulePadEinsum, ElementwiseInsideAnAllocatingFunction) {
  te::Tensor a = Must(te::Placeholder({7, 5}, DataType::Float(32), "A"));
  te::Tensor b = Must(te::Placeholder({5, 3}, DataType::Float(32), "B"));
  te::Tensor t = Must(te::ops::Matmul(a, b, {.name = "T"}));
  te::Tensor r = Must(te::ops::Relu(t, "R"));
  Schedule sch = TeSchedule({a, b, r}, "mm_relu");
  PrimFunc original = sch.func();
  Must(sch.PadEinsum(Must(sch.GetBlock("R")), {4, 4}));
  Must(sch.PadEinsum(Must(sch.GetBlock("T")), {8, 4, 2}));
  ExpectSameResults(original, sch);
}

TEST(SchedulePadEinsum, RuleOneFactorPerIterVar) {
  Schedule sch = TeMatmulSchedule(5, 6, 7);
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 4}); },
                       {"sch.pad_einsum(block=b0, padding=[4, 4])",
                        "needs one factor per iter var of block C (3), got 2"});
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 0, 1}); },
                       {"factor 1 is 0; factors must be positive"});
}

TEST(SchedulePadEinsum, RuleIterVarsBoundToTheirOwnLoops) {
  Schedule sch = TeMatmulSchedule(8, 8, 8);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.Split(l[0], {std::nullopt, 4}));
  ExpectFailsUnchanged(sch,
                       [&] {
                         return sch.PadEinsum(c, {3, 1, 1});
                       },
                       {"must be spatial or reduce over [0, n), bound to its own loop"});
}

TEST(SchedulePadEinsum, RuleIndicesAreIterVars) {
  Schedule sch = MustSchedule(R"(
func @shift(A: f32[9], B: f32[8]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi + 1])
      writes(B[vi])
      B[vi] = A[vi + 1]
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(b, {16}); },
                       {"the index vi + 1 of buffer A is not an iter var"});
}

TEST(SchedulePadEinsum, RuleSumOfProductsWhenAReductionIsPadded) {
  Schedule sch = MustSchedule(R"(
func @rowmax(A: f32[4, 7], M: f32[4]) {
  for i in range(0, 4) {
    for k in range(0, 7) {
      block M(vi: spatial[0, 4] = i, vk: reduce[0, 7] = k) {
        reads(A[vi, vk])
        writes(M[vi])
        init {
          M[vi] = -1000.0f32
        }
        M[vi] = max(M[vi], A[vi, vk])
      }
    }
  }
})");
  BlockRV m = Must(sch.GetBlock("M"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(m, {1, 8}); },
                       {"pads a reduction but is not `O[...] = O[...] + product of input loads`"});
  // Padding only the spatial var is fine: the padded rows are cropped.
  PrimFunc original = sch.func();
  Must(sch.PadEinsum(m, {8, 1}));
  ExpectSameResults(original, sch);
}

TEST(SchedulePadEinsum, RuleOutputReadNeedsInit) {
  Schedule sch = MustSchedule(R"(
func @acc(A: f32[6], B: f32[6]) {
  for i in range(0, 6) {
    block B(vi: spatial[0, 6] = i) {
      reads(A[vi], B[vi])
      writes(B[vi])
      B[vi] = B[vi] + A[vi]
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(b, {4}); },
                       {"reads its output B without an init"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
