// Units for the compute DSL and CreatePrimFunc: the block form they produce
// (loop nests, iter kinds, init, exact regions, root allocations, parameter
// order, fresh objects per function), reductions with their identities, custom
// and multi-output reducers, symbolic shapes and scalar parameters -- each run
// in the interpreter against a direct C++ computation.
//
//   C = Compute({4, 3}, ReduceSum(A(i, k) * B(k, j), {k}), "C")
//   CreatePrimFunc({A, B, C}) -> for i, j, k { block C(vi: spatial, vj: spatial, vk: reduce) }
#include <cmath>
#include <limits>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/expr_ops.h"
#include "ir/te/reducer.h"
#include "ir/visitor.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

// Every block of a function by name.
std::map<std::string, const BlockNode*> Blocks(const PrimFunc& f) {
  struct Finder : IRVisitor {
    std::map<std::string, const BlockNode*> blocks;
    void VisitBlock(const BlockNode* op) override {
      blocks[op->name] = op;
      IRVisitor::VisitBlock(op);
    }
  } finder;
  finder.VisitStmt(f->body);
  return finder.blocks;
}

std::string Region(const BufferRegion& r) {
  std::string s = r.buffer->name + "[";
  for (size_t d = 0; d < r.region.size(); ++d) {
    s += (d ? ", " : "") + PrintExpr(r.region[d].min) + ":" + PrintExpr(r.region[d].extent);
  }
  return s + "]";
}

Tensor MatmulC(const Tensor& a, const Tensor& b, const std::string& name = "C") {
  IterVar k = ReduceAxis(a.shape()[1], "k");
  return Must(Compute(
      {a.shape()[0], b.shape()[1]},
      [&](Var i, Var j) { return ReduceSum(a(i, k.var) * b(k.var, j), {k}); }, name,
      {.axis_names = {"i", "j"}}));
}

TEST(TeBlockFormTest, MatmulIsOneReductionBlockUnderThreeLoops) {
  Tensor a = Input("A", {4, 5}), b = Input("B", {5, 3});
  Tensor c = MatmulC(a, b);
  PrimFunc f = Must(CreatePrimFunc({a, b, c}, "mm"));
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_EQ(f->params[2].buffer->name, "C");
  // for i { for j { for k { block C } } }: no root block without allocations.
  const auto* li = dyn_cast<ForNode>(f->body);
  ASSERT_NE(li, nullptr);
  EXPECT_EQ(li->loop_var->name, "i");
  const auto* lj = dyn_cast<ForNode>(li->body);
  ASSERT_NE(lj, nullptr);
  const auto* lk = dyn_cast<ForNode>(lj->body);
  ASSERT_NE(lk, nullptr);
  EXPECT_EQ(PrintExpr(lk->extent), "5");
  const auto* realize = dyn_cast<BlockRealizeNode>(lk->body);
  ASSERT_NE(realize, nullptr);
  const BlockNode* blk = realize->block.get();
  EXPECT_EQ(blk->name, "C");
  ASSERT_EQ(blk->iter_vars.size(), 3u);
  EXPECT_EQ(blk->iter_vars[0].kind, IterKind::kSpatial);
  EXPECT_EQ(blk->iter_vars[1].kind, IterKind::kSpatial);
  EXPECT_EQ(blk->iter_vars[2].kind, IterKind::kReduce);
  EXPECT_EQ(blk->iter_vars[0].var->name, "vi");
  EXPECT_TRUE(realize->iter_values[2].same_as(lk->loop_var));
  ASSERT_NE(blk->init, nullptr);
  EXPECT_EQ(PrintStmt(blk->init), "C[vi, vj] = 0.0f32\n");
  EXPECT_EQ(PrintStmt(blk->body), "C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
  // Exact point regions in block iter vars; the accumulation is not a read.
  ASSERT_EQ(blk->reads.size(), 2u);
  EXPECT_EQ(Region(blk->reads[0]), "A[vi:1, vk:1]");
  EXPECT_EQ(Region(blk->reads[1]), "B[vk:1, vj:1]");
  ASSERT_EQ(blk->writes.size(), 1u);
  EXPECT_EQ(Region(blk->writes[0]), "C[vi:1, vj:1]");

  TeRun r = MustRun({a, b, c});
  ExpectAll(r, 2, [&](const std::vector<int64_t>& ij) {
    double s = 0;
    for (int64_t k = 0; k < 5; ++k) s += r.At(0, {ij[0], k}) * r.At(1, {k, ij[1]});
    return s;
  });
}

TEST(TeBlockFormTest, ParametersFollowTheArgumentOrder) {
  Tensor a = Input("A", {2, 2}), b = Input("B", {2, 2});
  Tensor c = MatmulC(a, b);
  PrimFunc f = Must(CreatePrimFunc({c, b, a}));
  std::vector<std::string> names;
  for (const Param& p : f->params) names.push_back(p.name());
  EXPECT_THAT(names, ElementsAre("C", "B", "A"));
  TeRun r = MustRun({c, b, a});
  ExpectAll(r, 0, [&](const std::vector<int64_t>& ij) {
    return r.At(2, {ij[0], 0}) * r.At(1, {0, ij[1]}) + r.At(2, {ij[0], 1}) * r.At(1, {1, ij[1]});
  });
}

TEST(TeBlockFormTest, IntermediatesAreAllocatedByARootBlockAndStaySeparateBlocks) {
  Tensor a = Input("A", {6});
  Tensor b = Must(Compute({6}, [&](Var i) { return a(i) + 1.0; }, "B"));
  Tensor c = Must(Compute({6}, [&](Var i) { return b(i) * 2.0; }, "C"));
  PrimFunc f = Must(CreatePrimFunc({a, c}));
  const auto* realize = dyn_cast<BlockRealizeNode>(f->body);
  ASSERT_NE(realize, nullptr);
  const BlockNode* root = realize->block.get();
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->iter_vars.empty());
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  EXPECT_EQ(root->alloc_buffers[0]->name, "B");
  const auto* seq = dyn_cast<SeqStmtNode>(root->body);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->seq.size(), 2u);  // One loop nest per compute, producer first.
  auto blocks = Blocks(f);
  EXPECT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks["B"]->init, nullptr);
  TeRun r = MustRun({a, c});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return (r.At(0, i) + 1.0) * 2.0; });
}

TEST(TeBlockFormTest, EachFunctionGetsFreshVariablesAndBuffers) {
  Tensor a = Input("A", {3});
  Tensor b = Must(Compute({3}, [&](Var i) { return a(i) * a(i); }, "B"));
  PrimFunc f = Must(CreatePrimFunc({a, b}));
  PrimFunc g = Must(CreatePrimFunc({a, b}));
  EXPECT_FALSE(f->params[0].buffer.same_as(g->params[0].buffer));
  EXPECT_FALSE(f->params[0].buffer.same_as(a.buffer()));
  EXPECT_TRUE(StructuralEqual(f, g));
  // A function verifies on its own; two in one module do too.
  EXPECT_TRUE(VerifyModule(MakeIRModule({{"f", f}, {"g", g}})).ok());
}

TEST(TeBlockFormTest, RepeatedComputeNamesGetSuffixedBlocks) {
  Tensor a = Input("A", {3});
  Tensor b = Must(Compute({3}, [&](Var i) { return a(i) + 1.0; }, "T"));
  Tensor c = Must(Compute({3}, [&](Var i) { return b(i) + 1.0; }, "T"));
  PrimFunc f = Must(CreatePrimFunc({a, c}));
  auto blocks = Blocks(f);
  EXPECT_TRUE(blocks.contains("T"));
  EXPECT_TRUE(blocks.contains("T_1"));
  TeRun r = MustRun({a, c});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return r.At(0, i) + 2.0; });
}

TEST(TeRegionTest, AccessesDifferingByConstantsShareOneSpan) {
  Tensor a = Input("A", {8});
  Tensor b = Must(Compute({5}, [&](Var i) { return a(i + 1) + a(i + 3) + a(i); }, "B"));
  PrimFunc f = Must(CreatePrimFunc({a, b}));
  const BlockNode* blk = Blocks(f)["B"];
  ASSERT_EQ(blk->reads.size(), 1u);
  EXPECT_EQ(Region(blk->reads[0]), "A[vi0:4]");
  TeRun r = MustRun({a, b});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    return r.At(0, {i[0] + 1}) + r.At(0, {i[0] + 3}) + r.At(0, {i[0]});
  });
}

TEST(TeRegionTest, UnrelatedAccessesCoverTheWholeDimension) {
  Tensor a = Input("A", {4, 4});
  Tensor b = Must(Compute({4, 4}, [&](Var i, Var j) { return a(i, j) + a(j, i); }, "B"));
  PrimFunc f = Must(CreatePrimFunc({a, b}));
  const BlockNode* blk = Blocks(f)["B"];
  ASSERT_EQ(blk->reads.size(), 1u);
  EXPECT_EQ(Region(blk->reads[0]), "A[0:4, 0:4]");
  TeRun r = MustRun({a, b});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& ij) {
    return r.At(0, ij) + r.At(0, {ij[1], ij[0]});
  });
}

// Sum, prod, max and min over rows, with the identity each init stores.
struct BuiltinCase {
  const char* name;
  ComputeBody (*reduce)(Expr, std::vector<IterVar>, Expr);
  DataType dtype;
  const char* init;
};

TEST(TeReductionTest, BuiltinReducersStoreTheirIdentityAndReduce) {
  const DataType i8 = DataType::Int(8), u8 = DataType::UInt(8);
  const BuiltinCase cases[] = {
      {"sum", &ReduceSum, kF32, "0.0f32"},   {"prod", &ReduceProd, kF32, "1.0f32"},
      {"max", &ReduceMax, kF32, "-inf_f32"}, {"min", &ReduceMin, kF32, "inf_f32"},
      {"max", &ReduceMax, kI32, "-2147483648"}, {"min", &ReduceMin, i8, "127i8"},
      {"max", &ReduceMax, u8, "0u8"},        {"min", &ReduceMin, u8, "255u8"},
      {"sum", &ReduceSum, i8, "0i8"},
  };
  for (const BuiltinCase& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " " + c.dtype.ToString());
    Tensor a = Input("A", {3, 7}, c.dtype);
    IterVar k = ReduceAxis(7, "k");
    Tensor r = Must(Compute({3}, [&](Var i) { return c.reduce(a(i, k.var), {k}, nullptr); }, "R"));
    PrimFunc f = Must(CreatePrimFunc({a, r}));
    const BlockNode* blk = Blocks(f)["R"];
    EXPECT_THAT(PrintStmt(blk->init), HasSubstr(c.init));
    TeRun run = MustRun({a, r}, 3, {}, [&](std::vector<Arg>& args) {
      HostBuffer& x = std::get<HostBuffer>(args[0]);
      // Unsigned inputs small and non-negative; products of values near 1.
      if (c.dtype == u8) {
        for (int64_t e = 0; e < x.size(); ++e) x.SetInt(e, e % 5);
      }
      if (std::string(c.name) == "prod") {
        for (int64_t e = 0; e < x.size(); ++e) x.SetFloat(e, 1 + (e % 3) * 0.25);
      }
    });
    ExpectAll(run, 1, [&](const std::vector<int64_t>& i) {
      std::string n = c.name;
      double acc = n == "sum" ? 0 : n == "prod" ? 1 : run.At(0, {i[0], 0});
      for (int64_t k = n == "sum" || n == "prod" ? 0 : 1; k < 7; ++k) {
        double v = run.At(0, {i[0], k});
        acc = n == "sum" ? acc + v : n == "prod" ? acc * v : n == "max" ? std::max(acc, v) : std::min(acc, v);
      }
      return acc;
    }, 1e-5);
  }
}

// The far ends of a type are the identities of max and min; a type without
// them is an error to report, not a crash (a user reducer may ask for any).
TEST(TeReductionTest, MinAndMaxValueRefuseATypeWithoutExtremes) {
  EXPECT_EQ(PrintExpr(Must(MinValue(DataType::Int(8)))), "-128i8");
  EXPECT_EQ(PrintExpr(Must(MaxValue(DataType::UInt(8)))), "255u8");
  EXPECT_EQ(PrintExpr(Must(MaxValue(DataType::UInt(64)))), PrintExpr(IntImm(DataType::UInt(64), -1)));
  EXPECT_EQ(PrintExpr(Must(MinValue(kF32))), "-inf_f32");
  EXPECT_EQ(PrintExpr(Must(MaxValue(DataType::Bool()))), "true");
  for (DataType t : {DataType::Handle(), DataType(), DataType::Float(32, 4), DataType::Int(32, 8)}) {
    SCOPED_TRACE(t.ToString());
    absl::StatusOr<Expr> lo = MinValue(t), hi = MaxValue(t);
    ASSERT_FALSE(lo.ok());
    ASSERT_FALSE(hi.ok());
    EXPECT_THAT(std::string(lo.status().message()),
                HasSubstr("MinValue: type " + t.ToString() + " has no lowest value"));
    EXPECT_THAT(std::string(hi.status().message()),
                HasSubstr("MaxValue: type " + t.ToString() + " has no highest value"));
  }
}

TEST(TeReductionTest, ConditionGuardsTheUpdateAndRangesStartAnywhere) {
  Tensor a = Input("A", {5, 6});
  IterVar k = ReduceAxis(6, "k");
  // Lower-triangular row sums: only k <= i contributes.
  Tensor tri = Must(Compute({5}, [&](Var i) { return ReduceSum(a(i, k.var), {k}, LE(k.var, i)); }, "tri"));
  IterVar r = ReduceAxis(2, 5, "r");
  Tensor mid = Must(Compute({5}, [&](Var i) { return ReduceMax(a(i, r.var), {r}); }, "mid"));
  PrimFunc f = Must(CreatePrimFunc({a, tri, mid}));
  auto blocks = Blocks(f);
  EXPECT_EQ(blocks["tri"]->body->kind(), NodeKind::kIfThenElse);
  EXPECT_EQ(PrintExpr(blocks["mid"]->iter_vars[1].dom.min), "2");
  EXPECT_EQ(PrintExpr(blocks["mid"]->iter_vars[1].dom.extent), "3");
  TeRun run = MustRun({a, tri, mid});
  ExpectAll(run, 1, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t c = 0; c <= std::min<int64_t>(i[0], 5); ++c) s += run.At(0, {i[0], c});
    return s;
  });
  ExpectAll(run, 2, [&](const std::vector<int64_t>& i) {
    return std::max({run.At(0, {i[0], 2}), run.At(0, {i[0], 3}), run.At(0, {i[0], 4})});
  });
}

CommReducer ArgMaxReducer() {
  return Must(MakeCommReducer(
      "argmax", {kI32, kF32},
      [](const std::vector<Var>& acc, const std::vector<Var>& x) {
        Expr take = GT(x[1], acc[1]);
        return std::vector<Expr>{Select(take, x[0], acc[0]), Select(take, x[1], acc[1])};
      },
      {IntImm32(-1), Must(MinValue(kF32))}));
}

TEST(TeReductionTest, UserReducerComputesArgmaxAsTwoOutputsOfOneBlock) {
  Tensor a = Input("A", {4, 9});
  IterVar k = ReduceAxis(9, "k");
  CommReducer argmax = ArgMaxReducer();
  std::vector<Tensor> outs = Must(ComputeMulti(
      {4}, [&](Var i) { return Reduce(argmax, {k.var, a(i, k.var)}, {k}); }, "argmax",
      {.output_names = {"idx", "val"}}));
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].dtype(), kI32);
  EXPECT_EQ(outs[1].name(), "val");
  PrimFunc f = Must(CreatePrimFunc({a, outs[0], outs[1]}));
  const BlockNode* blk = Blocks(f)["argmax"];
  EXPECT_EQ(blk->writes.size(), 2u);
  // New values are bound by lets before either output is stored.
  EXPECT_EQ(blk->body->kind(), NodeKind::kLetStmt);
  TeRun run = MustRun({a, outs[0], outs[1]}, 5, {}, [](std::vector<Arg>& args) {
    HostBuffer& x = std::get<HostBuffer>(args[0]);
    x.SetFloat(Flat({4, 9}, {2, 3}), 5.0);  // Ties: the first index wins.
    x.SetFloat(Flat({4, 9}, {2, 7}), 5.0);
  });
  for (int64_t i = 0; i < 4; ++i) {
    int64_t best = 0;
    for (int64_t c = 1; c < 9; ++c) {
      if (run.At(0, {i, c}) > run.At(0, {i, best})) best = c;
    }
    EXPECT_EQ(run.IntAt(1, {i}), best) << "row " << i;
    EXPECT_EQ(run.At(2, {i}), run.At(0, {i, best}));
  }
  EXPECT_EQ(run.IntAt(1, {2}), 3);
}

TEST(TeComputeTest, TupleBodyWritesSeveralOutputsFromOneBlock) {
  Tensor a = Input("A", {3}), b = Input("B", {3});
  std::vector<Tensor> outs = Must(ComputeMulti(
      {3}, [&](Var i) { return ComputeBody::Tuple({a(i) + b(i), a(i) - b(i)}); }, "sd"));
  EXPECT_EQ(outs[0].name(), "sd_0");
  EXPECT_EQ(outs[1].name(), "sd_1");
  TeRun r = MustRun({a, b, outs[0], outs[1]});
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return r.At(0, i) + r.At(1, i); });
  ExpectAll(r, 3, [&](const std::vector<int64_t>& i) { return r.At(0, i) - r.At(1, i); });
  // Passing one output allocates the other.
  PrimFunc f = Must(CreatePrimFunc({a, b, outs[1]}));
  const auto* root = dyn_cast<BlockRealizeNode>(f->body);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block->alloc_buffers[0]->name, "sd_0");
}

TEST(TeSymbolicTest, SizeVariablesBecomeSymbolicParameterShapes) {
  Var n = SizeVar("n");
  Tensor a = Input("A", {n, 4});
  IterVar k = ReduceAxis(n, "k");
  Tensor col = Must(Compute({4}, [&](Var j) { return ReduceSum(a(k.var, j), {k}); }, "col"));
  Tensor b = Must(Compute({n, 4}, [&](Var i, Var j) { return a(i, j) - col(j); }, "B"));
  PrimFunc f = Must(CreatePrimFunc({a, b}));
  EXPECT_EQ(PrintExpr(f->params[0].buffer->shape[0]), "n");
  EXPECT_FALSE(f->params[0].buffer->shape[0].same_as(n));  // A fresh n for the function.
  EXPECT_TRUE(f->params[0].buffer->shape[0].same_as(f->params[1].buffer->shape[0]));
  for (int64_t rows : {1, 3, 6}) {
    TeRun r = MustRun({a, b}, 7, {{"n", rows}});
    ExpectAll(r, 1, [&](const std::vector<int64_t>& ij) {
      double s = 0;
      for (int64_t i = 0; i < rows; ++i) s += r.At(0, {i, ij[1]});
      return r.At(0, ij) - s;
    });
  }
}

TEST(TeSymbolicTest, ScalarParametersArePassedAsVars) {
  Var alpha = MakeVar("alpha", kF32);
  Tensor a = Input("A", {5});
  Tensor b = Must(Compute({5}, [&](Var i) { return a(i) * alpha; }, "B"));
  PrimFunc f = Must(CreatePrimFunc({a, alpha, b}));
  EXPECT_FALSE(f->params[1].is_buffer());
  TeRun r = MustRun({a, alpha, b});
  double s = std::get<double>(r.args[1]);
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return r.At(0, i) * s; });
}

}  // namespace
}  // namespace tessel::ir::te
