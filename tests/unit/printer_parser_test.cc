// Units for the `.tsl` printer and parser (docs/tsl.md): every node and field
// round-trips (structurally equal after parse(print(m)), and print(parse(t)) == t
// for printed text t), floats are bit-exact per dtype, names are renamed only on
// conflict, and bad input gives `file:line:col: message`, the line and a caret.
//
//   ExpectRoundTrip(module);                       // print, parse, compare, print again
//   ErrorOf("func @f() {\n  A[0] = 1\n}")          // "t.tsl:2:3: undefined buffer 'A'\n..."
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "tests/unit/tsl_test_util.h"

namespace tessel::ir {
namespace {

using namespace ::tessel::ir::testing;  // NOLINT: the shared test helpers.
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- A matmul in block form, and the exact text it prints as -----------------------

PrimFunc MatmulFunc() {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(128), IntImm32(128)});
  Buffer b = MakeBuffer("B", kF32, {IntImm32(128), IntImm32(128)});
  Buffer c = MakeBuffer("C", kF32, {IntImm32(128), IntImm32(128)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32), k = MakeVar("k", kI32);
  Var vi = MakeVar("vi", kI32), vj = MakeVar("vj", kI32), vk = MakeVar("vk", kI32);
  Range dom{IntImm32(0), IntImm32(128)};
  Block blk = ValueOrDie(MakeBlock(
      "C", {{vi, dom, IterKind::kSpatial}, {vj, dom, IterKind::kSpatial}, {vk, dom, IterKind::kReduce}},
      {PointRegion(a, {vi, vk}), PointRegion(b, {vk, vj})}, {PointRegion(c, {vi, vj})},
      Store(c, Add(Load(c, {vi, vj}), Mul(Load(a, {vi, vk}), Load(b, {vk, vj}))), {vi, vj}),
      Store(c, FloatImm(kF32, 0.0), {vi, vj})));
  Stmt realize = ValueOrDie(MakeBlockRealize({i, j, k}, nullptr, blk));
  Stmt nest = For(i, IntImm32(0), IntImm32(128),
                  For(j, IntImm32(0), IntImm32(128), For(k, IntImm32(0), IntImm32(128), realize)));
  Attrs attrs;
  attrs["global_symbol"] = AttrValue("matmul");
  return MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(b), Param::OfBuffer(c)}, nest, attrs);
}

constexpr const char* kMatmulText = R"(module_attrs {target = "llvm"}

func @matmul(A: f32[128, 128], B: f32[128, 128], C: f32[128, 128]) attrs {global_symbol = "matmul"} {
  for i in range(0, 128) {
    for j in range(0, 128) {
      for k in range(0, 128) {
        block C(vi: spatial[0, 128] = i, vj: spatial[0, 128] = j, vk: reduce[0, 128] = k) {
          reads(A[vi, vk], B[vk, vj])
          writes(C[vi, vj])
          init {
            C[vi, vj] = 0.0f32
          }
          C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        }
      }
    }
  }
}
)";

TEST(PrinterTest, MatmulPrintsAsDocumented) {
  Attrs mod_attrs;
  mod_attrs["target"] = AttrValue("llvm");
  IRModule m = MakeIRModule({{"matmul", MatmulFunc()}}, mod_attrs);
  EXPECT_EQ(PrintModule(m), kMatmulText);
  ExpectRoundTrip(m);
}

TEST(ParserTest, ParsesTheDocumentedMatmul) {
  absl::StatusOr<IRModule> m = ParseModule(kMatmulText);
  ASSERT_TRUE(m.ok()) << m.status();
  Attrs mod_attrs;
  mod_attrs["target"] = AttrValue("llvm");
  EXPECT_TRUE(AssertStructuralEqual(*m, MakeIRModule({{"matmul", MatmulFunc()}}, mod_attrs)).ok());
  EXPECT_EQ(PrintModule(*m), kMatmulText);
}

// ---- Expressions ---------------------------------------------------------------------

TEST(PrinterTest, ExpressionsUseMinimalParenthesesAndKeepTheirShape) {
  Var a = MakeVar("a", kI32), b = MakeVar("b", kI32), c = MakeVar("c", kI32);
  Var p = MakeVar("p", DataType::Bool()), q = MakeVar("q", DataType::Bool());
  struct Case {
    Expr e;
    const char* text;
  } cases[] = {
      {Sub(Sub(a, b), c), "a - b - c"},
      {Sub(a, Sub(b, c)), "a - (b - c)"},
      {Add(a, Add(b, c)), "a + (b + c)"},
      {Mul(Add(a, b), c), "(a + b) * c"},
      {Add(a, Mul(b, c)), "a + b * c"},
      {FloorDiv(a, FloorMod(b, c)), "a // (b %% c)"},
      {Div(Mod(a, b), c), "a % b / c"},
      {Sub(a, IntImm32(-1)), "a - -1"},
      {Mul(IntImm32(-2), a), "-2 * a"},
      {EQ(LT(a, b), p), "(a < b) == p"},
      {LT(Add(a, b), c), "a + b < c"},
      {Not(LT(a, b)), "!(a < b)"},
      {Not(Not(p)), "!!p"},
      {Or(And(p, q), p), "p && q || p"},
      {And(p, Or(q, p)), "p && (q || p)"},
      {Min(a, Max(b, IntImm32(3))), "min(a, max(b, 3))"},
      {Add(Min(a, b), c), "min(a, b) + c"},
      {Select(p, a, b), "select(p, a, b)"},
      {Cast(kF32, Add(a, b)), "f32(a + b)"},
      {Ramp(a, IntImm32(1), 4), "ramp(a, 1, 4)"},
      {Broadcast(Cast(kF32, a), 8), "broadcast(f32(a), 8)"},
      {Intrinsic("exp", {FloatImm(kF32, 1.5)}), "exp(1.5f32)"},
      {ValueOrDie(MakeCall(kF32, CallNode::Callee::kExtern, "my_fn", {a, FloatImm(kF32, 2.0)})),
       "@my_fn(a, 2.0f32): f32"},
      {ValueOrDie(MakeCall(kF32, CallNode::Callee::kExtern, "odd name", {})), "@\"odd name\"(): f32"},
  };
  for (const Case& c : cases) EXPECT_EQ(PrintExpr(c.e), c.text);
}

TEST(PrinterTest, LiteralsCarryTheirTypes) {
  EXPECT_EQ(PrintExpr(IntImm32(7)), "7");
  EXPECT_EQ(PrintExpr(IntImm(kI64, 7)), "7i64");
  EXPECT_EQ(PrintExpr(IntImm(DataType::UInt(8), 255)), "255u8");
  EXPECT_EQ(PrintExpr(IntImm(DataType::Int(8), -128)), "-128i8");
  EXPECT_EQ(PrintExpr(IntImm(DataType::UInt(64), -1)), "18446744073709551615u64");
  EXPECT_EQ(PrintExpr(IntImm(kI64, std::numeric_limits<int64_t>::min())), "-9223372036854775808i64");
  EXPECT_EQ(PrintExpr(Bool(true)), "true");
  EXPECT_EQ(PrintExpr(Bool(false)), "false");
  EXPECT_EQ(FormatFloat(1.5, kF32), "1.5f32");
  EXPECT_EQ(FormatFloat(static_cast<float>(0.1), kF32), "0.1f32");
  EXPECT_EQ(FormatFloat(0.1, kF64), "0.1f64");
  EXPECT_EQ(FormatFloat(100.0, kF64), "100.0f64");
  EXPECT_EQ(FormatFloat(-0.0, kF32), "-0.0f32");
  EXPECT_EQ(FormatFloat(1e30, kF64), "1.0e30f64");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::infinity(), kF64), "inf_f64");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<double>::infinity(), kF16), "-inf_f16");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::quiet_NaN(), kF32), "nan_f32");
  EXPECT_EQ(FormatFloat(FromBits(0x7ff8000000000001ull), kBF16), "nan_bf16(0x7ff8000000000001)");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::denorm_min(), kF64), "5.0e-324f64");
}

// Every expression kind and every dtype, stored into buffers of matching types.
TEST(RoundTripTest, EveryExpressionKindAndDtype) {
  std::vector<Param> params;
  std::vector<Stmt> body;
  Var n = MakeVar("n", kI32);
  Var x = MakeVar("x", kF32);
  params.push_back(Param::OfVar(n));
  params.push_back(Param::OfVar(x));
  int idx = 0;
  auto store = [&](Expr value) {
    Buffer b = MakeBuffer("out" + std::to_string(idx++), value->dtype.element_of(), {IntImm32(16)});
    params.push_back(Param::OfBuffer(b));
    std::vector<Expr> index = {value->dtype.is_vector() ? Ramp(IntImm32(0), IntImm32(1), value->dtype.lanes())
                                                         : IntImm32(0)};
    body.push_back(Store(b, value, index));
  };
  for (DataType t : {DataType::Int(8), DataType::Int(16), kI32, kI64, DataType::UInt(8), DataType::UInt(16),
                     DataType::UInt(32), DataType::UInt(64)}) {
    Expr one = IntImm(t, 1), three = IntImm(t, 3);
    for (NodeKind k : {NodeKind::kAdd, NodeKind::kSub, NodeKind::kMul, NodeKind::kDiv, NodeKind::kMod,
                       NodeKind::kFloorDiv, NodeKind::kFloorMod, NodeKind::kMin, NodeKind::kMax}) {
      store(ValueOrDie(MakeBinary(k, ValueOrDie(MakeBinary(NodeKind::kAdd, one, three)), three)));
    }
    store(Cast(t, n));
  }
  store(IntImm(DataType::UInt(64), -1));
  store(IntImm(kI64, std::numeric_limits<int64_t>::min()));
  store(IntImm(DataType::Int(8), -128));
  for (DataType t : {kF16, kBF16, kF32, kF64}) {
    Expr v = Cast(t, x);
    store(Add(Mul(v, FloatImm(t, 0.5)), Div(v, FloatImm(t, -3.25))));
    store(FloorMod(v, FloatImm(t, 2.0)));
    store(Select(GE(v, FloatImm(t, 0.0)), Intrinsic("sqrt", {v}), Intrinsic("pow", {v, FloatImm(t, 2.0)})));
    store(Intrinsic("fma", {v, v, v}));
  }
  for (NodeKind k : {NodeKind::kEQ, NodeKind::kNE, NodeKind::kLT, NodeKind::kLE, NodeKind::kGT, NodeKind::kGE}) {
    store(ValueOrDie(MakeBinary(k, n, IntImm32(4))));
  }
  store(Or(And(LT(n, IntImm32(1)), Not(EQ(x, x))), Bool(false)));
  // Vectors: ramps, broadcasts, vector loads and arithmetic, vector intrinsics.
  Buffer v = MakeBuffer("v", kF32, {IntImm32(64)});
  params.push_back(Param::OfBuffer(v));
  Expr ramp = Ramp(Mul(n, IntImm32(4)), IntImm32(1), 4);
  store(Add(Load(v, {ramp}), Broadcast(x, 4)));
  store(Intrinsic("exp", {Load(v, {ramp})}));
  store(Select(LT(ramp, Broadcast(n, 4)), Broadcast(x, 4), Broadcast(FloatImm(kF32, 0.0), 4)));
  store(Cast(DataType::Int(32, 4), Load(v, {ramp})));
  store(ValueOrDie(MakeCall(DataType::Float(32, 4), CallNode::Callee::kExtern, "vec_fn", {ramp})));
  store(Intrinsic("fabs", {n}));
  body.push_back(ValueOrDie(MakeEvaluate(ValueOrDie(MakeCall(DataType::Void(), CallNode::Callee::kExtern,
                                                             "trace", {n, x})))));
  ExpectRoundTrip(One(MakePrimFunc(params, Seq(body))));
}

// ---- Statements ----------------------------------------------------------------------

TEST(RoundTripTest, LoopsOfEveryKindWithAnnotations) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(64)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI64), t = MakeVar("tx", kI32);
  Attrs ann;
  ann["pragma_unroll"] = AttrValue(int64_t{4});
  ann["note"] = AttrValue("inner");
  Stmt inner = ValueOrDie(MakeFor(j, IntImm(kI64, 0), IntImm(kI64, 2), ForKind::kUnrolled,
                                  Store(a, FloatImm(kF32, 1.0), {Add(i, Cast(kI32, j))}), "", ann));
  Stmt vec = For(MakeVar("v", kI32), IntImm32(0), IntImm32(4), Store(a, FloatImm(kF32, 2.0), {i}),
                 ForKind::kVectorized);
  Stmt par = For(i, IntImm32(0), IntImm32(16), Seq({inner, vec}), ForKind::kParallel);
  Stmt thr = ValueOrDie(MakeFor(t, IntImm32(0), IntImm32(32), ForKind::kThreadBinding,
                                Store(a, FloatImm(kF32, 3.0), {t}), "threadIdx.x"));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a)}, Seq({par, thr}));
  std::string text = PrintFunction(f, "loops");
  EXPECT_THAT(text, HasSubstr("for i in parallel(0, 16) {"));
  EXPECT_THAT(text, HasSubstr("for j: i64 in unrolled(0i64, 2i64) attrs {note = \"inner\", pragma_unroll = 4} {"));
  EXPECT_THAT(text, HasSubstr("for v in vectorized(0, 4) {"));
  EXPECT_THAT(text, HasSubstr("for tx in thread_binding(0, 32, \"threadIdx.x\") {"));
  ExpectRoundTrip(One(f));
}

TEST(RoundTripTest, SequencesKeepTheirExactNesting) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  auto st = [&](int k) { return Store(a, IntImm32(k), {IntImm32(k)}); };
  Stmt empty = Seq({});
  Stmt single = Seq({st(1)});
  Stmt nested = Seq({st(0), Seq({st(1), st(2)}), single, empty, Seq({Seq({st(3)})})});
  Var i = MakeVar("i", kI32);
  std::vector<Stmt> bodies = {empty, single, nested, Seq({single}), For(i, IntImm32(0), IntImm32(2), empty),
                              For(i, IntImm32(0), IntImm32(2), single)};
  for (const Stmt& body : bodies) {
    PrimFunc f = MakePrimFunc({Param::OfBuffer(a)}, body);
    ExpectRoundTrip(One(f));
  }
  EXPECT_EQ(PrintFunction(MakePrimFunc({Param::OfBuffer(a)}, empty)), "func @main(A: i32[8]) {\n}\n");
  EXPECT_THAT(PrintStmt(single), HasSubstr("seq {\n  A[1] = 1\n}"));
}

TEST(RoundTripTest, ConditionalsWithAndWithoutElse) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var n = MakeVar("n", kI32);
  auto st = [&](int k) { return Store(a, IntImm32(k), {IntImm32(0)}); };
  Stmt only_then = ValueOrDie(MakeIfThenElse(LT(n, IntImm32(1)), st(1)));
  Stmt chain = ValueOrDie(MakeIfThenElse(
      LT(n, IntImm32(2)), st(2), ValueOrDie(MakeIfThenElse(LT(n, IntImm32(3)), st(3), st(4)))));
  Stmt empty_else = ValueOrDie(MakeIfThenElse(Bool(true), st(5), Seq({})));
  Stmt else_seq_if = ValueOrDie(MakeIfThenElse(
      Bool(false), st(6), Seq({ValueOrDie(MakeIfThenElse(Bool(true), st(7))), st(8)})));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a), Param::OfVar(n)}, Seq({only_then, chain, empty_else, else_seq_if}));
  std::string text = PrintFunction(f);
  EXPECT_THAT(text, HasSubstr("} else if n < 3 {"));
  EXPECT_THAT(text, HasSubstr("} else {\n  }"));
  ExpectRoundTrip(One(f));
}

TEST(RoundTripTest, LetsAllocationsAndDeclBuffersFlatAndBraced) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(4), IntImm32(4)});
  Buffer flat = ValueOrDie(MakeBufferChecked("A_flat", kF32, {IntImm32(16)}));
  Buffer tmp = MakeBuffer("T", kF32, {IntImm32(4)}, "local");
  Var x = MakeVar("x", kI64), y = MakeVar("y", DataType::Float(32, 4)), z = MakeVar("z", kI32);
  // A let that is not last in its list prints with braces; a last one scopes over the rest.
  Stmt braced = ValueOrDie(MakeLetStmt(z, IntImm32(2), Store(flat, FloatImm(kF32, 0.0), {z})));
  Stmt inner = Seq({braced, Store(tmp, FloatImm(kF32, 1.0), {IntImm32(0)}),
                    Store(flat, Load(tmp, {IntImm32(0)}), {Cast(kI32, x)})});
  Stmt alloc = ValueOrDie(MakeAllocate(tmp, inner));
  Stmt decl = ValueOrDie(MakeDeclBuffer(flat, a, alloc));
  Stmt let_y = ValueOrDie(MakeLetStmt(y, Broadcast(FloatImm(kF32, 2.0), 4), decl));
  Stmt let_x = ValueOrDie(MakeLetStmt(x, IntImm(kI64, 3), let_y));
  Stmt lone_let = ValueOrDie(MakeLetStmt(MakeVar("w", kI32), IntImm32(1), Seq({})));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a)}, Seq({lone_let, let_x}));
  std::string text = PrintFunction(f);
  EXPECT_THAT(text, HasSubstr("  let w = 1 {\n  }\n  let x: i64 = 3i64\n  let y: f32x4 = broadcast(2.0f32, 4)\n"));
  EXPECT_THAT(text, HasSubstr("  decl_buffer A_flat: f32[16] = A\n  allocate T: f32[4] scope \"local\"\n"));
  EXPECT_THAT(text, HasSubstr("  let z = 2 {\n"));
  ExpectRoundTrip(One(f));
  // Long chains of flat lets and of operators need no recursion depth.
  Var s = MakeVar("s", kF32);
  Expr sum = s;
  for (int k = 0; k < 9000; ++k) sum = Add(sum, s);
  ExpectRoundTrip(One(MakePrimFunc({Param::OfVar(s), Param::OfBuffer(flat)}, Store(flat, sum, {IntImm32(0)}))));
  Stmt chain = Store(flat, FloatImm(kF32, 0.0), {IntImm32(0)});
  for (int k = 0; k < 2000; ++k) chain = ValueOrDie(MakeLetStmt(MakeVar("t", kI32), IntImm32(k), chain));
  ExpectRoundTrip(One(MakePrimFunc({Param::OfBuffer(flat)}, chain)));
}

TEST(RoundTripTest, BuffersWithEveryField) {
  Var n = MakeVar("n", kI64), m = MakeVar("m", kI32), off = MakeVar("off", kI32);
  Buffer a = ValueOrDie(MakeBufferChecked("A", kF16, {n, IntImm(kI64, 8)}, {IntImm(kI64, 16), IntImm(kI64, 1)},
                                          IntImm(kI64, 4), "global", 16));
  Buffer b = ValueOrDie(MakeBufferChecked("B", DataType::BFloat(16), {m}, {}, off, "shared", 128));
  Buffer c = ValueOrDie(MakeBufferChecked("C", DataType::Bool(), {}, {}, IntImm(kI64, 0)));
  Buffer d = ValueOrDie(MakeBufferChecked("D", DataType::UInt(8), {Mul(m, IntImm32(2))}));
  Var i = MakeVar("i", kI32);
  Stmt body = For(i, IntImm32(0), m,
                  Seq({Store(b, Cast(DataType::BFloat(16), Load(a, {Cast(kI64, i), IntImm(kI64, 0)})), {i}),
                       Store(c, Bool(true), {})}));
  // `m` is a scalar parameter listed after the buffers that use it.
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(b), Param::OfBuffer(c), Param::OfBuffer(d),
                             Param::OfVar(m), Param::OfVar(MakeVar("h", DataType::Handle()))},
                            body);
  std::string text = PrintFunction(f, "bufs");
  EXPECT_THAT(text, StartsWith("func @bufs[n: i64, off](A: f16[n, 8i64] strides [16i64, 1i64] offset 4i64 align 16, "
                               "B: bf16[m] offset off scope \"shared\" align 128, C: bool[] offset 0i64, "
                               "D: u8[m * 2], m: i32, h: handle) {"));
  ExpectRoundTrip(One(f));
}

TEST(RoundTripTest, BlocksWithEveryField) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(64), IntImm32(64)});
  Buffer out = MakeBuffer("Out", kF32, {IntImm32(64)});
  Var i = MakeVar("i", kI32), k = MakeVar("k", kI64), j = MakeVar("j", kI32);
  Var vi = MakeVar("vi", kI32), vk = MakeVar("vk", kI64), vo = MakeVar("vo", kI32);
  Buffer local = MakeBuffer("acc", kF32, {IntImm32(1)}, "local");
  Attrs ann;
  ann["schedule_rule"] = AttrValue("reduce");
  ann["tile"] = AttrValue(AttrValue::List{AttrValue(int64_t{4}), AttrValue(Expr(vi))});
  Stmt body = Store(local, Add(Load(local, {IntImm32(0)}), Load(a, {vi, Cast(kI32, vk)})), {IntImm32(0)});
  Block inner = ValueOrDie(MakeBlock(
      "sum", {{vi, {IntImm32(0), IntImm32(64)}, IterKind::kSpatial}, {vk, {IntImm(kI64, 0), IntImm(kI64, 64)}, IterKind::kReduce},
              {vo, {IntImm32(0), IntImm32(1)}, IterKind::kOpaque}},
      {BufferRegion{a, {Range{vi, IntImm32(1)}, Range{IntImm32(0), IntImm32(64)}}}},
      {BufferRegion{local, {Range{IntImm32(0), IntImm32(1)}}}}, body,
      Store(local, FloatImm(kF32, 0.0), {IntImm32(0)}), {}, ann));
  Stmt realize = ValueOrDie(MakeBlockRealize({i, k, IntImm32(0)}, LT(Add(i, Cast(kI32, k)), IntImm32(100)), inner));
  Stmt loops = For(i, IntImm32(0), IntImm32(64), For(k, IntImm(kI64, 0), IntImm(kI64, 64), realize));
  Block outer = ValueOrDie(MakeBlock("root", {}, {}, {}, Seq({loops, Store(out, Load(local, {IntImm32(0)}), {IntImm32(0)})}),
                                     nullptr, {local}));
  Stmt root = ValueOrDie(MakeBlockRealize({}, nullptr, outer));
  // A bare Block (not under a BlockRealize) with an unbound iter var.
  Var bj = MakeVar("bj", kI32);
  Block bare = ValueOrDie(MakeBlock("bare", {{bj, {IntImm32(0), IntImm32(4)}, IterKind::kSpatial}}, {},
                                    {PointRegion(out, {bj})}, Store(out, FloatImm(kF32, 1.0), {bj})));
  Stmt with_bare = For(j, IntImm32(0), IntImm32(1), bare);
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(out)}, Seq({root, with_bare}));
  std::string text = PrintFunction(f);
  EXPECT_THAT(text, HasSubstr("block root() {\n    alloc_buffer acc: f32[1] scope \"local\"\n"));
  EXPECT_THAT(text, HasSubstr("block sum(vi: spatial[0, 64] = i, vk: i64 reduce[0i64, 64i64] = k, "
                              "vo: opaque[0, 1] = 0) where i + i32(k) < 100 attrs {schedule_rule = \"reduce\", "
                              "tile = [4, expr(vi)]} {"));
  EXPECT_THAT(text, HasSubstr("reads(A[vi, 0 +: 64])"));
  EXPECT_THAT(text, HasSubstr("writes(acc[0])"));
  EXPECT_THAT(text, HasSubstr("bare_block bare(bj: spatial[0, 4]) {"));
  ExpectRoundTrip(One(f));
}

TEST(RoundTripTest, AttributesOfEveryAlternative) {
  Var n = MakeVar("n", kI32);
  Attrs fa;
  fa["int"] = AttrValue(int64_t{-42});
  fa["int_min"] = AttrValue(std::numeric_limits<int64_t>::min());
  fa["float"] = AttrValue(0.1);
  fa["whole"] = AttrValue(2.0);
  fa["neg_zero"] = AttrValue(-0.0);
  fa["inf"] = AttrValue(-std::numeric_limits<double>::infinity());
  fa["nan"] = AttrValue(std::numeric_limits<double>::quiet_NaN());
  fa["nan_payload"] = AttrValue(FromBits(0xfff0000000000123ull));
  fa["tiny"] = AttrValue(std::numeric_limits<double>::denorm_min());
  fa["flag"] = AttrValue(false);
  fa["text"] = AttrValue("quote \" backslash \\ newline \n tab \t byte \x01 \xff");
  fa["expr"] = AttrValue(Expr(Add(n, IntImm32(1))));
  fa["typed"] = AttrValue(FloatImm(kBF16, 1.5));
  fa["nested"] = AttrValue(AttrValue::List{
      AttrValue(AttrValue::List{}), AttrValue(AttrValue::List{AttrValue(int64_t{1}), AttrValue("two")}),
      AttrValue(AttrValue::List{AttrValue(AttrValue::List{AttrValue(true)})})});
  fa["tir.noalias"] = AttrValue(true);
  fa["key with space"] = AttrValue("");
  Attrs ma;
  ma["target"] = AttrValue("llvm -mcpu=native");
  ma["opt"] = AttrValue(AttrValue::List{AttrValue(3.25), AttrValue(FloatImm(kF16, 0.5))});
  Buffer a = MakeBuffer("A", kI32, {n});
  IRModule m = MakeIRModule({{"f", MakePrimFunc({Param::OfVar(n), Param::OfBuffer(a)}, Seq({}), fa)},
                             {"second fn", MakePrimFunc({}, Seq({}))}},
                            ma);
  std::string text = PrintModule(m);
  EXPECT_THAT(text, HasSubstr("attrs {expr = expr(n + 1), flag = false, float = 0.1, inf = -inf, int = -42, int_min = -9223372036854775808"));
  EXPECT_THAT(text, HasSubstr("\"key with space\" = \"\""));
  EXPECT_THAT(text, HasSubstr("nan = nan, nan_payload = nan(0xfff0000000000123), neg_zero = -0.0"));
  EXPECT_THAT(text, HasSubstr("nested = [[], [1, \"two\"], [[true]]]"));
  EXPECT_THAT(text, HasSubstr("text = \"quote \\\" backslash \\\\ newline \\n tab \\t byte \\x01 \\xff\""));
  EXPECT_THAT(text, HasSubstr("typed = expr(1.5bf16), whole = 2.0"));
  EXPECT_THAT(text, HasSubstr("func @\"second fn\"() {"));
  ExpectRoundTrip(m);
}

// ---- Names ----------------------------------------------------------------------------

TEST(NamesTest, DistinctObjectsSharingANameGetSuffixes) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var i1 = MakeVar("i", kI32), i2 = MakeVar("i", kI32), i3 = MakeVar("i_1", kI32);
  Stmt body = Seq({For(i1, IntImm32(0), IntImm32(2), Store(a, i1, {i1})),
                   For(i2, IntImm32(0), IntImm32(2), Store(a, i2, {i2})),
                   For(i3, IntImm32(0), IntImm32(2), Store(a, i3, {i3}))});
  std::string text = PrintFunction(MakePrimFunc({Param::OfBuffer(a)}, body));
  // The first `i` and the original `i_1` keep their names; the second `i` takes `i_2`.
  EXPECT_THAT(text, HasSubstr("for i in range(0, 2) {\n    A[i] = i\n"));
  EXPECT_THAT(text, HasSubstr("for i_2 in range(0, 2) {\n    A[i_2] = i_2\n"));
  EXPECT_THAT(text, HasSubstr("for i_1 in range(0, 2) {\n    A[i_1] = i_1\n"));
  // One Var object bound by two loops is two bindings with two names, so the text
  // reads back as two variables that print the same way; buffers share the namespace.
  Var same = MakeVar("A", kI32);
  Stmt twice = Seq({For(same, IntImm32(0), IntImm32(2), Store(a, same, {same})),
                    For(same, IntImm32(0), IntImm32(2), Store(a, same, {same}))});
  std::string t2 = PrintFunction(MakePrimFunc({Param::OfBuffer(a)}, twice));
  EXPECT_THAT(t2, HasSubstr("for A_1 in range(0, 2) {\n    A[A_1] = A_1\n  }\n  for A_2 in range(0, 2) {\n    A[A_2] = A_2\n"));
  ExpectRoundTrip(One(MakePrimFunc({Param::OfBuffer(a)}, twice)));
  EXPECT_EQ(PrintExpr(Add(MakeVar("x", kI32), MakeVar("x", kI32))), "x + x_1");
}

TEST(NamesTest, NamesThatAreNotIdentifiersAreMadeSafe) {
  Buffer a = MakeBuffer("my buffer", kI32, {IntImm32(8)});
  Var v1 = MakeVar("", kI32), v2 = MakeVar("for", kI32), v3 = MakeVar("true", kI32), v4 = MakeVar("9lives", kI32),
      v5 = MakeVar("inf_f32", kI32), v6 = MakeVar("threadIdx.x", kI32);
  Stmt body = For(v1, IntImm32(0), IntImm32(2),
                  For(v2, IntImm32(0), IntImm32(2),
                      For(v3, IntImm32(0), IntImm32(2),
                          For(v4, IntImm32(0), IntImm32(2),
                              For(v5, IntImm32(0), IntImm32(2),
                                  For(v6, IntImm32(0), IntImm32(2),
                                      Store(a, Add(Add(Add(v1, v2), Add(v3, v4)), Add(v5, v6)), {v1})))))));
  Block blk = ValueOrDie(MakeBlock("block with spaces", {}, {}, {}, body));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a)}, ValueOrDie(MakeBlockRealize({}, nullptr, blk)));
  std::string text = PrintFunction(f, "fn-name");
  EXPECT_THAT(text, HasSubstr("func @\"fn-name\"(my_buffer: i32[8])"));
  EXPECT_THAT(text, HasSubstr("block \"block with spaces\"()"));
  EXPECT_THAT(text, HasSubstr("my_buffer[v] = v + for_ + (true_ + _9lives) + (inf_f32_ + threadIdx.x)"));
  ExpectRoundTrip(One(f, "fn-name"));
}

TEST(NamesTest, NamesOfBuiltinsAndTypesNeedNoRenaming) {
  // Builtins, types and loop kinds are only special where the grammar expects them.
  Buffer min_buf = MakeBuffer("min", kI32, {IntImm32(8)});
  Var f32 = MakeVar("f32", kI32), range = MakeVar("range", kI32), exp = MakeVar("exp", kI32),
      spatial = MakeVar("spatial", kI32), expr = MakeVar("expr", kI32);
  Var vi = MakeVar("select", kI32);
  Block blk = ValueOrDie(MakeBlock("b", {{vi, {IntImm32(0), IntImm32(8)}, IterKind::kSpatial}}, {}, {PointRegion(min_buf, {vi})},
                                   Store(min_buf, Add(Load(min_buf, {vi}), Add(exp, Min(spatial, expr))), {vi})));
  Stmt body = For(f32, IntImm32(0), IntImm32(2),
                  For(range, IntImm32(0), IntImm32(2),
                      ValueOrDie(MakeLetStmt(exp, Add(f32, range),
                                             ValueOrDie(MakeLetStmt(spatial, IntImm32(1),
                                                                    ValueOrDie(MakeLetStmt(expr, IntImm32(2),
                                                                                           ValueOrDie(MakeBlockRealize({f32}, nullptr, blk))))))))));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(min_buf)}, body);
  std::string text = PrintFunction(f);
  EXPECT_THAT(text, HasSubstr("for range in range(0, 2) {"));
  EXPECT_THAT(text, HasSubstr("block b(select: spatial[0, 8] = f32) {"));
  EXPECT_THAT(text, HasSubstr("min[select] = min[select] + (exp + min(spatial, expr))"));
  ExpectRoundTrip(One(f));
}

// ---- Canonical text, comments, split files -------------------------------------------

TEST(ParserTest, HandWrittenTextParsesAndPrintsCanonically) {
  const char* text = R"(// a comment line
func @f(A: f32[16], n: i32) {
    // comments start a line; '//' mid-line is floor division
  for i in range(0, 16) { A[i] = f32(i // 4) }
  if n < 0 { A[0] = 0.0f32 } else { if n > 4 { A[1] = 1.0f32 } }
  let k = n %% 3
  A[k] = -1.5e0f32
}
)";
  absl::StatusOr<IRModule> m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string canonical = PrintModule(*m);
  EXPECT_EQ(canonical, R"(func @f(A: f32[16], n: i32) {
  for i in range(0, 16) {
    A[i] = f32(i // 4)
  }
  if n < 0 {
    A[0] = 0.0f32
  } else if n > 4 {
    A[1] = 1.0f32
  }
  let k = n %% 3
  A[k] = -1.5f32
}
)");
  absl::StatusOr<IRModule> again = ParseModule(canonical);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(AssertStructuralEqual(*m, *again).ok());
  EXPECT_EQ(PrintModule(*again), canonical);
}

TEST(ParserTest, EmptyModuleAndLoadModule) {
  absl::StatusOr<IRModule> empty = ParseModule("// nothing here\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->functions.empty());
  EXPECT_EQ(PrintModule(*empty), "");
  EXPECT_EQ(LoadModule("/nonexistent/dir/x.tsl").status().code(), absl::StatusCode::kNotFound);
  std::string path = ::testing::TempDir() + "/printer_parser_test.tsl";
  {
    std::ofstream out(path);
    out << "func @f() {\n  evaluate nope\n}\n";
  }
  absl::StatusOr<IRModule> bad = LoadModule(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), StartsWith(path + ":2:12: undefined variable 'nope'"));
  {
    std::ofstream out(path);
    out << kMatmulText;
  }
  EXPECT_TRUE(LoadModule(path).ok());
  std::remove(path.c_str());
}

TEST(ParserTest, SplitInputFileKeepsLineNumbers) {
  std::string text = "func @a() {\n}\n// -----\nfunc @b() {\n}\n// -----\n\nfunc @c() {\n  evaluate x\n}\n";
  std::vector<std::string> chunks = SplitInputFile(text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0], "func @a() {\n}\n");
  EXPECT_EQ(chunks[1], "\n\n\nfunc @b() {\n}\n");
  EXPECT_EQ(chunks[2], "\n\n\n\n\n\n\nfunc @c() {\n  evaluate x\n}\n");
  EXPECT_TRUE(ParseModule(chunks[1]).ok());
  EXPECT_THAT(std::string(ParseModule(chunks[2], "s.tsl").status().message()),
              StartsWith("s.tsl:9:12: undefined variable 'x'"));
  EXPECT_EQ(SplitInputFile("no separators").size(), 1u);
  EXPECT_EQ(SplitInputFile("a\n// ----- not exactly\n").size(), 1u);
  EXPECT_EQ(SplitInputFile("a\r\n// -----\r\nb").size(), 2u);
}

// ---- PrintStmt, PrintExpr, marked functions -------------------------------------------

TEST(PrinterTest, FragmentsAndMarkedStatements) {
  PrimFunc f = MatmulFunc();
  const auto* loop_i = cast<ForNode>(f->body);
  const auto* loop_k = cast<ForNode>(cast<ForNode>(loop_i->body)->body);
  const auto* realize = cast<BlockRealizeNode>(loop_k->body);
  std::string marked = PrintFunctionMarked(f, "mm", realize->block.get(), "block C is not a reduction");
  EXPECT_THAT(marked, HasSubstr("         for k in range(0, 128) {\n"
                                ">>         block C(vi: spatial[0, 128] = i"));
  EXPECT_THAT(marked, HasSubstr(">>           C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
                                ">>         }\n"
                                "           ^ block C is not a reduction\n"
                                "         }\n"));
  EXPECT_THAT(marked, StartsWith("   func @mm("));
  std::string loop = PrintFunctionMarked(f, "mm", loop_k, "here");
  EXPECT_THAT(loop, HasSubstr("       for j in range(0, 128) {\n>>       for k in range(0, 128) {\n"));
  EXPECT_THAT(loop, HasSubstr(">>         }\n>>       }\n         ^ here\n       }\n"));
  // A marked SeqStmt body marks all of its elements.
  Buffer z = MakeBuffer("Z", kI32, {});
  PrimFunc two = MakePrimFunc({Param::OfBuffer(z)}, Seq({Store(z, IntImm32(1), {}), Store(z, IntImm32(2), {})}));
  EXPECT_EQ(PrintFunctionMarked(two, "two", two->body.get(), "both"),
            "   func @two(Z: i32[]) {\n>>   Z[] = 1\n>>   Z[] = 2\n     ^ both\n   }\n");
  Stmt other = Store(z, IntImm32(0), {});
  EXPECT_THAT(PrintFunctionMarked(f, "mm", other.get(), "gone"), HasSubstr("   note: gone\n"));
  EXPECT_THAT(PrintStmt(loop_k->body), StartsWith("block C(vi: spatial[0, 128] = i,"));
  EXPECT_EQ(PrintExpr(nullptr), "<null>");
}

}  // namespace
}  // namespace tessel::ir
