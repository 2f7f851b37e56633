// transform_layout and the index-map language: parsing and printing maps,
// before/after IR, the interpreter on random inputs (te matmul+relu and
// conv2d), and one negative test per rule (message, schedule unchanged).
#include "ir/index_map.h"
#include "ir/te/ops/elementwise.h"
#include "ir/te/ops/nn/conv2d.h"
#include "tests/unit/schedule_te_util.h"

namespace tessel::ir::schedule::testing {
namespace {

TEST(IndexMap, ParsesAndPrintsPythonLambdas) {
  IndexMap m = Must(IndexMap::Parse("lambda i, j: (i // 16, j, i % 16)"));
  EXPECT_EQ(m.inputs().size(), 2u);
  EXPECT_EQ(m.outputs().size(), 3u);
  EXPECT_EQ(m.ToPython(), "lambda i, j: (i // 16, j, i % 16)");
  // Without parentheses, one output, precedence and unary minus.
  EXPECT_EQ(Must(IndexMap::Parse("lambda i, j: j, i")).ToPython(), "lambda i, j: (j, i)");
  EXPECT_EQ(Must(IndexMap::Parse("lambda i: i * 4 + 3")).ToPython(), "lambda i: (i * 4 + 3,)");
  EXPECT_EQ(Must(IndexMap::Parse("lambda i, j: ((i + j) * 2 - (j - i),)")).ToPython(),
            "lambda i, j: ((i + j) * 2 - (j - i),)");
  EXPECT_EQ(Must(IndexMap::Parse("lambda a: [min(a, 3), -a]")).ToPython(),
            "lambda a: (min(a, 3), (-1) * a)");
  // Printing parses back to the same map.
  IndexMap back = Must(IndexMap::Parse(m.ToPython()));
  EXPECT_EQ(back.ToPython(), m.ToPython());
  Var x = MakeVar("x", DataType::Int(32));
  std::vector<Expr> applied = Must(m.Apply({Add(x, IntImm32(1)), x}));
  EXPECT_EQ(PrintExpr(applied[0]), "(x + 1) // 16");
}

TEST(IndexMap, ErrorsSayWhere) {
  auto message = [](const std::string& text) {
    absl::StatusOr<IndexMap> m = IndexMap::Parse(text);
    EXPECT_FALSE(m.ok()) << text;
    return m.ok() ? std::string() : std::string(m.status().message());
  };
  EXPECT_THAT(message("i, j: (i, j)"), ::testing::HasSubstr("starts with 'lambda'"));
  EXPECT_THAT(message("lambda i: (i / 2,)"), ::testing::HasSubstr("use '//'"));
  EXPECT_THAT(message("lambda i: (k,)"),
              ::testing::HasSubstr("column 12: 'k' is not a parameter of the lambda"));
  EXPECT_THAT(message("lambda i, i: (i,)"), ::testing::HasSubstr("given twice"));
  EXPECT_THAT(message("lambda i: (i,) x"), ::testing::HasSubstr("unexpected text"));
  EXPECT_THAT(message("lambda i: (i + ,)"), ::testing::HasSubstr("expected an index"));
  EXPECT_THAT(message("lambda i: " + std::string(100000, '(') + "i"),
              ::testing::HasSubstr("nests too deeply"));
  EXPECT_THAT(message("lambda i: " + std::string(100000, '-') + "i"),
              ::testing::HasSubstr("nests too deeply"));
}

// relu(A @ B) with the matmul result T allocated inside the function.
Schedule MatmulRelu(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = Must(te::Placeholder({m, k}, DataType::Float(32), "A"));
  te::Tensor b = Must(te::Placeholder({k, n}, DataType::Float(32), "B"));
  te::Tensor t = Must(te::ops::Matmul(a, b, {.name = "T"}));
  te::Tensor r = Must(te::ops::Relu(t, "R"));
  return TeSchedule({a, b, r}, "mm_relu");
}

const BufferNode* FindAlloc(const PrimFunc& f, const std::string& name) {
  const auto* realize = dyn_cast<BlockRealizeNode>(f->body);
  if (realize == nullptr) return nullptr;
  for (const Buffer& b : realize->block->alloc_buffers) {
    if (b->name == name) return b.get();
  }
  return nullptr;
}

TEST(ScheduleTransformLayout, SplitsARowDimensionIntoTiles) {
  Schedule sch = MatmulRelu(32, 12, 7);
  PrimFunc original = sch.func();
  BlockRV t = Must(sch.GetBlock("T"));
  Must(sch.TransformLayout(t, std::string("T"), "lambda i, j: (i // 16, j, i % 16)"));
  const BufferNode* buf = FindAlloc(sch.func(), "T");
  ASSERT_NE(buf, nullptr) << PrintFunction(sch.func(), "mm_relu");
  ASSERT_EQ(buf->shape.size(), 3u);
  EXPECT_EQ(PrintExpr(buf->shape[0]), "2");
  EXPECT_EQ(PrintExpr(buf->shape[1]), "12");
  EXPECT_EQ(PrintExpr(buf->shape[2]), "16");
  std::string text = PrintFunction(sch.func(), "mm_relu");
  EXPECT_THAT(text, ::testing::HasSubstr("T[vi // 16, vj, vi %% 16]"));
  EXPECT_TRUE(VerifyFunction(sch.func(), "mm_relu").ok());
  ExpectSameResults(original, sch);
  EXPECT_EQ(sch.trace().instructions().back().ToPython(),
            "sch.transform_layout(block=b0, buffer=\"T\", index_map=\"lambda i, j: (i // 16, j, "
            "i % 16)\")");
  // The trace replays from JSON.
  Trace tr = Must(Trace::FromJson(Must(sch.trace().ToJson())));
  Schedule again = MatmulRelu(32, 12, 7);
  Must(tr.ApplyToSchedule(&again));
  EXPECT_TRUE(StructuralEqual(again.func(), sch.func()));
}

TEST(ScheduleTransformLayout, TransposeByIndexAfterTiling) {
  Schedule sch = MatmulRelu(17, 9, 5);
  PrimFunc original = sch.func();
  BlockRV r = Must(sch.GetBlock("R"));
  std::vector<LoopRV> l = Must(sch.GetLoops(r));
  Must(sch.Split(l[0], {std::nullopt, 4}));
  // Buffer 0 of R is what it reads: T.
  Var i = MakeVar("i", DataType::Int(32)), j = MakeVar("j", DataType::Int(32));
  Must(sch.TransformLayout(r, int64_t{0}, Must(IndexMap::Make({i, j}, {j, i}))));
  const BufferNode* buf = FindAlloc(sch.func(), "T");
  ASSERT_NE(buf, nullptr);
  EXPECT_EQ(PrintExpr(buf->shape[0]), "9");
  EXPECT_EQ(PrintExpr(buf->shape[1]), "17");
  ExpectSameResults(original, sch);
}

TEST(ScheduleTransformLayout, Conv2dPaddedInputToChannelsLast) {
  te::Tensor data = Must(te::Placeholder({1, 3, 7, 5}, DataType::Float(32), "data"));
  te::Tensor kernel = Must(te::Placeholder({4, 3, 3, 3}, DataType::Float(32), "kernel"));
  te::Tensor out = Must(te::ops::Conv2D(data, kernel, {.padding = {1}}));
  Schedule sch = TeSchedule({data, kernel, out}, "conv");
  PrimFunc original = sch.func();
  BlockRV conv = Must(sch.GetBlock("conv2d"));
  // The padded input the convolution reads (allocated by the function).
  Block cb = Must(sch.Get(conv));
  ASSERT_FALSE(cb->reads.empty());
  std::string buffer = cb->reads[0].buffer->name;
  ASSERT_NE(buffer, "data");
  Must(sch.TransformLayout(conv, buffer, "lambda n, c, h, w: (n, h, w, c)"));
  ExpectSameResults(original, sch);
}

TEST(ScheduleTransformLayout, RuleNotAParameter) {
  Schedule sch = MatmulRelu(16, 8, 4);
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("A"), "lambda i, j: (j, i)"); },
      {"sch.transform_layout(block=b0, buffer=\"A\"", "buffer A is a parameter of function",
       "stage it through a copy", ">>"});
}

TEST(ScheduleTransformLayout, RuleBijectionOntoABoxAtZero) {
  Schedule sch = MatmulRelu(17, 8, 4);
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (i // 4, j, i % 4)"); },
      {"on the shape [17, 8] of buffer T is not a bijection onto a box",
       "transform_layout does not pad"});
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (i, i)"); },
      {"is not a bijection onto a box"});
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (i + 1, j)"); },
      {"output 0 starts at 1, not 0"});
}

TEST(ScheduleTransformLayout, RuleArguments) {
  Schedule sch = MatmulRelu(16, 8, 4);
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i: (i,)"); },
      {"takes 1 indices but buffer T has 2 dimensions"});
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("X"), "lambda i, j: (j, i)"); },
      {"block T accesses no buffer named 'X'; it accesses"});
  ExpectFailsUnchanged(sch, [&] { return sch.TransformLayout(t, int64_t{7}, "lambda i, j: (j, i)"); },
                       {"buffer index 7 is out of range"});
  ExpectFailsUnchanged(sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (j i)"); },
                       {"index map, column"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
