// cache_write: before/after IR, the interpreter on random inputs (matmul, a
// matmul with a consumer, odd sizes under a tail split), the trace, and one
// negative test per rule (the message, and the schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kMatmul = MatmulText(16, 16, 16);

// Block T computing A * 2 over 8x8 into `out` (T, or the cache that replaces it).
std::string ProduceT(const std::string& out) {
  return StageText("T", {8, 8}, "A[vi, vj]", out + "[vi, vj]",
                   out + "[vi, vj] = A[vi, vj] * 2.0f32");
}

// The block `cache` copying an n x n cache back into `to` over loops ax0, ax1.
std::string CopyBack(const std::string& cache, const std::string& to, int64_t n) {
  return StageText(cache, {n, n}, cache + "[v0, v1]", to + "[v0, v1]",
                   to + "[v0, v1] = " + cache + "[v0, v1]",
                   {.loop_vars = {"ax0", "ax1"}, .iter_vars = {"v0", "v1"}});
}

// Block D reading T over 8x8.
const std::string kConsumeT = StageText(
    "D", {8, 8}, "T[vi_1, vj_1]", "D[vi_1, vj_1]", "D[vi_1, vj_1] = max(T[vi_1, vj_1], 0.0f32)",
    {.loop_vars = {"i_1", "j_1"}, .iter_vars = {"vi_1", "vj_1"}});

TEST(ScheduleCacheWrite, MatmulAccumulatesInALocalBuffer) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  BlockRV local = Must(sch.CacheWrite(c, 0, "local"));
  // kMatmul accumulating into C_local, then the copy back into C.
  const std::string accumulate = BlockNestText(
      {.loops = {"i in range(0, 16)", "j in range(0, 16)", "k in range(0, 16)"},
       .block = "C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k)",
       .reads = "A[vi, vk], B[vk, vj]",
       .writes = "C_local[vi, vj]",
       .init = "C_local[vi, vj] = 0.0f32",
       .body = "C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]"});
  ExpectFunc(sch, RootFuncText("mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16])",
                               {"C_local: f32[16, 16] scope \"local\""},
                               {accumulate, CopyBack("C_local", "C", 16)}));
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(local))->name, "C_local");
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr(
                  "b1 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope=\"local\")"));
}

// An intermediate with a consumer: the copy goes between producer and consumer,
// and the root block that already exists allocates the cache.
TEST(ScheduleCacheWrite, IntermediateBeforeItsConsumer) {
  Schedule sch = MustSchedule(
      RootFuncText("f(A: f32[8, 8], D: f32[8, 8])", {"T: f32[8, 8]"}, {ProduceT("T"), kConsumeT}));
  PrimFunc original = sch.func();
  Must(sch.CacheWrite(Must(sch.GetBlock("T")), 0, "shared"));
  ExpectFunc(sch, RootFuncText("f(A: f32[8, 8], D: f32[8, 8])",
                               {"T: f32[8, 8]", "T_shared: f32[8, 8] scope \"shared\""},
                               {ProduceT("T_shared"), CopyBack("T_shared", "T", 8), kConsumeT}));
  ExpectSameResults(original, sch);
}

// Loop i holding block T (A + 1 into `out`, T or its cache), then `copy`, then
// block D reading T.
std::string SameLoop(const std::string& out, const std::string& copy) {
  return LoopText("i in range(0, 8)",
                  {BlockNestText({.loops = {"j in range(0, 8)"},
                                  .block = "T(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j)",
                                  .reads = "A[vi, vj]",
                                  .writes = out + "[vi, vj]",
                                  .body = out + "[vi, vj] = A[vi, vj] + 1.0f32"}),
                   copy,
                   BlockNestText({.loops = {"j_1 in range(0, 8)"},
                                  .block = "D(vi_1: spatial[0, 8] = i, vj_1: spatial[0, 8] = j_1)",
                                  .reads = "T[vi_1, vj_1]",
                                  .writes = "D[vi_1, vj_1]",
                                  .body = "D[vi_1, vj_1] = T[vi_1, vj_1] * 3.0f32"})});
}

// A consumer in the same loop: the copy goes inside that loop, after the
// producer's statement, and copies only what one iteration wrote.
TEST(ScheduleCacheWrite, ConsumerInTheSameLoopGetsTheCopyInside) {
  Schedule sch = MustSchedule(
      RootFuncText("f(A: f32[8, 8], D: f32[8, 8])", {"T: f32[8, 8]"}, {SameLoop("T", "")}));
  PrimFunc original = sch.func();
  Must(sch.CacheWrite(Must(sch.GetBlock("T")), 0, "local"));
  const std::string copy =
      BlockNestText({.loops = {"ax0 in range(0, 1)", "ax1 in range(0, 8)"},
                     .block = "T_local(v0: spatial[0, 8] = i + ax0, v1: spatial[0, 8] = ax1)",
                     .reads = "T_local[v0, v1]",
                     .writes = "T[v0, v1]",
                     .body = "T[v0, v1] = T_local[v0, v1]"});
  ExpectFunc(sch, RootFuncText("f(A: f32[8, 8], D: f32[8, 8])",
                               {"T: f32[8, 8]", "T_local: f32[8, 8] scope \"local\""},
                               {SameLoop("T_local", copy)}));
  ExpectSameResults(original, sch);
}

// Odd sizes under a tail split: the block's predicate trims what it writes,
// the copy covers the same box.
TEST(ScheduleCacheWrite, OddSizesUnderATailSplit) {
  Schedule sch = MustSchedule(MatmulText(17, 31, 23));
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.Split(l[0], {std::nullopt, 4}));
  Must(sch.Split(l[1], {std::nullopt, 8}));
  Must(sch.CacheWrite(c, 0, "local"));
  ExpectSameResults(original, sch);
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
}

TEST(ScheduleCacheWrite, ThenDecomposeReduction) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.CacheWrite(c, 0, "local"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  BlockRV init = Must(sch.DecomposeReduction(c, l[2]));
  EXPECT_EQ(Must(sch.Get(init))->name, "C_init");
  ExpectSameResults(original, sch);
}

TEST(ScheduleCacheWrite, IndexOutOfRange) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(c, 1, "local")); },
                       {"sch.cache_write(block=b0, write_buffer_index=1, storage_scope=\"local\")",
                        "write buffer index 1 is out of range: block C writes 1 buffer (C)", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(c, -1, "local")); },
                       {"write buffer index -1 is out of range"});
}

TEST(ScheduleCacheWrite, UnknownScope) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.CacheWrite(c, 0, "texture")); },
      {"unknown storage scope 'texture'; the scopes are global, local, shared", ">>"});
}

TEST(ScheduleCacheWrite, OnlyWriterOfTheBuffer) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.DecomposeReduction(c, Must(sch.GetLoops(c))[0]));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(c, 0, "local")); },
                       {"cache_write needs the only writer of buffer C in its scope; block C_init "
                        "writes it too",
                        ">>"});
}

TEST(ScheduleCacheWrite, InPlaceUpdateWithoutInit) {
  Schedule sch = MustSchedule(InPlaceText("f(A: f32[8])", {"i in range(0, 8)"},
                                          "B(vi: spatial[0, 8] = i)", "vi", "* 2.0f32"));
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(b, 0, "local")); },
                       {"block B reads buffer A, which it writes, without an init", ">>"});
}

TEST(ScheduleCacheWrite, WrittenRegionMustBeABox) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], B: f32[16]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(B[vi * 2])
      B[vi * 2] = A[vi]
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(b, 0, "local")); },
                       {"the region of B that block B writes below the function body is not "
                        "exactly a box",
                        ">>"});
}

TEST(ScheduleCacheWrite, NoPlaceBetweenWriterAndReader) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], D: f32[8]) {
  block root() {
    alloc_buffer T: f32[8]
    for i in range(0, 8) {
      if i >= 0 {
        block T(vi: spatial[0, 8] = i) {
          reads(A[vi])
          writes(T[vi])
          T[vi] = A[vi] + 1.0f32
        }
        block D(vi_1: spatial[0, 8] = i) {
          reads(T[vi_1])
          writes(D[vi_1])
          D[vi_1] = T[vi_1]
        }
      }
    }
  }
})");
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(t, 0, "local")); },
                       {"block D reads buffer T under the same statement of block root as block "
                        "T: there is no place for the copy between them",
                        ">>"});
}

TEST(ScheduleCacheWrite, ReplaysFromJson) {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.CacheWrite(c, 0, "local"));
  Schedule replay = MustSchedule(kMatmul);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
