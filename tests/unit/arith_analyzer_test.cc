// The Analyzer's context (bindings, constraints, nested scopes), its proofs,
// the rule counts, and the statement simplifier built on it, checked against
// the interpreter.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/stmt_simplify.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::C;
using testing::Fd;
using testing::Fm;
using testing::I32;
using testing::R;
using testing::Str;
using testing::operator+;
using testing::operator-;
using testing::operator*;

TEST(Analyzer, ScopesNestAndUndo) {
  Var i = I32("i"), n = I32("n");
  Analyzer ana;
  {
    Analyzer::Scope outer(&ana);
    ana.Bind(i, R(0, 64));
    {
      Analyzer::Scope inner(&ana);
      ana.EnterConstraint(And(LT(i, n), GE(i, C(8))));
      EXPECT_EQ(ana.GetConstIntBound(i).ToString(), "[8, 63]");
      EXPECT_TRUE(ana.CanProve(LT(i, n)));
      EXPECT_TRUE(ana.CanProve(LT(C(8), n)));  // 8 <= i < n
    }
    EXPECT_EQ(ana.GetConstIntBound(i).ToString(), "[0, 63]");
    EXPECT_FALSE(ana.CanProve(LT(i, n)));
  }
  EXPECT_EQ(ana.GetConstIntBound(i).ToString(), "[-2147483648, 2147483647]");
}

// A split's ceil-div extent covers the bound it was split from: c * (X // c) is
// X - X %% c, so n <= (n + 255) // 256 * 256 for any n.
TEST(Analyzer, ACeilDivProductCoversItsBound) {
  Var n = I32("n");
  Analyzer ana;
  EXPECT_TRUE(ana.CanProve(LE(n, Fd(n + C(255), 256) * C(256))));
  EXPECT_TRUE(ana.CanProve(LT(n, Fd(n + C(256), 256) * C(256))));
  EXPECT_FALSE(ana.CanProve(LE(n, Fd(n + C(254), 256) * C(256))));
  EXPECT_FALSE(ana.CanProve(LT(n, Fd(n + C(255), 256) * C(256))));
  // A fused symbolic nest, [n, 8] split by 1024 threads: the comparison divided
  // by its gcd (n <= (8n + 1023) // 1024 * 128) still meets its ceil-div.
  EXPECT_TRUE(ana.CanProve(LE(n * C(8), Fd(n * C(8) + C(1023), 1024) * C(1024))));
  EXPECT_TRUE(ana.CanProve(LT(n * C(8), Fd(n * C(8) + C(1024), 1024) * C(1024))));
  EXPECT_FALSE(ana.CanProve(LE(n * C(8), Fd(n * C(8) + C(1015), 1024) * C(1024))));
}

TEST(Analyzer, SymbolicRangesAndLets) {
  Var i = I32("i"), n = I32("n"), t = I32("t");
  Analyzer ana;
  ana.Bind(n, R(1, 1000));
  ana.Bind(i, Range{C(0), n});
  EXPECT_TRUE(ana.CanProve(LT(i, n)));
  EXPECT_TRUE(ana.CanProve(LE(i, n - 1)));
  EXPECT_TRUE(ana.CanProve(LT(i * 2, n * 2)));
  EXPECT_FALSE(ana.CanProve(LT(i + 1, n)));
  EXPECT_EQ(Str(ana.Simplify(Min(i, n))), "i");
  EXPECT_EQ(Str(ana.Simplify(Max(i + 1, n))), "n");
  ana.Bind(t, i * 4);
  EXPECT_TRUE(ana.CanProve(EQ(t, i * 4)));
  EXPECT_EQ(ana.GetConstIntBound(t).ToString(), "[0, 3996]");
}

TEST(Analyzer, ProofsAndNonProofs) {
  Var f = I32("f"), x = I32("x"), y = I32("y");
  Analyzer ana;
  EXPECT_TRUE(ana.CanProveEqual(Fd(f, 8) * 8 + Fm(f, 8), f));
  EXPECT_TRUE(ana.CanProveEqual(x * y, y * x));
  EXPECT_FALSE(ana.CanProveEqual(x, y));
  EXPECT_FALSE(ana.CanProveEqual(x, FloatImm(DataType::Float(32), 1.0)));
  EXPECT_FALSE(ana.CanProve(x));  // Not a condition.
  EXPECT_FALSE(ana.CanProve(Expr()));
  EXPECT_TRUE(ana.CanProve(Bool(true)));
  // Missing pieces are ignored or answered "not proven", never a crash.
  EXPECT_EQ(ana.Simplify(Expr()), nullptr);
  EXPECT_FALSE(ana.CanProveEqual(Expr(), x));
  ana.Bind(x, Range{});
  ana.Bind(x, Expr());
  ana.EnterConstraint(Expr());
  EXPECT_EQ(ana.GetConstIntBound(x).ToString(), "[-2147483648, 2147483647]");
  EXPECT_EQ(ana.GetConstIntBound(Expr()).ToString(), "[-inf, +inf]");
  {
    Analyzer::Scope s(&ana);
    Expr cond = Or(LT(x, C(0)), LT(y, C(0)));
    ana.EnterConstraint(cond);
    EXPECT_TRUE(ana.CanProve(cond));  // Known as written.
    EXPECT_FALSE(ana.CanProve(LT(x, C(0))));
    ana.EnterConstraint(x);  // Not a condition: ignored.
    ana.EnterConstraint(Bool(false));
  }
}

TEST(Analyzer, RuleCounts) {
  Var i = I32("i");
  Analyzer ana;
  RuleCounts counts;
  ana.set_rule_counts(&counts);
  ana.Bind(i, R(0, 16));
  ana.Simplify(Add(Add(i, C(1)), Mul(C(2), C(3))) + Min(i, C(20)));
  EXPECT_EQ(counts,
            (RuleCounts{{"canonical-form", 2}, {"fold-constant", 1}, {"prove-min-max", 1}}));
}

TEST(Analyzer, CheckedModeLeavesWhatMayWrap) {
  Var x = I32("x"), i = I32("i");
  Analyzer checked(AnalyzerOptions{.assume_no_overflow = false});
  EXPECT_EQ(Str(checked.Simplify(Fd(x * 4 + 4, 4))), "(x * 4 + 4) // 4");
  EXPECT_EQ(Str(checked.Simplify(LT(x + 1, x + 2))), "x + 1 < x + 2");
  EXPECT_EQ(Str(checked.Simplify(x + 1 - x)), "1");  // + - * are exact modulo 2^32.
  checked.Bind(i, R(0, 100));
  EXPECT_EQ(Str(checked.Simplify(Fd(i * 4 + 4, 4))), "i + 1");
  EXPECT_EQ(Str(checked.Simplify(LT(i + 1, i + 2))), "true");
  Analyzer assume;
  EXPECT_EQ(Str(assume.Simplify(Fd(x * 4 + 4, 4))), "x + 1");
  EXPECT_EQ(Str(assume.Simplify(LT(x + 1, x + 2))), "true");
}

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? (*m)->functions[0].second : nullptr;
}

TEST(StmtSimplify, ContextOfLoopsIfsAndBlocks) {
  PrimFunc f = Parse(R"(func @f[n](A: f32[64], B: i32[64], C: i32[n]) {
  for i in range(0, 4 * 4) {
    if i < 8 {
      A[min(i, 8) + i // 16 * 4] = 1.0f32
    } else {
      B[i] = select(i < 8, 1, 2)
    }
    B[(i * 4 + 1) // 4] = select(i < 16, 2, 3)
    if i < 0 {
      B[0] = 7
    }
    let t = i * 2 {
      B[t // 2] = select(t == i * 2, 1, 0)
    }
  }
  for j in range(0, n) {
    if 0 <= n {
      C[j] = min(j, n)
    }
  }
  for k in range(0, 4) {
    block b(vk: spatial[0, 4] = k) where k < 4 {
      reads()
      writes(B[vk %% 4])
      B[vk %% 4] = vk // 4
    }
  }
}
)");
  ASSERT_TRUE(f);
  Analyzer ana;
  RuleCounts counts;
  ana.set_rule_counts(&counts);
  PrimFunc g = SimplifyFunction(f, &ana);
  EXPECT_EQ(PrintFunction(g, "f"), R"(func @f[n](A: f32[64], B: i32[64], C: i32[n]) {
  for i in range(0, 16) {
    if i < 8 {
      A[i] = 1.0f32
    } else {
      B[i] = 2
    }
    B[i] = 2
    seq {
    }
    let t = i * 2
    B[t // 2] = 1
  }
  for j in range(0, n) {
    C[j] = j
  }
  for k in range(0, 4) {
    block b(vk: spatial[0, 4] = k) {
      writes(B[vk])
      B[vk] = 0
    }
  }
}
)");
  EXPECT_EQ(counts["constant-branch"], 2);
  EXPECT_TRUE(VerifyFunction(g).ok());
  absl::StatusOr<std::vector<Arg>> args = RandomArgs(f, 7, {{"n", 10}});
  ASSERT_TRUE(args.ok()) << args.status();
  std::vector<Arg> before = CloneArgs(*args), after = CloneArgs(*args);
  ASSERT_TRUE(ir::Run(f, before).ok());
  ASSERT_TRUE(ir::Run(g, after).ok());
  absl::Status same = CompareArgs(before, after, f);
  EXPECT_TRUE(same.ok()) << same;
  // Nothing to do: the same object.
  Analyzer again;
  EXPECT_TRUE(SimplifyFunction(g, &again).same_as(g) ||
              PrintFunction(SimplifyFunction(g, &again), "f") == PrintFunction(g, "f"));
}

TEST(StmtSimplify, UnchangedIsTheSameObject) {
  PrimFunc f = Parse(R"(func @f(A: i32[8]) {
  for i in range(0, 8) {
    A[i] = A[i] + 1
  }
}
)");
  ASSERT_TRUE(f);
  Analyzer ana;
  EXPECT_TRUE(SimplifyFunction(f, &ana).same_as(f));
  EXPECT_TRUE(SimplifyStmt(f->body, &ana).same_as(f->body));
}

// The shape of the simplify pass: a subclass adding a statement rule, counts
// collected for the pass log, the checked overflow mode.
class FlatteningSimplifier : public StmtSimplifier {
 public:
  using StmtSimplifier::StmtSimplifier;
  Stmt VisitSeqStmt(const SeqStmtNode* op) override {
    Stmt s = StmtSimplifier::VisitSeqStmt(op);
    const auto* seq = dyn_cast<SeqStmtNode>(s);
    if (seq == nullptr) return s;
    std::vector<Stmt> flat;
    bool nested = false;
    for (const Stmt& c : seq->seq) {
      if (const auto* inner = dyn_cast<SeqStmtNode>(c)) {
        flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
        nested = true;
      } else {
        flat.push_back(c);
      }
    }
    if (!nested) return s;
    return Applied("flatten-seq", Stmt(MakeNode<SeqStmtNode>(std::move(flat))));
  }
};

TEST(StmtSimplify, SubclassedAsThePassUsesIt) {
  PrimFunc f = Parse(R"(func @f(A: i32[8]) {
  for i in range(0, 4 * 2) {
    if 1 < 2 {
      A[(i + 1) + 2 - 3] = 3 + 4 * (i - 0) + 0 * A[i]
    }
    if i >= 8 {
      A[0] = 1
    }
  }
}
)");
  ASSERT_TRUE(f);
  RuleCounts counts;
  Analyzer ana(AnalyzerOptions{.assume_no_overflow = false});
  ana.set_rule_counts(&counts);
  FlatteningSimplifier s(&ana);
  PrimFunc g = s.SimplifyFunction(f);
  // The dropped if leaves a one-statement sequence (remove-no-op's work).
  EXPECT_EQ(PrintFunction(g, "f"), R"(func @f(A: i32[8]) {
  for i in range(0, 8) {
    seq {
      A[i] = i * 4 + 3
    }
  }
}
)");
  EXPECT_EQ(counts["constant-branch"], 2);
  EXPECT_EQ(counts["flatten-seq"], 1);
  EXPECT_GE(counts["canonical-form"], 2);
}

}  // namespace
}  // namespace tessel::ir::arith
