// The caching and reduction primitives on operators of the op library (odd
// sizes throughout), each schedule checked by the interpreter against the
// unscheduled function: matmul + bias + ReLU with a local accumulator,
// conv2d with cached operands, rfactor of every reduction of softmax and
// layernorm.
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/broadcast.h"
#include "ir/te/ops/elementwise.h"
#include "ir/te/ops/matmul.h"
#include "ir/te/ops/nn/conv2d.h"
#include "ir/te/ops/norm.h"
#include "ir/te/ops/softmax.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr DataType kF32 = DataType::Float(32);

te::Tensor In(const std::string& name, const te::Shape& shape) {
  return Must(te::Placeholder(shape, kF32, name));
}

Schedule ScheduleOf(const std::vector<te::FuncArg>& args) {
  return Must(Schedule::Create(Must(te::CreateModule(args, "main"))));
}

// The blocks with an init (the reductions), in program order.
std::vector<std::string> Reductions(const Schedule& sch) {
  std::vector<std::string> out;
  const StmtIndex& index = sch.state().index();
  for (const std::string& name : index.BlockNames()) {
    if (index.block(index.FindBlock(name))->init) out.push_back(name);
  }
  return out;
}

TEST(ScheduleCacheOnOps, MatmulBiasReluWithALocalAccumulator) {
  te::Tensor a = In("A", {17, 23}), b = In("B", {23, 31}), bias = In("bias", {31});
  te::Tensor mm = Must(te::ops::Matmul(a, b));
  te::Tensor out = Must(te::ops::Relu(Must(te::ops::Add(mm, bias))));
  Schedule sch = ScheduleOf({a, b, bias, out});
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("T_matmul"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<LoopRV> t = Must(sch.Tile({l[0], l[1]}, {{std::nullopt, 4}, {std::nullopt, 8}}));
  std::vector<LoopRV> k = Must(sch.Split(l[2], {std::nullopt, 4}));
  Must(sch.Reorder({t[0], t[1], k[0], t[2], k[1], t[3]}));
  Must(sch.Parallel(t[0]));
  BlockRV local = Must(sch.CacheWrite(c, 0, "local"));
  Must(sch.DecomposeReduction(c, k[0]));
  Must(sch.Vectorize(t[3]));
  Must(sch.Parallel(Must(sch.GetLoops(local))[0]));
  ExpectSameResults(original, sch);
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
  // The trace replays to the same function.
  Schedule replay = ScheduleOf({a, b, bias, out});
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

TEST(ScheduleCacheOnOps, Conv2dCachedOperandsAndDecomposedInit) {
  te::Tensor data = In("data", {1, 3, 9, 7}), kernel = In("kernel", {4, 3, 3, 3});
  te::Tensor conv = Must(te::ops::Conv2D(data, kernel, {.padding = {1}}));
  Schedule sch = ScheduleOf({data, kernel, conv});
  PrimFunc original = sch.func();
  std::vector<std::string> reds = Reductions(sch);
  ASSERT_EQ(reds.size(), 1u);
  BlockRV c = Must(sch.GetBlock(reds[0]));
  Must(sch.CacheWrite(c, 0, "local"));
  Must(sch.CacheRead(c, 0, "shared"));
  Must(sch.CacheRead(c, 1, "shared"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.DecomposeReduction(c, l[4]));  // n, o, h, w | c, kh, kw
  ExpectSameResults(original, sch);
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
}

// Every reduction of softmax and layernorm: split the innermost loop with a
// tail and rfactor its outer part, then decompose the write-back. Layernorm's
// sum and sum of squares are one block writing two buffers, which rfactor
// refuses (one reduction per block): that one is only decomposed.
TEST(ScheduleCacheOnOps, RFactorEveryReductionOfSoftmaxAndLayerNorm) {
  te::Tensor x = In("x", {5, 13});
  te::Tensor gamma = In("gamma", {13}), beta = In("beta", {13});
  std::vector<std::vector<te::FuncArg>> programs = {
      {x, Must(te::ops::Softmax(x))},
      {x, gamma, beta, Must(te::ops::LayerNorm(x, gamma, beta))},
  };
  int rfactored = 0;
  for (const auto& args : programs) {
    Schedule sch = ScheduleOf(args);
    PrimFunc original = sch.func();
    std::vector<std::string> reds = Reductions(sch);
    ASSERT_FALSE(reds.empty());
    for (const std::string& name : reds) {
      BlockRV r = Must(sch.GetBlock(name));
      std::vector<LoopRV> l = Must(sch.GetLoops(r));
      std::vector<LoopRV> k = Must(sch.Split(l.back(), {std::nullopt, 4}));
      // Layer norm's statistics (a sum and a sum of squares) split together.
      BlockRV rf = Must(sch.RFactor(k[0], 0));
      Must(sch.DecomposeReduction(rf, Must(sch.GetLoops(rf)).back()));
      ++rfactored;
      std::vector<LoopRV> wb = Must(sch.GetLoops(r));
      Must(sch.DecomposeReduction(r, wb.back()));
    }
    ExpectSameResults(original, sch);
    EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
  }
  EXPECT_GE(rfactored, 3);  // Softmax's max and sum, layer norm's statistics.
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
