// Constant bounds: interval arithmetic per operation (division and modulo in
// both roundings, by divisors of either sign or spanning 0), the two overflow
// modes, the exactness checks the simplifier relies on, the undo log; plus a
// seeded property test that bounds contain every value the interpreter computes.
#include <random>

#include "gtest/gtest.h"
#include "ir/arith/const_int_bound.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::C;
using testing::I32;
using testing::operator+;
using testing::operator-;
using testing::operator*;

ConstIntBound B(int64_t lo, int64_t hi) { return ConstIntBound::Range(lo, hi); }

TEST(ConstIntBound, IntervalArithmetic) {
  EXPECT_EQ(BoundAdd(B(0, 3), B(-2, 5)), B(-2, 8));
  EXPECT_EQ(BoundSub(B(0, 3), B(-2, 5)), B(-5, 5));
  EXPECT_EQ(BoundMul(B(-2, 3), B(-4, 5)), B(-12, 15));
  EXPECT_EQ(BoundMul(B(0, kPosInf), B(0, 0)), B(0, 0));  // 0 * inf is 0.
  EXPECT_EQ(BoundAdd(B(kNegInf, 3), B(1, kPosInf)), B(kNegInf, kPosInf));
  EXPECT_EQ(BoundScale(B(1, 4), -3), B(-12, -3));
  EXPECT_EQ(B(0, 9).ToString(), "[0, 9]");
  EXPECT_EQ(ConstIntBound::Everything().ToString(), "[-inf, +inf]");
  EXPECT_EQ(B(0, 9).Intersect(B(5, 20)), B(5, 9));
  EXPECT_EQ(B(0, 9).Union(B(5, 20)), B(0, 20));
}

TEST(ConstIntBound, DivisionAndModulo) {
  using K = NodeKind;
  EXPECT_EQ(BoundDivMod(K::kFloorDiv, B(-7, 9), B(2, 2)), B(-4, 4));
  EXPECT_EQ(BoundDivMod(K::kDiv, B(-7, 9), B(2, 2)), B(-3, 4));
  EXPECT_EQ(BoundDivMod(K::kFloorDiv, B(-7, 9), B(-2, -2)), B(-5, 3));
  EXPECT_EQ(BoundDivMod(K::kFloorDiv, B(0, 100), B(1, kPosInf)), B(0, 100));
  EXPECT_EQ(BoundDivMod(K::kFloorDiv, B(-5, 5), B(-1, 1)), B(-5, 5));  // 0 is no divisor.
  EXPECT_EQ(BoundDivMod(K::kFloorMod, B(-7, 9), B(4, 4)), B(0, 3));
  EXPECT_EQ(BoundDivMod(K::kFloorMod, B(5, 6), B(4, 4)), B(1, 2));  // One period.
  EXPECT_EQ(BoundDivMod(K::kFloorMod, B(0, 2), B(4, 8)), B(0, 2));  // Below the divisor.
  EXPECT_EQ(BoundDivMod(K::kFloorMod, B(-3, 9), B(-4, -4)), B(-3, 0));
  EXPECT_EQ(BoundDivMod(K::kMod, B(-7, 9), B(4, 4)), B(-3, 3));
  EXPECT_EQ(BoundDivMod(K::kMod, B(-7, -1), B(4, 4)), B(-3, 0));
  EXPECT_EQ(BoundDivMod(K::kMod, B(0, 2), B(-4, 4)), B(0, 2));
  EXPECT_EQ(BoundDivMod(K::kFloorMod, B(0, 100), B(0, 0)), ConstIntBound::Everything());
}

TEST(ConstIntBound, ExpressionsUnderVariableBounds) {
  Var i = I32("i"), j = I32("j"), x = I32("x");
  ConstIntBoundAnalyzer b(/*assume_no_overflow=*/true);
  b.Update(i, B(0, 63));
  b.Update(j, B(0, 15));
  EXPECT_EQ(b.Bound(i * 16 + j), B(0, 1023));
  EXPECT_EQ(b.Bound(FloorMod(i * 16 + j, C(7))), B(0, 6));
  EXPECT_EQ(b.Bound(FloorDiv(i * 16 + j, C(32))), B(0, 31));
  EXPECT_EQ(b.Bound(Min(i, j) - 20), B(-20, -5));
  EXPECT_EQ(b.Bound(Select(LT(i, j), i, C(100))), B(0, 100));
  EXPECT_EQ(b.Bound(x), B(-2147483648, 2147483647));
  EXPECT_EQ(b.Bound(LT(i, C(64))), B(1, 1));
  EXPECT_EQ(b.Bound(GE(j, C(16))), B(0, 0));
  EXPECT_EQ(b.Bound(EQ(i, x)), B(0, 1));
  EXPECT_EQ(b.Bound(Cast(DataType::Int(8), i)), B(0, 63));
  EXPECT_EQ(b.Bound(Cast(DataType::Int(8), i * 4)), B(-128, 127));  // May wrap.
  EXPECT_EQ(b.Bound(Cast(DataType::Bool(), i + 1)), B(1, 1));
  DataType u64 = DataType::UInt(64);
  EXPECT_EQ(b.Bound(IntImm(u64, -1)), B(0, kPosInf));  // A bit pattern, not -1.
  EXPECT_EQ(b.Bound(Ramp(i, C(2), 4)), B(0, 69));
}

TEST(ConstIntBound, OverflowModes) {
  Var x = I32("x"), i = I32("i");
  ConstIntBoundAnalyzer assume(true), checked(false);
  for (ConstIntBoundAnalyzer* a : {&assume, &checked}) a->Update(i, B(0, 100));
  // x + 1 may wrap: assumed not to (the bound is clipped), or the whole i32 range.
  EXPECT_EQ(assume.Bound(x + 1), B(-2147483647, 2147483647));
  EXPECT_EQ(checked.Bound(x + 1), B(-2147483648, 2147483647));
  EXPECT_TRUE(assume.CannotOverflow(x + 1));
  EXPECT_FALSE(checked.CannotOverflow(x + 1));
  EXPECT_TRUE(checked.CannotOverflow(i * 1000 + 7));
  // A wrapped value under a division makes the quotient inexact too.
  EXPECT_FALSE(checked.CannotOverflow(FloorDiv(x + 1, C(2))));
  // INT_MIN / -1 wraps.
  EXPECT_FALSE(checked.CannotOverflow(Div(x, C(-1))));
  EXPECT_EQ(checked.Bound(Div(x, C(-1))), B(-2147483648, 2147483647));
  // Sums whose parts wrap but whose total fits are exact (wrapping is exact
  // modulo 2^32); a new operand is checked with the input's parts trusted.
  Expr big = i * 20000000;  // Up to 2e9: fits.
  EXPECT_TRUE(checked.FitsExactly(big + big - 2000000000, {}));
  EXPECT_FALSE(checked.FitsExactly(big + big, {}));
  EXPECT_FALSE(checked.FitsExactly(x + 1, {}));
  EXPECT_TRUE(assume.FitsExactly(x, {}));
  EXPECT_FALSE(assume.FitsExactly(x - 1, {}));
  Expr trusted = x - 1;
  EXPECT_TRUE(assume.FitsExactly(Min(trusted, C(0)), {trusted.get()}));
}

TEST(ConstIntBound, UndoLog) {
  Var i = I32("i");
  ConstIntBoundAnalyzer b(true);
  b.Update(i, B(0, 63));
  size_t mark = b.Checkpoint();
  b.Update(i, B(10, 100));  // Intersects.
  EXPECT_EQ(b.VarBound(i.get()), B(10, 63));
  b.Update(i, B(-5, 5), /*replace=*/true);
  EXPECT_EQ(b.VarBound(i.get()), B(-5, 5));
  b.Rollback(mark);
  EXPECT_EQ(b.VarBound(i.get()), B(0, 63));
  b.Rollback(0);
  EXPECT_EQ(b.VarBound(i.get()), B(-2147483648, 2147483647));
}

// Random expressions over bounded variables: the bound holds every value the
// interpreter computes, in the checked mode even where values wrap.
TEST(ConstIntBound, ContainsEverySampledValue) {
  std::mt19937 rng(42);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  Var v[3] = {I32("a"), I32("b"), I32("c")};
  const int64_t lo[3] = {0, -50, 1000000}, hi[3] = {15, 50, 1000100};
  std::function<Expr(int)> gen = [&](int depth) -> Expr {
    if (depth == 0 || pick(4) == 0) return pick(3) ? Expr(v[pick(3)]) : C(pick(41) - 20);
    Expr a = gen(depth - 1), b = gen(depth - 1);
    Expr d = C(pick(2) ? pick(9) + 1 : -(pick(9) + 1));
    switch (pick(10)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return FloorDiv(a, d);
      case 4: return FloorMod(a, d);
      case 5: return Div(a, d);
      case 6: return Mod(a, d);
      case 7: return Min(a, b);
      case 8: return Max(a, b);
      default: return Select(LT(a, b), a, b);
    }
  };
  ConstIntBoundAnalyzer checked(false);
  for (int k = 0; k < 3; ++k) checked.Update(v[k], B(lo[k], hi[k]));
  std::vector<Expr> exprs;
  for (int n = 0; n < 200; ++n) exprs.push_back(gen(4));
  std::vector<std::vector<int64_t>> samples;
  for (int s = 0; s < 40; ++s) {
    std::vector<int64_t> row;
    for (int k = 0; k < 3; ++k)
      row.push_back(s < 2 ? (s ? hi[k] : lo[k]) : lo[k] + pick(hi[k] - lo[k] + 1));
    samples.push_back(row);
  }
  auto got = testing::EvalInInterpreter(exprs, {v[0], v[1], v[2]}, samples);
  ASSERT_TRUE(got.has_value());
  for (size_t e = 0; e < exprs.size(); ++e) {
    ConstIntBound b = checked.Bound(exprs[e]);
    for (size_t s = 0; s < samples.size(); ++s) {
      EXPECT_TRUE(b.contains((*got)[s][e]))
          << testing::Str(exprs[e]) << ": " << b.ToString() << " misses " << (*got)[s][e];
    }
  }
}

}  // namespace
}  // namespace tessel::ir::arith
