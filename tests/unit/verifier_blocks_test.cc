// Units for the IR verifier (ir/verifier.h), part two: the rules on blocks,
// loops and expressions, each broken once with the message checked to name the
// offending block, iter var, loop or node (part one is verifier_test.cc).
//
//   for i in range(0, 130) { block C(vi: spatial[0, 128] = i) ... }
//   -> "block 'C': iter var 'vi' is bound to loop 'i' over [0, 130), outside its domain [0, 128)"
//
// Invalid IR that the checked factories would refuse is built with MakeNode.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/function.h"
#include "ir/verifier.h"
#include "tests/unit/verifier_test_util.h"

namespace tessel::ir::verifier_test {
namespace {

using ::testing::HasSubstr;

// ---- Blocks ------------------------------------------------------------------------------

TEST(VerifierTest, RejectsDuplicateBlockNames) {
  Matmul mm;
  Var i2 = MakeVar("i2", kI32), w = MakeVar("w", kI32);
  Block other = SimpleBlock("C", {Iter(w, 128)}, Store(mm.c, FloatImm(kF32, 0.0), {w, IntImm32(0)}));
  Stmt body = Seq({mm.Nest(Realize({mm.i, mm.j, mm.k}, mm.MakeBlockC(mm.Update(mm.vi)))),
                   For(i2, IntImm32(0), IntImm32(128), Realize({i2}, other))});
  std::string msg = Error(Func({mm.a, mm.b, mm.c}, body));
  EXPECT_THAT(msg, HasSubstr("block 'C': another block of this function is also named 'C'"));
}

TEST(VerifierTest, RejectsAnIterValueCountMismatch) {
  Matmul mm;
  Stmt realize = Stmt(MakeNode<BlockRealizeNode>(std::vector<Expr>{mm.i, mm.j}, Bool(true),
                                                 mm.MakeBlockC(mm.Update(mm.vi))));
  EXPECT_THAT(Error(Func({mm.a, mm.b, mm.c}, mm.Nest(realize))),
              HasSubstr("BlockRealize of 'C': 2 values for 3 iter vars"));
}

TEST(VerifierTest, RejectsABlockRealizeWithoutPredicate) {
  Matmul mm;
  Stmt realize = Stmt(MakeNode<BlockRealizeNode>(std::vector<Expr>{mm.i, mm.j, mm.k}, nullptr,
                                                 mm.MakeBlockC(mm.Update(mm.vi))));
  EXPECT_THAT(Error(Func({mm.a, mm.b, mm.c}, mm.Nest(realize))),
              HasSubstr("BlockRealize of 'C': predicate is missing"));
}

TEST(VerifierTest, RejectsAStandaloneBlock) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Block blk = SimpleBlock("lonely", {}, Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}));
  EXPECT_THAT(Error(Func({a}, blk)), HasSubstr("block 'lonely' stands alone"));
}

TEST(VerifierTest, RejectsASpatialBindingThatReadsABuffer) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Buffer idx = MakeBuffer("idx", kI32, {IntImm32(16)});
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("G", {Iter(vi, 16)}, Store(a, FloatImm(kF32, 0.0), {vi}));
  Stmt body = For(i, IntImm32(0), IntImm32(16), Realize({Load(idx, {i})}, blk));
  std::string msg = Error(Func({a, idx}, body));
  EXPECT_THAT(msg, HasSubstr("block 'G': iter var 'vi' is spatial but its binding reads buffer 'idx'"));
}

TEST(VerifierTest, RejectsAReduceBindingThatUsesALetVar) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Var i = MakeVar("i", kI32), t = MakeVar("t", kI32), vk = MakeVar("vk", kI32);
  Block blk = SimpleBlock("R", {Iter(vk, 16, IterKind::kReduce)},
                          Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}));
  Stmt body = For(i, IntImm32(0), IntImm32(16),
                  ValueOrDie(MakeLetStmt(t, Add(i, IntImm32(0)), Realize({t}, blk))));
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("iter var 'vk' is reduce but its binding uses 't', which is bound by a let"));
}

TEST(VerifierTest, RejectsASpatialBindingThatCallsAnExternFunction) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Expr call = ValueOrDie(MakeCall(kI32, CallNode::Callee::kExtern, "pick", {i}));
  Block blk = SimpleBlock("X", {Iter(vi, 16)}, Store(a, FloatImm(kF32, 0.0), {vi}));
  Stmt body = For(i, IntImm32(0), IntImm32(16), Realize({call}, blk));
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("iter var 'vi' is spatial but its binding calls 'pick'"));
}

TEST(VerifierTest, RejectsBindingsOutsideTheDomain) {
  Matmul mm;
  Block blk = mm.MakeBlockC(mm.Update(mm.vi));
  Stmt constant = For(mm.j, IntImm32(0), IntImm32(128),
                      For(mm.k, IntImm32(0), IntImm32(128), Realize({IntImm32(200), mm.j, mm.k}, blk)));
  EXPECT_THAT(Error(Func({mm.a, mm.b, mm.c}, constant)),
              HasSubstr("block 'C': iter var 'vi' is bound to 200, outside its domain [0, 128)"));

  Matmul m2;
  Stmt wide = For(m2.i, IntImm32(0), IntImm32(130),
                  For(m2.j, IntImm32(0), IntImm32(128),
                      For(m2.k, IntImm32(0), IntImm32(128),
                          Realize({m2.i, m2.j, m2.k}, m2.MakeBlockC(m2.Update(m2.vi))))));
  EXPECT_THAT(Error(Func({m2.a, m2.b, m2.c}, wide)),
              HasSubstr("iter var 'vi' is bound to loop 'i' over [0, 130), outside its domain [0, 128)"));

  // Guarded by a predicate, the same loop is legal (the non-divisible split pattern).
  Matmul m3;
  Stmt guarded = For(m3.i, IntImm32(0), IntImm32(130),
                     For(m3.j, IntImm32(0), IntImm32(128),
                         For(m3.k, IntImm32(0), IntImm32(128),
                             Realize({m3.i, m3.j, m3.k}, m3.MakeBlockC(m3.Update(m3.vi)),
                                     LT(m3.i, IntImm32(128))))));
  PrimFunc ok = Func({m3.a, m3.b, m3.c}, guarded);
  EXPECT_TRUE(VerifyFunction(ok).ok()) << Error(ok);
}

TEST(VerifierTest, RejectsInitWithoutAReduceIterVar) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("S", {Iter(vi, 8)}, Store(a, FloatImm(kF32, 1.0), {vi}), {}, {},
                          Store(a, FloatImm(kF32, 0.0), {vi}));
  EXPECT_THAT(Error(Func({a}, For(i, IntImm32(0), IntImm32(8), Realize({i}, blk)))),
              HasSubstr("block 'S': the block has an init but no reduce iter var"));
}

TEST(VerifierTest, RejectsRegionsOutsideTheBuffer) {
  Matmul mm;
  Block blk = SimpleBlock(
      "C", {Iter(mm.vi, 128), Iter(mm.vj, 128), Iter(mm.vk, 128, IterKind::kReduce)},
      mm.Update(mm.vi), {}, {BufferRegion{mm.c, {Range{IntImm32(0), IntImm32(130)}, Range{mm.vj, IntImm32(1)}}}});
  EXPECT_THAT(Error(Func({mm.a, mm.b, mm.c}, mm.Nest(Realize({mm.i, mm.j, mm.k}, blk)))),
              HasSubstr("write region of buffer 'C' covers [0, 130) in dimension 0, outside the "
                        "buffer's [0, 128)"));
  Matmul m2;
  Block neg = SimpleBlock(
      "C", {Iter(m2.vi, 128), Iter(m2.vj, 128), Iter(m2.vk, 128, IterKind::kReduce)},
      m2.Update(m2.vi), {BufferRegion{m2.a, {Range{m2.vi, IntImm32(-1)}, Range{m2.vk, IntImm32(1)}}}});
  EXPECT_THAT(Error(Func({m2.a, m2.b, m2.c}, m2.Nest(Realize({m2.i, m2.j, m2.k}, neg)))),
              HasSubstr("read region of buffer 'A' has negative extent -1 in dimension 0"));
}

TEST(VerifierTest, RejectsARegionOfTheWrongRankOrAnUnboundBuffer) {
  Matmul mm;
  auto n = MakeNode<BlockNode>(*mm.MakeBlockC(mm.Update(mm.vi)));
  n->reads = {BufferRegion{mm.a, {Range{mm.vi, IntImm32(1)}}}};
  EXPECT_THAT(Error(Func({mm.a, mm.b, mm.c}, mm.Nest(Realize({mm.i, mm.j, mm.k}, Block(std::move(n)))))),
              HasSubstr("region of buffer 'A' has 1 ranges but the buffer has rank 2"));

  Matmul m2;
  Buffer t = MakeBuffer("T", kF32, {IntImm32(4)});
  auto m = MakeNode<BlockNode>(*m2.MakeBlockC(m2.Update(m2.vi)));
  m->reads = {PointRegion(t, {IntImm32(0)})};
  EXPECT_THAT(Error(Func({m2.a, m2.b, m2.c}, m2.Nest(Realize({m2.i, m2.j, m2.k}, Block(std::move(m)))))),
              HasSubstr("the read region uses buffer 'T', which is not bound"));
}

TEST(VerifierTest, RejectsANegativeIterDomain) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("D", {IterVar{vi, Range{IntImm32(0), IntImm32(-4)}, IterKind::kOpaque}},
                          ValueOrDie(MakeEvaluate(IntImm32(0))));
  EXPECT_THAT(Error(Func({a}, Realize({IntImm32(0)}, blk))),
              HasSubstr("block 'D': iter var 'vi' has negative domain extent -4"));
}

TEST(VerifierTest, RejectsAnIterVarBoundTwice) {
  // Two blocks sharing one iter var object.
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block b1 = SimpleBlock("B1", {Iter(vi, 8)}, Store(a, FloatImm(kF32, 0.0), {vi}), {},
                         {PointRegion(a, {vi})});
  Block b2 = SimpleBlock("B2", {Iter(vi, 8)}, Store(a, FloatImm(kF32, 1.0), {vi}), {},
                         {PointRegion(a, {vi})});
  Stmt body = For(i, IntImm32(0), IntImm32(8), Seq({Realize({i}, b1), Realize({i}, b2)}));
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("block 'B2': variable 'vi' is bound by a block iter var here and already by "
                        "a block iter var elsewhere"));
}

// ---- Loops -------------------------------------------------------------------------------

TEST(VerifierTest, RejectsANegativeLoopExtent) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32);
  EXPECT_THAT(Error(Func({a}, For(i, IntImm32(0), IntImm32(-1), Store(a, FloatImm(kF32, 0.0), {i})))),
              HasSubstr("loop 'i' has negative extent -1"));
}

TEST(VerifierTest, RejectsAnUnknownThreadTag) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var t = MakeVar("t", kI32);
  Stmt loop = ValueOrDie(MakeFor(t, IntImm32(0), IntImm32(8), ForKind::kThreadBinding,
                                 Store(a, FloatImm(kF32, 0.0), {t}), "threadIdx.w"));
  std::string msg = Error(Func({a}, loop));
  EXPECT_THAT(msg, HasSubstr("loop 't' is bound to unknown thread tag 'threadIdx.w'"));
  EXPECT_THAT(msg, HasSubstr("threadIdx.x"));  // The known tags are listed.
}

TEST(VerifierTest, RejectsNestedLoopsBoundToOneThreadIndex) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8), IntImm32(8)});
  Var t = MakeVar("t", kI32), u = MakeVar("u", kI32);
  Stmt inner = ValueOrDie(MakeFor(u, IntImm32(0), IntImm32(8), ForKind::kThreadBinding,
                                  Store(a, FloatImm(kF32, 0.0), {t, u}), "threadIdx.x"));
  Stmt outer = ValueOrDie(
      MakeFor(t, IntImm32(0), IntImm32(8), ForKind::kThreadBinding, inner, "threadIdx.x"));
  EXPECT_THAT(Error(Func({a}, outer)),
              HasSubstr("loop 'u' is bound to threadIdx.x inside loop 't', which is bound to it"));
}

TEST(VerifierTest, RejectsAVectorizedLoopOfSymbolicExtent) {
  Var n = MakeVar("n", kI32);
  Buffer a = MakeBuffer("A", kF32, {n});
  Var i = MakeVar("i", kI32);
  Stmt loop = For(i, IntImm32(0), n, Store(a, FloatImm(kF32, 0.0), {i}), ForKind::kVectorized);
  EXPECT_THAT(Error(Func({a}, loop)),
              HasSubstr("loop 'i' is vectorized but its extent is not a constant"));
}

TEST(VerifierTest, RejectsALoopWhoseBoundsHaveAnotherType) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32);
  Stmt loop = ForNodeWith(i, IntImm(DataType::Int(64), 0), IntImm32(8), ForKind::kSerial, "",
                          Store(a, FloatImm(kF32, 0.0), {i}));
  EXPECT_THAT(Error(Func({a}, loop)),
              HasSubstr("For 'i': min and extent must have the loop variable's type i32"));
  Stmt tagged = ForNodeWith(i, IntImm32(0), IntImm32(8), ForKind::kSerial, "threadIdx.x",
                            Store(a, FloatImm(kF32, 0.0), {i}));
  EXPECT_THAT(Error(Func({a}, tagged)), HasSubstr("For 'i': a thread tag is required"));
}

// ---- Expressions -------------------------------------------------------------------------

TEST(VerifierTest, RejectsBinaryOperandsOfDifferentTypes) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Expr bad = Expr(MakeNode<BinaryNode>(NodeKind::kAdd, kF32, FloatImm(kF32, 1.0), IntImm32(1)));
  std::string msg = Error(Func({a}, Store(a, bad, {IntImm32(0)})));
  EXPECT_THAT(msg, HasSubstr("Add: operand types differ (f32 vs i32)"));
  EXPECT_THAT(msg, HasSubstr("in expression: "));
}

TEST(VerifierTest, RejectsANodeWhoseTypeDisagreesWithItsOperands) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Expr bad = Expr(MakeNode<BinaryNode>(NodeKind::kLT, kI32, IntImm32(1), IntImm32(2)));
  EXPECT_THAT(Error(Func({a}, Store(a, bad, {IntImm32(0)}))),
              HasSubstr("LT has type i32 but its operands make it bool"));
}

TEST(VerifierTest, RejectsANonBoolCondition) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Stmt body = Stmt(MakeNode<IfThenElseNode>(IntImm32(1), Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}),
                                            nullptr));
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("IfThenElse: condition must be a scalar bool, not i32"));
  Expr sel = Expr(MakeNode<SelectNode>(kF32, FloatImm(kF32, 1.0), FloatImm(kF32, 1.0),
                                       FloatImm(kF32, 2.0)));
  EXPECT_THAT(Error(Func({a}, Store(a, sel, {IntImm32(0)}))),
              HasSubstr("Select: condition must be a scalar bool, not f32"));
}

TEST(VerifierTest, RejectsInconsistentVectorLanes) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(64)});
  Expr ramp = Expr(MakeNode<RampNode>(DataType::Int(32, 4), IntImm32(0), IntImm32(1), 8));
  EXPECT_THAT(Error(Func({a}, ValueOrDie(MakeEvaluate(ramp)))),
              HasSubstr("Ramp has type i32x4 but its operands make it i32x8"));
  Expr bc = Expr(MakeNode<BroadcastNode>(DataType::Int(32, 2), IntImm32(3), 4));
  EXPECT_THAT(Error(Func({a}, ValueOrDie(MakeEvaluate(bc)))),
              HasSubstr("Broadcast has type i32x2 but its operands make it i32x4"));
  Expr one_lane = Expr(MakeNode<RampNode>(DataType::Int(32, 1), IntImm32(0), IntImm32(1), 1));
  EXPECT_THAT(Error(Func({a}, ValueOrDie(MakeEvaluate(one_lane)))),
              HasSubstr("Ramp: lanes must be 2..65535, not 1"));
}

TEST(VerifierTest, RejectsMissingOperandsWithoutCrashing) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Expr bad = Expr(MakeNode<BinaryNode>(NodeKind::kAdd, kI32, IntImm32(1), nullptr));
  std::string msg = Error(Func({a}, Store(a, bad, {IntImm32(0)})));
  EXPECT_THAT(msg, HasSubstr("Add: operand 'b' is missing"));
  EXPECT_THAT(msg, HasSubstr("<Add with missing operands>"));

  Stmt no_body = ForNodeWith(MakeVar("i", kI32), IntImm32(0), IntImm32(8), ForKind::kSerial, "",
                             nullptr);
  EXPECT_THAT(Error(Func({a}, no_body)), HasSubstr("For: 'body' is missing"));
  Stmt seq = Stmt(MakeNode<SeqStmtNode>(std::vector<Stmt>{nullptr}));
  EXPECT_THAT(Error(Func({a}, seq)), HasSubstr("SeqStmt: 'element' is missing"));
}

TEST(VerifierTest, RejectsConstantsTheTypeCannotHold) {
  Buffer a = MakeBuffer("A", DataType::Float(16), {IntImm32(8)});
  Expr inexact = Expr(MakeNode<FloatImmNode>(DataType::Float(16), 0.1));
  EXPECT_THAT(Error(Func({a}, Store(a, inexact, {IntImm32(0)}))),
              HasSubstr("FloatImm: value 0.1 is not exactly representable in f16"));
  Buffer b = MakeBuffer("B", DataType::UInt(8), {IntImm32(8)});
  Expr big = Expr(MakeNode<IntImmNode>(DataType::UInt(8), 300));
  EXPECT_THAT(Error(Func({b}, Store(b, big, {IntImm32(0)}))),
              HasSubstr("IntImm: value 300 does not fit in type u8"));
}

TEST(VerifierTest, RejectsAnUnknownIntrinsic) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Expr call = Expr(MakeNode<CallNode>(kF32, CallNode::Callee::kIntrinsic, "expp",
                                      std::vector<Expr>{FloatImm(kF32, 1.0)}));
  EXPECT_THAT(Error(Func({a}, Store(a, call, {IntImm32(0)}))),
              HasSubstr("Call: unknown intrinsic 'expp'"));
}


}  // namespace
}  // namespace tessel::ir::verifier_test
