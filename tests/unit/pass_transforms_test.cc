// The standard passes below the lit tests: the constant folder against exact
// expected values and, on random expression trees, against the interpreter;
// pointer identity when nothing changes; canonicalize-names on duplicates that
// only C++ can build.
#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "ir/arith/analyzer.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using ir::DataType;
using ir::Expr;
using testing::ParseOrDie;

// The simplify pass's expression simplifier: the analyser in checked mode, where a
// rewrite that depends on exact values applies only where nothing can wrap.
Expr Simplify(const Expr& e, ir::arith::RuleCounts* counts = nullptr) {
  ir::arith::Analyzer analyzer(ir::arith::AnalyzerOptions{.assume_no_overflow = false});
  if (counts != nullptr) analyzer.set_rule_counts(counts);
  return analyzer.Simplify(e);
}
std::string Folded(const Expr& e) { return ir::PrintExpr(Simplify(e)); }

Expr Extern() {
  return ir::ValueOrDie(ir::MakeCall(DataType::Int(32), ir::CallNode::Callee::kExtern, "tick", {}));
}

TEST(SimplifyExpr, IntegersWrapAtTheirWidth) {
  DataType i8 = DataType::Int(8), u32 = DataType::UInt(32), i64 = DataType::Int(64);
  EXPECT_EQ(Folded(ir::Add(ir::IntImm(i8, 100), ir::IntImm(i8, 100))), "-56i8");
  EXPECT_EQ(Folded(ir::Sub(ir::IntImm(u32, 0), ir::IntImm(u32, 1))), "4294967295u32");
  EXPECT_EQ(Folded(ir::Mul(ir::IntImm32(65536), ir::IntImm32(65536))), "0");
  Expr min64 = ir::IntImm(i64, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Folded(ir::FloorDiv(min64, ir::IntImm(i64, -1))), ir::PrintExpr(min64));
  EXPECT_EQ(Folded(ir::FloorMod(min64, ir::IntImm(i64, -1))), "0i64");
}

TEST(SimplifyExpr, DivisionFormsFollowTheirDefinitions) {
  EXPECT_EQ(Folded(ir::Div(ir::IntImm32(-7), ir::IntImm32(2))), "-3");
  EXPECT_EQ(Folded(ir::Mod(ir::IntImm32(-7), ir::IntImm32(2))), "-1");
  EXPECT_EQ(Folded(ir::FloorDiv(ir::IntImm32(-7), ir::IntImm32(2))), "-4");
  EXPECT_EQ(Folded(ir::FloorMod(ir::IntImm32(-7), ir::IntImm32(2))), "1");
  EXPECT_EQ(Folded(ir::FloorMod(ir::IntImm32(7), ir::IntImm32(-2))), "-1");
  EXPECT_EQ(Folded(ir::FloorDiv(ir::IntImm32(7), ir::IntImm32(-2))), "-4");
  // Unsigned operands divide as unsigned.
  DataType u8 = DataType::UInt(8);
  EXPECT_EQ(Folded(ir::Div(ir::IntImm(u8, 200), ir::IntImm(u8, 3))), "66u8");
  // Division by zero stays: it is an error at run time, not at compile time.
  Expr by_zero = ir::FloorDiv(ir::IntImm32(7), ir::IntImm32(0));
  EXPECT_TRUE(Simplify(by_zero).same_as(by_zero));
}

TEST(SimplifyExpr, ComparisonsMinMaxAndLogic) {
  DataType u8 = DataType::UInt(8);
  EXPECT_EQ(Folded(ir::GT(ir::IntImm(u8, 200), ir::IntImm(u8, 100))), "true");
  EXPECT_EQ(Folded(ir::Min(ir::IntImm(u8, 200), ir::IntImm(u8, 100))), "100u8");
  EXPECT_EQ(Folded(ir::Max(ir::IntImm32(-3), ir::IntImm32(2))), "2");
  EXPECT_EQ(Folded(ir::LE(ir::IntImm32(3), ir::IntImm32(3))), "true");
  EXPECT_EQ(Folded(ir::Not(ir::EQ(ir::IntImm32(3), ir::IntImm32(3)))), "false");
  ir::Var x = ir::MakeVar("x", DataType::Bool());
  EXPECT_EQ(Folded(ir::And(ir::Bool(true), x)), "x");
  EXPECT_EQ(Folded(ir::Or(x, ir::Bool(false))), "x");
  EXPECT_EQ(Folded(ir::And(x, ir::Bool(false))), "false");
  EXPECT_EQ(Folded(ir::Not(ir::Not(x))), "x");
  // Something with a side effect is never dropped.
  Expr effect = ir::GT(Extern(), ir::IntImm32(0));
  Expr kept = ir::And(ir::Bool(false), effect);
  EXPECT_EQ(Folded(kept), "false && 0 < @tick(): i32");
}

TEST(SimplifyExpr, FloatsFoldOnlyWhereRoundingOnceIsExact) {
  DataType f32 = DataType::Float(32), f16 = DataType::Float(16), f64 = DataType::Float(64);
  Expr sum = Simplify(ir::Add(ir::FloatImm(f32, 0.1), ir::FloatImm(f32, 0.2)));
  const auto* imm = ir::dyn_cast<ir::FloatImmNode>(sum);
  ASSERT_NE(imm, nullptr);
  EXPECT_EQ(imm->value, static_cast<double>(0.1f + 0.2f));
  Expr half = ir::Add(ir::FloatImm(f16, 1.5), ir::FloatImm(f16, 2.25));
  EXPECT_TRUE(Simplify(half).same_as(half));
  EXPECT_EQ(Folded(ir::LT(ir::FloatImm(f16, 1.5), ir::FloatImm(f16, 2.25))), "true");
  Expr nan_min =
      ir::Min(ir::FloatImm(f32, std::numeric_limits<double>::quiet_NaN()), ir::FloatImm(f32, 1.0));
  EXPECT_TRUE(Simplify(nan_min).same_as(nan_min));
  Expr zero_max = ir::Max(ir::FloatImm(f32, -0.0), ir::FloatImm(f32, 0.0));
  EXPECT_TRUE(Simplify(zero_max).same_as(zero_max));
  EXPECT_EQ(Folded(ir::Cast(f32, ir::FloatImm(f64, 1.0 / 3.0))),
            ir::PrintExpr(ir::FloatImm(f32, static_cast<float>(1.0 / 3.0))));
  ir::Var y = ir::MakeVar("y", f32);
  EXPECT_EQ(Folded(ir::Mul(y, ir::FloatImm(f32, 1.0))), "y");
  EXPECT_EQ(Folded(ir::Div(y, ir::FloatImm(f32, 1.0))), "y");
  Expr plus_zero = ir::Add(y, ir::FloatImm(f32, 0.0));  // -0.0 + 0.0 is +0.0: not an identity.
  EXPECT_TRUE(Simplify(plus_zero).same_as(plus_zero));
}

TEST(SimplifyExpr, Casts) {
  EXPECT_EQ(Folded(ir::Cast(DataType::Int(32), ir::IntImm(DataType::UInt(32), 4294967295))), "-1");
  EXPECT_EQ(Folded(ir::Cast(DataType::Int(32), ir::IntImm(DataType::Int(64), 7))), "7");
  EXPECT_EQ(Folded(ir::Cast(DataType::Bool(), ir::IntImm32(3))), "true");
  EXPECT_EQ(Folded(ir::Cast(DataType::Int(32), ir::Bool(true))), "1");
  EXPECT_EQ(Folded(ir::Cast(DataType::Float(32), ir::IntImm32(-3))), "-3.0f32");
  ir::Var x = ir::MakeVar("x", DataType::Int(32));
  EXPECT_EQ(Folded(ir::Cast(DataType::Int(32), x)), "x");
}

TEST(SimplifyExpr, IndexArithmetic) {
  ir::Var x = ir::MakeVar("x", DataType::Int(32));
  EXPECT_EQ(Folded(ir::Sub(ir::Add(x, ir::IntImm32(3)), ir::IntImm32(5))), "x - 2");
  EXPECT_EQ(Folded(ir::Add(ir::Sub(x, ir::IntImm32(3)), ir::IntImm32(3))), "x");
  EXPECT_EQ(Folded(ir::Mul(ir::Mul(x, ir::IntImm32(2)), ir::IntImm32(3))), "x * 6");
  EXPECT_EQ(Folded(ir::Add(ir::IntImm32(3), x)), "x + 3");
  EXPECT_EQ(Folded(ir::Add(ir::IntImm32(2), ir::Add(ir::IntImm32(3), x))), "x + 5");
  EXPECT_EQ(Folded(ir::FloorMod(x, ir::IntImm32(1))), "0");
  EXPECT_EQ(Folded(ir::FloorDiv(x, ir::IntImm32(1))), "x");
  Expr times_zero = ir::Mul(Extern(), ir::IntImm32(0));
  EXPECT_TRUE(Simplify(times_zero).same_as(times_zero));
  EXPECT_EQ(Folded(ir::Select(ir::Bool(false), ir::Add(x, ir::IntImm32(1)), x)), "x");
  // Both arms of a select are evaluated, so one with a side effect stays.
  for (bool c : {true, false}) {
    Expr sel = c ? ir::Select(ir::Bool(c), x, Extern()) : ir::Select(ir::Bool(c), Extern(), x);
    EXPECT_TRUE(Simplify(sel).same_as(sel));
  }
}

TEST(SimplifyExpr, CountsEachRule) {
  ir::Var x = ir::MakeVar("x", DataType::Int(32));
  ir::arith::RuleCounts counts;
  Simplify(ir::Add(ir::Add(x, ir::Mul(ir::IntImm32(2), ir::IntImm32(3))), ir::IntImm32(0)),
           &counts);
  EXPECT_EQ(counts, (ir::arith::RuleCounts{{"canonical-form", 1}, {"fold-constant", 1}}));
}

// Random integer and float expression trees: the folded program must compute
// exactly what the original does in the interpreter.
class TreeGen {
 public:
  TreeGen(uint32_t seed, DataType t, ir::Buffer a) : rng_(seed), t_(t), a_(std::move(a)) {}

  Expr Gen(int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf();
    switch (Pick(t_.is_float() ? 6 : 10)) {
      case 0:
        return ir::Add(Gen(depth - 1), Gen(depth - 1));
      case 1:
        return ir::Sub(Gen(depth - 1), Gen(depth - 1));
      case 2:
        return ir::Mul(Gen(depth - 1), Gen(depth - 1));
      case 3:
        return ir::Min(Gen(depth - 1), Gen(depth - 1));
      case 4:
        return ir::Max(Gen(depth - 1), Gen(depth - 1));
      case 5:
        return ir::Select(ir::LT(Gen(depth - 1), Gen(depth - 1)), Gen(depth - 1), Gen(depth - 1));
      case 6:
        return ir::Div(Gen(depth - 1), NonZero());
      case 7:
        return ir::Mod(Gen(depth - 1), NonZero());
      case 8:
        return ir::FloorDiv(Gen(depth - 1), NonZero());
      default:
        return ir::FloorMod(Gen(depth - 1), NonZero());
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % n); }
  Expr Leaf() {
    if (Pick(3) == 0) return ir::Load(a_, {ir::IntImm32(Pick(4))});
    if (t_.is_float()) return ir::FloatImm(t_, (Pick(33) - 16) / 4.0);
    return Const(Pick(5) == 0 ? Edge() : Pick(19) - 9);
  }
  int64_t Edge() {
    int bits = t_.bits();
    if (t_.is_uint()) return Pick(2) ? 0 : (bits == 64 ? -1 : (int64_t{1} << bits) - 1);
    int64_t lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    return Pick(2) ? lo : -(lo + 1);
  }
  Expr Const(int64_t v) {
    if (t_.is_uint() && v < 0 && t_.bits() < 64) v = -v;
    return ir::IntImm(t_, v);
  }
  Expr NonZero() {
    int64_t v = 0;
    while (v == 0) v = Pick(2) ? Pick(9) - 4 : Edge();
    return Const(v);
  }

  std::mt19937 rng_;
  DataType t_;
  ir::Buffer a_;
};

TEST(SimplifyExpr, RandomTreesComputeWhatTheInterpreterComputes) {
  const DataType types[] = {DataType::Int(8),   DataType::Int(32),  DataType::Int(64),
                            DataType::UInt(8),  DataType::UInt(32), DataType::Float(32),
                            DataType::Float(64)};
  int folded = 0;
  for (uint32_t seed = 0; seed < 60; ++seed) {
    DataType t = types[seed % (sizeof(types) / sizeof(types[0]))];
    ir::Buffer a = ir::MakeBuffer("A", t, {ir::IntImm32(4)});
    ir::Buffer b = ir::MakeBuffer("B", t, {ir::IntImm32(16)});
    TreeGen gen(seed, t, a);
    std::vector<ir::Stmt> stores;
    for (int k = 0; k < 16; ++k) stores.push_back(ir::Store(b, gen.Gen(4), {ir::IntImm32(k)}));
    ir::PrimFunc f =
        ir::MakePrimFunc({ir::Param::OfBuffer(a), ir::Param::OfBuffer(b)}, ir::Seq(stores));
    ir::IRModule mod = ir::MakeIRModule({{"f", f}});
    ASSERT_TRUE(ir::VerifyModule(mod).ok());
    PassContext ctx;
    absl::StatusOr<ir::IRModule> out = RunPipeline("simplify", mod, ctx);
    ASSERT_TRUE(out.ok()) << out.status();
    ir::PrimFunc g = (*out)->Lookup("f");
    folded += !g.same_as(f);
    absl::Status same = ir::CheckSameResults(f, g, seed);
    EXPECT_TRUE(same.ok()) << t.ToString() << " seed " << seed << ": " << same.message() << "\n"
                           << ir::PrintFunction(f, "f") << "\nfolded to\n"
                           << ir::PrintFunction(g, "f");
  }
  EXPECT_GT(folded, 50);  // The trees do give the folder work.
}

TEST(StandardPasses, NothingToDoMeansTheSameModule) {
  ir::IRModule m = ParseOrDie(
      "func @f(A: i32[4], B: i32[4]) {\n  for i in range(0, 4) {\n"
      "    block b(vi: spatial[0, 4] = i) {\n      reads(A[vi])\n      writes(B[vi])\n"
      "      B[vi] = A[vi] + 1\n    }\n  }\n}\n");
  for (const char* pipeline :
       {"simplify", "remove-no-op", "canonicalize-names", "canonicalize-names{renumber=true}"}) {
    PassContext ctx;
    absl::StatusOr<ir::IRModule> out = RunPipeline(pipeline, m, ctx);
    ASSERT_TRUE(out.ok()) << pipeline;
    EXPECT_TRUE(out->same_as(m)) << pipeline;
  }
}

TEST(StandardPasses, RemoveNoOpReachesAFixedPointInOneRun) {
  ir::IRModule m = ParseOrDie(
      "func @f(A: i32[4], n: i32) {\n  for i in range(0, 4) {\n    if n > 0 {\n"
      "      for j in range(0, 0) {\n        A[j] = 0\n      }\n    }\n    A[i] = A[i]\n  }\n"
      "  A[0] = 1\n}\n");
  PassContext ctx;
  absl::StatusOr<ir::IRModule> once = RunPipeline("remove-no-op", m, ctx);
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(ir::PrintModule(*once), "func @f(A: i32[4], n: i32) {\n  A[0] = 1\n}\n");
  absl::StatusOr<ir::IRModule> twice = RunPipeline("remove-no-op", *once, ctx);
  ASSERT_TRUE(twice.ok());
  EXPECT_TRUE(twice->same_as(*once));
}

TEST(StandardPasses, CanonicalizeNamesNumbersDuplicateBuffers) {
  // Two distinct allocations both named "tmp", and a parameter named "tmp_1":
  // in definition order they become tmp_1 (taken) -> tmp, tmp_2... as below.
  DataType f32 = DataType::Float(32);
  ir::Buffer a = ir::MakeBuffer("tmp_1", f32, {ir::IntImm32(4)});
  ir::Buffer t1 = ir::MakeBuffer("tmp", f32, {ir::IntImm32(4)});
  ir::Buffer t2 = ir::MakeBuffer("tmp", f32, {ir::IntImm32(4)});
  auto use = [&](const ir::Buffer& t) {
    return ir::ValueOrDie(ir::MakeAllocate(
        t, ir::Seq({ir::Store(t, ir::FloatImm(f32, 1.0), {ir::IntImm32(0)}),
                    ir::Store(a, ir::Load(t, {ir::IntImm32(0)}), {ir::IntImm32(0)})})));
  };
  ir::PrimFunc f = ir::MakePrimFunc({ir::Param::OfBuffer(a)}, ir::Seq({use(t1), use(t2)}));
  ir::IRModule m = ir::MakeIRModule({{"f", f}});
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline("canonicalize-names", m, ctx);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(ir::VerifyModule(*out).ok());
  ir::PrimFunc g = (*out)->Lookup("f");
  EXPECT_EQ(g->params[0].buffer->name, "tmp_1");
  const auto* seq = ir::cast<ir::SeqStmtNode>(g->body);
  const auto* first = ir::cast<ir::AllocateNode>(seq->seq[0]);
  const auto* second = ir::cast<ir::AllocateNode>(seq->seq[1]);
  EXPECT_EQ(first->buffer->name, "tmp");
  EXPECT_EQ(second->buffer->name, "tmp_2");
  // Every use refers to the renamed buffer object.
  const auto* store =
      ir::cast<ir::BufferStoreNode>(ir::cast<ir::SeqStmtNode>(second->body)->seq[0]);
  EXPECT_TRUE(store->buffer.same_as(second->buffer));
  const auto* copy = ir::cast<ir::BufferStoreNode>(ir::cast<ir::SeqStmtNode>(second->body)->seq[1]);
  EXPECT_TRUE(ir::cast<ir::BufferLoadNode>(copy->value)->buffer.same_as(second->buffer));
  EXPECT_TRUE(copy->buffer.same_as(g->params[0].buffer));
  EXPECT_TRUE(ir::CheckSameResults(f, g, 3).ok());
  EXPECT_EQ(ctx.log().ToString(), "canonicalize-names: changed f; f: applied rename\n");
}

}  // namespace
}  // namespace tessel::passes
