// Units for the IR verifier (ir/verifier.h), part one: well-formed functions
// that must pass, and the rules on variables, buffers, functions and modules,
// each broken once with the message checked to name the offending thing.
// Blocks, loops and expressions are in verifier_blocks_test.cc.
//
//   PrimFunc f = Matmul().Good();                  // well formed
//   EXPECT_TRUE(VerifyFunction(f, "mm").ok());
//   // the same with the block reading loop var 'i' directly:
//   //   "verify: function 'mm': block 'C': variable 'i' is bound by a loop outside block 'C' ..."
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
using ::testing::StartsWith;

// ---- Well-formed functions ---------------------------------------------------------------

TEST(VerifierTest, AcceptsMatmulInBlockFormWithInit) {
  Matmul mm;
  EXPECT_TRUE(VerifyFunction(mm.Good(), "mm").ok()) << Error(mm.Good());
  EXPECT_TRUE(VerifyModule(MakeIRModule({{"mm", mm.Good()}})).ok());
}

TEST(VerifierTest, AcceptsNestedBlocksBoundThroughOuterIterVars) {
  // Outer block over 8 tiles; the inner block's binding uses the outer iter var
  // and a loop inside the outer block (the shape blockize produces).
  Buffer a = MakeBuffer("A", kF32, {IntImm32(128)});
  Var io = MakeVar("io", kI32), ii = MakeVar("ii", kI32);
  Var vo = MakeVar("vo", kI32), vi = MakeVar("vi", kI32);
  Block inner = SimpleBlock("inner", {Iter(vi, 128)}, Store(a, FloatImm(kF32, 1.0), {vi}), {},
                            {PointRegion(a, {vi})});
  Stmt inner_nest = For(ii, IntImm32(0), IntImm32(16),
                        Realize({Add(Mul(vo, IntImm32(16)), ii)}, inner));
  Block outer = SimpleBlock("outer", {Iter(vo, 8)}, inner_nest, {},
                            {BufferRegion{a, {Range{Mul(vo, IntImm32(16)), IntImm32(16)}}}});
  PrimFunc f = Func({a}, UnderRoot(For(io, IntImm32(0), IntImm32(8), Realize({io}, outer))));
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsLetsConditionalsAndSymbolicShapes) {
  // f(A: f32[n, m], B: f32[n], s: i32): for i in 0..n { let t = i * s; if t < m {...} }
  Var n = MakeVar("n", kI32), m = MakeVar("m", kI32), s = MakeVar("s", kI32);
  Buffer a = MakeBuffer("A", kF32, {n, m});
  Buffer b = MakeBuffer("B", kF32, {n});  // 'n' is shared by two shapes: defined once.
  Var i = MakeVar("i", kI32), t = MakeVar("t", kI32);
  Stmt body = ValueOrDie(MakeIfThenElse(LT(t, m), Store(b, Load(a, {i, t}), {i}),
                                        Store(b, FloatImm(kF32, 0.0), {i})));
  Stmt loop = For(i, IntImm32(0), n, ValueOrDie(MakeLetStmt(t, Mul(i, s), body)));
  PrimFunc f = Func({a, b}, loop, {s});
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsSymbolicStridesAndOffset) {
  Var n = MakeVar("n", kI32), st = MakeVar("stride", kI32), off = MakeVar("offset", kI32);
  Buffer a = ValueOrDie(MakeBufferChecked("A", kF32, {n}, {st}, off));
  Var i = MakeVar("i", kI32);
  PrimFunc f = Func({a}, For(i, IntImm32(0), n, Store(a, FloatImm(kF32, 0.0), {i})));
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsAllocateAndDeclBuffer) {
  // Allocate T[8, 8], view it as T_flat[64], use both.
  Buffer a = MakeBuffer("A", kF32, {IntImm32(64)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(8), IntImm32(8)}, "local");
  Buffer flat = MakeBuffer("T_flat", kF32, {IntImm32(64)}, "local");
  Var i = MakeVar("i", kI32);
  Stmt use = Seq({Store(t, FloatImm(kF32, 2.0), {IntImm32(7), IntImm32(7)}),
                  For(i, IntImm32(0), IntImm32(64), Store(a, Load(flat, {i}), {i}))});
  Stmt body = ValueOrDie(MakeAllocate(t, ValueOrDie(MakeDeclBuffer(flat, t, use))));
  PrimFunc f = Func({a}, body);
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsBlockAllocBuffers) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Buffer tmp = MakeBuffer("tmp", kF32, {IntImm32(16)}, "shared");
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("copy", {Iter(vi, 16)}, Store(a, Load(tmp, {vi}), {vi}),
                          {PointRegion(tmp, {vi})}, {PointRegion(a, {vi})});
  PrimFunc f = Func({a}, UnderRoot(For(i, IntImm32(0), IntImm32(16), Realize({i}, blk)), {tmp}));
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsVectorAndThreadCode) {
  // for bx in thread(blockIdx.x) 0..4 { for tx in thread(threadIdx.x) 0..4 {
  //   for v in vectorized 0..1 { A[ramp(base, 1, 8)] = B[ramp(base, 1, 8)] + broadcast(1, 8) } } }
  Buffer a = MakeBuffer("A", kF32, {IntImm32(128)});
  Buffer b = MakeBuffer("B", kF32, {IntImm32(128)});
  Var bx = MakeVar("bx", kI32), tx = MakeVar("tx", kI32), v = MakeVar("v", kI32);
  Expr base = Mul(Add(Mul(bx, IntImm32(4)), tx), IntImm32(8));
  Expr idx = Ramp(base, IntImm32(1), 8);
  Stmt store = Store(a, Add(Load(b, {idx}), Broadcast(FloatImm(kF32, 1.0), 8)), {idx});
  Stmt vec = For(v, IntImm32(0), IntImm32(1), store, ForKind::kVectorized);
  Stmt body = ValueOrDie(MakeFor(bx, IntImm32(0), IntImm32(4), ForKind::kThreadBinding,
                                 ValueOrDie(MakeFor(tx, IntImm32(0), IntImm32(4),
                                                    ForKind::kThreadBinding, vec, "threadIdx.x")),
                                 "blockIdx.x"));
  PrimFunc f = Func({a, b}, body);
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsZeroTripLoopsAndConstantInBoundsIndices) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(4)});
  Var i = MakeVar("i", kI32);
  Stmt body = Seq({For(i, IntImm32(0), IntImm32(0), Store(a, FloatImm(kF32, 0.0), {i})),
                   Store(a, FloatImm(kF32, 1.0), {IntImm32(3)}),
                   Store(a, Load(a, {IntImm32(0)}), {IntImm32(1)})});
  PrimFunc f = Func({a}, body);
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsOpaqueBlocksAndDataDependentOpaqueBindings) {
  // A block without iter vars is transparent to loop vars; an opaque iter var may
  // be bound to a load (a gather).
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Buffer idx = MakeBuffer("idx", kI32, {IntImm32(16)});
  Var i = MakeVar("i", kI32), vg = MakeVar("vg", kI32);
  Block opaque = SimpleBlock("touch", {}, Store(a, FloatImm(kF32, 0.0), {i}));
  Block gather = SimpleBlock("gather", {Iter(vg, 16, IterKind::kOpaque)},
                             Store(a, FloatImm(kF32, 1.0), {vg}), {}, {PointRegion(a, {vg})});
  Stmt body = For(i, IntImm32(0), IntImm32(16),
                  Seq({Realize({}, opaque), Realize({Load(idx, {i})}, gather)}));
  PrimFunc f = Func({a, idx}, body);
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

TEST(VerifierTest, AcceptsReduceBlockWithoutInit) {
  // After decompose-reduction the update block keeps its reduce iter var, without
  // init; it declares the accumulator it reads.
  Matmul mm;
  Block update = SimpleBlock(
      "C_update", {Iter(mm.vi, 128), Iter(mm.vj, 128), Iter(mm.vk, 128, IterKind::kReduce)},
      mm.Update(mm.vi),
      {PointRegion(mm.c, {mm.vi, mm.vj}), PointRegion(mm.a, {mm.vi, mm.vk}),
       PointRegion(mm.b, {mm.vk, mm.vj})},
      {PointRegion(mm.c, {mm.vi, mm.vj})});
  PrimFunc f = Func({mm.a, mm.b, mm.c}, mm.Nest(Realize({mm.i, mm.j, mm.k}, update)));
  EXPECT_TRUE(VerifyFunction(f).ok()) << Error(f);
}

// ---- Variables ---------------------------------------------------------------------------

TEST(VerifierTest, RejectsUndefinedVariable) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var x = MakeVar("x", kI32);
  std::string msg = Error(Func({a}, Store(a, FloatImm(kF32, 0.0), {x})));
  EXPECT_THAT(msg, StartsWith("verify: function 'f': "));
  EXPECT_THAT(msg, HasSubstr("variable 'x' is not defined here"));
  // The statement is quoted in .tsl text.
  EXPECT_THAT(msg, testing::EndsWith("\n  in statement: A[x] = 0.0f32"));
}

TEST(VerifierTest, RejectsUseBeforeTheLetThatBindsIt) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var x = MakeVar("x", kI32);
  Stmt body = Seq({Store(a, FloatImm(kF32, 0.0), {x}),
                   ValueOrDie(MakeLetStmt(x, IntImm32(1), Store(a, FloatImm(kF32, 1.0), {x})))});
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("variable 'x' is not defined here"));
}

TEST(VerifierTest, RejectsUseAfterTheScopeOfItsLet) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var x = MakeVar("x", kI32);
  Stmt body = Seq({ValueOrDie(MakeLetStmt(x, IntImm32(1), Store(a, FloatImm(kF32, 1.0), {x}))),
                   Store(a, FloatImm(kF32, 0.0), {x})});
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("variable 'x' is used outside the scope of a let that binds it"));
}

TEST(VerifierTest, RejectsOneVarBoundByTwoLoopsInDifferentSubtrees) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32);
  Stmt loop = For(i, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 0.0), {i}));
  Stmt again = For(i, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 1.0), {i}));
  std::string msg = Error(Func({a}, Seq({loop, again})));
  EXPECT_THAT(msg, HasSubstr("variable 'i' is bound by a loop here and already by a loop"));
  EXPECT_THAT(msg, HasSubstr("bound exactly once"));
}

TEST(VerifierTest, RejectsTheSameLoopObjectTwice) {
  // Sharing a subtree is sharing its bindings, which the SSA rule forbids too.
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32);
  Stmt loop = For(i, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 0.0), {i}));
  EXPECT_THAT(Error(Func({a}, Seq({loop, loop}))), HasSubstr("variable 'i' is bound by a loop here"));
}

TEST(VerifierTest, RejectsALoopVarRebindingAnEnclosingOne) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32);
  Stmt inner = For(i, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 0.0), {i}));
  std::string msg = Error(Func({a}, For(i, IntImm32(0), IntImm32(8), inner)));
  EXPECT_THAT(msg, HasSubstr("variable 'i' is bound by a loop inside the scope of a loop that "
                             "already binds it"));
  // A compound statement is quoted by its first line only.
  EXPECT_THAT(msg, HasSubstr("in statement: for i in range(0, 8) { ..."));
  EXPECT_THAT(msg, testing::Not(HasSubstr("A[i] = 0.0f32")));
}

TEST(VerifierTest, RejectsALoopRebindingAParameter) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var n = MakeVar("n", kI32);
  Stmt loop = For(n, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 0.0), {n}));
  EXPECT_THAT(Error(Func({a}, loop, {n})),
              HasSubstr("variable 'n' is bound by a loop inside the scope of a parameter"));
}

TEST(VerifierTest, RejectsALoopRebindingAShapeVariable) {
  Var n = MakeVar("n", kI32);
  Buffer a = MakeBuffer("A", kF32, {n});
  Stmt loop = For(n, IntImm32(0), IntImm32(8), Store(a, FloatImm(kF32, 0.0), {n}));
  EXPECT_THAT(Error(Func({a}, loop)),
              HasSubstr("variable 'n' is bound by a loop inside the scope of a parameter buffer's "
                        "shape"));
}

TEST(VerifierTest, RejectsAParameterListedTwice) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var n = MakeVar("n", kI32);
  EXPECT_THAT(Error(Func({a}, Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}), {n, n})),
              HasSubstr("variable 'n' is bound by a parameter inside the scope of a parameter"));
  EXPECT_THAT(Error(Func({a, a}, Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}))),
              HasSubstr("buffer 'A' is bound again by a parameter"));
}

TEST(VerifierTest, RejectsABlockReadingAnEnclosingLoopVar) {
  Matmul mm;
  // A[i, vk] instead of A[vi, vk]: the loop var reaches the block body directly.
  std::string msg = Msg(VerifyFunction(mm.Func(mm.Update(mm.i)), "mm"));
  EXPECT_THAT(msg, StartsWith("verify: function 'mm': block 'C': "));
  EXPECT_THAT(msg, HasSubstr("variable 'i' is bound by a loop outside block 'C'"));
  EXPECT_THAT(msg, HasSubstr("in expression: "));
}

TEST(VerifierTest, RejectsABlockReadingAnEnclosingLetVar) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var t = MakeVar("t", kI32), i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("B", {Iter(vi, 8)}, Store(a, t, {vi}));
  Stmt body = ValueOrDie(MakeLetStmt(t, IntImm32(3),
                                     For(i, IntImm32(0), IntImm32(8), Realize({i}, blk))));
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("variable 't' is bound by a let outside block 'B'"));
}

TEST(VerifierTest, RejectsAnIterVarDomainUsingALoopVar) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), vi = MakeVar("vi", kI32);
  Block blk = SimpleBlock("B", {IterVar{vi, Range{IntImm32(0), Add(i, IntImm32(1))}, IterKind::kSpatial}},
                          Store(a, FloatImm(kF32, 0.0), {vi}));
  Stmt body = For(i, IntImm32(0), IntImm32(8), Realize({i}, blk));
  std::string msg = Error(Func({a}, body));
  EXPECT_THAT(msg, HasSubstr("variable 'i' is bound by a loop outside block 'B'"));
  EXPECT_THAT(msg, HasSubstr("in expression: i + 1"));
}

TEST(VerifierTest, RejectsAVariableWithoutAType) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var v = Var(MakeNode<VarNode>("v", DataType::Void()));
  EXPECT_THAT(Error(Func({a}, ValueOrDie(MakeEvaluate(v)), {v})),
              HasSubstr("variable 'v' has no type"));
}

TEST(VerifierTest, RejectsAnUndefinedVariableInAnAllocatedShape) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Var n = MakeVar("n", kI32);
  Buffer t = MakeBuffer("T", kF32, {n}, "local");
  Stmt body = ValueOrDie(MakeAllocate(t, Store(t, FloatImm(kF32, 0.0), {IntImm32(0)})));
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("variable 'n' is not defined here"));
}

TEST(VerifierTest, RejectsAShapeExpressionOverUndefinedVariables) {
  // Only a bare Var in a parameter's shape defines it; 'n' in 'n * 2' must come from elsewhere.
  Var n = MakeVar("n", kI32);
  Buffer a = MakeBuffer("A", kF32, {Mul(n, IntImm32(2))});
  EXPECT_THAT(Error(Func({a}, Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}))),
              HasSubstr("variable 'n' is not defined here"));
}

// ---- Buffers -----------------------------------------------------------------------------

TEST(VerifierTest, RejectsAnUnboundBuffer) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(8)});
  std::string msg = Error(Func({a}, Store(a, Load(t, {IntImm32(0)}), {IntImm32(0)})));
  EXPECT_THAT(msg, HasSubstr("a load uses buffer 'T', which is not bound"));
  EXPECT_THAT(Error(Func({a}, Store(t, FloatImm(kF32, 0.0), {IntImm32(0)}))),
              HasSubstr("a store uses buffer 'T', which is not bound"));
}

TEST(VerifierTest, RejectsABufferUsedOutsideItsAllocate) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(8)}, "local");
  Stmt alloc = ValueOrDie(MakeAllocate(t, Store(t, FloatImm(kF32, 0.0), {IntImm32(0)})));
  Stmt body = Seq({alloc, Store(a, Load(t, {IntImm32(0)}), {IntImm32(0)})});
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("a load uses buffer 'T' outside the scope that binds it"));
}

TEST(VerifierTest, RejectsABufferAllocatedTwice) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(8)}, "local");
  Stmt store = Store(t, FloatImm(kF32, 0.0), {IntImm32(0)});
  Stmt body = Seq({ValueOrDie(MakeAllocate(t, store)), ValueOrDie(MakeAllocate(t, store))});
  EXPECT_THAT(Error(Func({a}, body)), HasSubstr("buffer 'T' is bound again by an Allocate"));
  // A parameter re-bound by a block's alloc_buffers.
  EXPECT_THAT(Error(Func({a}, UnderRoot(Store(a, FloatImm(kF32, 0.0), {IntImm32(0)}), {a}))),
              HasSubstr("buffer 'A' is bound again by the block's alloc_buffers"));
}

TEST(VerifierTest, RejectsADeclBufferOfAnUnboundSource) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(8)});
  Buffer view = MakeBuffer("V", kF32, {IntImm32(2), IntImm32(4)});
  Stmt body = ValueOrDie(
      MakeDeclBuffer(view, t, Store(view, FloatImm(kF32, 0.0), {IntImm32(0), IntImm32(0)})));
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("the DeclBuffer of 'V' uses buffer 'T', which is not bound"));
}

TEST(VerifierTest, RejectsADeclBufferOfAnotherElementType) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer view = MakeBuffer("V", kI32, {IntImm32(8)});
  Stmt body = Stmt(MakeNode<DeclBufferNode>(view, a, ValueOrDie(MakeEvaluate(IntImm32(0)))));
  EXPECT_THAT(Error(Func({a}, body)),
              HasSubstr("DeclBuffer 'V': element type i32 differs from source 'A' (f32)"));
}

TEST(VerifierTest, RejectsALoadOfTheWrongRank) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8), IntImm32(8)});
  Expr load = Expr(MakeNode<BufferLoadNode>(kF32, a, std::vector<Expr>{IntImm32(0)}));
  std::string msg = Error(Func({a}, Store(a, load, {IntImm32(0), IntImm32(0)})));
  EXPECT_THAT(msg, HasSubstr("buffer 'A' has rank 2 but 1 indices were given"));
}

TEST(VerifierTest, RejectsALoadOfTheWrongType) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer h = MakeBuffer("H", DataType::Float(16), {IntImm32(8)});
  Expr load = Expr(MakeNode<BufferLoadNode>(DataType::Float(16), a, std::vector<Expr>{IntImm32(0)}));
  EXPECT_THAT(Error(Func({a, h}, Store(h, load, {IntImm32(0)}))),
              HasSubstr("BufferLoad has type f16 but its operands make it f32"));
}

TEST(VerifierTest, RejectsAStoreOfTheWrongType) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Stmt store = Stmt(MakeNode<BufferStoreNode>(a, IntImm32(1), std::vector<Expr>{IntImm32(0)}));
  EXPECT_THAT(Error(Func({a}, store)), HasSubstr("storing i32 into buffer 'A' needs f32"));
}

TEST(VerifierTest, RejectsAVectorStoreWhoseLanesDisagree) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(64)});
  Expr value = Broadcast(FloatImm(kF32, 1.0), 4);
  Stmt store = Stmt(MakeNode<BufferStoreNode>(
      a, value, std::vector<Expr>{Ramp(IntImm32(0), IntImm32(1), 8)}));
  EXPECT_THAT(Error(Func({a}, store)), HasSubstr("storing f32x4 into buffer 'A' needs f32x8"));
}

TEST(VerifierTest, RejectsConstantIndicesOutsideTheBuffer) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8), IntImm32(4)});
  EXPECT_THAT(Error(Func({a}, Store(a, FloatImm(kF32, 0.0), {IntImm32(1), IntImm32(4)}))),
              HasSubstr("store of buffer 'A': index 4 in dimension 1 is outside [0, 4)"));
  EXPECT_THAT(Error(Func({a}, Store(a, Load(a, {IntImm32(-1), IntImm32(0)}),
                                    {IntImm32(0), IntImm32(0)}))),
              HasSubstr("load of buffer 'A': index -1 in dimension 0 is outside [0, 8)"));
  // The last lane of a constant ramp: 2 + 3 * 2 = 8.
  Buffer v = MakeBuffer("V", kF32, {IntImm32(8)});
  EXPECT_THAT(Error(Func({v}, Store(v, Broadcast(FloatImm(kF32, 0.0), 4),
                                    {Ramp(IntImm32(2), IntImm32(2), 4)}))),
              HasSubstr("store of buffer 'V': index 8 in dimension 0 is outside [0, 8)"));
}

TEST(VerifierTest, RejectsABufferWithIllegalFields) {
  auto n = MakeNode<BufferNode>();
  n->name = "W";
  n->dtype = DataType::Float(32, 4);  // The factory refuses vector element types.
  n->shape = {IntImm32(8)};
  n->elem_offset = IntImm32(0);
  n->scope = "global";
  n->alignment = 64;
  Buffer w(std::move(n));
  EXPECT_THAT(Error(Func({w}, ValueOrDie(MakeEvaluate(IntImm32(0))))),
              HasSubstr("Buffer 'W': element type f32x4 is not a scalar value type"));

  auto m = MakeNode<BufferNode>(*w);
  m->dtype = kF32;
  m->elem_offset = nullptr;
  EXPECT_THAT(Error(Func({Buffer(std::move(m))}, ValueOrDie(MakeEvaluate(IntImm32(0))))),
              HasSubstr("Buffer 'W': the element offset is missing"));

  Buffer neg = MakeBuffer("N", kF32, {IntImm32(-2)});
  EXPECT_THAT(Error(Func({neg}, ValueOrDie(MakeEvaluate(IntImm32(0))))),
              HasSubstr("buffer 'N' has negative extent -2"));
}


// ---- Functions and modules ---------------------------------------------------------------

TEST(VerifierTest, RejectsAFunctionWithoutBodyOrWithAnEmptyParam) {
  auto f = MakeNode<PrimFuncNode>();
  EXPECT_THAT(Error(PrimFunc(f)), HasSubstr("PrimFunc: body is missing"));
  f->body = ValueOrDie(MakeEvaluate(IntImm32(0)));
  f->params.push_back(Param{});
  EXPECT_THAT(Error(PrimFunc(f)), HasSubstr("parameter 0 must be either a variable or a buffer"));
  EXPECT_THAT(Error(nullptr), HasSubstr("the function is missing"));
}

TEST(VerifierTest, ModuleNamesTheFailingFunctionAndRejectsDuplicates) {
  Matmul good, bad;
  IRModule mod = MakeIRModule({{"ok", good.Good()}, {"broken", bad.Func(bad.Update(bad.i))}});
  EXPECT_THAT(Msg(VerifyModule(mod)), StartsWith("verify: function 'broken': block 'C': "));

  auto dup = MakeNode<IRModuleNode>();
  dup->functions = {{"g", good.Good()}, {"g", good.Good()}};
  EXPECT_THAT(Msg(VerifyModule(IRModule(std::move(dup)))),
              HasSubstr("function 'g' is defined twice in the module"));
  auto empty = MakeNode<IRModuleNode>();
  empty->functions = {{"", good.Good()}};
  EXPECT_THAT(Msg(VerifyModule(IRModule(std::move(empty)))), HasSubstr("empty name"));
  auto missing = MakeNode<IRModuleNode>();
  missing->functions = {{"h", nullptr}};
  EXPECT_THAT(Msg(VerifyModule(IRModule(std::move(missing)))),
              HasSubstr("verify: function 'h': the function is missing"));
  EXPECT_THAT(Msg(VerifyModule(nullptr)), HasSubstr("the module is missing"));
}

TEST(VerifierTest, VerifyingOneFunctionTwiceGivesTheSameAnswer) {
  // The verifier keeps no state between calls.
  Matmul mm;
  PrimFunc f = mm.Good();
  EXPECT_TRUE(VerifyFunction(f).ok());
  EXPECT_TRUE(VerifyFunction(f).ok());
  PrimFunc g = mm.Func(mm.Update(mm.i));
  EXPECT_EQ(Msg(VerifyFunction(g)), Msg(VerifyFunction(g)));
}

// Attribute values nested deeper than the parser reads are refused wherever they are
// attached: the function, a loop, a block.
TEST(VerifierTest, RefusesAttributesNestedDeeperThanTheParserReads) {
  auto nested = [](int depth) {
    AttrValue v(int64_t{1});
    for (int i = 0; i < depth; ++i) v = AttrValue(AttrValue::List{v});
    return v;
  };
  EXPECT_EQ(AttrNesting(nested(0)), 0);
  EXPECT_EQ(AttrNesting(nested(3)), 3);
  EXPECT_EQ(AttrNesting(nested(1000)), kMaxAttrNesting + 1) << "counts no further than needed";
  Matmul mm;
  PrimFunc good = mm.Good();
  auto with = [&](AttrValue v) {
    auto n = MakeNode<PrimFuncNode>(*good);
    n->attrs["deep"] = std::move(v);
    return PrimFunc(std::move(n));
  };
  EXPECT_TRUE(VerifyFunction(with(nested(kMaxAttrNesting))).ok());
  EXPECT_THAT(Error(with(nested(kMaxAttrNesting + 1))),
              HasSubstr("the function's attribute 'deep' nests lists more than 32 deep"));
}

}  // namespace
}  // namespace tessel::ir::verifier_test
