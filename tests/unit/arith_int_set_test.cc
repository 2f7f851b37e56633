// Integer sets: relaxing variables of index expressions over symbolic
// intervals, each operation, unions and intersections, and the fallback to
// constant bounds for what intervals cannot follow.
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/int_set.h"
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

class IntSetTest : public ::testing::Test {
 protected:
  Var i = I32("i"), j = I32("j"), k = I32("k"), n = I32("n");
  Analyzer ana;
  IntSetMap dom = {{i.get(), IntSet::FromRange(R(0, 64))}, {j.get(), IntSet::FromRange(R(0, 16))}};
  std::string Set(const Expr& e) { return EvalSet(e, dom, &ana).ToString(); }
};

TEST_F(IntSetTest, AffineExpressions) {
  EXPECT_EQ(Set(i * 16 + j), "[0, 1023]");
  EXPECT_EQ(Set(k * 64 + i), "[k * 64, k * 64 + 63]");
  EXPECT_EQ(Set(k - i), "[k - 63, k]");
  EXPECT_EQ(Set(C(0) - i * 2), "[-126, 0]");
  EXPECT_EQ(Set(i - i), "[0, 0]");  // Simplified before relaxing.
  EXPECT_EQ(Set(k), "[k, k]");
  EXPECT_EQ(Set(i * k), "[-inf, +inf]");  // Unknown sign of k: intervals cannot follow.
  ana.Bind(k, R(0, 10));
  EXPECT_EQ(Set(i * k), "[0, k * 63]");  // k >= 0: the ends scale.
}

TEST_F(IntSetTest, DivisionModuloMinMaxSelect) {
  EXPECT_EQ(Set(Fd(i, 8)), "[0, 7]");
  EXPECT_EQ(Set(Fd(k + i, 8)), "[k // 8, (k + 63) // 8]");
  EXPECT_EQ(Set(Fm(i, 8)), "[0, 7]");
  EXPECT_EQ(Set(Fm(j + 16, 64)), "[16, 31]");             // Within one period: exact ends.
  EXPECT_EQ(Set(FloorMod(i, k)), "[-2147483647, +inf]");  // |i %% k| < |k|
  EXPECT_EQ(Set(Div(i, C(8))), "[0, 7]");
  EXPECT_EQ(Set(Min(i, k)), "[min(0, k), min(63, k)]");
  EXPECT_EQ(Set(Max(i, C(10))), "[10, 63]");
  EXPECT_EQ(Set(Select(LT(k, C(0)), i, j + 100)), "[0, 115]");
}

TEST_F(IntSetTest, FallbackToConstantBounds) {
  Buffer A = MakeBuffer("A", DataType::Int(32), {C(64)});
  EXPECT_EQ(Set(Load(A, {i})), "[-inf, +inf]");
  EXPECT_EQ(Set(i * j), "[0, 945]");  // Both non-negative: the corners.
  EXPECT_EQ(Set(FloorMod(i * j, j + 1)), "[0, 15]");
}

TEST_F(IntSetTest, UnionIntersectRange) {
  IntSet a = IntSet::Interval(C(0), k), b = IntSet::Interval(C(4), C(10));
  EXPECT_EQ(Union(a, b, &ana).ToString(), "[0, max(k, 10)]");
  EXPECT_EQ(Intersect(a, b, &ana).ToString(), "[4, min(k, 10)]");
  EXPECT_EQ(Union(IntSet::Nothing(), b, &ana).ToString(), "[4, 10]");
  EXPECT_TRUE(Intersect(IntSet::Interval(C(0), C(3)), b, &ana).is_empty());
  EXPECT_EQ(Intersect(IntSet::Everything(), b, &ana).ToString(), "[4, 10]");
  EXPECT_EQ(Union(IntSet::Everything(), b, &ana).ToString(), "[-inf, +inf]");
  std::optional<Range> r = IntSet::Interval(k, k + 7).ToRange(&ana);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Str(r->min), "k");
  EXPECT_EQ(Str(r->extent), "8");
  EXPECT_FALSE(IntSet::Interval(k, nullptr).ToRange(&ana).has_value());
  EXPECT_TRUE(IntSet::Point(k).is_point());
  EXPECT_EQ(IntSet::Nothing().ToString(), "{}");
  EXPECT_EQ(EvalSet(Range{k, C(4)}, dom, &ana).ToString(), "[k, k + 3]");
  EXPECT_EQ(EvalSet(Range{i * 4, C(4)}, dom, &ana).ToString(), "[0, 255]");
}

TEST_F(IntSetTest, NonIndexExpressionsAreEverything) {
  EXPECT_TRUE(EvalSet(FloatImm(DataType::Float(32), 1.0), dom, &ana).is_everything());
  EXPECT_TRUE(EvalSet(Expr(), dom, &ana).is_everything());
}

}  // namespace
}  // namespace tessel::ir::arith
