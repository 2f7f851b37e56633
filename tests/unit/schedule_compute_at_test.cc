// compute_at and reverse_compute_at: before/after IR, the interpreter on
// random inputs for op-library functions (matmul+bias+relu tiled with tiles
// that do not divide 17x31x23, a padded conv2d, softmax, layernorm), traces
// that replay from JSON, and one negative test per rule (the message, and the
// schedule left unchanged).
#include "absl/strings/str_replace.h"
#include "ir/arith/expr_util.h"
#include "tests/unit/schedule_compute_te.h"

namespace tessel::ir::schedule::testing {
namespace {

// B feeds C over 17 elements; tiles of 8 do not divide it.
const std::string kOdd = ChainText(17);

using Fixture = ComputeFixture;

// kOdd after tiling one loop by 8 and moving the other block under the tile:
// both blocks under i_0, each over its own inner loop, with the tail guard.
std::string TiledOdd(const std::string& b_inner, const std::string& c_inner) {
  return absl::StrReplaceAll(R"(
func @f(A: f32[17], C: f32[17]) {
  block root() {
    alloc_buffer B: f32[17]
    for i_0 in range(0, 3) {
      for B_INNER in range(0, 8) {
        block B(vi: spatial[0, 17] = i_0 * 8 + B_INNER) where i_0 * 8 + B_INNER < 17 {
          reads(A[vi])
          writes(B[vi])
          B[vi] = A[vi] * 2.0f32
        }
      }
      for C_INNER in range(0, 8) {
        block C(vi: spatial[0, 17] = i_0 * 8 + C_INNER) where i_0 * 8 + C_INNER < 17 {
          reads(B[vi])
          writes(C[vi])
          C[vi] = B[vi] + 1.0f32
        }
      }
    }
  }
})",
                             {{"B_INNER", b_inner}, {"C_INNER", c_inner}});
}

TEST(ScheduleComputeAt, TailOfANonDividingTileIsGuarded) {
  Fixture t(kOdd);
  std::vector<LoopRV> c = Must(t.sch.Split(t.Loops("C")[0], {std::nullopt, 8}));
  Must(t.sch.ComputeAt(t.Block("B"), c[0]));
  ExpectFunc(t.sch, TiledOdd("ax0", "i_1"));
  ExpectSameResults(t.original, t.sch);
  EXPECT_THAT(t.sch.trace().AsPython(),
              ::testing::HasSubstr("sch.compute_at(block=b4, loop=l2, preserve_unit_loops=False)"));
}

// rfactor of k_0 (5 split by 3) gives B_rf the predicate k_0 * 3 + k_1 < 5,
// which excludes the point (1, 2) of its box domain; moved under i, the block
// keeps it over its new bindings (else it would load A[vi, 5]).
TEST(ScheduleComputeAt, KeepsAPredicateItsDomainDoesNotImply) {
  Fixture t(R"(
func @f(A: f32[3, 5], B: f32[3]) {
  for i in range(0, 3) {
    for k in range(0, 5) {
      block B(vi: spatial[0, 3] = i, vk: reduce[0, 5] = k) {
        reads(A[vi, vk])
        writes(B[vi])
        init {
          B[vi] = 0.0f32
        }
        B[vi] = B[vi] + A[vi, vk]
      }
    }
  }
})");
  std::vector<LoopRV> k = Must(t.sch.Split(t.Loops("B")[1], {std::nullopt, 3}));
  BlockRV rf = Must(t.sch.RFactor(k[0], 0));
  std::vector<BlockRV> consumers = Must(t.sch.GetConsumers(rf));
  ASSERT_EQ(consumers.size(), 1u);
  Must(t.sch.ComputeAt(rf, Must(t.sch.GetLoops(consumers[0]))[0]));
  ExpectSameResults(t.original, t.sch);
  EXPECT_THAT(PrintFunction(t.sch.func(), "f"), ::testing::HasSubstr("* 3 + ax1 < 5"));
}

TEST(ScheduleComputeAt, InnermostLoopDropsUnitLoopsUnlessPreserved) {
  for (bool preserve : {false, true}) {
    Fixture t(kOdd);
    Must(t.sch.ComputeAt(t.Block("B"), t.Loops("C")[0], preserve));
    ExpectSameResults(t.original, t.sch);
    std::vector<LoopRV> b = t.Loops("B");
    EXPECT_EQ(b.size(), preserve ? 2u : 1u) << PrintFunction(t.sch.func(), "f");
  }
}

TEST(ScheduleReverseComputeAt, ConsumerFollowsTheProducerTile) {
  Fixture t(kOdd);
  std::vector<LoopRV> b = Must(t.sch.Split(t.Loops("B")[0], {std::nullopt, 8}));
  Must(t.sch.ReverseComputeAt(t.Block("C"), b[0]));
  ExpectFunc(t.sch, TiledOdd("i_1", "ax0"));
  ExpectSameResults(t.original, t.sch);
}

// The epilogue (bias, relu) of a 17x31x23 matmul follows an 8x8 output tile.
TEST(ScheduleReverseComputeAt, MatmulBiasReluEpilogueUnderATile) {
  Fixture t(MatmulBiasRelu(17, 31, 23));
  std::vector<LoopRV> l = t.Loops("T_matmul");
  std::vector<LoopRV> tile = Must(t.sch.Tile({l[0], l[1]}, {{std::nullopt, 8}, {std::nullopt, 8}}));
  Must(t.sch.ReverseComputeAt(t.Block("T_add"), tile[1]));
  Must(t.sch.ReverseComputeAt(t.Block("T_relu"), tile[1]));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.GetChildBlocks(tile[1])).size(), 3u);
  EXPECT_EQ(t.Loops("T_relu").size(), 4u);  // i_0, j_0, ax0, ax1
}

// The other way round: the relu is tiled, and bias and matmul move under it.
TEST(ScheduleComputeAt, MatmulBiasReluProducersUnderTheEpilogueTile) {
  Fixture t(MatmulBiasRelu(17, 31, 23));
  std::vector<LoopRV> l = t.Loops("T_relu");
  std::vector<LoopRV> tile = Must(t.sch.Tile({l[0], l[1]}, {{std::nullopt, 8}, {std::nullopt, 8}}));
  Must(t.sch.ComputeAt(t.Block("T_add"), tile[1]));
  Must(t.sch.ComputeAt(t.Block("T_matmul"), tile[1]));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(t.Loops("T_matmul").size(), 5u);  // i_0, j_0, ax0, ax1, ax2 (k)
  // Replayed from JSON onto a fresh schedule, the trace gives the same function.
  Trace replayed = Must(Trace::FromJson(Must(t.sch.trace().ToJson())));
  Schedule fresh = TeSchedule(MatmulBiasRelu(17, 31, 23));
  Must(replayed.ApplyToSchedule(&fresh));
  EXPECT_TRUE(AssertStructuralEqual(fresh.func(), t.sch.func()).ok());
}

TEST(ScheduleComputeAt, PaddedConv2DPadPerOutputRow) {
  Fixture t(PaddedConv2D(3, 7, 4));
  std::vector<LoopRV> l = t.Loops("conv2d");  // n, oc, oh, ow, rc, ry, rx
  Must(t.sch.ComputeAt(t.Block("conv2d_pad"), l[2]));
  ExpectSameResults(t.original, t.sch);
  // Three padded rows (oh - 1 .. oh + 1) of every channel per output row.
  Ref<const ForNode> first = Must(t.sch.Get(t.Loops("conv2d_pad")[3]));
  EXPECT_EQ(arith::AsConstInt(first->extent), 3) << PrintFunction(t.sch.func(), "f");
}

TEST(ScheduleComputeAt, SoftmaxExpUnderTheRow) {
  Fixture t(SoftmaxRows(5, 13));
  Must(t.sch.ComputeInline(t.Block("T_softmax_exp")));
  std::vector<LoopRV> rows = t.Loops("T_softmax");
  Must(t.sch.ComputeAt(t.Block("T_softmax_expsum"), rows[0]));
  Must(t.sch.ComputeAt(t.Block("T_softmax_maxelem"), rows[0]));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.GetChildBlocks(rows[0])).size(), 3u);
}

TEST(ScheduleComputeAt, LayerNormStatisticsPerRow) {
  Fixture t(LayerNormRows(6, 19));
  std::vector<std::string> blocks;
  for (BlockRV b : Must(t.sch.GetChildBlocks(t.Block("root")))) {
    blocks.push_back(Must(t.sch.Get(b))->name);
  }
  ASSERT_GE(blocks.size(), 2u);
  // Every block but the last moves under the last one's row loop, last first.
  LoopRV row = t.Loops(blocks.back())[0];
  for (size_t k = blocks.size() - 1; k-- > 0;) Must(t.sch.ComputeAt(t.Block(blocks[k]), row));
  ExpectSameResults(t.original, t.sch);
}

// ---- compute_at's rules ----------------------------------------------------------------

TEST(ScheduleComputeAtRules, AlreadyUnderTheLoop) {
  Fixture t(kOdd);
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("B")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"sch.compute_at(block=b", "compute_at: block B is already under loop i",
                        ">>"});
}

TEST(ScheduleComputeAtRules, EveryConsumerUnderTheLoop) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8], D: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
    for i in range(0, 8) {
      block D(vi: spatial[0, 8] = i) { reads(B[vi]) writes(D[vi]) D[vi] = B[vi] - 1.0f32 }
    }
  }
})");
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"consumer block D of block B is not under loop i"});
}

TEST(ScheduleComputeAtRules, NoWriterOfItsInputsInBetween) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 8) {
      block X(vi: spatial[0, 8] = i) { reads(A[vi]) writes(A[vi]) A[vi] = A[vi] + 1.0f32 }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
  }
})");
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"block X writes a buffer block B reads"});
}

TEST(ScheduleComputeAtRules, OnlyWriterAndNoParameter) {
  Fixture t(R"(
func @f(A: f32[8], B: f32[8], C: f32[8]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
  }
  for i in range(0, 8) {
    block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
  }
})");
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"block B writes B, a parameter of the function"});
}

TEST(ScheduleComputeAtRules, WriteIndexIsAnIterVarPlusAConstant) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[16]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi * 2]) B[vi * 2] = A[vi] }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi * 2]) writes(C[vi]) C[vi] = B[vi * 2] }
    }
  }
})");
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"block B accesses B at vi * 2 in dimension 0",
                        "an index that is an iter var plus a constant"});
}

TEST(ScheduleComputeAtRules, SoleWriter) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 8) {
      block B2(vi: spatial[0, 8] = i) { reads(B[vi]) writes(B[vi]) B[vi] = B[vi] + 2.0f32 }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
  }
})");
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(block, loop); },
                       {"compute_at: block B is not the only writer of B"});
}

TEST(ScheduleComputeAtRules, SameScope) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    block outer() {
      reads(B[0 +: 8])
      writes(C[0 +: 8])
      for i in range(0, 8) {
        block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
      }
    }
  }
})");
  auto b = t.Block("B");
  auto i = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(b, i); },
                       {"compute_at: loop i is not in the scope of block B"});
}

TEST(ScheduleComputeAtRules, BlockCoversItsDomain) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 4) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 4) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
  }
})");
  auto b = t.Block("B");
  auto i = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(b, i); },
                       {"block B does not run every point of its domain once",
                        "iter var vi of block B (bound to i) does not span its domain [0, 8)"});
}

// ---- reverse_compute_at's rules --------------------------------------------------------

TEST(ScheduleReverseComputeAtRules, ProducerMustNotReduceOverTheLoop) {
  Fixture t(MatmulBiasRelu(4, 5, 6));
  LoopRV k = t.Loops("T_matmul")[2];
  BlockRV block = t.Block("T_add");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeAt(block, k); },
                       {"producer block T_matmul binds its reduce iter var",
                        "would read partial results"});
}

TEST(ScheduleReverseComputeAtRules, OnlySpatialConsumers) {
  Fixture t(SoftmaxRows(4, 6));
  LoopRV i = t.Loops("T_softmax_exp")[0];
  BlockRV sum = t.Block("T_softmax_expsum");
  ExpectFailsUnchanged(
      t.sch, [&] { return t.sch.ReverseComputeAt(sum, i); },
      {"block T_softmax_expsum has reduce iter var", "a reduction would be split"});
}

// A predicate term over loops no iter var is bound to alone, which holds on
// every iteration (i_1 * 2 < 7 with i_1 in [0, 4)), has nothing to keep: the
// move is accepted, where it was refused as a term that "cannot be written
// over its iter vars".
TEST(ScheduleComputeAtRules, PredicateTermTheLoopsAlwaysSatisfyIsDropped) {
  Fixture t(R"(
func @f(A: f32[10], C: f32[10]) {
  block root() {
    alloc_buffer T: f32[10]
    for i_0 in range(0, 3) {
      for i_1 in range(0, 4) {
        block B(vi: spatial[0, 10] = i_0 * 4 + i_1) where i_0 * 4 + i_1 < 10 && i_1 * 2 < 7 {
          reads(A[vi]) writes(T[vi]) T[vi] = A[vi] * 2.0f32
        }
      }
    }
    for i in range(0, 10) {
      block C(vi: spatial[0, 10] = i) { reads(T[vi]) writes(C[vi]) C[vi] = T[vi] + 1.0f32 }
    }
  }
})");
  Must(t.sch.ComputeAt(t.Block("B"), t.Loops("C")[0]));
  EXPECT_TRUE(VerifyFunction(t.sch.func(), "f").ok());
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleReverseComputeAtRules, LoopBeforeTheBlockAndHoldingAProducer) {
  Fixture t(kOdd);
  BlockRV block = t.Block("B");
  LoopRV loop = t.Loops("C")[0];
  ExpectFailsUnchanged(t.sch,
                       [&] { return t.sch.ReverseComputeAt(block, loop); },
                       {"loop i comes after block B"});
  // X's loop holds no producer of C.
  Fixture u(R"(
func @f(A: f32[8], C: f32[8], D: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 8) {
      block X(vi: spatial[0, 8] = i) { reads(A[vi]) writes(D[vi]) D[vi] = A[vi] }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
  }
})");
  BlockRV c = u.Block("C");
  LoopRV x = u.Loops("X")[0];
  ExpectFailsUnchanged(u.sch, [&] { return u.sch.ReverseComputeAt(c, x); },
                       {"no producer of block C is under loop i"});
}

TEST(ScheduleReverseComputeAtRules, ProducedRegionIsExact) {
  // Under i, B writes B[i * 4], B[i * 4 + 2]: not a box of elements.
  Fixture t(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 2) {
      for j in range(0, 2) {
        block B(vi: spatial[0, 4] = i * 2 + j) {
          reads(A[vi])
          writes(B[vi * 2])
          B[vi * 2] = A[vi]
        }
      }
    }
    for i in range(0, 4) {
      block C(vi: spatial[0, 4] = i) { reads(B[vi * 2]) writes(C[vi]) C[vi] = B[vi * 2] }
    }
  }
})");
  auto c = t.Block("C");
  auto i = t.Loops("B")[0];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeAt(c, i); },
                       {"the region of B written under loop i is", "not exact"});
}

TEST(ScheduleReverseComputeAtRules, ProducedRegionCoversTheConsumersDomain) {
  // pad_einsum pads T_add's columns 3 -> 4: the copy T_matmul_pad covers
  // columns [0, 4), of which T_matmul writes only [0, 3). Under T_matmul's j
  // the copy would run for columns 0..2 only, and column 3 (the padding) would
  // never be written.
  Fixture t(MatmulBiasRelu(9, 3, 5));
  Must(t.sch.PadEinsum(t.Block("T_add"), {1, 2}));
  BlockRV copy = t.Block("T_matmul_pad");
  std::vector<LoopRV> l = t.Loops("T_matmul");
  LoopRV i = l[0], j = l[1];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeAt(copy, j, true); },
                       {"reverse_compute_at: over all iterations of loop j", "T_matmul[",
                        "does not cover [0, 4) in dimension 1",
                        "the instances beyond would never run"});
  // Nor under i: no iteration writes column 3, whatever the loop.
  ExpectFailsUnchanged(t.sch,
                       [&] { return t.sch.ReverseComputeAt(copy, i); },
                       {"does not cover [0, 4) in dimension 1"});
  ExpectSameResults(t.original, t.sch);
}

// Symbolic extents: the tiles of B over n cover what C reads of B when C
// runs over n too ((n + 7) // 8 * 8 >= n is proved), but not when C runs over
// m, which nothing relates to n (before, only a provable gap was refused).
TEST(ScheduleReverseComputeAtRules, SymbolicDomainMustBeProvablyCovered) {
  constexpr const char* kText = R"(
func @f[n, m](A: f32[n], C: f32[M]) {
  block root() {
    alloc_buffer B: f32[M]
    for i in range(0, n) {
      block B(vi: spatial[0, n] = i) {
        reads(A[vi])
        writes(B[vi])
        B[vi] = A[vi] * 2.0f32
      }
    }
    for i in range(0, M) {
      block C(vi: spatial[0, M] = i) {
        reads(B[vi])
        writes(C[vi])
        C[vi] = B[vi] + 1.0f32
      }
    }
  }
})";
  Fixture same(absl::StrReplaceAll(kText, {{"M", "n"}}));
  std::vector<LoopRV> b = Must(same.sch.Split(same.Loops("B")[0], {std::nullopt, 8}));
  Must(same.sch.ReverseComputeAt(same.Block("C"), b[0]));
  EXPECT_TRUE(VerifyFunction(same.sch.func(), "f").ok());
  Fixture other(absl::StrReplaceAll(kText, {{"M", "m"}}));
  std::vector<LoopRV> o = Must(other.sch.Split(other.Loops("B")[0], {std::nullopt, 8}));
  BlockRV c = other.Block("C");
  ExpectFailsUnchanged(other.sch, [&] { return other.sch.ReverseComputeAt(c, o[0]); },
                       {"over all iterations of loop i_0 its producers write B[",
                        "which does not cover [0, m) in dimension 0"});
}

TEST(ScheduleReverseComputeAtRules, NothingInBetweenTouchesItsBuffers) {
  Fixture t(R"(
func @f(A: f32[8], C: f32[8], D: f32[8]) {
  block root() {
    alloc_buffer B: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
    }
    for i in range(0, 8) {
      block X(vi: spatial[0, 8] = i) { reads(C[vi]) writes(D[vi]) D[vi] = C[vi] }
    }
    for i in range(0, 8) {
      block C(vi: spatial[0, 8] = i) { reads(B[vi]) writes(C[vi]) C[vi] = B[vi] + 1.0f32 }
    }
  }
})");
  BlockRV block = t.Block("C");
  LoopRV loop = t.Loops("B")[0];
  ExpectFailsUnchanged(t.sch,
                       [&] { return t.sch.ReverseComputeAt(block, loop); },
                       {"block X touches a buffer block C writes"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
