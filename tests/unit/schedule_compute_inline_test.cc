// compute_inline and reverse_compute_inline: before/after IR, the interpreter
// on random inputs (hand-written chains and op-library functions: a padded
// conv2d, softmax, matmul+bias+relu), and one negative test per rule (the
// message, and the schedule left unchanged).
#include "tests/unit/schedule_compute_te.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kChain = ChainText(64);

// Stages over 64 elements the fixtures below combine: kChain's producer of B
// and its consumer.
const std::string kProduceB = StageText("B", {64}, "A[vi]", "B[vi]", "B[vi] = A[vi] * 2.0f32");
const std::string kConsumeB = StageText("C", {64}, "B[vi]", "C[vi]", "C[vi] = B[vi] + 1.0f32");

// kChain with B inlined into one block named `block`.
std::string ChainInlined(const std::string& block) {
  return RootFuncText(
      "f(A: f32[64], C: f32[64])", {},
      {StageText(block, {64}, "A[vi]", "C[vi]", "C[vi] = A[vi] * 2.0f32 + 1.0f32")});
}

using Fixture = ComputeFixture;

TEST(ScheduleComputeInline, ElementwiseChain) {
  Fixture t(kChain);
  Must(t.sch.ComputeInline(t.Block("B")));
  ExpectFunc(t.sch, ChainInlined("C"));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(t.sch.trace().AsPython(),
            "b0 = sch.get_block(name=\"B\")\nsch.compute_inline(block=b0)\n");
}

TEST(ScheduleReverseComputeInline, ElementwiseChain) {
  Fixture t(kChain);
  Must(t.sch.ReverseComputeInline(t.Block("C")));
  ExpectFunc(t.sch, ChainInlined("B"));
  ExpectSameResults(t.original, t.sch);
  // The consumer's handle is consumed; the producer's survives.
  absl::StatusOr<Block> gone = t.sch.Get(Must(t.sch.GetBlock("B")));
  EXPECT_TRUE(gone.ok());
}

TEST(ScheduleComputeInline, PaddedConv2DPadStage) {
  Fixture t(PaddedConv2D(3, 7, 4));
  Must(t.sch.ComputeInline(t.Block("conv2d_pad")));
  ExpectSameResults(t.original, t.sch);
  EXPECT_FALSE(t.sch.GetBlock("conv2d_pad").ok());
  // The convolution now reads X itself (the padding is a select on its loads).
  Block conv = Must(t.sch.Get(t.Block("conv2d")));
  bool reads_x = false;
  for (const BufferRegion& r : conv->reads) reads_x |= r.buffer->name == "X";
  EXPECT_TRUE(reads_x) << PrintFunction(t.sch.func(), "f");
}

TEST(ScheduleComputeInline, SoftmaxExp) {
  Fixture t(SoftmaxRows(5, 13));
  Must(t.sch.ComputeInline(t.Block("T_softmax_exp")));
  ExpectSameResults(t.original, t.sch);
  EXPECT_FALSE(t.sch.GetBlock("T_softmax_exp").ok());
}

TEST(ScheduleReverseComputeInline, MatmulBiasReluEpilogue) {
  Fixture t(MatmulBiasRelu(17, 31, 23));
  Must(t.sch.ReverseComputeInline(t.Block("T_relu")));
  ExpectSameResults(t.original, t.sch);
  EXPECT_FALSE(t.sch.GetBlock("T_relu").ok());
  // The bias block now writes the output; the matmul, a reduction, cannot
  // take it in.
  BlockRV block = t.Block("T_add");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeInline(block); },
                       {"sch.reverse_compute_inline(block=", "reverse_compute_inline: block "
                        "T_matmul has reduce iter var", ">>"});
}

// ---- compute_inline's rules -----------------------------------------------------------

TEST(ScheduleComputeInlineRules, ReductionIsNotInlined) {
  Fixture t(MatmulBiasRelu(4, 5, 6));
  BlockRV block = t.Block("T_matmul");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeInline(block); },
                       {"sch.compute_inline(block=b", "block T_matmul has reduce iter var",
                        "only blocks with spatial iter vars are inlined", ">>"});
}

TEST(ScheduleComputeInlineRules, OutputBufferStays) {
  Fixture t(kChain);
  BlockRV block = t.Block("C");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeInline(block); },
                       {"block C writes C, a parameter of the function"});
}

TEST(ScheduleComputeInlineRules, StoreIndicesAreIterVars) {
  Fixture t(RootFuncText("f(A: f32[32], C: f32[32])", {"B: f32[64]"},
                         {StageText("B", {32}, "A[vi]", "B[vi * 2]", "B[vi * 2] = A[vi]"),
                          StageText("C", {32}, "B[vi * 2]", "C[vi]", "C[vi] = B[vi * 2]")}));
  BlockRV block = t.Block("B");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeInline(block); },
                       {"the store of block B writes B at vi * 2",
                        "each index must be a distinct iter var of the block"});
}

TEST(ScheduleComputeInlineRules, OnlyWriter) {
  Fixture t(RootFuncText(
      "f(A: f32[64], C: f32[64])", {"B: f32[64]"},
      {kProduceB, StageText("B2", {64}, "A[vi]", "B[vi]", "B[vi] = A[vi]"), kConsumeB}));
  BlockRV block = t.Block("B");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeInline(block); },
                       {"block B is not the only writer of B"});
}

TEST(ScheduleComputeInlineRules, UnknownBlockHandle) {
  Fixture t(kChain);
  BlockRV b = t.Block("B");
  Must(t.sch.ComputeInline(b));
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeInline(b); },
                       {"block handle b0 was consumed by compute_inline"});
}

// ---- reverse_compute_inline's rules ---------------------------------------------------

const std::string kTwoReaders = RootFuncText(
    "f(A: f32[64], C: f32[64], D: f32[64])", {"B: f32[64]"},
    {kProduceB, kConsumeB, StageText("D", {64}, "B[vi]", "D[vi]", "D[vi] = B[vi] - 1.0f32")});

TEST(ScheduleReverseComputeInlineRules, OnlyReader) {
  Fixture t(kTwoReaders);
  BlockRV block = t.Block("C");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeInline(block); },
                       {"reverse_compute_inline: block C is not the only reader of B"});
}

TEST(ScheduleReverseComputeInlineRules, OneProducer) {
  Fixture t(
      RootFuncText("f(A: f32[64], C: f32[64])", {"B: f32[64]", "B2: f32[64]"},
                   {kProduceB, StageText("B2", {64}, "A[vi]", "B2[vi]", "B2[vi] = A[vi] * 3.0f32"),
                    StageText("C", {64}, "B[vi], B2[vi]", "C[vi]", "C[vi] = B[vi] + B2[vi]")}));
  BlockRV block = t.Block("C");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeInline(block); },
                       {"block C has 2 producer blocks; it is inlined into exactly one"});
}

TEST(ScheduleReverseComputeInlineRules, SameLoadIndices) {
  Fixture t(RootFuncText(
      "f(A: f32[64], C: f32[64])", {"B: f32[64]"},
      {kProduceB, StageText("C", {64}, "B[0 +: 64]", "C[vi]", "C[vi] = B[vi] + B[63 - vi]")}));
  BlockRV block = t.Block("C");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeInline(block); },
                       {"block C reads B at different indices"});
}

TEST(ScheduleReverseComputeInlineRules, UnconditionalConsumer) {
  Fixture t(kChain);
  LoopRV i = Must(t.sch.GetLoops(t.Block("C")))[0];
  Must(t.sch.Split(i, {std::nullopt, 10}));
  BlockRV block = t.Block("C");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ReverseComputeInline(block); },
                       {"block C has the predicate", "only unconditional blocks"});
}

// compute_inline of a copy read by an inner block re-infers the outer block's
// reads: relaxed over the inner loops, the padded window's region hangs over
// A's edges, and like blockize's own regions it is clipped to A's shape.
TEST(ScheduleComputeInline, OuterBlockReadsStayInTheBuffer) {
  Schedule sch = MustSchedule(PaddedReadText());
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  Must(sch.CacheRead(b, 0, "local"));
  BlockRV outer = Must(sch.Blockize(Must(sch.GetLoops(b))[0]));
  Must(sch.ComputeInline(Must(sch.GetBlock("A_local"))));
  absl::Status verified = VerifyFunction(sch.func(), sch.func_name());
  EXPECT_TRUE(verified.ok()) << verified.message();
  const std::vector<BufferRegion>& reads = Must(sch.Get(outer))->reads;
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(PrintExpr(reads[0].region[0].min), "0");
  EXPECT_EQ(PrintExpr(reads[0].region[0].extent), "6");
  ExpectSameResults(original, sch);
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
