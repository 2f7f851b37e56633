// Units for Transpose, Reshape, Pad and Concat against direct index arithmetic,
// including the clamped reads that keep padded and concatenated loads in bounds.
//
//   Pad(x: f32[3, 4], {1, 0}, {2, 3}, 7.0) -> f32[6, 7]; y[i, j] = x[i - 1, j] inside, 7 outside
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/ops/transform.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

TEST(TeTransformTest, TransposeMovesAxes) {
  Tensor x = Input("x", {2, 3, 4});
  Tensor y = Must(ops::Transpose(x, {2, 0, 1}));
  Tensor z = Must(ops::Transpose(x));  // Reversed.
  EXPECT_EQ(ops::ShapeString(y.shape()), "[4, 2, 3]");
  EXPECT_EQ(ops::ShapeString(z.shape()), "[4, 3, 2]");
  TeRun r = MustRun({x, y, z});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return r.At(0, {i[1], i[2], i[0]}); });
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return r.At(0, {i[2], i[1], i[0]}); });
  EXPECT_THAT(ErrorOf(ops::Transpose(x, {0, 1})), HasSubstr("transpose: permutation [0, 1] has 2 entries for rank 3"));
  EXPECT_THAT(ErrorOf(ops::Transpose(x, {0, 1, -2})), HasSubstr("names axis 1 twice"));
  EXPECT_THAT(ErrorOf(ops::Transpose(x, {0, 1, 3})), HasSubstr("transpose: axis 3 is out of range for rank 3"));
}

TEST(TeTransformTest, ReshapeKeepsRowMajorOrder) {
  Tensor x = Input("x", {2, 6, 5});
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{60}, {3, -1}, {5, 4, 3}, {1, 60, 1}, {-1, 2, 2}}) {
    Tensor y = Must(ops::Reshape(x, shape));
    TeRun r = MustRun({x, y});
    ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
      int64_t flat = Flat(r.Shape(1), i);
      return r.At(0, {flat / 30, flat / 5 % 6, flat % 5});
    });
  }
  EXPECT_EQ(ops::ShapeString(Must(ops::Reshape(x, {3, -1})).shape()), "[3, 20]");
  EXPECT_THAT(ErrorOf(ops::Reshape(x, {7, -1})), HasSubstr("reshape: cannot reshape [2, 6, 5] (60 elements) to [7, -1]"));
  EXPECT_THAT(ErrorOf(ops::Reshape(x, {-1, -1})), HasSubstr("bad extent -1 in [-1, -1] (only one -1 is allowed)"));
  EXPECT_THAT(ErrorOf(ops::Reshape(x, {61})), HasSubstr("cannot reshape"));
  Var n = SizeVar("n");
  EXPECT_THAT(ErrorOf(ops::Reshape(Input("s", {n, 2}), {-1})),
              HasSubstr("reshape: the input shape [n, 2] is symbolic; reshape needs constant shapes"));
}

TEST(TeTransformTest, PadFillsOutsideAndClampsReadsInside) {
  Tensor x = Input("x", {3, 4});
  Tensor y = Must(ops::Pad(x, {1, 0}, {2, 3}, 7.0));
  EXPECT_EQ(ops::ShapeString(y.shape()), "[6, 7]");
  TeRun r = MustRun({x, y});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    bool inside = i[0] >= 1 && i[0] < 4 && i[1] < 4;
    return inside ? r.At(0, {i[0] - 1, i[1]}) : 7.0;
  });
  Tensor k = Input("k", {5}, kI32);
  Tensor kp = Must(ops::Pad(k, {2}, {0}, -1));
  TeRun rk = MustRun({k, kp});
  ExpectAll(rk, 1, [&](const std::vector<int64_t>& i) { return i[0] < 2 ? -1.0 : rk.At(0, {i[0] - 2}); });
  EXPECT_THAT(ErrorOf(ops::Pad(x, {1}, {1, 1})), HasSubstr("pad: 1 before and 2 after amounts for rank 2"));
  EXPECT_THAT(ErrorOf(ops::Pad(x, {0, -1}, {0, 0})), HasSubstr("pad: negative padding in axis 1"));
  EXPECT_THAT(ErrorOf(ops::Pad(k, {1}, {1}, 0.5)), HasSubstr("pad: the constant 0.5 is not a value of type i32"));
}

TEST(TeTransformTest, ConcatJoinsAlongAnAxis) {
  Tensor a = Input("a", {2, 3, 4}), b = Input("b", {2, 1, 4}), c = Input("c", {2, 5, 4});
  Tensor y = Must(ops::Concat({a, b, c}, 1));
  EXPECT_EQ(ops::ShapeString(y.shape()), "[2, 9, 4]");
  TeRun r = MustRun({a, b, c, y});
  ExpectAll(r, 3, [&](const std::vector<int64_t>& i) {
    if (i[1] < 3) return r.At(0, i);
    if (i[1] < 4) return r.At(1, {i[0], i[1] - 3, i[2]});
    return r.At(2, {i[0], i[1] - 4, i[2]});
  });
  Tensor last = Must(ops::Concat({a, a}, -1));
  TeRun rl = MustRun({a, last});
  ExpectAll(rl, 1, [&](const std::vector<int64_t>& i) { return rl.At(0, {i[0], i[1], i[2] % 4}); });
  Tensor one = Must(ops::Concat({b}, 0));
  TeRun ro = MustRun({b, one});
  ExpectAll(ro, 1, [&](const std::vector<int64_t>& i) { return ro.At(0, i); });
  EXPECT_THAT(ErrorOf(ops::Concat({}, 0)), HasSubstr("concat: no inputs"));
  EXPECT_THAT(ErrorOf(ops::Concat({a, b}, 2)),
              HasSubstr("concat: input 'b' has shape [2, 1, 4], but 'a' has [2, 3, 4] (they may differ only in axis 2)"));
  EXPECT_THAT(ErrorOf(ops::Concat({a, Input("d", {2, 3})}, 0)), HasSubstr("concat: tensor 'd' has rank 2"));
  EXPECT_THAT(ErrorOf(ops::Concat({a, Input("e", {2, 3, 4}, kI32)}, 0)), HasSubstr("concat: operand types differ"));
  EXPECT_THAT(ErrorOf(ops::Concat({a, Tensor()}, 0)), HasSubstr("concat: an input is an undefined tensor"));
}

}  // namespace
}  // namespace tessel::ir::te
