// blockize, tensorize and the tensor intrinsic registry: one negative test for
// each rule that schedule_{blockize,tensorize}_test.cc do not reach. Each
// shows the message and that the failed call left the module and the trace
// (or the registry) as they were.
#include "absl/strings/str_replace.h"
#include "ir/schedule/tensor_intrin.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// One block B over loops `loops` (each "name extent"), bound by `iters`.
std::string OneBlock(const std::vector<std::pair<std::string, int>>& loops,
                     const std::string& iters, const std::string& body,
                     const std::string& params = "A: f32[64], B: f32[64]") {
  std::string open, close;
  for (const auto& [name, extent] : loops) {
    absl::StrAppend(&open, "for ", name, " in range(0, ", extent, ") {\n");
    close += "}\n";
  }
  return absl::StrCat("func @f(", params, ") {\n", open, "block B(", iters, ") {\n", body, "\n}\n",
                      close, "}");
}

// A scale that overflows int32 leaves no linear form to divide.
TEST(ScheduleRulesBlockize, BindingIsNotAffine) {
  Schedule sch = MustSchedule(OneBlock({{"i", 8}}, "vi: spatial[0, 8] = i * 65536 * 65536",
                                       "reads(A[vi])\nwrites(B[vi])\nB[vi] = A[vi]"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i)); },
                       {"sch.blockize(loop=",
                        "cannot be divided into an outer and an inner part at loop i: it is not an "
                        "affine expression of the loops",
                        ">>"});
}

TEST(ScheduleRulesBlockize, InnerLoopRunsBackwards) {
  Schedule sch = MustSchedule(OneBlock({{"i", 8}}, "vi: spatial[0, 8] = 7 - i",
                                       "reads(A[vi])\nwrites(B[vi])\nB[vi] = A[vi]"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i)); },
                       {"inner loop i has scale -1; the inner part must grow with its loops", ">>"});
}

TEST(ScheduleRulesBlockize, OuterTermNotAMultipleOfTheInnerExtent) {
  Schedule sch = MustSchedule(OneBlock({{"i_0", 2}, {"i_1", 4}}, "vi: spatial[0, 8] = i_0 * 3 + i_1",
                                       "reads(A[vi])\nwrites(B[vi])\nB[vi] = A[vi]"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i1)); },
                       {"has scale 3, not a multiple of the inner extent 4", ">>"});
}

TEST(ScheduleRulesBlockize, OffsetNotAMultipleOfTheInnerExtent) {
  Schedule sch = MustSchedule(OneBlock({{"i_0", 2}, {"i_1", 4}},
                                       "vi: spatial[0, 9] = i_0 * 4 + i_1 + 1",
                                       "reads(A[vi])\nwrites(B[vi])\nB[vi] = A[vi]"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i1)); },
                       {"its offset 1 is not a multiple of the inner extent 4", ">>"});
}

TEST(ScheduleRulesBlockize, InnerLoopWithASymbolicExtent) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8, 64], B: f32[8, 64], n: i32) {
  for i in range(0, 8) {
    for j in range(0, n) {
      block B(vi: spatial[0, 8] = i, vj: spatial[0, 64] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj]
      }
    }
  }
})");
  LoopRV j = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(j)); },
                       {"inner loop j has no constant positive extent", ">>"});
}

// A reduction whose tail predicate (6 = 2 * 4 - 2) uses the inner reduce loop:
// the init, moved to the outer block, could not keep it.
TEST(ScheduleRulesBlockize, PredicateOverAnInnerReduceLoopWhenTheInitMoves) {
  Schedule sch = MustSchedule(OneBlock(
      {{"i", 4}, {"k", 6}}, "vi: spatial[0, 4] = i, vk: reduce[0, 6] = k",
      "reads(A[vi * 6 + vk])\nwrites(B[vi])\ninit {\nB[vi] = 0.0f32\n}\nB[vi] = B[vi] + A[vi * 6 + vk]"));
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> k = Must(sch.Split(Must(sch.GetLoops(b))[1], {std::nullopt, 4}));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(k[1])); },
                       {"of block B uses an inner reduction loop, so the init cannot move to the "
                        "outer block",
                        ">>"});
}

TEST(ScheduleRulesBlockize, InitUsesAReduceIterVar) {
  Schedule sch = MustSchedule(OneBlock(
      {{"i", 4}, {"k", 6}}, "vi: spatial[0, 4] = i, vk: reduce[0, 6] = k",
      "reads(A[vi * 6 + vk])\nwrites(B[vi])\ninit {\nB[vi] = A[vi * 6 + vk]\n}\n"
      "B[vi] = B[vi] + A[vi * 6 + vk]"));
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> k = Must(sch.Split(Must(sch.GetLoops(b))[1], {2, 3}));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(k[1])); },
                       {"the init of block B uses a reduce iter var, so it cannot move to the outer "
                        "block",
                        ">>"});
}

// The 8x32x5 matmul with C's update replaced, tiled for the 4x16 FMA kernel
// and blockized at i_1: returns the outer block.
BlockRV TiledOuter(Schedule& sch) {
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {std::nullopt, 4}));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 16}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  return Must(sch.Blockize(i[1]));
}

std::string Matmul(const std::vector<std::pair<std::string, std::string>>& edits) {
  return absl::StrReplaceAll(MatmulText(8, 32, 5), edits);
}

TEST(ScheduleRulesTensorize, DifferentNumberOfAccesses) {
  Schedule sch = MustSchedule(Matmul({{"reads(A[vi, vk], B[vk, vj])", "reads(A[vi, vk])"},
                                      {"A[vi, vk] * B[vk, vj]", "A[vi, vk]"}}));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "f32_fma_4x16"); },
                       {"sch.tensorize(block_or_loop=",
                        "block C_o does not match intrinsic 'f32_fma_4x16': it makes 3 buffer "
                        "accesses, the description 4",
                        ">>"});
}

TEST(ScheduleRulesTensorize, OneParameterForTwoBuffers) {
  Schedule sch = MustSchedule(Matmul(
      {{"C: f32[8, 32])", "C: f32[8, 32], E: f32[8, 32])"},
       {"reads(A[vi, vk], B[vk, vj])", "reads(E[vi, vj], A[vi, vk], B[vk, vj])"},
       {"C[vi, vj] = C[vi, vj] + A", "C[vi, vj] = E[vi, vj] + A"},
       {"init {\n            C[vi, vj] = 0.0f32\n          }\n", ""}}));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "f32_fma_4x16"); },
                       {"does not match intrinsic 'f32_fma_4x16': the description's parameter 2 "
                        "would stand for both",
                        ">>"});
}

TEST(ScheduleRulesTensorize, OneBufferForTwoParameters) {
  Schedule sch = MustSchedule(absl::StrReplaceAll(
      MatmulText(32, 32, 32),
      {{"B: f32[32, 32], ", ""}, {"reads(A[vi, vk], B[vk, vj])", "reads(A[vi, vk])"},
       {"A[vi, vk] * B[vk, vj]", "A[vi, vk] * A[vi, vk]"}}));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "f32_fma_4x16"); },
                       {"buffer A would stand for two description parameters", ">>"});
}

TEST(ScheduleRulesTensorize, InnerBlockAllocates) {
  Schedule sch = MustSchedule(Matmul(
      {{"reads(A[vi, vk], B[vk, vj])", "alloc_buffer S: f32[1]\n reads(A[vi, vk], B[vk, vj])"}}));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "f32_fma_4x16"); },
                       {"block C_o does not match intrinsic 'f32_fma_4x16': block C allocates", ">>"});
}

// A[vi, vk] and A[vk, vj] share one region in the outer block, whose extent
// depends on where the tile is.
TEST(ScheduleRulesTensorize, RegionWithANonConstantExtent) {
  Schedule sch = MustSchedule(absl::StrReplaceAll(
      MatmulText(32, 32, 32),
      {{"B: f32[32, 32], ", ""}, {"reads(A[vi, vk], B[vk, vj])", "reads(A[vi, vk], A[vk, vj])"},
       {"A[vi, vk] * B[vk, vj]", "A[vi, vk] * A[vk, vj]"}}));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "f32_fma_4x16"); },
                       {"block C_o does not match intrinsic 'f32_fma_4x16': the region of A has the "
                        "non-constant extent",
                        ">>"});
}

TEST(ScheduleRulesTensorize, DescriptionParameterNeverAccessed) {
  // The 4x16 FMA with a fourth parameter that neither function touches.
  Must(RegisterTensorIntrinText("rules_fma_unused_param", R"(
func @desc(A: f32[4, 1], B: f32[1, 16], C: f32[4, 16], D: f32[1]) {
  for i in range(0, 4) {
    for j in range(0, 16) {
      block update(vi: spatial[0, 4] = i, vj: spatial[0, 16] = j) {
        reads(C[vi, vj], A[vi, 0], B[0, vj])
        writes(C[vi, vj])
        C[vi, vj] = C[vi, vj] + A[vi, 0] * B[0, vj]
      }
    }
  }
}
func @impl(A: f32[4, 1], B: f32[1, 16], C: f32[4, 16], D: f32[1]) {
  for i in range(0, 4) {
    for j in range(0, 16) {
      C[i, j] = C[i, j] + A[i, 0] * B[0, j]
    }
  }
}
)",
                                /*replace=*/true));
  Schedule sch = MustSchedule(MatmulText(8, 32, 5));
  BlockRV outer = TiledOuter(sch);
  ExpectFailsUnchanged(sch, [&] { return sch.Tensorize(outer, "rules_fma_unused_param"); },
                       {"the description's parameter 3 is never accessed", ">>"});
}

// The registry refuses a bad pair and stays as it was: the name is still free.
void ExpectRefused(const std::string& name, const std::string& text, const std::string& why) {
  absl::Status s = RegisterTensorIntrinText(name, text);
  EXPECT_FALSE(s.ok()) << name;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(why));
  EXPECT_EQ(GetTensorIntrin(name).status().code(), absl::StatusCode::kNotFound) << name;
}

constexpr const char* kDesc = R"(
func @desc(A: f32[4], C: f32[4]) {
  for i in range(0, 4) {
    block u(vi: spatial[0, 4] = i) {
      reads(A[vi])
      writes(C[vi])
      C[vi] = A[vi]
    }
  }
})";
constexpr const char* kImpl = R"(
func @impl(A: f32[4], C: f32[4]) {
  for i in range(0, 4) {
    C[i] = A[i]
  }
})";

TEST(ScheduleRulesTensorIntrin, RegistryRules) {
  ExpectRefused("", absl::StrCat(kDesc, kImpl), "tensor intrinsic: the name is empty");
  ExpectRefused("rules_param_count", absl::StrCat(kDesc, R"(
func @impl(A: f32[4]) {
  A[0] = 0.0f32
})"),
                "tensor intrinsic 'rules_param_count': the description has 2 parameters, the "
                "implementation 1");
  ExpectRefused("rules_desc_init", absl::StrCat(R"(
func @desc(A: f32[4], C: f32[1]) {
  for k in range(0, 4) {
    block u(vk: reduce[0, 4] = k) {
      reads(A[vk])
      writes(C[0])
      init {
        C[0] = 0.0f32
      }
      C[0] = C[0] + A[vk]
    }
  }
}
func @impl(A: f32[4], C: f32[1]) {
  C[0] = A[0] + A[1] + A[2] + A[3]
})"),
                "the description's block must have no init, allocations or predicate");
  ExpectRefused("rules_impl_block", absl::StrCat(kDesc, R"(
func @impl(A: f32[4], C: f32[4]) {
  for i in range(0, 4) {
    block v(vi: spatial[0, 4] = i) {
      reads(A[vi])
      writes(C[vi])
      C[vi] = A[vi]
    }
  }
})"),
                "the implementation holds a block");
  ExpectRefused("rules_scalar_param", R"(
func @desc(A: f32[4], C: f32[4], n: i32) {
  for i in range(0, 4) {
    block u(vi: spatial[0, 4] = i) {
      reads(A[vi])
      writes(C[vi])
      C[vi] = A[vi]
    }
  }
}
func @impl(A: f32[4], C: f32[4], n: i32) {
  for i in range(0, 4) {
    C[i] = A[i]
  }
})",
                "tensor intrinsic 'rules_scalar_param': parameters must all be buffers");
  ExpectRefused("rules_symbolic_shape", R"(
func @desc[n: i32](A: f32[n], C: f32[n]) {
  for i in range(0, n) {
    block u(vi: spatial[0, n] = i) {
      reads(A[vi])
      writes(C[vi])
      C[vi] = A[vi]
    }
  }
}
func @impl[n: i32](A: f32[n], C: f32[n]) {
  for i in range(0, n) {
    C[i] = A[i]
  }
})",
                "tensor intrinsic 'rules_symbolic_shape': parameter 0 has a symbolic shape");
  // A name taken keeps its pair.
  TensorIntrin before = Must(GetTensorIntrin("f32_fma_4x16"));
  absl::Status again = RegisterTensorIntrinText("f32_fma_4x16", absl::StrCat(kDesc, kImpl));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.message()),
              ::testing::HasSubstr("tensor intrinsic 'f32_fma_4x16' is registered already"));
  EXPECT_TRUE(Must(GetTensorIntrin("f32_fma_4x16")).desc.same_as(before.desc));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
