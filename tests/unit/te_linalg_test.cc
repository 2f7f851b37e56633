// Units for the matrix ops and attention: Matmul with every transpose flag,
// BatchMatmul with broadcast batches, Dense with and without bias, Gemv, mixed
// precision accumulation, and the attention composite (plain and causal) -- each
// against direct C++ loops in double, on odd sizes.
//
//   Matmul(A: f32[K, M], B: f32[N, K], {.transpose_a = true, .transpose_b = true})
//   -> C[i, j] == sum_k A[k, i] * B[j, k]
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/ops/attention.h"
#include "ir/te/ops/matmul.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

TEST(TeMatmulTest, EveryTransposeCombinationOnOddSizes) {
  const int64_t m = 5, n = 7, k = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("ta=") + (ta ? "1" : "0") + " tb=" + (tb ? "1" : "0"));
      Tensor a = ta ? Input("A", {k, m}) : Input("A", {m, k});
      Tensor b = tb ? Input("B", {n, k}) : Input("B", {k, n});
      Tensor c = Must(ops::Matmul(a, b, {.transpose_a = ta, .transpose_b = tb}));
      EXPECT_EQ(ops::ShapeString(c.shape()), "[5, 7]");
      TeRun r = MustRun({a, b, c});
      ExpectAll(r, 2, [&](const std::vector<int64_t>& ij) {
        double s = 0;
        for (int64_t x = 0; x < k; ++x) {
          s += r.At(0, ta ? std::vector<int64_t>{x, ij[0]} : std::vector<int64_t>{ij[0], x}) *
               r.At(1, tb ? std::vector<int64_t>{ij[1], x} : std::vector<int64_t>{x, ij[1]});
        }
        return s;
      });
    }
  }
}

TEST(TeMatmulTest, HalfInputsAccumulateInTheOutputType) {
  const DataType f16 = DataType::Float(16);
  Tensor a = Input("A", {4, 33}, f16), b = Input("B", {33, 2}, f16);
  Tensor c = Must(ops::Matmul(a, b, {.out_dtype = kF32}));
  EXPECT_EQ(c.dtype(), kF32);
  TeRun r = MustRun({a, b, c});
  ExpectAll(r, 2, [&](const std::vector<int64_t>& ij) {
    double s = 0;
    for (int64_t x = 0; x < 33; ++x) s += r.At(0, {ij[0], x}) * r.At(1, {x, ij[1]});
    return s;
  }, 1e-5, 1e-5);
}

TEST(TeMatmulTest, BatchMatmulBroadcastsABatchOfOne) {
  Tensor a = Input("A", {3, 2, 5}), b = Input("B", {1, 5, 4});
  Tensor c = Must(ops::BatchMatmul(a, b));
  EXPECT_EQ(ops::ShapeString(c.shape()), "[3, 2, 4]");
  TeRun r = MustRun({a, b, c});
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t x = 0; x < 5; ++x) s += r.At(0, {i[0], i[1], x}) * r.At(1, {0, x, i[2]});
    return s;
  });
  Tensor bt = Input("Bt", {3, 4, 5});
  Tensor d = Must(ops::BatchMatmul(a, bt, {.transpose_b = true}));
  TeRun rd = MustRun({a, bt, d});
  ExpectAll(rd, 2, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t x = 0; x < 5; ++x) s += rd.At(0, {i[0], i[1], x}) * rd.At(1, {i[0], i[2], x});
    return s;
  });
}

TEST(TeMatmulTest, DenseIsXTimesWTransposedPlusBias) {
  Tensor x = Input("X", {3, 6}), w = Input("W", {5, 6}), bias = Input("bias", {5});
  Tensor y = Must(ops::Dense(x, w, bias));
  EXPECT_EQ(y.name(), "T_dense_bias");
  TeRun r = MustRun({x, w, bias, y});
  ExpectAll(r, 3, [&](const std::vector<int64_t>& ij) {
    double s = r.At(2, {ij[1]});
    for (int64_t k = 0; k < 6; ++k) s += r.At(0, {ij[0], k}) * r.At(1, {ij[1], k});
    return s;
  });
  Tensor plain = Must(ops::Dense(x, w));
  TeRun rp = MustRun({x, w, plain});
  ExpectAll(rp, 2, [&](const std::vector<int64_t>& ij) {
    double s = 0;
    for (int64_t k = 0; k < 6; ++k) s += rp.At(0, {ij[0], k}) * rp.At(1, {ij[1], k});
    return s;
  });
}

TEST(TeMatmulTest, GemvOnIntegersAndFloats) {
  for (DataType t : {kF32, kI32}) {
    Tensor a = Input("A", {7, 9}, t), v = Input("v", {9}, t);
    Tensor y = Must(ops::Gemv(a, v));
    TeRun r = MustRun({a, v, y});
    ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
      double s = 0;
      for (int64_t k = 0; k < 9; ++k) s += r.At(0, {i[0], k}) * r.At(1, {k});
      return s;
    });
  }
}

TEST(TeMatmulTest, RefusesMismatchedOperands) {
  Tensor a = Input("A", {4, 3}), b = Input("B", {4, 5}), v = Input("v", {4});
  EXPECT_THAT(ErrorOf(ops::Matmul(a, b)),
              HasSubstr("matmul: contracted extents differ: 'A' [4, 3] has [3], 'B' [4, 5] has [4]"));
  EXPECT_TRUE(ops::Matmul(a, b, {.transpose_a = true}).ok());
  EXPECT_THAT(ErrorOf(ops::Matmul(a, v)), HasSubstr("matmul: tensor 'v' has rank 1 (shape [4]), expected rank 2"));
  EXPECT_THAT(ErrorOf(ops::Matmul(a, Input("I", {3, 2}, kI32))),
              HasSubstr("matmul: operand types differ ('A' is f32, 'I' is i32)"));
  Tensor flags = Input("F", {2, 2}, DataType::Bool());
  EXPECT_THAT(ErrorOf(ops::Matmul(flags, flags)), HasSubstr("matmul: cannot multiply bool into bool"));
  EXPECT_THAT(ErrorOf(ops::BatchMatmul(Input("P", {2, 3, 4}), Input("Q", {3, 4, 5}))),
              HasSubstr("batch_matmul: cannot broadcast shapes [2] and [3]"));
  EXPECT_THAT(ErrorOf(ops::Gemv(a, v)), HasSubstr("gemv: contracted extents differ"));
  EXPECT_THAT(ErrorOf(ops::Dense(a, Input("W", {2, 3}), Input("b", {3}))),
              HasSubstr("dense: bias 'b' has shape [3], expected [2]"));
  EXPECT_THAT(ErrorOf(ops::Dense(a, Input("W2", {2, 3}), Input("bi", {2}, kI32))),
              HasSubstr("dense: bias 'bi' has type i32, expected f32"));
  EXPECT_THAT(ErrorOf(ops::Dense(Tensor(), a)), HasSubstr("dense: the input is an undefined tensor"));
  EXPECT_THAT(ErrorOf(ops::Dense(a, Input("W3", {2, 3}), Input("b2", {1, 2}))),
              HasSubstr("dense: tensor 'b2' has rank 2 (shape [1, 2]), expected rank 1"));
  EXPECT_THAT(ErrorOf(ops::Gemv(v, v)), HasSubstr("gemv: tensor 'v' has rank 1 (shape [4]), expected rank 2"));
  EXPECT_THAT(ErrorOf(ops::Matmul(a, Input("B2", {3, 2}), {.out_dtype = DataType::Handle()})),
              HasSubstr("matmul: cannot multiply f32 into handle"));
}

// softmax(q kᵀ * scale [+ causal mask]) v for one (batch, head) slice.
void ExpectAttention(TeRun& r, int64_t lead, int64_t s_len, int64_t t_len, int64_t d, int64_t dv,
                     bool causal) {
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  auto at = [&](int p, int64_t b, int64_t i, int64_t j) {
    std::vector<int64_t> idx;
    if (r.Shape(p).size() == 4) idx = {b / 2, b % 2, i, j};
    else idx = {b, i, j};
    return r.At(p, idx);
  };
  for (int64_t b = 0; b < lead; ++b) {
    for (int64_t s = 0; s < s_len; ++s) {
      std::vector<double> p(t_len);
      double mx = -INFINITY, sum = 0;
      for (int64_t t = 0; t < t_len; ++t) {
        double dot = 0;
        for (int64_t x = 0; x < d; ++x) dot += at(0, b, s, x) * at(1, b, t, x);
        p[t] = causal && t > s ? -INFINITY : dot * scale;
        mx = std::max(mx, p[t]);
      }
      for (double& v : p) sum += (v = std::exp(v - mx));
      for (int64_t e = 0; e < dv; ++e) {
        double o = 0;
        for (int64_t t = 0; t < t_len; ++t) o += p[t] / sum * at(2, b, t, e);
        EXPECT_NEAR(at(3, b, s, e), o, 1e-5) << "b " << b << " s " << s << " e " << e;
      }
    }
  }
}

TEST(TeAttentionTest, ScoresSoftmaxAndValuesMatchDirectLoops) {
  Tensor q = Input("q", {2, 2, 3, 4}), k = Input("k", {2, 2, 5, 4}), v = Input("v", {2, 2, 5, 3});
  Tensor o = Must(ops::Attention(q, k, v));
  EXPECT_EQ(ops::ShapeString(o.shape()), "[2, 2, 3, 3]");
  TeRun r = MustRun({q, k, v, o});
  ExpectAttention(r, 4, 3, 5, 4, 3, false);
}

TEST(TeAttentionTest, CausalMaskHidesLaterKeys) {
  Tensor q = Input("q", {2, 4, 6}), k = Input("k", {2, 4, 6}), v = Input("v", {2, 4, 5});
  Tensor o = Must(ops::Attention(q, k, v, {.causal = true}));
  TeRun r = MustRun({q, k, v, o});
  ExpectAttention(r, 2, 4, 4, 6, 5, true);
}

TEST(TeAttentionTest, RefusesInconsistentShapes) {
  Tensor q = Input("q", {2, 3, 4}), k = Input("k", {2, 5, 4}), v = Input("v", {2, 5, 3});
  EXPECT_THAT(ErrorOf(ops::Attention(q, Input("k2", {2, 5, 3}), v)),
              HasSubstr("attention: head dimensions (D) differ: 'q' is [2, 3, 4], 'k2' is [2, 5, 3]"));
  EXPECT_THAT(ErrorOf(ops::Attention(q, k, Input("v2", {2, 6, 3}))), HasSubstr("key lengths (T) differ"));
  EXPECT_THAT(ErrorOf(ops::Attention(q, Input("k3", {3, 5, 4}), v)), HasSubstr("leading extents differ"));
  EXPECT_THAT(ErrorOf(ops::Attention(Input("q1", {4}), k, v)),
              HasSubstr("attention: q has rank 1; expected [..., S, D] (rank >= 2)"));
  EXPECT_THAT(ErrorOf(ops::Attention(q, Input("k4", {2, 5, 4}, kI32), v)),
              HasSubstr("attention: operand types differ"));
  Var d = SizeVar("d");
  Tensor qs = Input("qs", {3, d}), ks = Input("ks", {5, d}), vs = Input("vs", {5, 2});
  EXPECT_THAT(ErrorOf(ops::Attention(qs, ks, vs)), HasSubstr("D is [d]; pass a scale for a symbolic D"));
  EXPECT_TRUE(ops::Attention(qs, ks, vs, {.scale = 0.5}).ok());
}

}  // namespace
}  // namespace tessel::ir::te
