// Units for the reduction ops (Sum, Prod, Max, Min, Mean, ArgMax, ArgMin over
// axes with keepdims), Softmax / LogSoftmax along any axis, and LayerNorm /
// RmsNorm -- each against direct C++ loops, including rank-0 results.
//
//   Mean(x: f32[3, 4, 5], {0, -1}, /*keepdims=*/true) -> f32[1, 4, 1]
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/ops/norm.h"
#include "ir/te/ops/reduce.h"
#include "ir/te/ops/softmax.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

using ReduceOp = std::function<absl::StatusOr<Tensor>(const Tensor&, const std::vector<int>&, bool)>;

struct ReduceCase {
  const char* name;
  ReduceOp op;
  double init;
  std::function<double(double, double)> fold;
  bool mean;
};

// Folds x over `axes` (normalized, sorted) for output index `out`.
double Fold(TeRun& r, const std::vector<int64_t>& shape, const std::vector<int>& axes, bool keepdims,
            const std::vector<int64_t>& out, const ReduceCase& c) {
  std::vector<int64_t> red_shape;
  for (int a : axes) red_shape.push_back(shape[a]);
  double acc = c.init;
  int64_t count = 0;
  ForEachIndex(red_shape, [&](const std::vector<int64_t>& k) {
    std::vector<int64_t> idx;
    size_t next = 0, o = 0;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      if (next < axes.size() && axes[next] == d) {
        idx.push_back(k[next++]);
        if (keepdims) ++o;
      } else {
        idx.push_back(out[o++]);
      }
    }
    acc = c.fold(acc, r.At(0, idx));
    ++count;
  });
  return c.mean ? acc / static_cast<double>(count) : acc;
}

TEST(TeReduceOpsTest, EveryReductionOverAxesWithAndWithoutKeepdims) {
  const double inf = std::numeric_limits<double>::infinity();
  const ReduceCase cases[] = {
      {"sum", [](auto& x, auto& a, bool k) { return ops::Sum(x, a, k); }, 0, [](double s, double v) { return s + v; }, false},
      {"prod", [](auto& x, auto& a, bool k) { return ops::Prod(x, a, k); }, 1, [](double s, double v) { return s * v; }, false},
      {"max", [](auto& x, auto& a, bool k) { return ops::Max(x, a, k); }, -inf, [](double s, double v) { return std::max(s, v); }, false},
      {"min", [](auto& x, auto& a, bool k) { return ops::Min(x, a, k); }, inf, [](double s, double v) { return std::min(s, v); }, false},
      {"mean", [](auto& x, auto& a, bool k) { return ops::Mean(x, a, k); }, 0, [](double s, double v) { return s + v; }, true},
  };
  const std::vector<int64_t> shape = {3, 4, 5};
  const std::vector<std::pair<std::vector<int>, std::vector<int>>> axes = {
      {{1}, {1}}, {{-1}, {2}}, {{0, 2}, {0, 2}}, {{2, 0}, {0, 2}}, {{}, {0, 1, 2}}};
  for (const ReduceCase& c : cases) {
    for (const auto& [given, normalized] : axes) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(c.name) + " axes " + std::to_string(given.size()) +
                     (keepdims ? " keepdims" : ""));
        Tensor x = Input("x", {3, 4, 5});
        Tensor y = Must(c.op(x, given, keepdims));
        EXPECT_EQ(y.ndim(), keepdims ? 3 : 3 - static_cast<int>(normalized.size()));
        TeRun r = MustRun({x, y}, 9, {}, [&](std::vector<Arg>& args) {
          if (std::string(c.name) != "prod") return;
          HostBuffer& in = std::get<HostBuffer>(args[0]);  // Keep 60-element products tame.
          for (int64_t e = 0; e < in.size(); ++e) in.SetFloat(e, 1 + 0.05 * in.GetFloat(e));
        });
        ExpectAll(r, 1, [&](const std::vector<int64_t>& out) {
          return Fold(r, shape, normalized, keepdims, out, c);
        }, 1e-5, 1e-5);
      }
    }
  }
}

TEST(TeReduceOpsTest, ArgMaxAndArgMinGiveTheFirstExtremum) {
  Tensor x = Input("x", {4, 6, 3});
  Tensor amax = Must(ops::ArgMax(x, 1)), amin = Must(ops::ArgMin(x, -1, true));
  EXPECT_EQ(amax.dtype(), kI32);
  EXPECT_EQ(ops::ShapeString(amax.shape()), "[4, 3]");
  EXPECT_EQ(ops::ShapeString(amin.shape()), "[4, 6, 1]");
  TeRun r = MustRun({x, amax, amin}, 3, {}, [](std::vector<Arg>& args) {
    HostBuffer& in = std::get<HostBuffer>(args[0]);
    in.SetFloat(Flat({4, 6, 3}, {1, 2, 0}), 9);  // Two equal maxima along axis 1:
    in.SetFloat(Flat({4, 6, 3}, {1, 4, 0}), 9);  // index 2 must win.
    for (int64_t e = Flat({4, 6, 3}, {3, 0, 0}); e < Flat({4, 6, 3}, {3, 5, 2}) + 1; ++e) {
      in.SetFloat(e, -std::numeric_limits<double>::infinity());  // A row of -inf: index 0.
    }
  });
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    int64_t best = 0;
    for (int64_t k = 1; k < 6; ++k) best = r.At(0, {i[0], k, i[1]}) > r.At(0, {i[0], best, i[1]}) ? k : best;
    return best;
  });
  EXPECT_EQ(r.IntAt(1, {1, 0}), 2);
  EXPECT_EQ(r.IntAt(1, {3, 1}), 0);
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
    int64_t best = 0;
    for (int64_t k = 1; k < 3; ++k) best = r.At(0, {i[0], i[1], k}) < r.At(0, {i[0], i[1], best}) ? k : best;
    return best;
  });
}

TEST(TeReduceOpsTest, RefusesBadAxesAndTypes) {
  Tensor x = Input("x", {3, 4});
  EXPECT_THAT(ErrorOf(ops::Sum(x, {2})), HasSubstr("sum: axis 2 is out of range for rank 2"));
  EXPECT_THAT(ErrorOf(ops::Max(x, {-3})), HasSubstr("max: axis -3 is out of range for rank 2"));
  EXPECT_THAT(ErrorOf(ops::Sum(x, {0, -2})), HasSubstr("sum: axis -2 is listed twice"));
  EXPECT_THAT(ErrorOf(ops::Mean(Input("i", {3}, kI32))), HasSubstr("mean: tensor 'i' has type i32"));
  EXPECT_THAT(ErrorOf(ops::Sum(Input("b", {3}, DataType::Bool()))), HasSubstr("sum: cannot reduce bool tensor 'b'"));
  EXPECT_THAT(ErrorOf(ops::ArgMax(x, 5)), HasSubstr("argmax: axis 5 is out of range"));
  EXPECT_THAT(ErrorOf(ops::ArgMin(Input("f", {3}, DataType::Bool()), 0)),
              HasSubstr("argmin: tensor 'f' has type bool, expected numbers"));
  EXPECT_THAT(ErrorOf(ops::Sum(Tensor())), HasSubstr("sum: the input is an undefined tensor"));
}

// softmax and log-softmax of x along `axis`, in double.
void ExpectSoftmax(TeRun& r, int axis, bool log) {
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    const int64_t len = r.Shape(0)[axis];
    std::vector<int64_t> j = i;
    double mx = -INFINITY, sum = 0;
    for (j[axis] = 0; j[axis] < len; ++j[axis]) mx = std::max(mx, r.At(0, j));
    for (j[axis] = 0; j[axis] < len; ++j[axis]) sum += std::exp(r.At(0, j) - mx);
    return log ? r.At(0, i) - mx - std::log(sum) : std::exp(r.At(0, i) - mx) / sum;
  }, 1e-5, 1e-6);
}

TEST(TeSoftmaxTest, SoftmaxAndLogSoftmaxAlongAnyAxis) {
  for (int axis : {-1, 0, 1}) {
    SCOPED_TRACE(axis);
    Tensor x = Input("x", {5, 7, 3});
    Tensor s = Must(ops::Softmax(x, axis)), l = Must(ops::LogSoftmax(x, axis));
    TeRun rs = MustRun({x, s}, 5, {}, [](std::vector<Arg>& args) {
      HostBuffer& in = std::get<HostBuffer>(args[0]);  // Large values: stability matters.
      for (int64_t e = 0; e < in.size(); ++e) in.SetFloat(e, 40 * in.GetFloat(e));
    });
    ExpectSoftmax(rs, axis < 0 ? axis + 3 : axis, false);
    TeRun rl = MustRun({x, l}, 6);
    ExpectSoftmax(rl, axis < 0 ? axis + 3 : axis, true);
  }
  // Rank 1: the max and sum are rank-0 tensors.
  Tensor v = Input("v", {9});
  Tensor s = Must(ops::Softmax(v));
  EXPECT_EQ(s.op()->inputs.size(), 2u);
  TeRun r = MustRun({v, s});
  ExpectSoftmax(r, 0, false);
  EXPECT_THAT(ErrorOf(ops::Softmax(Input("i", {3}, kI32))), HasSubstr("softmax: tensor 'i' has type i32"));
  EXPECT_THAT(ErrorOf(ops::LogSoftmax(v, 1)), HasSubstr("log_softmax: axis 1 is out of range for rank 1"));
}

// Mean and variance of x over its trailing `n_axes`, per leading index.
std::pair<double, double> Moments(TeRun& r, const std::vector<int64_t>& lead, int n_axes) {
  std::vector<int64_t> shape = r.Shape(0);
  std::vector<int64_t> tail(shape.end() - n_axes, shape.end());
  double s = 0, sq = 0;
  int64_t n = 0;
  ForEachIndex(tail, [&](const std::vector<int64_t>& t) {
    std::vector<int64_t> idx = lead;
    idx.insert(idx.end(), t.begin(), t.end());
    double v = r.At(0, idx);
    s += v;
    sq += v * v;
    ++n;
  });
  double mean = s / n;
  return {mean, sq / n - mean * mean};
}

TEST(TeNormTest, LayerNormOverOneAndTwoTrailingAxes) {
  for (int n_axes : {1, 2}) {
    SCOPED_TRACE(n_axes);
    Tensor x = Input("x", {3, 4, 6});
    std::vector<int64_t> affine_shape = n_axes == 1 ? std::vector<int64_t>{6} : std::vector<int64_t>{4, 6};
    Tensor gamma = Input("gamma", affine_shape), beta = Input("beta", affine_shape);
    std::vector<int> axes = n_axes == 1 ? std::vector<int>{-1} : std::vector<int>{2, 1};
    Tensor y = Must(ops::LayerNorm(x, gamma, beta, axes, 1e-5));
    TeRun r = MustRun({x, gamma, beta, y});
    ExpectAll(r, 3, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> lead(i.begin(), i.end() - n_axes), tail(i.end() - n_axes, i.end());
      auto [mean, var] = Moments(r, lead, n_axes);
      return (r.At(0, i) - mean) / std::sqrt(var + 1e-5) * r.At(1, tail) + r.At(2, tail);
    }, 1e-4, 1e-5);
  }
  // Without gamma and beta.
  Tensor x = Input("x", {2, 5});
  Tensor y = Must(ops::LayerNorm(x, Tensor(), Tensor()));
  TeRun r = MustRun({x, y});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    auto [mean, var] = Moments(r, {i[0]}, 1);
    return (r.At(0, i) - mean) / std::sqrt(var + 1e-5);
  }, 1e-4, 1e-5);
}

TEST(TeNormTest, RmsNormScalesByTheRootMeanSquare) {
  Tensor x = Input("x", {4, 7}), w = Input("w", {7});
  Tensor y = Must(ops::RmsNorm(x, w, {-1}, 1e-6));
  TeRun r = MustRun({x, w, y});
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
    double sq = 0;
    for (int64_t k = 0; k < 7; ++k) sq += r.At(0, {i[0], k}) * r.At(0, {i[0], k});
    return r.At(0, i) / std::sqrt(sq / 7 + 1e-6) * r.At(1, {i[1]});
  }, 1e-4, 1e-5);
}

TEST(TeNormTest, L2NormalizeAlongAnyAxis) {
  for (int axis : {0, -1}) {
    Tensor x = Input("x", {3, 5});
    Tensor y = Must(ops::L2Normalize(x, axis));
    TeRun r = MustRun({x, y});
    const int a = axis < 0 ? axis + 2 : axis;
    ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      double sq = 0;
      for (j[a] = 0; j[a] < r.Shape(0)[a]; ++j[a]) sq += r.At(0, j) * r.At(0, j);
      return r.At(0, i) / std::sqrt(sq + 1e-12);
    }, 1e-5, 1e-6);
  }
  EXPECT_THAT(ErrorOf(ops::L2Normalize(Input("i", {3}, kI32), 0)),
              HasSubstr("l2_normalize: tensor 'i' has type i32, expected a float type"));
  EXPECT_THAT(ErrorOf(ops::L2Normalize(Input("v", {3}), 1)),
              HasSubstr("l2_normalize: axis 1 is out of range for rank 1"));
}

TEST(TeNormTest, RefusesBadAxesAndParameters) {
  Tensor x = Input("x", {3, 4, 6});
  EXPECT_THAT(ErrorOf(ops::LayerNorm(x, Input("g", {4}), Tensor())),
              HasSubstr("layer_norm: gamma 'g' has shape [4], expected [6]"));
  EXPECT_THAT(ErrorOf(ops::LayerNorm(x, Tensor(), Tensor(), {1})),
              HasSubstr("layer_norm: the normalized axes must be the trailing axes of the input"));
  EXPECT_THAT(ErrorOf(ops::LayerNorm(x, Tensor(), Tensor(), {})), HasSubstr("no axes to normalize"));
  EXPECT_THAT(ErrorOf(ops::RmsNorm(x, Input("w", {6}, DataType::Float(16)))),
              HasSubstr("rms_norm: operand types differ"));
  EXPECT_THAT(ErrorOf(ops::RmsNorm(Input("i", {3}, kI32), Tensor())), HasSubstr("rms_norm: tensor 'i' has type i32"));
}

}  // namespace
}  // namespace tessel::ir::te
