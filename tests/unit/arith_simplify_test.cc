// Simplifier units: the canonical form of + - *, division and modulo by
// constants under bounds, comparisons, min/max, select and logic, identities of
// other types, what must be kept (calls, division by zero, overflow), and the
// rule counts a pass log reads.
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
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

class SimplifyTest : public ::testing::Test {
 protected:
  Var i = I32("i"), j = I32("j"), k = I32("k"), n = I32("n"), x = I32("x"), y = I32("y");
  Var f = I32("f");
  Analyzer ana;

  std::string S(const Expr& e) { return Str(ana.Simplify(e)); }
  void BindLoops() {
    ana.Bind(i, R(0, 64));
    ana.Bind(j, R(0, 16));
    ana.Bind(f, R(0, 128));
  }
};

TEST_F(SimplifyTest, CanonicalFormOfSums) {
  EXPECT_EQ(S((i + 1) + 2), "i + 3");
  EXPECT_EQ(S(3 + 4 * (i - 0) + 0 * x), "i * 4 + 3");
  EXPECT_EQ(S((i + 1) * 4 - i), "i * 3 + 4");
  EXPECT_EQ(S(j + i * 16), "i * 16 + j");
  EXPECT_EQ(S(x - x), "0");
  EXPECT_EQ(S(x * 2 + y - x * 2), "y");
  EXPECT_EQ(S(i - n + 1), "i - n + 1");
  EXPECT_EQ(S(C(3) - x), "3 - x");
  EXPECT_EQ(S(C(0) - x - y), "0 - x - y");
  EXPECT_EQ(S(y * x - x * y), "0");  // Products of atoms are ordered.
}

TEST_F(SimplifyTest, SplitTermsFuse) {
  EXPECT_EQ(S(Fd(f, 8) * 8 + Fm(f, 8)), "f");
  EXPECT_EQ(S(Fm(f, 8) + Fd(f, 8) * 8 + 1), "f + 1");
  EXPECT_EQ(S(Fd(x, 4) * 4 + Fm(x, 4)), "x");  // Exact without bounds.
  EXPECT_EQ(S(x - Fm(x, 4)), "x // 4 * 4");
  EXPECT_EQ(S(Fm(Fd(x, 2), 4) * 2 + Fm(x, 2)), "x %% 8");
  EXPECT_EQ(S(Fd(Fd(x, 2), 4)), "x // 8");
  EXPECT_EQ(S(Fm(Fm(x, 16), 4)), "x %% 4");
}

TEST_F(SimplifyTest, DivisionUnderBounds) {
  BindLoops();
  EXPECT_EQ(S(Fd(i * 16 + j, 16)), "i");
  EXPECT_EQ(S(Fm(i * 16 + j, 16)), "j");
  EXPECT_EQ(S(Fd(i * 16 + j + 32, 16)), "i + 2");
  EXPECT_EQ(S(Fm(f, 128)), "f");
  EXPECT_EQ(S(Fd(f, 128)), "0");
  EXPECT_EQ(S(Fd(i * 8 + j, 16)), "(i * 8 + j) // 16");
  EXPECT_EQ(S(Div(i * 16 + j, C(16))), "i");  // Truncation is floor for i*16+j >= 0.
  EXPECT_EQ(S(Mod(i * 16 + j, C(16))), "j");
}

TEST_F(SimplifyTest, DivisionByCommonFactor) {
  EXPECT_EQ(S(Fd(x * 4 + 1, 16)), "x // 4");
  EXPECT_EQ(S(Fm(x * 4 + 1, 16)), "x %% 4 * 4 + 1");
  EXPECT_EQ(S(Fd(x * 6 + y * 4, 2)), "x * 3 + y * 2");
  EXPECT_EQ(S(Fm(x * 8 + y, 8)), "y %% 8");
  ana.Bind(k, R(0, 4));
  EXPECT_EQ(S(Fd(x * 4 + k, 16)), "x // 4");
  EXPECT_EQ(S(Fm(x * 4 + k, 16)), "x %% 4 * 4 + k");
  // y + 1 would be a new dividend; it may overflow while y is unbounded.
  EXPECT_EQ(S(Fd(x * 8 + y + 17, 8)), "(x * 8 + y + 17) // 8");
  ana.Bind(y, R(-100, 200));
  EXPECT_EQ(S(Fd(x * 8 + y + 17, 8)), "x + (y + 1) // 8 + 2");
}

TEST_F(SimplifyTest, TruncatingDivisionNeedsNonNegativeDividend) {
  // Without a bound x may be negative, where / and // differ.
  EXPECT_EQ(S(Div(x * 4 + 2, C(4))), "(x * 4 + 2) / 4");
  ana.Bind(x, R(0, 100));
  EXPECT_EQ(S(Div(x * 4 + 2, C(4))), "x");
}

TEST_F(SimplifyTest, DivisionByZeroAndByOneAndMinusOne) {
  EXPECT_EQ(S(Fd(C(7), 0)), "7 // 0");
  EXPECT_EQ(S(Fd(x, 0)), "x // 0");
  EXPECT_EQ(S(Fd(x, 1)), "x");
  EXPECT_EQ(S(Fm(x, 1)), "0");
  EXPECT_EQ(S(Fd(x, -1)), "0 - x");
}

TEST_F(SimplifyTest, ComparisonsDecidedByBounds) {
  BindLoops();
  EXPECT_EQ(S(LT(i * 16 + j, C(1024))), "true");
  EXPECT_EQ(S(LT(i * 16 + j, C(1023))), "i * 16 + j < 1023");
  EXPECT_EQ(S(GE(i, C(0))), "true");
  EXPECT_EQ(S(EQ(i * 16 + j, C(-1))), "false");
  EXPECT_EQ(S(LT(i, i + 1)), "true");
}

TEST_F(SimplifyTest, ComparisonsNormalForm) {
  EXPECT_EQ(S(LT(x * 2, y * 2)), "x < y");
  EXPECT_EQ(S(GT(x, C(3))), "3 < x");
  // New sides like y + 1 must not overflow: with x, y unbounded the form stays.
  EXPECT_EQ(S(LE(x, y)), "x <= y");
  EXPECT_EQ(S(LE(x + 5, y + 2)), "x + 5 <= y + 2");
  ana.Bind(x, R(-1000, 2000));
  ana.Bind(y, R(-1000, 2000));
  EXPECT_EQ(S(LE(x, y)), "x < y + 1");
  EXPECT_EQ(S(LE(x + 5, y + 2)), "x < y - 2");
  EXPECT_EQ(S(EQ(x * 4, C(7))), "false");
  EXPECT_EQ(S(EQ(x * 4, C(8))), "x == 2");
  EXPECT_EQ(S(NE(C(3) - x, C(0))), "x != 3");
  EXPECT_EQ(S(LT(Fd(x, 4), C(3))), "x < 12");
}

TEST_F(SimplifyTest, MinMax) {
  BindLoops();
  EXPECT_EQ(S(Min(x + 1, x + 3)), "x + 1");
  EXPECT_EQ(S(Max(x + 1, x + 3)), "x + 3");
  EXPECT_EQ(S(Min(i, C(64))), "i");
  EXPECT_EQ(S(Max(i * 16 + j, C(0))), "i * 16 + j");
  EXPECT_EQ(S(Min(x, y)), "min(x, y)");
  EXPECT_EQ(S(Min(x * 4, y * 4)), "min(x, y) * 4");
  EXPECT_EQ(S(Max(x * -2, y * -2)), "0 - min(x, y) * 2");
  EXPECT_EQ(S(Min(Max(x, y), x)), "x");
  EXPECT_EQ(S(Min(Min(x, C(5)), C(3))), "min(x, 3)");
  EXPECT_EQ(S(Max(x + y, x + k)), "x + max(y, k)");
}

TEST_F(SimplifyTest, LogicAndSelect) {
  EXPECT_EQ(S(Not(LT(x, y))), "y <= x");
  EXPECT_EQ(S(And(LT(x, y), Bool(true))), "x < y");
  EXPECT_EQ(S(Or(LT(x, y), Not(LT(x, y)))), "true");
  EXPECT_EQ(S(And(LT(x, y), LT(y, x))), "false");
  EXPECT_EQ(S(And(LT(x, n), LT(x, n + 1))), "x < n");
  EXPECT_EQ(S(Select(LT(x, y), x, y)), "min(x, y)");
  EXPECT_EQ(S(Select(LT(x, C(4)), Select(LT(x, C(8)), y, k), n)), "select(x < 4, y, n)");
  EXPECT_EQ(S(Select(Bool(false), x, y)), "y");
}

TEST_F(SimplifyTest, ConstraintsRefineRanges) {
  ana.Bind(i, R(0, 64));
  {
    Analyzer::Scope scope(&ana);
    ana.EnterConstraint(LT(i, n));
    EXPECT_EQ(S(Min(i, n)), "i");
    EXPECT_TRUE(ana.CanProve(LT(i, n + 1)));
    EXPECT_TRUE(ana.CanProve(LT(i * 2, n * 2)));
    EXPECT_FALSE(ana.CanProve(LT(i + 1, n)));
  }
  EXPECT_FALSE(ana.CanProve(LT(i, n + 1)));
  {
    Analyzer::Scope scope(&ana);
    ana.EnterConstraint(LT(i, C(10)));
    EXPECT_EQ(ana.GetConstIntBound(i).ToString(), "[0, 9]");
    EXPECT_EQ(S(Fd(i, 16)), "0");
  }
  EXPECT_EQ(ana.GetConstIntBound(i).ToString(), "[0, 63]");
}

}  // namespace
}  // namespace tessel::ir::arith
