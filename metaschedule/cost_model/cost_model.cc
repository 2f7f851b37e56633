// The cost-model registry, the analytic and random models, and rank quality
// (see cost_model.h); the XGBoost model is in xgboost_model.cc.
#include "metaschedule/cost_model/cost_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "ir/schedule/sampling.h"

namespace tessel::metaschedule {

std::unique_ptr<CostModel> MakeXGBoostModel(uint64_t seed);  // xgboost_model.cc

namespace {

double Unlog(float f) { return std::exp2(static_cast<double>(f)) - 1.0; }

class AnalyticModel : public CostModel {
 public:
  std::string name() const override { return "analytic"; }
  absl::Status Update(const std::vector<FeatureVector>&, const std::vector<float>&) override {
    return absl::OkStatus();  // A formula: nothing to learn.
  }
  absl::StatusOr<std::vector<float>> Predict(const std::vector<FeatureVector>& x) override {
    std::vector<float> out;
    for (const FeatureVector& f : x) {
      // Cycles, roughly: arithmetic spread over the lanes and the parallel extent
      // (at most 64 cores), one cycle per 16 bytes read or written, and a strided
      // access paying a 64-byte line for each element.
      double lanes = std::max(1.0f, f[kVectorLanes]);
      double parallel = std::clamp(Unlog(f[kParallelExtent]), 1.0, 64.0);
      double compute = Unlog(f[kFloatOps]) / (1.0 + (lanes - 1.0) * f[kVectorShare]) /
                       (1.0 + (parallel - 1.0) * f[kParallelShare]);
      double memory = (Unlog(f[kBytesRead]) + Unlog(f[kBytesWritten])) / 16.0;
      double strided = Unlog(f[kLoads]) * f[kStridedShare] * 4.0;
      out.push_back(static_cast<float>(1.0 / (1.0 + compute + memory + strided)));
    }
    return out;
  }
};

class RandomModel : public CostModel {
 public:
  explicit RandomModel(uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  absl::Status Update(const std::vector<FeatureVector>&, const std::vector<float>&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<float>> Predict(const std::vector<FeatureVector>& x) override {
    std::vector<float> out;
    for (size_t i = 0; i < x.size(); ++i) out.push_back(static_cast<float>(rng_.Unit()));
    return out;
  }

 private:
  ir::schedule::RandomEngine rng_;
};

}  // namespace

absl::StatusOr<std::string> CostModel::Save() const {
  return absl::UnimplementedError(absl::StrCat("the ", name(), " cost model has nothing to save"));
}

absl::Status CostModel::Load(const std::string&) {
  return absl::UnimplementedError(absl::StrCat("the ", name(), " cost model loads nothing"));
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeCostModel(const std::string& name, uint64_t seed) {
  if (name == "xgboost") return MakeXGBoostModel(seed);
  if (name == "analytic") return std::unique_ptr<CostModel>(new AnalyticModel());
  if (name == "random") return std::unique_ptr<CostModel>(new RandomModel(seed));
  return absl::NotFoundError(
      absl::StrCat("no cost model \"", name, "\" (there are: xgboost, analytic, random)"));
}

std::vector<std::string> CostModelNames() { return {"xgboost", "analytic", "random"}; }

ModelQuality RankQuality(const std::vector<float>& predicted, const std::vector<float>& measured,
                         int k) {
  ModelQuality q;
  const size_t n = std::min(predicted.size(), measured.size());
  q.rows = static_cast<int64_t>(n);
  if (n < 2) return q;
  // Kendall's tau-b: concordant minus discordant pairs over the untied ones.
  double concordant = 0, discordant = 0, tied_p = 0, tied_m = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      double dp = predicted[i] - predicted[j], dm = measured[i] - measured[j];
      if (dp == 0 && dm == 0) continue;
      if (dp == 0) {
        ++tied_p;
      } else if (dm == 0) {
        ++tied_m;
      } else if ((dp > 0) == (dm > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  double denom = std::sqrt((concordant + discordant + tied_p) * (concordant + discordant + tied_m));
  q.kendall_tau = denom > 0 ? (concordant - discordant) / denom : 0;
  // Recall of the measured top k in the predicted top k.
  size_t top = std::min<size_t>(static_cast<size_t>(std::max(k, 1)), n);
  auto top_of = [&](const std::vector<float>& s) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s[a] > s[b]; });
    idx.resize(top);
    std::sort(idx.begin(), idx.end());
    return idx;
  };
  std::vector<size_t> a = top_of(predicted), b = top_of(measured), both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  q.top_k_recall = static_cast<double>(both.size()) / static_cast<double>(top);
  return q;
}

}  // namespace tessel::metaschedule
