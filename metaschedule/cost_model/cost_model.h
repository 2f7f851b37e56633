// Cost models: predict which candidates run fastest from their features
// (features.h), so that evolutionary search measures only the promising ones.
//
//   absl::StatusOr<std::unique_ptr<CostModel>> m = MakeCostModel("xgboost", /*seed=*/1);
//   (*m)->Update(features, scores);        // score: the task's best time / this time
//   std::vector<float> s = *(*m)->Predict(candidates);   // higher: predicted faster
//
// The models:
//   xgboost   gradient-boosted trees (XGBoost's C API), retrained on every update
//             from all rows seen; Save/Load give its bytes, and a loaded model is the
//             base new trees are added to (warm start from another target's records);
//   analytic  a fixed formula: float operations spread over vector lanes and cores,
//             plus bytes read, strided accesses counted as whole lines;
//   random    a seeded random score: the baseline a model must beat.
// A score is in [0, 1]: 1 for the fastest measured candidate of its task, 0 for
// one that failed.
#ifndef TESSEL_METASCHEDULE_COST_MODEL_COST_MODEL_H_
#define TESSEL_METASCHEDULE_COST_MODEL_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "metaschedule/cost_model/features.h"

namespace tessel::metaschedule {

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;
  // Adds measured candidates with their scores and retrains.
  virtual absl::Status Update(const std::vector<FeatureVector>& features,
                              const std::vector<float>& scores) = 0;
  // One score per candidate; higher is predicted faster.
  virtual absl::StatusOr<std::vector<float>> Predict(
      const std::vector<FeatureVector>& features) = 0;
  // The trained model as bytes, and back (models that learn).
  virtual absl::StatusOr<std::string> Save() const;
  virtual absl::Status Load(const std::string& bytes);
  // Rows trained on so far.
  virtual int64_t size() const { return 0; }
};

// "xgboost", "analytic" or "random".
absl::StatusOr<std::unique_ptr<CostModel>> MakeCostModel(const std::string& name, uint64_t seed);
std::vector<std::string> CostModelNames();

// How well predictions rank held-out measurements.
struct ModelQuality {
  double kendall_tau = 0;   // In [-1, 1]: 1 when the predicted order is the measured one.
  double top_k_recall = 0;  // Share of the measured top k among the predicted top k.
  int64_t rows = 0;
};
// `predicted` and `measured` scores of the same rows (higher is faster).
ModelQuality RankQuality(const std::vector<float>& predicted, const std::vector<float>& measured,
                         int k = 10);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_COST_MODEL_COST_MODEL_H_
