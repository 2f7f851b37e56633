// Units for the workload registry: every workload builds one verified function
// under its own name, prints and parses back, states bytes equal to its
// parameters' sizes and FLOPs by its formula; the small ones run in the
// interpreter, and the composite ones are checked against direct C++ (the large
// ones are only built, never run).
//
//   BuildWorkload("bert_ffn_8x64x32") -> Y = gelu(X W1ᵀ + b1) W2ᵀ + b2, checked below
#include <cmath>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/workloads.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

TEST(TeWorkloadsTest, EveryWorkloadBuildsVerifiesAndRoundTrips) {
  std::set<std::string> names;
  int small = 0;
  for (const Workload& w : AllWorkloads()) {
    SCOPED_TRACE(w.name);
    EXPECT_TRUE(names.insert(w.name).second) << "duplicate name";
    EXPECT_TRUE(IsValidName(w.name));
    EXPECT_FALSE(w.description.empty());
    IRModule m = Must(w.build());
    ASSERT_EQ(m->functions.size(), 1u);
    EXPECT_EQ(m->functions[0].first, w.name);
    EXPECT_TRUE(VerifyModule(m).ok()) << VerifyModule(m);
    EXPECT_TRUE(CheckRoundTrip(m).ok()) << CheckRoundTrip(m);
    EXPECT_EQ(Must(ParamBytes(m->functions[0].second)), w.bytes);
    EXPECT_GT(w.flops, 0);
    small += w.small;
  }
  EXPECT_GE(small, 5);
  for (const char* required : {"matmul_1024x1024x1024_f32", "conv2d_nchw_resnet50_stage2",
                               "softmax_4096x4096", "layernorm_4096x768", "gemv_4096x4096",
                               "bert_ffn_128x3072x768", "matmul_64x64x64_f32"}) {
    EXPECT_NE(FindWorkload(required), nullptr) << required;
  }
}

TEST(TeWorkloadsTest, FlopCountsFollowTheDocumentedConventions) {
  EXPECT_EQ(FindWorkload("matmul_1024x1024x1024_f32")->flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(FindWorkload("gemv_4096x4096")->flops, 2.0 * 4096 * 4096);
  EXPECT_EQ(FindWorkload("softmax_4096x4096")->flops, 5.0 * 4096 * 4096);
  EXPECT_EQ(FindWorkload("layernorm_4096x768")->flops, 7.0 * 4096 * 768);
  // ResNet-50 stage 2, 3x3: 64 -> 64 channels at 56x56.
  EXPECT_EQ(FindWorkload("conv2d_nchw_resnet50_stage2")->flops, 2.0 * 64 * 56 * 56 * 64 * 9);
  // Two matmuls, two bias adds, GELU at 5 per element.
  EXPECT_EQ(FindWorkload("bert_ffn_128x3072x768")->flops,
            4.0 * 128 * 3072 * 768 + 128.0 * 3072 + 5.0 * 128 * 3072 + 128.0 * 768);
  EXPECT_EQ(FindWorkload("matmul_64x64x64_f32")->bytes, 3.0 * 64 * 64 * 4);
}

TEST(TeWorkloadsTest, UnknownNamesListTheKnownOnes) {
  EXPECT_EQ(FindWorkload("nope"), nullptr);
  EXPECT_THAT(ErrorOf(BuildWorkload("nope")),
              HasSubstr("no workload named 'nope' (known: matmul_1024x1024x1024_f32, "));
  Tensor a = Input("A", {SizeVar("n")});
  Tensor b = Must(Compute({a.shape()[0]}, [&](Var i) { return a(i); }, "B"));
  EXPECT_THAT(ErrorOf(ParamBytes(Must(CreatePrimFunc({a, b})))),
              HasSubstr("ParamBytes: buffer 'A' has a symbolic shape"));
}

TEST(TeWorkloadsTest, SmallWorkloadsRunInTheInterpreter) {
  for (const Workload& w : AllWorkloads()) {
    if (!w.small) continue;
    SCOPED_TRACE(w.name);
    PrimFunc f = Must(w.build())->functions[0].second;
    std::vector<Arg> args = Must(RandomArgs(f, 17));
    absl::Status s = ir::Run(f, args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

// Runs a workload's function on seeded random inputs.
TeRun RunWorkload(const std::string& name) {
  PrimFunc f = Must(BuildWorkload(name))->functions[0].second;
  std::vector<Arg> args = Must(RandomArgs(f, 5));
  absl::Status s = ir::Run(f, args);
  if (!s.ok()) throw std::runtime_error(s.ToString());
  return TeRun{f, args};
}

TEST(TeWorkloadsTest, MatmulAndGemvMatchDirectLoops) {
  TeRun mm = RunWorkload("matmul_64x64x64_f32");
  ExpectAll(mm, 2, [&](const std::vector<int64_t>& ij) {
    double s = 0;
    for (int64_t k = 0; k < 64; ++k) s += mm.At(0, {ij[0], k}) * mm.At(1, {k, ij[1]});
    return s;
  }, 1e-5, 1e-5);
  TeRun mv = RunWorkload("gemv_64x48");
  ExpectAll(mv, 2, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t k = 0; k < 48; ++k) s += mv.At(0, {i[0], k}) * mv.At(1, {k});
    return s;
  }, 1e-5, 1e-5);
}

TEST(TeWorkloadsTest, BertFfnMatchesDirectLoops) {
  const int64_t t = 8, f = 64, h = 32;
  TeRun r = RunWorkload("bert_ffn_8x64x32");  // X, W1, b1, W2, b2, Y.
  std::vector<double> act(t * f);
  for (int64_t i = 0; i < t; ++i) {
    for (int64_t j = 0; j < f; ++j) {
      double s = r.At(2, {j});
      for (int64_t k = 0; k < h; ++k) s += r.At(0, {i, k}) * r.At(1, {j, k});
      act[i * f + j] = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
    }
  }
  ExpectAll(r, 5, [&](const std::vector<int64_t>& ij) {
    double s = r.At(4, {ij[1]});
    for (int64_t k = 0; k < f; ++k) s += act[ij[0] * f + k] * r.At(3, {ij[1], k});
    return s;
  }, 1e-4, 1e-5);
}

TEST(TeWorkloadsTest, LayerNormAndSoftmaxMatchDirectLoops) {
  TeRun ln = RunWorkload("layernorm_8x48");  // x, gamma, beta, y.
  ExpectAll(ln, 3, [&](const std::vector<int64_t>& ij) {
    double s = 0, sq = 0;
    for (int64_t k = 0; k < 48; ++k) {
      s += ln.At(0, {ij[0], k});
      sq += ln.At(0, {ij[0], k}) * ln.At(0, {ij[0], k});
    }
    double mean = s / 48, var = sq / 48 - mean * mean;
    return (ln.At(0, ij) - mean) / std::sqrt(var + 1e-5) * ln.At(1, {ij[1]}) + ln.At(2, {ij[1]});
  }, 1e-4, 1e-5);
  TeRun sm = RunWorkload("softmax_16x33");
  ExpectAll(sm, 1, [&](const std::vector<int64_t>& ij) {
    double mx = -INFINITY, sum = 0;
    for (int64_t k = 0; k < 33; ++k) mx = std::max(mx, sm.At(0, {ij[0], k}));
    for (int64_t k = 0; k < 33; ++k) sum += std::exp(sm.At(0, {ij[0], k}) - mx);
    return std::exp(sm.At(0, ij) - mx) / sum;
  }, 1e-5, 1e-6);
}

}  // namespace
}  // namespace tessel::ir::te
