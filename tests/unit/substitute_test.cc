// Units for ir/substitute.h: variable substitution and buffer replacement in
// expressions and statements, and that what they do not touch stays shared.
#include <string>

#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/substitute.h"

namespace tessel::ir {
namespace {

PrimFunc ParseFunc(const char* text) {
  absl::StatusOr<IRModule> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? (*m)->Lookup("f") : PrimFunc();
}

const BlockNode* RootBlock(const PrimFunc& f) { return cast<BlockRealizeNode>(f->body)->block.get(); }

// The buffer parameter or root allocation named `name`.
Buffer FindBuffer(const PrimFunc& f, const std::string& name) {
  for (const Param& p : f->params) {
    if (p.is_buffer() && p.buffer->name == name) return p.buffer;
  }
  for (const Buffer& b : RootBlock(f)->alloc_buffers) {
    if (b->name == name) return b;
  }
  ADD_FAILURE() << "no buffer " << name;
  return Buffer();
}

// T = A * 2 into a root allocation, then C = T + B.
constexpr char kTwoBlocks[] = R"(
func @f(A: f32[16], B: f32[16], C: f32[16]) {
  block root() {
    alloc_buffer T: f32[16]
    for i in range(0, 16) {
      block T(vi: spatial[0, 16] = i) {
        reads(A[vi])
        writes(T[vi])
        T[vi] = A[vi] * 2.0f32
      }
    }
    for j in range(0, 16) {
      block C(vj: spatial[0, 16] = j) {
        reads(T[vj], B[vj])
        writes(C[vj])
        C[vj] = T[vj] + B[vj]
      }
    }
  }
}
)";

TEST(SubstituteTest, ReplacesVariablesInAnExpression) {
  Var x = MakeVar("x", DataType::Int(32)), y = MakeVar("y", DataType::Int(32));
  Expr rest = Mul(y, IntImm32(2));
  Expr e = Add(x, rest);
  Expr out = Substitute(e, {{x.get(), IntImm32(3)}});
  EXPECT_EQ(PrintExpr(out), "3 + y * 2");
  EXPECT_TRUE(cast<BinaryNode>(out)->b.same_as(rest));  // The untouched operand is shared.
  EXPECT_EQ(PrintExpr(e), "x + y * 2");                  // The input is unchanged.
  // Replacements are inserted as given, not substituted again: this swaps.
  EXPECT_EQ(PrintExpr(Substitute(e, {{x.get(), y}, {y.get(), x}})), "y + x * 2");
}

TEST(SubstituteTest, UnchangedExpressionIsTheSameObject) {
  Var x = MakeVar("x", DataType::Int(32)), z = MakeVar("z", DataType::Int(32));
  Expr e = Add(x, Mul(x, IntImm32(2)));
  EXPECT_TRUE(Substitute(e, {{z.get(), IntImm32(1)}}).same_as(e));
  EXPECT_TRUE(Substitute(e, VarMap()).same_as(e));
  EXPECT_TRUE(ReplaceBuffers(e, BufferMap()).same_as(e));
}

TEST(SubstituteTest, ReplacesVariablesAndBuffersInOneWalk) {
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(16)});
  Buffer a2 = MakeBuffer("A2", DataType::Float(32), {IntImm32(16)});
  Buffer idx = MakeBuffer("I", DataType::Int(32), {IntImm32(16)});
  Buffer idx2 = MakeBuffer("I2", DataType::Int(32), {IntImm32(16)});
  Var i = MakeVar("i", DataType::Int(32)), j = MakeVar("j", DataType::Int(32));
  Expr e = Add(Load(a, {i}), Load(a, {Add(i, IntImm32(1))}));
  EXPECT_EQ(PrintExpr(Substitute(e, {{i.get(), j}}, {{a.get(), a2}})), "A2[j] + A2[j + 1]");
  EXPECT_EQ(PrintExpr(ReplaceBuffers(e, {{a.get(), a2}})), "A2[i] + A2[i + 1]");
  // A replacement value that loads a mapped buffer is not rewritten again.
  Expr load_i = Load(idx, {j});
  EXPECT_EQ(PrintExpr(Substitute(Load(a, {i}), {{i.get(), load_i}}, {{idx.get(), idx2}})), "A[I[j]]");
}

TEST(SubstituteTest, ReplacesVariablesEverywhereInAStatementButBinders) {
  PrimFunc f = ParseFunc(R"(
func @f[n](A: f32[n], B: f32[n]) {
  for i in range(0, n) {
    block B(vi: spatial[0, n] = i) where i < n {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
}
)");
  ASSERT_TRUE(f);
  const auto* n = cast<VarNode>(FindBuffer(f, "A")->shape[0]);
  // Loop bounds, iter var domains, bindings, predicates; the buffers' shapes keep n.
  EXPECT_EQ(PrintStmt(Substitute(f->body, {{n, IntImm32(16)}})),
            R"(for i in range(0, 16) {
  block B(vi: spatial[0, 16] = i) where i < 16 {
    reads(A[vi])
    writes(B[vi])
    B[vi] = A[vi] + 1.0f32
  }
}
)");
  // Region bounds, indices and values; the iter var's own binder stays vi.
  const auto* loop = cast<ForNode>(f->body);
  const Block& block = cast<BlockRealizeNode>(loop->body)->block;
  const Var& vi = block->iter_vars[0].var;
  Stmt out = Substitute(block, {{vi.get(), Mul(vi, IntImm32(2))}});
  EXPECT_EQ(PrintStmt(out), R"(bare_block B(vi: spatial[0, n]) {
  reads(A[vi * 2])
  writes(B[vi * 2])
  B[vi * 2] = A[vi * 2] + 1.0f32
}
)");
  EXPECT_TRUE(cast<BlockNode>(out)->iter_vars[0].var.same_as(vi));
}

TEST(SubstituteTest, ReplacesBuffersInAccessesRegionsAndAllocations) {
  PrimFunc f = ParseFunc(kTwoBlocks);
  ASSERT_TRUE(f);
  Buffer t = FindBuffer(f, "T");
  Buffer t_local = MakeBuffer("T_local", DataType::Float(32), {IntImm32(16)}, "local");
  Stmt out = ReplaceBuffers(f->body, {{t.get(), t_local}});
  EXPECT_EQ(PrintStmt(out), R"(block root() {
  alloc_buffer T_local: f32[16] scope "local"
  for i in range(0, 16) {
    block T(vi: spatial[0, 16] = i) {
      reads(A[vi])
      writes(T_local[vi])
      T_local[vi] = A[vi] * 2.0f32
    }
  }
  for j in range(0, 16) {
    block C(vj: spatial[0, 16] = j) {
      reads(T_local[vj], B[vj])
      writes(C[vj])
      C[vj] = T_local[vj] + B[vj]
    }
  }
}
)");
  const BlockNode* root = cast<BlockRealizeNode>(out)->block.get();
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  EXPECT_TRUE(root->alloc_buffers[0].same_as(t_local));  // The very object, not a copy.
}

TEST(SubstituteTest, ReplacesBuffersOfAllocateAndBothSidesOfADeclBuffer) {
  PrimFunc f = ParseFunc(R"(
func @f(B: f32[32], C: f32[32]) {
  allocate T: f32[4, 8] {
    decl_buffer T_1d: f32[32] = T
    for i in range(0, 32) {
      T_1d[i] = B[i]
    }
    for i_1 in range(0, 32) {
      C[i_1] = T_1d[i_1]
    }
  }
}
)");
  ASSERT_TRUE(f);
  const auto* alloc = cast<AllocateNode>(f->body);
  const auto* decl = cast<DeclBufferNode>(alloc->body);
  Buffer u = MakeBuffer("U", DataType::Float(32), {IntImm32(4), IntImm32(8)});
  Buffer v = MakeBuffer("V", DataType::Float(32), {IntImm32(32)});
  Stmt out = ReplaceBuffers(f->body, {{alloc->buffer.get(), u}, {decl->buffer.get(), v}});
  EXPECT_EQ(PrintStmt(out), R"(allocate U: f32[4, 8]
decl_buffer V: f32[32] = U
for i in range(0, 32) {
  V[i] = B[i]
}
for i_1 in range(0, 32) {
  C[i_1] = V[i_1]
}
)");
}

TEST(SubstituteTest, UntouchedSubtreesAreShared) {
  PrimFunc f = ParseFunc(kTwoBlocks);
  ASSERT_TRUE(f);
  const auto* seq = cast<SeqStmtNode>(RootBlock(f)->body);
  // Nothing mapped occurs: the very same statement comes back.
  Buffer other = MakeBuffer("other", DataType::Float(32), {IntImm32(16)});
  EXPECT_TRUE(ReplaceBuffers(f->body, {{other.get(), other}}).same_as(f->body));
  Var unused = MakeVar("unused", DataType::Int(32));
  EXPECT_TRUE(Substitute(f->body, {{unused.get(), IntImm32(0)}}).same_as(f->body));
  // Only the path to a change is copied: replacing B leaves the first nest shared.
  Buffer b2 = MakeBuffer("B2", DataType::Float(32), {IntImm32(16)});
  Stmt out = ReplaceBuffers(f->body, {{FindBuffer(f, "B").get(), b2}});
  ASSERT_FALSE(out.same_as(f->body));
  const auto* out_seq = cast<SeqStmtNode>(cast<BlockRealizeNode>(out)->block->body);
  EXPECT_TRUE(out_seq->seq[0].same_as(seq->seq[0]));
  EXPECT_FALSE(out_seq->seq[1].same_as(seq->seq[1]));
  // Inside the changed block, the untouched operand T[vj] is shared.
  const auto* c_old = cast<BufferStoreNode>(
      cast<BlockRealizeNode>(cast<ForNode>(seq->seq[1])->body)->block->body);
  const auto* c_new = cast<BufferStoreNode>(
      cast<BlockRealizeNode>(cast<ForNode>(out_seq->seq[1])->body)->block->body);
  EXPECT_TRUE(cast<BinaryNode>(c_new->value)->a.same_as(cast<BinaryNode>(c_old->value)->a));
  EXPECT_EQ(PrintExpr(c_new->value), "T[vj] + B2[vj]");
}

}  // namespace
}  // namespace tessel::ir
