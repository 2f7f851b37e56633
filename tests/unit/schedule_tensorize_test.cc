// tensorize and the intrinsic registry: a te matmul tensorized to the
// built-in 16-lane FMA micro-kernel computes what it computed (interpreter on
// random inputs), an intrinsic registered from text is matched up to loop
// names and offsets, and one negative test per rule (message, unchanged).
#include "ir/schedule/tensor_intrin.h"
#include "tests/unit/schedule_te_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// i_0, j_0, k, i_1 [rows], j_1 [16]: the tile the FMA kernels cover.
std::vector<LoopRV> TileForFma(Schedule& sch, int64_t rows) {
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {std::nullopt, rows}));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 16}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  return {i[0], j[0], l[2], i[1], j[1]};
}

TEST(ScheduleTensorize, MatmulToTheFmaMicroKernel) {
  Schedule sch = TeMatmulSchedule(8, 32, 7);
  PrimFunc original = sch.func();
  std::vector<LoopRV> t = TileForFma(sch, 4);
  BlockRV outer = Must(sch.Blockize(t[3]));
  Must(sch.Tensorize(outer, "f32_fma_4x16"));
  std::string text = PrintFunction(sch.func(), "mm");
  EXPECT_THAT(text, ::testing::HasSubstr("tensorized = \"f32_fma_4x16\""));
  EXPECT_THAT(text, ::testing::HasSubstr("fma(broadcast(A["));
  EXPECT_THAT(text, ::testing::HasSubstr("ramp(vj_o * 16, 1, 16)"));
  EXPECT_TRUE(VerifyFunction(sch.func(), "mm").ok()) << text;
  ExpectSameResults(original, sch);
  EXPECT_EQ(sch.trace().instructions().back().ToPython(),
            "sch.tensorize(block_or_loop=b8, intrin_name=\"f32_fma_4x16\")");
  // The trace replays from JSON onto a fresh schedule.
  Trace tr = Must(Trace::FromJson(Must(sch.trace().ToJson())));
  Schedule again = TeMatmulSchedule(8, 32, 7);
  Must(tr.ApplyToSchedule(&again));
  EXPECT_TRUE(StructuralEqual(again.func(), sch.func()));
}

TEST(ScheduleTensorize, GivenALoopBlockizesFirst) {
  Schedule sch = TeMatmulSchedule(3, 48, 5);
  PrimFunc original = sch.func();
  std::vector<LoopRV> t = TileForFma(sch, 1);
  Must(sch.Tensorize(t[3], "f32_fma_1x16"));
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(Must(sch.GetBlock("C_o"))))->annotations.count("tensorized"), 1u);
}

// A producer is not inlined into a tensorized block: its body is the
// intrinsic's vector code, which inlining would rewrite.
TEST(ScheduleTensorize, NoInliningIntoATensorizedBlock) {
  Schedule sch = TeMatmulSchedule(8, 32, 7);
  PrimFunc original = sch.func();
  BlockRV copy = Must(sch.CacheRead(Must(sch.GetBlock("C")), 1, "global"));
  std::vector<LoopRV> t = TileForFma(sch, 4);
  Must(sch.Tensorize(t[3], "f32_fma_4x16"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.ComputeInline(copy)); },
                       {"compute_inline: block B_global is read by block C_o, which is "
                        "tensorized: its body is an intrinsic's implementation, which inlining "
                        "would rewrite"});
  ExpectSameResults(original, sch);
}

constexpr const char* kDot4 = R"(
func @dot4_desc(A: f32[4], B: f32[4], C: f32[1]) {
  for k in range(0, 4) {
    block update(vk: reduce[0, 4] = k) {
      reads(C[0], A[vk], B[vk])
      writes(C[0])
      C[0] = C[0] + A[vk] * B[vk]
    }
  }
}

func @dot4_impl(A: f32[4], B: f32[4], C: f32[1]) {
  C[0] = C[0] + A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3]
}
)";

TEST(ScheduleTensorize, RegisteredFromTextMatchesUpToOffsets) {
  Must(RegisterTensorIntrinText("test_dot4", kDot4, /*replace=*/true));
  EXPECT_THAT(TensorIntrinNames(), ::testing::Contains("test_dot4"));
  Schedule sch = MustSchedule(R"(
func @dot(A: f32[12], B: f32[12], C: f32[1]) {
  for k in range(0, 12) {
    block C(vk: reduce[0, 12] = k) {
      reads(A[vk], B[vk])
      writes(C[0])
      init {
        C[0] = 0.0f32
      }
      C[0] = C[0] + A[vk] * B[vk]
    }
  }
})");
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  std::vector<LoopRV> k = Must(sch.Split(l[0], {std::nullopt, 4}));
  // The tile reads A[vk_o * 4 +: 4]: matched to the description's A[0 +: 4].
  Must(sch.Tensorize(k[1], "test_dot4"));
  std::string text = PrintFunction(sch.func(), "dot");
  EXPECT_THAT(text, ::testing::HasSubstr("A[vk_o * 4 + 3] * B[vk_o * 4 + 3]"));
  ExpectSameResults(original, sch);
}

TEST(ScheduleTensorize, RuleKnownIntrinsic) {
  Schedule sch = TeMatmulSchedule(4, 16, 3);
  std::vector<LoopRV> t = TileForFma(sch, 4);
  BlockRV outer = Must(sch.Blockize(t[3]));
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "no_such"); },
                       {"no tensor intrinsic named 'no_such'; registered: ", "f32_fma_4x16"});
}

TEST(ScheduleTensorize, RuleALoopNestAroundOneBlock) {
  Schedule sch = TeMatmulSchedule(4, 16, 3);
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(c, "f32_fma_4x16"); },
                       {"block C does not match intrinsic 'f32_fma_4x16'",
                        "not a loop nest around one block"});
}

TEST(ScheduleTensorize, RuleNoInitBelow) {
  // k inside the tile: the inner block keeps its init.
  Schedule sch = TeMatmulSchedule(4, 16, 3);
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(l[0], "f32_fma_4x16"); },
                       {"below still has an init"});
}

TEST(ScheduleTensorize, RuleNoPredicateBelow) {
  Schedule sch = TeMatmulSchedule(6, 16, 3);  // 6 rows by 4: a predicate.
  std::vector<LoopRV> t = TileForFma(sch, 4);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(t[3], "f32_fma_4x16"); },
                       {"has the predicate", "pad the computation with pad_einsum"});
}

TEST(ScheduleTensorize, RuleSameComputation) {
  Schedule sch = TeMatmulSchedule(8, 16, 3);
  std::vector<LoopRV> t = TileForFma(sch, 4);
  // A 4 x 16 tile against the 1 x 16 kernel: the loop extents differ.
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(t[3], "f32_fma_1x16"); },
                       {"the computation differs", "mismatch at"});
}

TEST(TensorIntrinRegistry, ChecksThePair) {
  auto message = [](const std::string& text) {
    absl::Status s = RegisterTensorIntrinText("bad", text);
    EXPECT_FALSE(s.ok());
    return std::string(s.message());
  };
  EXPECT_THAT(message("func @d(A: f32[4]) { for i in range(0, 4) { A[i] = 0.0f32 } }"),
              ::testing::HasSubstr("two functions"));
  EXPECT_THAT(message(R"(
func @d(A: f32[4]) { for i in range(0, 4) { A[i] = 0.0f32 } }
func @i(A: f32[4]) { for i in range(0, 4) { A[i] = 0.0f32 } }
)"),
              ::testing::HasSubstr("chain of loops ending in one block"));
  EXPECT_THAT(message(R"(
func @d(A: f32[4]) {
  for i in range(0, 4) {
    block u(vi: spatial[0, 4] = i) {
      reads()
      writes(A[vi])
      A[vi] = 0.0f32
    }
  }
}
func @i(A: f32[8]) { for i in range(0, 8) { A[i] = 0.0f32 } }
)"),
              ::testing::HasSubstr("parameter 0 is f32[4] in the description but f32[8]"));
  absl::Status again = RegisterTensorIntrinText("f32_fma_4x16", kDot4);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
