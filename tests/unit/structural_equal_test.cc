// Units for structural equality (alpha-equivalence, mismatch paths) and the
// structural hash (consistency with equality, near misses, pinned values).
//
//   for i in 0..16 { A[i] = 0 }  ==  for k in 0..16 { A[k] = 0 }   (names do not matter)
//   AssertStructuralEqual(x + 1, x + 2) -> "structural mismatch at b: values differ ..."
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"

// GCC 12 warns about designated initializers that leave members to their default
// member initializers, which is exactly how MatmulSpec is meant to be used.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tessel::ir {
namespace {

using ::testing::HasSubstr;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// Knobs for building a matmul in block form; each one makes a near-miss variant.
struct MatmulSpec {
  std::string suffix;  // Appended to every variable and buffer name (alpha renaming).
  int64_t n = 64;
  double init = 0.0;
  DataType dtype = kF32;
  ForKind outer_kind = ForKind::kSerial;
  std::string block_name = "C";
  IterKind k_kind = IterKind::kReduce;
  std::string c_scope = "global";
  bool swap_operands = false;  // B[vk, vj] * A[vi, vk]
  bool swap_a_index = false;   // A[vk, vi] instead of A[vi, vk]
  NodeKind combine = NodeKind::kAdd;
  Attrs loop_annotations;
  Attrs func_attrs;
};

PrimFunc Matmul(const MatmulSpec& s) {
  const std::string& x = s.suffix;
  Expr n = IntImm32(s.n);
  Buffer a = MakeBuffer("A" + x, s.dtype, {n, n});
  Buffer b = MakeBuffer("B" + x, s.dtype, {n, n});
  Buffer c = MakeBuffer("C" + x, s.dtype, {n, n}, s.c_scope);
  Var i = MakeVar("i" + x, kI32), j = MakeVar("j" + x, kI32), k = MakeVar("k" + x, kI32);
  Var vi = MakeVar("vi" + x, kI32), vj = MakeVar("vj" + x, kI32), vk = MakeVar("vk" + x, kI32);
  Range dom{IntImm32(0), n};
  std::vector<Expr> a_idx = s.swap_a_index ? std::vector<Expr>{vk, vi} : std::vector<Expr>{vi, vk};
  Expr la = Load(a, a_idx), lb = Load(b, {vk, vj});
  Expr prod = s.swap_operands ? Mul(lb, la) : Mul(la, lb);
  Expr update = ValueOrDie(MakeBinary(s.combine, Load(c, {vi, vj}), prod));
  Block block = ValueOrDie(MakeBlock(
      s.block_name,
      {IterVar{vi, dom, IterKind::kSpatial}, IterVar{vj, dom, IterKind::kSpatial},
       IterVar{vk, dom, s.k_kind}},
      {PointRegion(a, a_idx), PointRegion(b, {vk, vj})}, {PointRegion(c, {vi, vj})},
      Store(c, update, {vi, vj}), Store(c, FloatImm(s.dtype, s.init), {vi, vj})));
  Stmt body = ValueOrDie(MakeBlockRealize({i, j, k}, Bool(true), block));
  body = For(k, IntImm32(0), n, body);
  body = For(j, IntImm32(0), n, body);
  body = ValueOrDie(MakeFor(i, IntImm32(0), n, s.outer_kind, body,
                            s.outer_kind == ForKind::kThreadBinding ? "blockIdx.x" : "",
                            s.loop_annotations));
  return MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(b), Param::OfBuffer(c)}, body,
                      s.func_attrs);
}

IRModule MatmulModule(const MatmulSpec& s) { return MakeIRModule({{"matmul", Matmul(s)}}); }

// Expects a and b equal, with equal hashes, in both directions.
template <typename T>
void ExpectEqual(const T& a, const T& b, StructuralEqualOptions opts = {}) {
  EXPECT_TRUE(StructuralEqual(a, b, opts));
  EXPECT_TRUE(StructuralEqual(b, a, opts));
  absl::Status s = AssertStructuralEqual(a, b, opts);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(StructuralHash(a, opts.map_free_vars), StructuralHash(b, opts.map_free_vars));
}

// ---- Alpha-equivalence --------------------------------------------------------------

TEST(StructuralEqualTest, RenamedLoopVariablesAreEqual) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Var i = MakeVar("i", kI32), k = MakeVar("k", kI32);
  Stmt s1 = For(i, IntImm32(0), IntImm32(16), Store(a, FloatImm(kF32, 0), {i}));
  Stmt s2 = For(k, IntImm32(0), IntImm32(16), Store(a, FloatImm(kF32, 0), {k}));
  ExpectEqual(s1, s2);
}

TEST(StructuralEqualTest, RenamedLetVariablesAreEqual) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(16)});
  Var x = MakeVar("x", kI32), y = MakeVar("y", kI32);
  Stmt s1 = ValueOrDie(MakeLetStmt(x, IntImm32(3), Store(a, Add(x, x), {x})));
  Stmt s2 = ValueOrDie(MakeLetStmt(y, IntImm32(3), Store(a, Add(y, y), {y})));
  ExpectEqual(s1, s2);
  // The value of a let is outside its scope: `let x = x` uses a free x.
  Var z = MakeVar("z", kI32);
  Stmt s3 = ValueOrDie(MakeLetStmt(y, y, Store(a, y, {y})));
  Stmt s4 = ValueOrDie(MakeLetStmt(z, y, Store(a, z, {z})));
  ExpectEqual(s3, s4);
}

TEST(StructuralEqualTest, RenamedIterVarsBuffersAndParamsAreEqual) {
  PrimFunc f1 = Matmul({.suffix = ""});
  PrimFunc f2 = Matmul({.suffix = "_renamed"});
  ExpectEqual(f1, f2);
  ExpectEqual(MatmulModule({.suffix = ""}), MatmulModule({.suffix = "_2"}));
}

TEST(StructuralEqualTest, AllocatedBuffersCompareByBinding) {
  Var i = MakeVar("i", kI32);
  auto make = [&](const std::string& name, const std::string& scope, int64_t extent) {
    Buffer t = MakeBuffer(name, kF32, {IntImm32(extent)}, scope);
    return ValueOrDie(MakeAllocate(t, Store(t, FloatImm(kF32, 1), {i})));
  };
  ExpectEqual(make("T", "local", 16), make("U", "local", 16));
  absl::Status shape = AssertStructuralEqual(make("T", "local", 16), make("T", "local", 32));
  EXPECT_THAT(Message(shape), HasSubstr("structural mismatch at buffer.shape[0]: values differ"));
  absl::Status scope = AssertStructuralEqual(make("T", "local", 16), make("T", "shared", 16));
  EXPECT_EQ(Message(scope),
            "structural mismatch at buffer.scope: scopes differ\n  lhs: local\n  rhs: shared");
}

TEST(StructuralEqualTest, BlockAllocBuffersAndDeclBuffersAreBindings) {
  Buffer src = MakeBuffer("S", kF32, {IntImm32(4), IntImm32(4)});
  auto make = [&](const std::string& x) {
    Buffer flat = MakeBuffer("flat" + x, kF32, {IntImm32(16)});
    Buffer tmp = MakeBuffer("tmp" + x, kF32, {IntImm32(16)}, "local");
    Stmt body = Store(tmp, Load(flat, {IntImm32(3)}), {IntImm32(0)});
    Block blk = ValueOrDie(MakeBlock("copy", {}, {FullRegion(flat)}, {}, body, nullptr, {tmp}));
    return ValueOrDie(MakeDeclBuffer(flat, src, ValueOrDie(MakeBlockRealize({}, nullptr, blk))));
  };
  ExpectEqual(make(""), make("_b"));
  // A DeclBuffer's source is a use: another free buffer makes it differ.
  Buffer other = MakeBuffer("S", kF32, {IntImm32(4), IntImm32(4)});
  Buffer flat = MakeBuffer("flat", kF32, {IntImm32(16)});
  Stmt body = Store(flat, FloatImm(kF32, 0), {IntImm32(0)});
  absl::Status s = AssertStructuralEqual(ValueOrDie(MakeDeclBuffer(flat, src, body)),
                                         ValueOrDie(MakeDeclBuffer(flat, other, body)));
  EXPECT_THAT(Message(s), HasSubstr("structural mismatch at source: different free buffers 'S' and 'S'"));
}

TEST(StructuralEqualTest, ReusedVariableObjectsCompareLikeDistinctOnes) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), p = MakeVar("p", kI32), q = MakeVar("q", kI32);
  Expr z = IntImm32(0), e = IntImm32(8);
  // Sibling loops sharing one Var, against two distinct Vars.
  Stmt same = Seq({For(i, z, e, Store(a, i, {i})), For(i, z, e, Store(a, i, {i}))});
  Stmt distinct = Seq({For(p, z, e, Store(a, p, {p})), For(q, z, e, Store(a, q, {q}))});
  ExpectEqual(same, distinct);
  // A nested loop shadowing its parent's Var; after it, the outer binding is back.
  Stmt shadow = For(i, z, e, Seq({For(i, z, e, Store(a, i, {i})), Store(a, i, {i})}));
  Stmt plain = For(p, z, e, Seq({For(q, z, e, Store(a, q, {q})), Store(a, p, {p})}));
  ExpectEqual(shadow, plain);
  Stmt wrong = For(p, z, e, Seq({For(q, z, e, Store(a, q, {q})), Store(a, q, {p})}));
  EXPECT_FALSE(StructuralEqual(shadow, wrong));
  EXPECT_THAT(Message(AssertStructuralEqual(shadow, wrong)),
              HasSubstr("structural mismatch at body.seq[1].value: different variables: lhs 'i' "
                        "corresponds to rhs 'p', while rhs 'q' is unbound"));
}

TEST(StructuralEqualTest, CrossedBindingsAreUnequal) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32);
  Expr z = IntImm32(0), e = IntImm32(8);
  Stmt s1 = For(i, z, e, For(j, z, e, Store(a, i, {j})));
  Stmt s2 = For(i, z, e, For(j, z, e, Store(a, j, {j})));
  absl::Status s = AssertStructuralEqual(s1, s2);
  EXPECT_EQ(Message(s),
            "structural mismatch at body.body.value: different variables: lhs 'i' corresponds to "
            "rhs 'i', not 'j'\n  lhs: " + PrintExpr(i) + "\n  rhs: " + PrintExpr(j));
  EXPECT_NE(StructuralHash(s1), StructuralHash(s2));
}

TEST(StructuralEqualTest, SymbolicShapeVarsAreBoundByParameterBuffers) {
  auto make = [](const std::string& x, bool extent_from_shape) {
    Var n = MakeVar("n" + x, kI32), m = MakeVar("m" + x, kI32), i = MakeVar("i" + x, kI32);
    Buffer a = ValueOrDie(MakeBufferChecked("A" + x, kF32, {n}, {}, nullptr));
    Stmt body = For(i, IntImm32(0), extent_from_shape ? Expr(n) : Expr(m),
                    Store(a, FloatImm(kF32, 0), {i}));
    // m is a scalar parameter placed after the buffer that could name it.
    return MakePrimFunc({Param::OfBuffer(a), Param::OfVar(m)}, body);
  };
  ExpectEqual(make("", true), make("_2", true));
  ExpectEqual(make("", false), make("_2", false));
  absl::Status s = AssertStructuralEqual(make("", true), make("", false));
  EXPECT_THAT(Message(s), HasSubstr("structural mismatch at body.extent: different variables: "
                                    "lhs 'n' corresponds to rhs 'n', not 'm'"));
}

// ---- Mismatch paths -----------------------------------------------------------------

TEST(StructuralEqualTest, MismatchNamesThePathAndBothSides) {
  absl::Status s = AssertStructuralEqual(MatmulModule({.init = 0.0}), MatmulModule({.init = 1.0}));
  EXPECT_EQ(Message(s),
            "structural mismatch at func[matmul].body.body.body.body.block[C].init.value: values "
            "differ\n  lhs: " + PrintExpr(FloatImm(kF32, 0.0)) + "\n  rhs: " +
                PrintExpr(FloatImm(kF32, 1.0)));
  absl::Status ops = AssertStructuralEqual(Matmul({}), Matmul({.swap_a_index = true}));
  EXPECT_THAT(Message(ops), HasSubstr("structural mismatch at body.body.body.body.block[C].reads[0]."
                                      "region[0].min: different variables"));
  absl::Status kind = AssertStructuralEqual(Matmul({}), Matmul({.combine = NodeKind::kMax}));
  EXPECT_THAT(Message(kind), HasSubstr("at body.body.body.body.block[C].body.value: node kinds "
                                       "differ (Add vs Max)"));
  absl::Status name = AssertStructuralEqual(Matmul({}), Matmul({.block_name = "D"}));
  EXPECT_EQ(Message(name), "structural mismatch at body.body.body.body.block.name: block names "
                           "differ\n  lhs: C\n  rhs: D");
  absl::Status iter = AssertStructuralEqual(Matmul({}), Matmul({.k_kind = IterKind::kSpatial}));
  EXPECT_THAT(Message(iter), HasSubstr("block[C].iter_vars[2].kind: iter kinds differ\n  lhs: "
                                       "reduce\n  rhs: spatial"));
  absl::Status loop = AssertStructuralEqual(Matmul({}), Matmul({.outer_kind = ForKind::kParallel}));
  EXPECT_EQ(Message(loop),
            "structural mismatch at body.for_kind: loop kinds differ\n  lhs: serial\n  rhs: parallel");
  absl::Status param = AssertStructuralEqual(Matmul({}), Matmul({.c_scope = "shared"}));
  EXPECT_THAT(Message(param), HasSubstr("structural mismatch at params[2].scope: scopes differ"));
  absl::Status dtype = AssertStructuralEqual(Matmul({}), Matmul({.dtype = DataType::Float(16)}));
  EXPECT_EQ(Message(dtype),
            "structural mismatch at params[0].dtype: dtypes differ\n  lhs: f32\n  rhs: f16");
}

TEST(StructuralEqualTest, SequencesReportLengthAndIndex) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(4)});
  Stmt s0 = Store(a, IntImm32(0), {IntImm32(0)});
  Stmt s1 = Store(a, IntImm32(1), {IntImm32(1)});
  EXPECT_EQ(Message(AssertStructuralEqual(Seq({s0, s1}), Seq({s0}))),
            "structural mismatch at seq: lengths differ\n  lhs: 2 elements\n  rhs: 1 elements");
  EXPECT_THAT(Message(AssertStructuralEqual(Seq({s0, s1}), Seq({s0, s0}))),
              HasSubstr("structural mismatch at seq[1].value: values differ"));
  EXPECT_THAT(Message(AssertStructuralEqual(Seq({s0}), ValueOrDie(MakeEvaluate(IntImm32(0))))),
              HasSubstr("structural mismatch at (root): node kinds differ (SeqStmt vs Evaluate)"));
  Stmt if1 = ValueOrDie(MakeIfThenElse(Bool(true), s0, s1));
  Stmt if2 = ValueOrDie(MakeIfThenElse(Bool(true), s0));
  EXPECT_EQ(Message(AssertStructuralEqual(if1, if2)),
            "structural mismatch at else_case: rhs is absent\n  lhs: " +
                PrintStmt(s1).substr(0, PrintStmt(s1).find('\n')) + "\n  rhs: (absent)");
}

TEST(StructuralEqualTest, ModulesCompareFunctionNamesAndCounts) {
  PrimFunc f = Matmul({});
  IRModule one = MakeIRModule({{"matmul", f}});
  IRModule two = MakeIRModule({{"matmul", f}, {"other", f}});
  EXPECT_EQ(Message(AssertStructuralEqual(one, two)),
            "structural mismatch at functions: function counts differ\n  lhs: 1 functions (matmul)"
            "\n  rhs: 2 functions (matmul, other)");
  IRModule renamed = MakeIRModule({{"gemm", f}});
  EXPECT_EQ(Message(AssertStructuralEqual(one, renamed)),
            "structural mismatch at functions[0]: function names differ\n  lhs: matmul\n  rhs: gemm");
  EXPECT_NE(StructuralHash(one), StructuralHash(renamed));
  EXPECT_TRUE(StructuralEqual(IRModule(), IRModule()));
  EXPECT_THAT(Message(AssertStructuralEqual(one, IRModule())),
              HasSubstr("structural mismatch at (root): rhs is absent"));
}

// ---- Free variables -----------------------------------------------------------------

TEST(StructuralEqualTest, FreeVariablesMatchOnlyThemselvesUnlessMapped) {
  Var x = MakeVar("x", kI32), y = MakeVar("y", kI32), z = MakeVar("z", kI32);
  StructuralEqualOptions map{.map_free_vars = true};
  ExpectEqual(Add(x, IntImm32(1)), Add(x, IntImm32(1)));
  EXPECT_FALSE(StructuralEqual(Add(x, IntImm32(1)), Add(y, IntImm32(1))));
  EXPECT_THAT(Message(AssertStructuralEqual(Add(x, IntImm32(1)), Add(y, IntImm32(1)))),
              HasSubstr("structural mismatch at a: different free variables 'x' and 'y'"));
  EXPECT_NE(StructuralHash(Add(x, IntImm32(1))), StructuralHash(Add(y, IntImm32(1))));
  ExpectEqual(Add(x, IntImm32(1)), Add(y, IntImm32(1)), map);
  ExpectEqual(Add(x, y), Add(y, z), map);
  // The matching is a bijection, in both directions.
  EXPECT_FALSE(StructuralEqual(Add(x, y), Add(x, x), map));
  EXPECT_FALSE(StructuralEqual(Add(x, x), Add(x, y), map));
  EXPECT_THAT(Message(AssertStructuralEqual(Add(x, y), Add(z, z), map)),
              HasSubstr("structural mismatch at b: different variables: rhs 'z' corresponds to "
                        "lhs 'x', while lhs 'y' is unbound"));
  EXPECT_NE(StructuralHash(Add(x, y), true), StructuralHash(Add(x, x), true));
  // Dtypes still count.
  Var w = MakeVar("w", DataType::Int(64));
  EXPECT_FALSE(StructuralEqual(Expr(x), Expr(w), map));
}

TEST(StructuralEqualTest, FreeBuffersAreMatchedWithTheirDefinitions) {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(8)});
  Buffer b = MakeBuffer("B", kF32, {IntImm32(8)});
  Buffer c = MakeBuffer("C", kF32, {IntImm32(9)});
  StructuralEqualOptions map{.map_free_vars = true};
  Expr i0 = IntImm32(0);
  EXPECT_FALSE(StructuralEqual(Load(a, {i0}), Load(b, {i0})));
  ExpectEqual(Load(a, {i0}), Load(b, {i0}), map);
  EXPECT_THAT(Message(AssertStructuralEqual(Load(a, {i0}), Load(c, {i0}), map)),
              HasSubstr("structural mismatch at buffer.shape[0]: values differ"));
  EXPECT_FALSE(StructuralEqual(Add(Load(a, {i0}), Load(b, {i0})),
                               Add(Load(a, {i0}), Load(a, {i0})), map));
}

TEST(StructuralEqualTest, BoundAndFreeVariablesDiffer) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  Var i = MakeVar("i", kI32), x = MakeVar("x", kI32);
  Stmt bound = For(i, IntImm32(0), IntImm32(8), Store(a, IntImm32(0), {i}));
  Stmt free = For(i, IntImm32(0), IntImm32(8), Store(a, IntImm32(0), {x}));
  EXPECT_FALSE(StructuralEqual(bound, free, {.map_free_vars = true}));
  EXPECT_THAT(Message(AssertStructuralEqual(bound, free)),
              HasSubstr("at body.indices[0]: different variables: lhs 'i' corresponds to rhs 'i', "
                        "while rhs 'x' is unbound"));
}

// ---- Attributes and constants -------------------------------------------------------

TEST(StructuralEqualTest, AttrsAndAnnotationsAreCompared) {
  auto with = [](Attrs loop, Attrs func) {
    return Matmul({.loop_annotations = std::move(loop), .func_attrs = std::move(func)});
  };
  Attrs unroll4{{"unroll", AttrValue(int64_t{4})}};
  Attrs unroll8{{"unroll", AttrValue(int64_t{8})}};
  ExpectEqual(with(unroll4, {}), with(unroll4, {}));
  EXPECT_EQ(Message(AssertStructuralEqual(with(unroll4, {}), with(unroll8, {}))),
            "structural mismatch at body.annotations[unroll]: attribute values differ\n  lhs: 4\n"
            "  rhs: 8");
  EXPECT_EQ(Message(AssertStructuralEqual(with({}, {{"global_symbol", AttrValue("mm")}}),
                                          with({}, {}))),
            "structural mismatch at attrs[global_symbol]: key only on lhs\n  lhs: \"mm\"\n"
            "  rhs: (absent)");
  using L = AttrValue::List;
  Attrs t1{{"tile", AttrValue(L{AttrValue(8), AttrValue(32)})}};
  Attrs t2{{"tile", AttrValue(L{AttrValue(8), AttrValue(16)})}};
  Attrs t3{{"tile", AttrValue(L{AttrValue(8), AttrValue(32.0)})}};
  EXPECT_THAT(Message(AssertStructuralEqual(with({}, t1), with({}, t2))),
              HasSubstr("structural mismatch at attrs[tile][1]: attribute values differ"));
  EXPECT_THAT(Message(AssertStructuralEqual(with({}, t1), with({}, t3))),
              HasSubstr("at attrs[tile][1]: attribute value kinds differ"));
  EXPECT_FALSE(StructuralEqual(with({}, {{"f", AttrValue(true)}}), with({}, {{"f", AttrValue(false)}})));
  EXPECT_FALSE(StructuralEqual(with({}, {{"f", AttrValue(0.0)}}), with({}, {{"f", AttrValue(-0.0)}})));
  EXPECT_NE(StructuralHash(with(unroll4, {})), StructuralHash(with(unroll8, {})));
  EXPECT_NE(StructuralHash(with({}, t1)), StructuralHash(with({}, t3)));
}

TEST(StructuralEqualTest, ExprsInAnnotationsSeeBindings) {
  Buffer a = MakeBuffer("A", kI32, {IntImm32(8)});
  auto make = [&](const std::string& name, bool use_loop_var) {
    Var i = MakeVar(name, kI32);
    Attrs ann{{"hint", AttrValue(Expr(use_loop_var ? Expr(i) : IntImm32(0)))}};
    return ValueOrDie(MakeFor(i, IntImm32(0), IntImm32(8), ForKind::kSerial,
                              Store(a, IntImm32(0), {i}), "", ann));
  };
  ExpectEqual(make("i", true), make("k", true));
  EXPECT_THAT(Message(AssertStructuralEqual(make("i", true), make("i", false))),
              HasSubstr("structural mismatch at annotations[hint]: node kinds differ (Var vs IntImm)"));
}

TEST(StructuralEqualTest, FloatsCompareBitExactly) {
  Expr pz = FloatImm(kF32, 0.0), nz = FloatImm(kF32, -0.0);
  EXPECT_FALSE(StructuralEqual(pz, nz));
  EXPECT_NE(StructuralHash(pz), StructuralHash(nz));
  Expr nan1 = FloatImm(DataType::Float(64), std::bit_cast<double>(uint64_t{0x7FF8000000000001}));
  Expr nan2 = FloatImm(DataType::Float(64), std::bit_cast<double>(uint64_t{0x7FF8000000000001}));
  Expr nan3 = FloatImm(DataType::Float(64), std::bit_cast<double>(uint64_t{0x7FF8000000000002}));
  ExpectEqual(nan1, nan2);
  EXPECT_FALSE(StructuralEqual(nan1, nan3));
  EXPECT_NE(StructuralHash(nan1), StructuralHash(nan3));
  // Same value, different dtype.
  EXPECT_THAT(Message(AssertStructuralEqual(FloatImm(kF32, 1.0), FloatImm(DataType::Float(64), 1.0))),
              HasSubstr("structural mismatch at (root): dtypes differ (f32 vs f64)"));
}

TEST(StructuralEqualTest, CallsCompareCalleeAndName) {
  Var x = MakeVar("x", kF32);
  Expr exp = Intrinsic("exp", {x});
  EXPECT_EQ(Message(AssertStructuralEqual(exp, Intrinsic("log", {x}))),
            "structural mismatch at name: call names differ\n  lhs: exp\n  rhs: log");
  Expr ext = ValueOrDie(MakeCall(kF32, CallNode::Callee::kExtern, "exp", {x}));
  EXPECT_THAT(Message(AssertStructuralEqual(exp, ext)),
              HasSubstr("structural mismatch at (root): callee kinds differ (intrinsic vs extern)"));
  EXPECT_THAT(Message(AssertStructuralEqual(Intrinsic("pow", {x, x}), Intrinsic("pow", {x, Expr(MakeVar("y", kF32))}))),
              HasSubstr("structural mismatch at args[1]: different free variables 'x' and 'y'"));
  EXPECT_NE(StructuralHash(exp), StructuralHash(ext));
  EXPECT_NE(StructuralHash(exp), StructuralHash(Intrinsic("log", {x})));
}

TEST(StructuralEqualTest, AbsentNodesAndParameterKinds) {
  EXPECT_TRUE(StructuralEqual(Expr(), Expr()));
  EXPECT_TRUE(StructuralEqual(Stmt(), Stmt()));
  EXPECT_TRUE(StructuralEqual(PrimFunc(), PrimFunc()));
  EXPECT_EQ(Message(AssertStructuralEqual(Expr(), IntImm32(1))),
            "structural mismatch at (root): lhs is absent\n  lhs: (absent)\n  rhs: " +
                PrintExpr(IntImm32(1)));
  EXPECT_EQ(StructuralHash(Expr()), StructuralHash(Expr()));
  EXPECT_NE(StructuralHash(Expr()), StructuralHash(IntImm32(0)));
  Var n = MakeVar("n", kI32);
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Stmt body = ValueOrDie(MakeEvaluate(IntImm32(0)));
  PrimFunc by_var = MakePrimFunc({Param::OfVar(n)}, body);
  PrimFunc by_buffer = MakePrimFunc({Param::OfBuffer(a)}, body);
  EXPECT_THAT(Message(AssertStructuralEqual(by_var, by_buffer)),
              HasSubstr("structural mismatch at params[0]: parameter kinds differ\n  lhs: var n\n"
                        "  rhs: buffer A: f32["));
  EXPECT_EQ(Message(AssertStructuralEqual(by_var, MakePrimFunc({}, body))),
            "structural mismatch at params: lengths differ\n  lhs: 1 elements\n  rhs: 0 elements");
  PrimFunc by_i64 = MakePrimFunc({Param::OfVar(MakeVar("n", DataType::Int(64)))}, body);
  EXPECT_EQ(Message(AssertStructuralEqual(by_var, by_i64)),
            "structural mismatch at params[0]: dtypes differ\n  lhs: n: i32\n  rhs: n: i64");
  EXPECT_NE(StructuralHash(by_var), StructuralHash(by_buffer));
  EXPECT_NE(StructuralHash(by_var), StructuralHash(by_i64));
}

// ---- Hash -----------------------------------------------------------------------------

TEST(StructuralHashTest, NearMissesHashApart) {
  using L = AttrValue::List;
  std::vector<MatmulSpec> variants = {
      {},
      {.n = 32},
      {.init = 1.0},
      {.init = -0.0},
      {.dtype = DataType::Float(64)},
      {.outer_kind = ForKind::kParallel},
      {.outer_kind = ForKind::kThreadBinding},
      {.block_name = "D"},
      {.k_kind = IterKind::kSpatial},
      {.c_scope = "shared"},
      {.swap_operands = true},
      {.swap_a_index = true},
      {.combine = NodeKind::kMax},
      {.combine = NodeKind::kMin},
      {.loop_annotations = {{"unroll", AttrValue(4)}}},
      {.loop_annotations = {{"unroll", AttrValue(L{AttrValue(4)})}}},
      {.func_attrs = {{"global_symbol", AttrValue("matmul")}}},
      {.func_attrs = {{"global_symbol", AttrValue("matmum")}}},
  };
  std::set<uint64_t> hashes;
  for (size_t v = 0; v < variants.size(); ++v) {
    PrimFunc f = Matmul(variants[v]);
    EXPECT_TRUE(hashes.insert(StructuralHash(f)).second) << "variant " << v << " collides";
    EXPECT_EQ(StructuralEqual(f, Matmul(variants[0])), v == 0) << "variant " << v;
    // Equal to a renamed copy of itself, and hashes with it.
    MatmulSpec renamed = variants[v];
    renamed.suffix = "_r";
    EXPECT_EQ(StructuralHash(f), StructuralHash(Matmul(renamed))) << "variant " << v;
    EXPECT_EQ(StructuralHash(f, true), StructuralHash(Matmul(renamed), true)) << "variant " << v;
  }
  // Operand order and constants in small expressions.
  Var x = MakeVar("x", kI32), y = MakeVar("y", kI32);
  std::set<uint64_t> small;
  for (Expr e : {Add(x, y), Add(y, x), Sub(x, y), Add(x, IntImm32(1)), Add(x, IntImm32(2)),
                 Add(x, IntImm(DataType::Int(32), -1)), Expr(x), Expr(y)}) {
    EXPECT_TRUE(small.insert(StructuralHash(e)).second) << PrintExpr(e);
  }
}

TEST(StructuralHashTest, ModuleHashDoesNotDependOnObjects) {
  // Built twice: every node is a different object, the hash is the same.
  IRModule m1 = MakeIRModule({{"matmul", Matmul({})}, {"matmul_f64", Matmul({.dtype = DataType::Float(64)})}});
  IRModule m2 = MakeIRModule({{"matmul", Matmul({.suffix = "x"})},
                              {"matmul_f64", Matmul({.dtype = DataType::Float(64)})}});
  ExpectEqual(m1, m2);
  EXPECT_EQ(StructuralHash(m1, true), StructuralHash(m2, true));
  IRModule swapped = MakeIRModule({{"matmul_f64", Matmul({.dtype = DataType::Float(64)})},
                                   {"matmul", Matmul({})}});
  EXPECT_NE(StructuralHash(m1), StructuralHash(swapped));
}

// Small random programs: free variables come from `pool`, lets and loops bind fresh
// Var objects, so the same seed gives alpha-equivalent programs with distinct binders.
class RandomProgram {
 public:
  RandomProgram(uint32_t seed, std::vector<Var> pool, Buffer buf)
      : rng_(seed), scope_(std::move(pool)), buf_(std::move(buf)) {}

  Stmt Statement(int depth) {
    switch (Pick(depth > 0 ? 4 : 1)) {
      case 0: return Store(buf_, Expression(2), {Expression(1)});
      case 1: case 2: {
        Var v = MakeVar("v", kI32);
        Expr value = Expression(2);
        scope_.push_back(v);
        Stmt body = Statement(depth - 1);
        scope_.pop_back();
        return Pick(2) ? ValueOrDie(MakeLetStmt(v, value, body))
                       : For(v, IntImm32(0), IntImm32(1 + Pick(3)), body);
      }
      default: return Seq({Statement(depth - 1), Statement(depth - 1)});
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  Expr Expression(int depth) {
    switch (Pick(depth > 0 ? 5 : 2)) {
      case 0: return IntImm32(Pick(2));
      case 1: return scope_[Pick(static_cast<int>(scope_.size()))];
      case 2: return Add(Expression(depth - 1), Expression(depth - 1));
      case 3: return Mul(Expression(depth - 1), Expression(depth - 1));
      default: return Load(buf_, {Expression(depth - 1)});
    }
  }

  std::mt19937 rng_;
  std::vector<Var> scope_;
  Buffer buf_;
};

TEST(StructuralHashTest, RandomProgramsHashConsistentlyWithEquality) {
  Buffer buf = MakeBuffer("A", kI32, {IntImm32(4)});
  std::vector<Var> pool = {MakeVar("x", kI32), MakeVar("y", kI32)};
  std::vector<Var> other_pool = {MakeVar("p", kI32), MakeVar("q", kI32)};
  std::vector<Stmt> programs;
  for (uint32_t seed = 0; seed < 150; ++seed) {
    Stmt a = RandomProgram(seed, pool, buf).Statement(3);
    ExpectEqual(a, RandomProgram(seed, pool, buf).Statement(3));
    // Other free variables: equal only when matched up.
    Stmt c = RandomProgram(seed, other_pool, buf).Statement(3);
    ExpectEqual(a, c, {.map_free_vars = true});
    programs.push_back(a);
  }
  int equal_pairs = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    for (size_t j = i + 1; j < programs.size(); ++j) {
      for (bool map : {false, true}) {
        bool eq = StructuralEqual(programs[i], programs[j], {.map_free_vars = map});
        EXPECT_EQ(eq, StructuralHash(programs[i], map) == StructuralHash(programs[j], map))
            << "programs " << i << " and " << j << (map ? " with" : " without") << " map_free_vars";
        equal_pairs += eq;
      }
    }
  }
  // Small programs repeat, so the equal case is exercised too.
  EXPECT_GT(equal_pairs, 0);
}

// The documented algorithm (top of structural_hash.cc), recomputed by hand.
uint64_t ReferenceHash(const std::vector<uint64_t>& words) {
  const uint64_t p1 = 0x9E3779B185EBCA87ULL, p2 = 0xC2B2AE3D27D4EB4FULL, p3 = 0x165667B19E3779F9ULL;
  uint64_t acc = 0x74657373656C0000ULL + 1;
  for (uint64_t w : words) acc = std::rotl(acc + w * p2, 31) * p1;
  uint64_t h = acc ^ words.size();
  h ^= h >> 33;
  h *= p2;
  h ^= h >> 29;
  h *= p3;
  h ^= h >> 32;
  return h;
}

TEST(StructuralHashTest, MatchesTheDocumentedAlgorithm) {
  ASSERT_EQ(kStructuralHashVersion, 1);
  const uint64_t i32 = 0 | 32 << 8 | 1 << 16;
  // 7i32: [IntImm | i32 << 8, 7].
  EXPECT_EQ(StructuralHash(IntImm32(7)), ReferenceHash({2 | i32 << 8, 7}));
  // x + 1 with x free: [Add|i32, Var|i32, ~0, S("x"), IntImm|i32, 1].
  Var x = MakeVar("x", kI32);
  std::vector<uint64_t> free_words = {4 | i32 << 8, 1 | i32 << 8, ~uint64_t{0}, 1, 'x', 2 | i32 << 8, 1};
  EXPECT_EQ(StructuralHash(Add(x, IntImm32(1))), ReferenceHash(free_words));
  // Under map_free_vars x is binding number 0.
  EXPECT_EQ(StructuralHash(Add(x, IntImm32(1)), true),
            ReferenceHash({4 | i32 << 8, 1 | i32 << 8, 0, 2 | i32 << 8, 1}));
  // for i in 0..4 { evaluate(i) }: [For, T(0), T(4), dtype, serial, S(""), {}, Evaluate, T(i)].
  Var i = MakeVar("i", kI32);
  Stmt loop = For(i, IntImm32(0), IntImm32(4), ValueOrDie(MakeEvaluate(i)));
  EXPECT_EQ(StructuralHash(loop), ReferenceHash({33, 2 | i32 << 8, 0, 2 | i32 << 8, 4, i32, 0, 0, 0,
                                                 37, 1 | i32 << 8, 0}));
}

TEST(StructuralHashTest, GoldenValuesArePinned) {
  // If one of these changes, the stored hash changed: bump kStructuralHashVersion,
  // update the documentation in structural_hash.cc, then these values.
  Var x = MakeVar("x", kI32);
  EXPECT_EQ(StructuralHash(Add(x, IntImm32(1))), 0x74EEA457EACF2AFEULL);
  EXPECT_EQ(StructuralHash(Matmul({})), 0x0B83787B5E96E884ULL);
  EXPECT_EQ(StructuralHash(MatmulModule({.n = 128, .dtype = DataType::Float(16)})), 0x93C43518590E0A99ULL);
  Buffer a = MakeBuffer("A", kF32, {IntImm32(16)});
  Buffer t = MakeBuffer("T", kF32, {IntImm32(16)}, "local");
  Var i = MakeVar("i", kI32);
  Stmt body = ValueOrDie(MakeAllocate(
      t, Seq({For(i, IntImm32(0), IntImm32(16), Store(t, Load(a, {i}), {i})),
              For(i, IntImm32(0), IntImm32(16), Store(a, Mul(Load(t, {i}), FloatImm(kF32, 2.0)), {i}))})));
  EXPECT_EQ(StructuralHash(MakePrimFunc({Param::OfBuffer(a)}, body)), 0x21643C0D3550A2EEULL);
}

}  // namespace
}  // namespace tessel::ir
