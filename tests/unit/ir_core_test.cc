// Units for the IR core: dtypes, checked factories, kinds and casts, the visitor,
// and copy-on-write mutation.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/function.h"
#include "ir/host_buffer.h"
#include "ir/mutator.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

using ::testing::HasSubstr;

TEST(DataTypeTest, PrintsAndParsesEveryScalar) {
  for (const char* name : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16",
                           "f32", "f64", "bool", "handle", "void", "f32x16", "i64x4", "boolx8"}) {
    absl::StatusOr<DataType> t = DataType::Parse(name);
    ASSERT_TRUE(t.ok()) << name << ": " << t.status();
    EXPECT_EQ(t->ToString(), name);
  }
  EXPECT_EQ(*DataType::Parse("f32x4"), DataType::Float(32, 4));
  EXPECT_EQ(DataType::BFloat(16).bytes(), 2);
  EXPECT_TRUE(DataType::Float(32, 8).is_vector());
}

TEST(DataTypeTest, RefusesUnknownTypes) {
  for (const char* bad : {"", "f8", "i7", "bf32", "x4", "f32x", "f32x0", "f32x70000", "float",
                          "handlex2", "i32x-1", "u"}) {
    absl::StatusOr<DataType> t = DataType::Parse(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
  EXPECT_THAT(std::string(DataType::Parse("f8").status().message()), HasSubstr("unknown type 'f8'"));
}

TEST(FactoryTest, BinaryChecksOperandTypes) {
  Var i = MakeVar("i", DataType::Int(32));
  Var x = MakeVar("x", DataType::Float(32));
  absl::StatusOr<Expr> bad = MakeBinary(NodeKind::kAdd, i, x);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("operand types differ (i32 vs f32)"));
  EXPECT_FALSE(MakeBinary(NodeKind::kAnd, i, i).ok());
  EXPECT_FALSE(MakeBinary(NodeKind::kMod, x, x).ok());
  EXPECT_FALSE(MakeBinary(NodeKind::kNot, i, i).ok());
  EXPECT_FALSE(MakeBinary(NodeKind::kAdd, i, nullptr).ok());
  Expr lt = LT(i, IntImm32(3));
  EXPECT_EQ(lt->dtype, DataType::Bool());
  EXPECT_EQ(Add(x, x)->dtype, DataType::Float(32));
}

TEST(FactoryTest, ImmediatesRefuseValuesTheTypeCannotHold) {
  EXPECT_FALSE(MakeIntImm(DataType::UInt(8), 256).ok());
  EXPECT_FALSE(MakeIntImm(DataType::Int(8), -129).ok());
  EXPECT_TRUE(MakeIntImm(DataType::Int(8), -128).ok());
  EXPECT_FALSE(MakeIntImm(DataType::Bool(), 2).ok());
  EXPECT_FALSE(MakeIntImm(DataType::Float(32), 1).ok());
  EXPECT_FALSE(MakeFloatImm(DataType::Int(32), 1.0).ok());
  // f32 constants are rounded to f32 when created.
  Expr tenth = FloatImm(DataType::Float(32), 0.1);  // Held: `f` points into it.
  const auto* f = cast<FloatImmNode>(tenth);
  EXPECT_EQ(f->value, static_cast<double>(0.1f));
  // bf16 keeps 8 mantissa bits: 1 + 2^-9 rounds to 1.
  EXPECT_EQ(cast<FloatImmNode>(FloatImm(DataType::BFloat(16), 1.0 + std::ldexp(1.0, -9)))->value, 1.0);
  // f16 overflows to infinity past 65504 (+ half an ulp).
  EXPECT_TRUE(std::isinf(cast<FloatImmNode>(FloatImm(DataType::Float(16), 70000.0))->value));
  EXPECT_EQ(cast<FloatImmNode>(FloatImm(DataType::Float(16), 65504.0))->value, 65504.0);
  // NaN and signed zero survive.
  EXPECT_TRUE(std::isnan(cast<FloatImmNode>(FloatImm(DataType::Float(32), NAN))->value));
  EXPECT_TRUE(std::signbit(cast<FloatImmNode>(FloatImm(DataType::Float(64), -0.0))->value));
}

TEST(FactoryTest, VectorsAndCallsAreChecked) {
  Var i = MakeVar("i", DataType::Int(32));
  Expr r = Ramp(i, IntImm32(1), 8);
  EXPECT_EQ(r->dtype, DataType::Int(32, 8));
  EXPECT_FALSE(MakeRamp(i, IntImm32(1), 1).ok());
  EXPECT_FALSE(MakeBroadcast(r, 4).ok());
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(64)});
  EXPECT_EQ(Load(a, {r})->dtype, DataType::Float(32, 8));
  absl::StatusOr<Expr> rank = MakeBufferLoad(a, {i, i});
  ASSERT_FALSE(rank.ok());
  EXPECT_THAT(std::string(rank.status().message()), HasSubstr("buffer 'A' has rank 1 but 2 indices"));
  Expr x = FloatImm(DataType::Float(32), 1.0);
  EXPECT_FALSE(MakeCall(DataType::Float(32), CallNode::Callee::kIntrinsic, "expp", {x}).ok());
  EXPECT_FALSE(MakeCall(DataType::Float(32), CallNode::Callee::kIntrinsic, "pow", {x}).ok());
  EXPECT_FALSE(MakeCall(DataType::Int(32), CallNode::Callee::kIntrinsic, "exp", {i}).ok());
  EXPECT_TRUE(MakeCall(DataType::Int(32), CallNode::Callee::kIntrinsic, "fabs", {i}).ok());
  EXPECT_TRUE(MakeCall(DataType::Float(32), CallNode::Callee::kExtern, "my_kernel", {x, i}).ok());
}

TEST(FactoryTest, StatementsAreChecked) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(4)});
  Var i = MakeVar("i", DataType::Int(32));
  absl::StatusOr<Stmt> st = MakeBufferStore(a, IntImm32(0), {i});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.status().message()), HasSubstr("storing i32 into buffer 'A' needs f32"));
  Stmt store = Store(a, FloatImm(DataType::Float(32), 0), {i});
  EXPECT_FALSE(MakeFor(i, IntImm32(0), IntImm(DataType::Int(64), 4), ForKind::kSerial, store).ok());
  EXPECT_FALSE(MakeFor(i, IntImm32(0), IntImm32(4), ForKind::kThreadBinding, store).ok());
  EXPECT_FALSE(MakeIfThenElse(i, store).ok());
  EXPECT_FALSE(MakeBufferChecked("B", DataType::Float(32), {IntImm32(4)}, {}, nullptr, "texture").ok());
  EXPECT_FALSE(MakeBufferChecked("B", DataType::Float(32, 4), {IntImm32(4)}).ok());
  EXPECT_FALSE(MakeBufferChecked("B", DataType::Float(32), {IntImm32(4)}, {}, nullptr, "global", 48).ok());
  Var v = MakeVar("v", DataType::Int(32));
  absl::StatusOr<Block> dup = MakeBlock("b", {{v, {IntImm32(0), IntImm32(4)}, IterKind::kSpatial},
                                              {v, {IntImm32(0), IntImm32(4)}, IterKind::kSpatial}},
                                        {}, {}, store);
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(std::string(dup.status().message()), HasSubstr("iter var 'v' appears twice"));
  Block ok = *MakeBlock("b", {{v, {IntImm32(0), IntImm32(4)}, IterKind::kSpatial}}, {}, {}, store);
  EXPECT_FALSE(MakeBlockRealize({}, nullptr, ok).ok());
  EXPECT_FALSE(MakeIRModuleChecked({{"f", nullptr}}).ok());
}

TEST(NodeTest, KindsAndCasts) {
  Var i = MakeVar("i", DataType::Int(32));
  Expr e = Add(i, IntImm32(1));
  EXPECT_TRUE(isa<BinaryNode>(e));
  EXPECT_TRUE(isa<ExprNode>(e));
  EXPECT_FALSE(isa<StmtNode>(e));
  EXPECT_EQ(e->kind(), NodeKind::kAdd);
  const BinaryNode* b = dyn_cast<BinaryNode>(e);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->a.same_as(i));
  EXPECT_EQ(dyn_cast<VarNode>(e), nullptr);
  Var back = cast_ref<VarNode>(b->a);
  EXPECT_EQ(back->name, "i");
  EXPECT_STREQ(NodeKindName(NodeKind::kFloorMod), "FloorMod");
}

TEST(NodeTest, ReferenceCountsReleaseNodes) {
  Var i = MakeVar("i", DataType::Int(32));
  EXPECT_EQ(i->use_count(), 1);
  {
    Expr e = Add(i, i);
    EXPECT_EQ(i->use_count(), 3);
  }
  EXPECT_EQ(i->use_count(), 1);
}

// A matmul body: C[i, j] = C[i, j] + A[i, k] * B[k, j] under three loops.
Stmt MatmulLoops(const Buffer& a, const Buffer& b, const Buffer& c, Var* k_out) {
  Var i = MakeVar("i", DataType::Int(32)), j = MakeVar("j", DataType::Int(32)),
      k = MakeVar("k", DataType::Int(32));
  *k_out = k;
  Stmt update = Store(c, Add(Load(c, {i, j}), Mul(Load(a, {i, k}), Load(b, {k, j}))), {i, j});
  return For(i, IntImm32(0), IntImm32(8),
             For(j, IntImm32(0), IntImm32(8), For(k, IntImm32(0), IntImm32(8), update)));
}

TEST(VisitorTest, VisitsEveryLoad) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer b = MakeBuffer("B", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer c = MakeBuffer("C", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Var k;
  Stmt s = MatmulLoops(a, b, c, &k);
  struct CountLoads : IRVisitor {
    int loads = 0;
    void VisitBufferLoad(const BufferLoadNode* op) override {
      ++loads;
      IRVisitor::VisitBufferLoad(op);
    }
  } counter;
  counter.VisitStmt(s);
  EXPECT_EQ(counter.loads, 3);
}

TEST(MutatorTest, UnchangedTreeIsTheSameObject) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer b = MakeBuffer("B", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer c = MakeBuffer("C", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Var k;
  Stmt s = MatmulLoops(a, b, c, &k);
  IRMutator identity;
  EXPECT_TRUE(identity.VisitStmt(s).same_as(s));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(b), Param::OfBuffer(c)}, s);
  EXPECT_TRUE(identity.VisitPrimFunc(f).same_as(f));
}

TEST(MutatorTest, ChangedPathIsCopiedAndSiblingsShared) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer b = MakeBuffer("B", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Buffer c = MakeBuffer("C", DataType::Float(32), {IntImm32(8), IntImm32(8)});
  Var k;
  Stmt s = MatmulLoops(a, b, c, &k);
  // Replace loads of B by 2.0.
  struct ReplaceB : IRMutator {
    const BufferNode* target;
    Expr VisitBufferLoad(const BufferLoadNode* op) override {
      if (op->buffer.get() == target) return FloatImm(DataType::Float(32), 2.0);
      return IRMutator::VisitBufferLoad(op);
    }
  } rewrite;
  rewrite.target = b.get();
  Stmt out = rewrite.VisitStmt(s);
  ASSERT_FALSE(out.same_as(s));
  const auto* outer_old = cast<ForNode>(s);
  const auto* outer_new = cast<ForNode>(out);
  EXPECT_TRUE(outer_new->loop_var.same_as(outer_old->loop_var));  // Bindings are kept.
  const auto* store_old = cast<BufferStoreNode>(cast<ForNode>(cast<ForNode>(outer_old->body)->body)->body);
  const auto* store_new = cast<BufferStoreNode>(cast<ForNode>(cast<ForNode>(outer_new->body)->body)->body);
  const auto* add_old = cast<BinaryNode>(store_old->value);
  const auto* add_new = cast<BinaryNode>(store_new->value);
  EXPECT_TRUE(add_new->a.same_as(add_old->a));  // The untouched load of C is shared.
  EXPECT_TRUE(isa<FloatImmNode>(cast<BinaryNode>(add_new->b)->b));
  // The original is untouched.
  EXPECT_TRUE(isa<BufferLoadNode>(cast<BinaryNode>(add_old->b)->b));
}

TEST(ModuleTest, LookupAndReplace) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(4)});
  Var i = MakeVar("i", DataType::Int(32));
  PrimFunc f = MakePrimFunc({Param::OfBuffer(a)},
                            For(i, IntImm32(0), IntImm32(4), Store(a, FloatImm(DataType::Float(32), 1), {i})));
  IRModule m = MakeIRModule({{"f", f}});
  EXPECT_TRUE(m->Lookup("f").same_as(f));
  EXPECT_EQ(m->Lookup("g"), nullptr);
  IRModule m2 = WithFunction(m, "g", f);
  EXPECT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m2->functions.size(), 2u);
  EXPECT_FALSE(MakeIRModuleChecked({{"f", f}, {"f", f}}).ok());
  EXPECT_FALSE(MakePrimFuncChecked({Param{i, a}}, f->body).ok());
}

}  // namespace
}  // namespace tessel::ir

namespace tessel::ir {
namespace {

TEST(FactoryTest, BlockRealizeRefusesAMissingIterVar) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(4)});
  auto block = MakeNode<BlockNode>();
  block->name = "b";
  block->iter_vars.push_back(IterVar{nullptr, {IntImm32(0), IntImm32(4)}, IterKind::kSpatial});
  block->body = Store(a, FloatImm(DataType::Float(32), 0), {IntImm32(0)});
  absl::StatusOr<Stmt> r = MakeBlockRealize({IntImm32(0)}, nullptr, Block(block));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("iter var 0 is missing"));
}

TEST(FactoryTest, SelectNamesTheConditionItNeeds) {
  Expr x = FloatImm(DataType::Float(32), 1);
  absl::StatusOr<Expr> s = MakeSelect(IntImm32(1), x, x);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("condition must be a scalar bool, not i32"));
}

}  // namespace
}  // namespace tessel::ir

namespace tessel::ir {
namespace {

TEST(FactoryTest, HalfConstantsRoundOnceFromTheExactValue) {
  // 1 + 2^-11 + 2^-40 is just above the midpoint between 1 and 1 + 2^-10: it rounds up.
  // Going through f32 first would drop 2^-40, land on the tie, and round to even (1.0).
  double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(cast<FloatImmNode>(FloatImm(DataType::Float(16), v))->value, 1.0 + std::ldexp(1.0, -10));
}

TEST(HostBufferTest, StorageIsAlignedForGeneratedCode) {
  for (int64_t n : {1, 3, 17, 1000}) {
    HostBuffer b = HostBuffer::Zeros(DataType::Float(32), {n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHostBufferAlignment, 0u) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.Clone().data()) % kHostBufferAlignment, 0u) << n;
  }
}

}  // namespace
}  // namespace tessel::ir
