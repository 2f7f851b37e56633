// Iter-map detection: bindings after split, fuse and reorder (bijective), with
// predicates of non-divisible splits, symbolic extents, and every reason a map is
// not affine or not bijective; plus surjective maps and the expression forms.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/iter_map.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::C;
using testing::Fd;
using testing::Fm;
using ::testing::HasSubstr;
using testing::I32;
using testing::R;
using testing::Str;
using testing::operator+;
using testing::operator-;
using testing::operator*;

class IterMapTest : public ::testing::Test {
 protected:
  Analyzer ana;

  // The detected sums as strings, or the error message.
  std::vector<std::string> Detect(const std::vector<Expr>& indices,
                                  const std::vector<IterMapInput>& loops, Expr pred = nullptr,
                                  IterMapLevel level = IterMapLevel::kBijective) {
    absl::StatusOr<std::vector<IterSum>> r = DetectIterMap(indices, loops, pred, level, &ana);
    if (!r.ok()) return {"error: " + std::string(r.status().message())};
    std::vector<std::string> out;
    for (const IterSum& s : *r) out.push_back(IterSumToString(s));
    return out;
  }
  std::string Error(const std::vector<Expr>& indices, const std::vector<IterMapInput>& loops,
                    Expr pred = nullptr, IterMapLevel level = IterMapLevel::kBijective) {
    std::vector<std::string> r = Detect(indices, loops, pred, level);
    return r.size() == 1 ? r[0] : "(no error)";
  }
};

TEST_F(IterMapTest, IdentityAndReorder) {
  Var i = I32("i"), j = I32("j"), k = I32("k");
  std::vector<IterMapInput> loops = {{i, R(0, 128)}, {j, R(0, 64)}, {k, R(0, 32)}};
  EXPECT_THAT(Detect({i, j, k}, loops), ::testing::ElementsAre("i[128]", "j[64]", "k[32]"));
  EXPECT_THAT(Detect({k, i, j}, loops), ::testing::ElementsAre("k[32]", "i[128]", "j[64]"));
}

TEST_F(IterMapTest, SplitAndFuse) {
  Var io = I32("io"), ii = I32("ii"), f = I32("f"), k = I32("k");
  // vi = io * 16 + ii (i split by 16), vj = f // 8, vk = f %% 8 (j, k fused).
  std::vector<IterMapInput> loops = {{io, R(0, 8)}, {ii, R(0, 16)}, {f, R(0, 32)}};
  EXPECT_THAT(Detect({io * 16 + ii, Fd(f, 8), Fm(f, 8)}, loops),
              ::testing::ElementsAre("(io[8] * 16 + ii[16])[128]", "f[32] // 8", "f[32] %% 8"));
  // Digit order inside the sum does not matter.
  EXPECT_THAT(Detect({ii + io * 16, Fm(f, 8), Fd(f, 8)}, loops),
              ::testing::ElementsAre("(io[8] * 16 + ii[16])[128]", "f[32] %% 8", "f[32] // 8"));
  // Three-level split of one loop: vi = (a * 4 + b) * 8 + c.
  Var a = I32("a"), b = I32("b"), c = I32("c");
  EXPECT_THAT(Detect({(a * 4 + b) * 8 + c}, {{a, R(0, 2)}, {b, R(0, 4)}, {c, R(0, 8)}}),
              ::testing::ElementsAre("(a[2] * 32 + b[4] * 8 + c[8])[64]"));
  // Fuse of a split: f over [0, 64) bound to (i, j) = (f // 16, f %% 16 // 4, f %% 4).
  EXPECT_THAT(Detect({Fd(f, 16), Fd(Fm(f, 16), 4), Fm(f, 4)}, {{f, R(0, 64)}}),
              ::testing::ElementsAre("f[64] // 16", "f[64] // 4 %% 4", "f[64] %% 4"));
}

TEST_F(IterMapTest, NonDivisibleSplitWithPredicate) {
  // i in [0, 100) split by 16: io in [0, 7), ii in [0, 16), predicate io * 16 + ii < 100.
  Var io = I32("io"), ii = I32("ii");
  std::vector<IterMapInput> loops = {{io, R(0, 7)}, {ii, R(0, 16)}};
  Expr pred = LT(io * 16 + ii, C(100));
  EXPECT_THAT(Detect({io * 16 + ii}, loops, pred),
              ::testing::ElementsAre("(io[7] * 16 + ii[16])[100]"));
  // Without the predicate the binding covers 112 values: still a bijection onto
  // [0, 112), which a block of extent 100 would not match.
  EXPECT_THAT(Detect({io * 16 + ii}, loops), ::testing::ElementsAre("(io[7] * 16 + ii[16])[112]"));
  // (i, j) in [0, 10)^2 fused to f in [0, 100), then split by 16.
  Var fo = I32("fo"), fi = I32("fi");
  Expr fused = fo * 16 + fi;
  EXPECT_THAT(
      Detect({Fd(fused, 10), Fm(fused, 10)}, {{fo, R(0, 7)}, {fi, R(0, 16)}}, LT(fused, C(100))),
      ::testing::ElementsAre("(fo[7] * 16 + fi[16])[100] // 10",
                             "(fo[7] * 16 + fi[16])[100] %% 10"));
  // A predicate on a single loop cuts it.
  Var i = I32("i");
  EXPECT_THAT(Detect({i}, {{i, R(0, 16)}}, LT(i, C(10))), ::testing::ElementsAre("(i[16])[10]"));
}

TEST_F(IterMapTest, OffsetsUnitLoopsAndConstants) {
  Var i = I32("i"), u = I32("u"), j = I32("j");
  // A loop starting at 2: the mark is i - 2.
  EXPECT_THAT(Detect({i - 2}, {{i, R(2, 8)}}), ::testing::ElementsAre("(i - 2)[8]"));
  EXPECT_THAT(Detect({i}, {{i, R(2, 8)}}), ::testing::ElementsAre("(i - 2)[8] + 2"));
  // A unit loop is a constant; a constant index uses no loop.
  EXPECT_THAT(Detect({u * 8 + j, C(3)}, {{u, R(0, 1)}, {j, R(0, 8)}}),
              ::testing::ElementsAre("j[8]", "3"));
  EXPECT_THAT(Detect({Fd(u * 4, 2) + j}, {{u, R(0, 1)}, {j, R(0, 8)}}),
              ::testing::ElementsAre("j[8]"));
  // An offset that the divisor divides.
  EXPECT_THAT(Detect({Fd(j + 8, 4), Fm(j, 4)}, {{j, R(0, 8)}}),
              ::testing::ElementsAre("j[8] // 4 + 2", "j[8] %% 4"));
}

TEST_F(IterMapTest, SymbolicExtents) {
  Var n = I32("n"), m = I32("m"), i = I32("i"), j = I32("j"), f = I32("f");
  ana.Bind(n, R(1, 1024));
  ana.Bind(m, R(1, 1024));
  EXPECT_THAT(Detect({i, j}, {{i, Range{C(0), n}}, {j, Range{C(0), m}}}),
              ::testing::ElementsAre("i[n]", "j[m]"));
  EXPECT_THAT(Detect({i * m + j}, {{i, Range{C(0), n}}, {j, Range{C(0), m}}}),
              ::testing::ElementsAre("(i[n] * m + j[m])[m * n]"));
  EXPECT_THAT(Detect({FloorDiv(f, m), FloorMod(f, m)}, {{f, Range{C(0), n * m}}}),
              ::testing::ElementsAre("f[m * n] // m", "f[m * n] %% m"));
}

TEST_F(IterMapTest, NotAffine) {
  Var i = I32("i"), j = I32("j");
  std::vector<IterMapInput> loops = {{i, R(0, 8)}, {j, R(0, 8)}};
  EXPECT_THAT(Error({i * j, C(0)}, loops),
              HasSubstr("index 0 (i * j): i * j: multiplies two iterators"));
  EXPECT_THAT(Error({Min(i, C(4)), j}, loops), HasSubstr("an iterator inside min (not affine)"));
  EXPECT_THAT(Error({FloorDiv(C(64), i + 1), j}, loops), HasSubstr("divides by an iterator"));
  Var n = I32("n");
  EXPECT_THAT(Error({FloorDiv(i, n), j}, loops), HasSubstr("is not provably positive"));
  Buffer A = MakeBuffer("A", DataType::Int(32), {C(8)});
  EXPECT_THAT(Error({Load(A, {i}), j}, loops), HasSubstr("not + - * // %%"));
  EXPECT_THAT(Error({Div(i - 4, C(2)), j}, loops), HasSubstr("truncating division of a value"));
}

TEST_F(IterMapTest, NotBijective) {
  Var i = I32("i"), j = I32("j"), k = I32("k");
  std::vector<IterMapInput> loops = {{i, R(0, 8)}, {j, R(0, 4)}};
  // i + j: both have scale 1, they overlap.
  EXPECT_THAT(Error({i + j}, loops),
              HasSubstr("the terms do not fuse into one iterator: no term with scale 8"));
  // The same loop twice.
  EXPECT_THAT(Error({i, i, j}, loops),
              HasSubstr("loop variable i is used twice (in index 0 and index 1)"));
  // A loop left out.
  EXPECT_THAT(Error({i}, loops), HasSubstr("loop variable j is not used by any index"));
  // Splits that do not divide the extent.
  EXPECT_THAT(Error({Fd(i, 3), j}, loops), HasSubstr("the extent 8 of i[8] is not divisible by 3"));
  // Digits with a gap: i // 4 and i %% 2 leave digit 2 out.
  EXPECT_THAT(Error({Fd(i, 4), Fm(i, 2), j}, loops), HasSubstr("no split starts at digit 2"));
  // Overlapping digits: i // 2 and i %% 4 share digit 2.
  EXPECT_THAT(Error({Fd(i, 2), Fm(i, 4), j}, loops), HasSubstr("loop variable i"));
  // A negative scale is not a fused iterator.
  EXPECT_THAT(Error({j - i * 4}, loops), HasSubstr("non-positive scale -4"));
  // A scaled index skips values: i * 2 reaches 0, 2, 4, ... only.
  EXPECT_THAT(Error({i * 2, j}, loops),
              HasSubstr("index 0 (i[8] * 2) has scale 2: it skips values"));
  // A padded iterator in the middle of a sum leaves holes.
  Var o = I32("o"), p = I32("p"), q = I32("q");
  EXPECT_THAT(Error({(o * 2 + p) * 3 + q * 12}, {{o, R(0, 2)}, {p, R(0, 2)}, {q, R(0, 2)}},
                    LT(o * 2 + p, C(3))),
              HasSubstr("no term with scale 9"));
  // An offset the divisor does not divide.
  EXPECT_THAT(Error({Fd(i + 1, 2), j}, loops), HasSubstr("the offset 1 is not a multiple of 2"));
  // Predicates that are not upper bounds of a fused iterator.
  EXPECT_THAT(Error({i, j}, loops, GE(i, C(2))), HasSubstr("only upper bounds"));
  EXPECT_THAT(Error({i, j}, loops, LT(i * j, C(5))), HasSubstr("multiplies two iterators"));
  EXPECT_THAT(Error({i, j}, loops, NE(i, C(5))), HasSubstr("only upper bounds"));
  // A bound beyond the fused extent says nothing (the predicate simplifies to
  // true); a bound that may be beyond it leaves the extent unknown.
  EXPECT_THAT(Detect({i * 4 + j}, loops, LT(i * 4 + j, C(40))),
              ::testing::ElementsAre("(i[8] * 4 + j[4])[32]"));
  EXPECT_THAT(Error({i * 4 + j}, loops, LT(i * 4 + j, k)),
              HasSubstr("the bound k is not provably within the fused extent 32"));
}

TEST_F(IterMapTest, SurjectiveAndNoCheck) {
  Var i = I32("i"), j = I32("j");
  std::vector<IterMapInput> loops = {{i, R(0, 8)}, {j, R(0, 4)}};
  // Only the upper digit of i: every output value is reached, several times.
  EXPECT_THAT(Detect({Fd(i, 4)}, loops, nullptr, IterMapLevel::kSurjective),
              ::testing::ElementsAre("i[8] // 4"));
  EXPECT_THAT(Error({Fd(i, 4)}, loops), HasSubstr("no split starts at digit 1"));
  // Overlaps stay errors when surjective.
  EXPECT_THAT(Error({Fd(i, 2), Fm(i, 4)}, loops, nullptr, IterMapLevel::kSurjective),
              HasSubstr("loop variable i"));
  // No check: affine is enough, predicates need not be understood.
  EXPECT_THAT(Detect({i, i}, loops, GE(i, C(1)), IterMapLevel::kNoCheck),
              ::testing::ElementsAre("i[8]", "i[8]"));
}

TEST_F(IterMapTest, ExpressionForm) {
  Var io = I32("io"), ii = I32("ii"), f = I32("f");
  absl::StatusOr<std::vector<IterSum>> r = DetectIterMap(
      {ii + io * 16, Fd(f, 8), Fm(f, 8) * 2 + 1}, {{io, R(0, 8)}, {ii, R(0, 16)}, {f, R(0, 32)}},
      nullptr, IterMapLevel::kNoCheck, &ana);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Str(IterSumToExpr((*r)[0])), "io * 16 + ii");
  EXPECT_EQ(Str(IterSumToExpr((*r)[1])), "f // 8");
  EXPECT_EQ(Str(IterSumToExpr((*r)[2])), "f %% 8 * 2 + 1");
  EXPECT_EQ(IterSumToString((*r)[2]), "f[32] %% 8 * 2 + 1");
}

TEST_F(IterMapTest, BadInputIsAnErrorNotACrash) {
  Var i = I32("i");
  EXPECT_THAT(Error({i}, {{i, Range{}}}), HasSubstr("needs an integer variable and a range"));
  EXPECT_THAT(Error({FloatImm(DataType::Float(32), 1.0)}, {{i, R(0, 4)}}),
              HasSubstr("index 0 is not a scalar integer"));
  EXPECT_THAT(Error({Expr()}, {{i, R(0, 4)}}), HasSubstr("index 0 is not a scalar integer"));
}

}  // namespace
}  // namespace tessel::ir::arith
