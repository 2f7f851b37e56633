// blockize: before/after IR, the interpreter on random inputs (te matmul and
// conv2d, odd sizes), and one negative test per rule (the message, and the
// schedule left unchanged).
#include "ir/te/ops/nn/conv2d.h"
#include "tests/unit/schedule_te_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr const char* kScale = R"(
func @scale(A: f32[128, 64], B: f32[128, 64]) {
  for i_0 in range(0, 8) {
    for j in range(0, 64) {
      for i_1 in range(0, 16) {
        block B(vi: spatial[0, 128] = i_0 * 16 + i_1, vj: spatial[0, 64] = j) {
          reads(A[vi, vj])
          writes(B[vi, vj])
          B[vi, vj] = A[vi, vj] * 2.0f32
        }
      }
    }
  }
})";

TEST(ScheduleBlockize, OuterBlockTakesTheOuterPartsOfTheBindings) {
  Schedule sch = MustSchedule(kScale);
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  BlockRV outer = Must(sch.Blockize(l[2]));
  ExpectFunc(sch, R"(
func @scale(A: f32[128, 64], B: f32[128, 64]) {
  for i_0 in range(0, 8) {
    for j in range(0, 64) {
      block B_o(vi_o: spatial[0, 8] = i_0, vj_o: spatial[0, 64] = j) {
        reads(A[vi_o * 16 +: 16, vj_o])
        writes(B[vi_o * 16 +: 16, vj_o])
        for i_1 in range(0, 16) {
          block B(vi: spatial[0, 128] = vi_o * 16 + i_1, vj: spatial[0, 64] = vj_o) {
            reads(A[vi, vj])
            writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * 2.0f32
          }
        }
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(outer))->name, "B_o");
  // The inner block and the loops keep their handles.
  EXPECT_EQ(Must(sch.Get(l[2]))->loop_var->name, "i_1");
  EXPECT_EQ(sch.trace().instructions().back().ToPython(), "b4 = sch.blockize(loop=l3)");
  // Blockizing the whole nest: no outer loops, a block without iter vars
  // above would be pointless, but it is allowed and keeps the results.
  Must(sch.Blockize(l[0]));
  ExpectSameResults(original, sch);
}

// A padded max pool reads x under an `if` (the window hangs over the edge):
// the read region declared inside, relaxed over the inner loops, would start
// at row -1; the outer block's region is clipped to x's shape.
TEST(ScheduleBlockize, GuardedReadRegionIsClippedToTheBuffer) {
  Schedule sch = MustSchedule(R"(
func @pool2d(x: f32[1, 3, 7, 3], y: f32[1, 3, 4, 2]) {
  for i0 in range(0, 1) {
    for i1 in range(0, 3) {
      for i2 in range(0, 4) {
        for i3 in range(0, 2) {
          for rh in range(0, 3) {
            for rw in range(0, 3) {
              block y(vi0: spatial[0, 1] = i0, vi1: spatial[0, 3] = i1, vi2: spatial[0, 4] = i2, vi3: spatial[0, 2] = i3, vrh: reduce[0, 3] = rh, vrw: reduce[0, 3] = rw) {
                reads(x[vi0, vi1, vi2 * 2 - 1 + vrh, vi3 * 2 - 1 + vrw])
                writes(y[vi0, vi1, vi2, vi3])
                init {
                  y[vi0, vi1, vi2, vi3] = -inf_f32
                }
                if vi2 * 2 - 1 + vrh >= 0 && vi2 * 2 - 1 + vrh < 7 && (vi3 * 2 - 1 + vrw >= 0 && vi3 * 2 - 1 + vrw < 3) {
                  y[vi0, vi1, vi2, vi3] = max(y[vi0, vi1, vi2, vi3], x[vi0, vi1, vi2 * 2 - 1 + vrh, vi3 * 2 - 1 + vrw])
                }
              }
            }
          }
        }
      }
    }
  }
})");
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("y"))));
  BlockRV outer = Must(sch.Blockize(l[0]));
  Block o = Must(sch.Get(outer));
  ASSERT_EQ(o->reads.size(), 1u);
  const BufferRegion& x = o->reads[0];
  ASSERT_EQ(x.region.size(), 4u);
  EXPECT_EQ(PrintExpr(x.region[2].min), "0");
  EXPECT_EQ(PrintExpr(x.region[2].extent), "7");
  EXPECT_EQ(PrintExpr(x.region[3].min), "0");
  EXPECT_EQ(PrintExpr(x.region[3].extent), "3");
  Must(VerifyFunction(sch.func(), sch.func_name()));
  // The printed result reads back.
  Must(ParseModule(PrintFunction(sch.func(), sch.func_name()), "<printed>"));
  ExpectSameResults(original, sch);
  // Blockizing the window loops (a symbolic region) keeps the results too.
  Schedule inner = MustSchedule(PrintFunction(original, "pool2d"));
  std::vector<LoopRV> il = Must(inner.GetLoops(Must(inner.GetBlock("y"))));
  Must(inner.Blockize(il[2]));
  Must(VerifyFunction(inner.func(), inner.func_name()));
  ExpectSameResults(original, inner);
}

// Splitting an extent of 2 by [1, 3] runs i_1 over [0, 3): the outer part of
// the blocked binding passes its domain [0, 2) (ceil(4 / 3)), so the outer
// block takes the predicate `i_1 < 2` and the result verifies.
TEST(ScheduleBlockize, OverSplitOuterPartIsPredicated) {
  Schedule sch = MustSchedule(FuncText(
      "f(x: f32[2, 4], y: f32[2, 4])",
      {StageText("y", {2, 4}, "x[vi, vj]", "y[vi, vj]", "y[vi, vj] = x[vi, vj] * 2.0f32")}));
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("y"));
  std::vector<LoopRV> l = Must(sch.GetLoops(b));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 3}));
  std::vector<LoopRV> j0 = Must(sch.Split(j[0], {1, 3}));
  BlockRV outer = Must(sch.Blockize(j[1]));
  Must(VerifyFunction(sch.func(), sch.func_name()));
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(outer))->name, "y_o");
}

TEST(ScheduleBlockize, ReductionSplitMovesTheInitToTheOuterBlock) {
  Schedule sch = TeMatmulSchedule(17, 31, 23);
  PrimFunc original = sch.func();
  BlockRV cb = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(cb));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {std::nullopt, 4}));  // 17: a predicate
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 16}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  BlockRV outer = Must(sch.Blockize(i[1]));
  Block o = Must(sch.Get(outer));
  ASSERT_EQ(o->iter_vars.size(), 3u);
  EXPECT_EQ(o->iter_vars[2].kind, IterKind::kReduce);
  ASSERT_TRUE(o->init);  // The init runs once per outer reduction, over the tile.
  Block inner = Must(sch.Get(cb));
  EXPECT_FALSE(inner->init);
  // Without its init the inner block declares the accumulator it loads; the
  // outer block, which has the init, leaves it implicit.
  ASSERT_FALSE(inner->reads.empty());
  EXPECT_EQ(inner->reads[0].buffer->name, "C");
  for (const BufferRegion& r : o->reads) EXPECT_NE(r.buffer->name, "C");
  Must(VerifyFunction(sch.func(), sch.func_name()));
  ExpectSameResults(original, sch);
}

TEST(ScheduleBlockize, WholeReductionInsideKeepsTheInitInside) {
  Schedule sch = TeMatmulSchedule(16, 32, 8);
  PrimFunc original = sch.func();
  BlockRV cb = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(cb));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 8}));
  BlockRV outer = Must(sch.Blockize(j[1]));
  Block o = Must(sch.Get(outer));
  EXPECT_FALSE(o->init);
  EXPECT_TRUE(Must(sch.Get(cb))->init);
  for (const IterVar& iv : o->iter_vars) EXPECT_EQ(iv.kind, IterKind::kSpatial);
  ExpectSameResults(original, sch);
}

TEST(ScheduleBlockize, Conv2dOddSizes) {
  te::Tensor data = Must(te::Placeholder({1, 3, 9, 7}, DataType::Float(32), "data"));
  te::Tensor kernel = Must(te::Placeholder({5, 3, 3, 3}, DataType::Float(32), "kernel"));
  te::Tensor out = Must(te::ops::Conv2D(data, kernel, {.padding = {1}}));
  Schedule sch = TeSchedule({data, kernel, out}, "conv");
  PrimFunc original = sch.func();
  BlockRV conv = Must(sch.GetBlock("conv2d"));
  std::vector<LoopRV> l = Must(sch.GetLoops(conv));
  ASSERT_EQ(l.size(), 7u);  // n, f, y, x, rc, ry, rx
  std::vector<LoopRV> x = Must(sch.Split(l[3], {std::nullopt, 4}));
  Must(sch.Reorder({x[0], l[4], l[5], l[6], x[1]}));
  Must(sch.Blockize(x[1]));
  ExpectSameResults(original, sch);
}

TEST(ScheduleBlockize, RuleOneBlockAndNothingElseBelow) {
  Schedule sch = MustSchedule(R"(
func @two(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block A(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(A[vi])
      A[vi] = A[vi] + 1.0f32
    }
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi]
    }
  }
})");
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i)); },
                       {"sch.blockize(loop=l1)", "is not a chain of loops ending in one block",
                        ">>   for i in range(0, 8) {"});
}

TEST(ScheduleBlockize, RuleBindingsDivide) {
  // i_1 steps by 2 in the binding: the inner part is not dense.
  Schedule sch =
      MustSchedule(InPlaceText("strided(A: f32[64])", {"i_0 in range(0, 2)", "i_1 in range(0, 16)"},
                               "B(vi: spatial[0, 64] = i_0 + i_1 * 2)", "vi"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i1)); },
                       {"cannot be divided into an outer and an inner part at loop i_1",
                        "inner loop i_1 has scale 2 where a dense inner part needs 1",
                        ">>       block B("});
  // A fused loop split inside: f // 4 splits the inner loop.
  Schedule fused = MustSchedule(InPlaceText(
      "fused(A: f32[8, 4])", {"f_0 in range(0, 4)", "f_1 in range(0, 8)"},
      "B(vi: spatial[0, 8] = (f_0 * 8 + f_1) // 4, vj: spatial[0, 4] = (f_0 * 8 + f_1) %% 4)",
      "vi, vj"));
  LoopRV f1 = Must(fused.GetLoops(Must(fused.GetBlock("B"))))[1];
  ExpectFailsUnchanged(fused, [&] { return StatusOf(fused.Blockize(f1)); },
                       {"splits an inner loop"});
}

TEST(ScheduleBlockize, RuleInnerLoopsInOneBinding) {
  Schedule sch =
      MustSchedule(InPlaceText("diag(A: f32[16, 16])", {"i in range(0, 16)"},
                               "B(vi: spatial[0, 16] = i, vj: spatial[0, 16] = i)", "vi, vj"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i)); },
                       {"inner loop i feeds two bindings of block B"});
}

TEST(ScheduleBlockize, RuleInnerBoundsDoNotUseOuterLoops) {
  Schedule sch = MustSchedule(TriangularText("tri"));
  LoopRV j = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(j)); },
                       {"the bounds of inner loop j use a loop above loop j"});
}

TEST(ScheduleBlockize, RulePredicateExpressibleByOuterIterVars) {
  // vi = i_0 * 32 + i_1: the outer part is i_0 * 2, so no outer iter var is
  // i_0 itself, and the predicate on i_0 * 16 + i_1 cannot be rewritten.
  Schedule sch = MustSchedule(
      InPlaceText("pred(A: f32[128])", {"i_0 in range(0, 4)", "i_1 in range(0, 16)"},
                  "B(vi: spatial[0, 128] = i_0 * 32 + i_1) where i_0 * 16 + i_1 < 50", "vi"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[1];
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Blockize(i1)); },
                       {"uses a loop above loop i_1 that no outer iter var stands for"});
}

TEST(ScheduleBlockize, ReplaysFromJson) {
  Schedule sch = MustSchedule(kScale);
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  Must(sch.Blockize(l[2]));
  Trace t = Must(Trace::FromJson(Must(sch.trace().ToJson())));
  Schedule again = MustSchedule(kScale);
  Must(t.ApplyToSchedule(&again));
  EXPECT_TRUE(StructuralEqual(again.func(), sch.func()));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
