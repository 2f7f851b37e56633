// Cost models: features read from lowered functions, rank quality, the XGBoost
// model learning, saving and refusing a damaged model, and models kept in the
// tuning database.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "absl/strings/match.h"
#include "ir/schedule/sampling.h"
#include "ir/te/workloads.h"
#include "metaschedule/cost_model/cost_model.h"
#include "metaschedule/cost_model/features.h"
#include "metaschedule/database/database.h"
#include "metaschedule/design_space.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::metaschedule {
namespace {

ir::IRModule Workload(const std::string& name) {
  absl::StatusOr<ir::IRModule> mod = ir::te::BuildWorkload(name);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return *mod;
}

ir::PrimFunc Lowered(const ir::IRModule& mod) {
  passes::PassContext ctx;
  absl::StatusOr<ir::IRModule> out = passes::RunPipeline("lower", mod, ctx);
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)->functions[0].second;
}

TEST(Features, CountTheWorkAndHowItIsDone) {
  ir::IRModule mod = Workload("matmul_64x64x64_f32");
  const std::string func = mod->functions[0].first;
  absl::StatusOr<double> flops = WorkloadFloatOperations(mod, func);
  ASSERT_TRUE(flops.ok()) << flops.status();
  EXPECT_EQ(*flops, 2.0 * 64 * 64 * 64);  // One fused multiply-add per (i, j, k) counts 2.
  absl::StatusOr<FeatureVector> plain = ExtractFeatures(Lowered(mod));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)[kVectorShare], 0.0f);
  EXPECT_EQ((*plain)[kParallelShare], 0.0f);

  absl::StatusOr<DesignSpace> space = DesignSpace::Create(mod, func, "llvm -num-cores=2");
  ASSERT_TRUE(space.ok()) << space.status();
  absl::StatusOr<RuleSchedule> h = space->Heuristic();
  ASSERT_TRUE(h.ok()) << h.status();
  absl::StatusOr<FeatureVector> tuned = CandidateFeatures(mod, func, h->schedule.trace());
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  EXPECT_GT((*tuned)[kVectorShare], 0.9f);
  EXPECT_GT((*tuned)[kVectorLanes], 1.0f);
  EXPECT_EQ((*tuned)[kParallelShare], 1.0f);
  EXPECT_GT((*tuned)[kUniqueLocal], 0.0f);  // The packed panel and the accumulator.
  // The same arithmetic, however scheduled (log2(1 + flops)).
  EXPECT_NEAR((*tuned)[kFloatOps], std::log2(1 + *flops), 1e-3);
}

TEST(Features, RefuseAFunctionThatIsNotLowered) {
  ir::IRModule mod = Workload("softmax_16x33");
  absl::StatusOr<FeatureVector> f = ExtractFeatures(mod->functions[0].second);
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(absl::StrContains(f.status().message(), "not lowered")) << f.status();
}

TEST(RankQuality, TauAndRecall) {
  std::vector<float> measured = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(RankQuality({10, 20, 30, 40, 50}, measured, 2).kendall_tau, 1.0);
  EXPECT_DOUBLE_EQ(RankQuality({5, 4, 3, 2, 1}, measured, 2).kendall_tau, -1.0);
  ModelQuality q = RankQuality({1, 2, 3, 5, 4}, measured, 2);
  EXPECT_DOUBLE_EQ(q.top_k_recall, 1.0);  // {4, 5} either way.
  EXPECT_NEAR(q.kendall_tau, 0.8, 1e-9);  // One discordant pair of ten.
  EXPECT_EQ(RankQuality({1}, {1}, 10).rows, 1);
}

// Rows whose score is a known function of two features.
void Synthetic(int n, uint64_t seed, std::vector<FeatureVector>* x, std::vector<float>* y) {
  ir::schedule::RandomEngine rng(seed);
  for (int i = 0; i < n; ++i) {
    FeatureVector f{};
    for (float& v : f) v = static_cast<float>(rng.Unit());
    x->push_back(f);
    y->push_back(f[kVectorShare] * 0.7f + (1 - f[kStridedShare]) * 0.3f);
  }
}

TEST(XGBoostModel, LearnsARankingAndSavesIt) {
  absl::StatusOr<std::unique_ptr<CostModel>> m = MakeCostModel("xgboost", 3);
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<FeatureVector> x, test_x;
  std::vector<float> y, test_y;
  Synthetic(300, 1, &x, &y);
  Synthetic(60, 2, &test_x, &test_y);
  ASSERT_TRUE((*m)->Update(x, y).ok());
  EXPECT_EQ((*m)->size(), 300);
  absl::StatusOr<std::vector<float>> p = (*m)->Predict(test_x);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(RankQuality(*p, test_y).kendall_tau, 0.7);
  // The random baseline does not rank.
  absl::StatusOr<std::unique_ptr<CostModel>> r = MakeCostModel("random", 3);
  EXPECT_LT(std::fabs(RankQuality(*(*r)->Predict(test_x), test_y).kendall_tau), 0.3);

  absl::StatusOr<std::string> bytes = (*m)->Save();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<CostModel>> back = MakeCostModel("xgboost", 3);
  ASSERT_TRUE((*back)->Load(*bytes).ok());
  absl::StatusOr<std::vector<float>> again = (*back)->Predict(test_x);
  ASSERT_TRUE(again.ok()) << again.status();
  for (size_t i = 0; i < p->size(); ++i) EXPECT_NEAR((*p)[i], (*again)[i], 1e-6);
  // A warm-started model keeps learning on top of what it loaded.
  ASSERT_TRUE((*back)->Update(test_x, test_y).ok());

  absl::Status bad = (*back)->Load("{\"learner\": 42");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.message(), "xgboost")) << bad;
  EXPECT_FALSE(MakeCostModel("oracle", 1).ok());
}

TEST(Database, KeepsOneModelPerNameAndTarget) {
  std::string path = ::testing::TempDir() + "/models.db";
  std::remove(path.c_str());
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  absl::StatusOr<std::optional<std::string>> none = (*db)->FindModel("xgboost", "llvm");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());  // No models table yet: nothing, not an error.
  ASSERT_TRUE((*db)->CommitModel("xgboost", "llvm", "first", 3).ok());
  ASSERT_TRUE((*db)->CommitModel("xgboost", "llvm", "second", 9).ok());
  ASSERT_TRUE((*db)->CommitModel("xgboost", "llvm -mcpu=znver4", "other", 1).ok());
  EXPECT_EQ(**(*db)->FindModel("xgboost", "llvm"), "second");
  EXPECT_EQ(**(*db)->FindModel("xgboost", "llvm -mcpu=znver4"), "other");
  EXPECT_FALSE((*db)->FindModel("analytic", "llvm")->has_value());
}

}  // namespace
}  // namespace tessel::metaschedule
