// The XGBoost cost model (see cost_model.h): gradient-boosted regression trees
// on the features, through XGBoost's C API (libxgboost-dev).
//
//   rows: (features of a measured candidate, its score = best time / its time)
//   Update -> a new booster: the loaded base model (if any) plus 60 rounds of
//             depth-6 trees, eta 0.2, squared error, on every row seen
//   Predict -> the booster's score per candidate
//
// Every call into XGBoost is checked; its error text becomes the status.
#include <cmath>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "metaschedule/cost_model/cost_model.h"
#include "xgboost/c_api.h"

namespace tessel::metaschedule {

namespace {

constexpr int kRounds = 60;

absl::Status Check(int rc, const char* what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("xgboost: ", what, ": ", XGBGetLastError()));
}

struct MatrixDeleter {
  void operator()(void* m) const { XGDMatrixFree(m); }
};
struct BoosterDeleter {
  void operator()(void* b) const { XGBoosterFree(b); }
};
using Matrix = std::unique_ptr<void, MatrixDeleter>;
using Booster = std::unique_ptr<void, BoosterDeleter>;

absl::StatusOr<Matrix> MakeMatrix(const std::vector<FeatureVector>& rows) {
  std::vector<float> flat;
  flat.reserve(rows.size() * kNumFeatures);
  for (const FeatureVector& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  DMatrixHandle h = nullptr;
  absl::Status s = Check(XGDMatrixCreateFromMat(flat.data(), rows.size(), kNumFeatures, NAN, &h),
                         "making a matrix");
  if (!s.ok()) return s;
  return Matrix(h);
}

class XGBoostModel : public CostModel {
 public:
  explicit XGBoostModel(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "xgboost"; }
  int64_t size() const override { return static_cast<int64_t>(x_.size()); }

  absl::Status Update(const std::vector<FeatureVector>& features,
                      const std::vector<float>& scores) override {
    if (features.size() != scores.size()) {
      return absl::InvalidArgumentError("xgboost: as many scores as feature rows are needed");
    }
    x_.insert(x_.end(), features.begin(), features.end());
    y_.insert(y_.end(), scores.begin(), scores.end());
    if (x_.empty()) return absl::OkStatus();
    absl::StatusOr<Matrix> m = MakeMatrix(x_);
    if (!m.ok()) return m.status();
    if (absl::Status s =
            Check(XGDMatrixSetFloatInfo(m->get(), "label", y_.data(), y_.size()), "setting labels");
        !s.ok()) {
      return s;
    }
    DMatrixHandle train[] = {m->get()};
    BoosterHandle h = nullptr;
    if (absl::Status s = Check(XGBoosterCreate(train, 1, &h), "making a booster"); !s.ok())
      return s;
    Booster booster(h);
    if (!base_.empty()) {  // Warm start: new trees on top of the loaded model.
      if (absl::Status s = Check(XGBoosterLoadModelFromBuffer(h, base_.data(), base_.size()),
                                 "loading the base model");
          !s.ok()) {
        return s;
      }
    }
    const std::string seed = absl::StrCat(seed_ % 2147483647);
    for (const auto& [k, v] :
         std::vector<std::pair<std::string, std::string>>{{"objective", "reg:squarederror"},
                                                          {"max_depth", "6"},
                                                          {"eta", "0.2"},
                                                          {"min_child_weight", "1"},
                                                          {"subsample", "1"},
                                                          {"verbosity", "0"},
                                                          {"nthread", "1"},
                                                          {"seed", seed}}) {
      if (absl::Status s = Check(XGBoosterSetParam(h, k.c_str(), v.c_str()), "setting parameters");
          !s.ok()) {
        return s;
      }
    }
    int done = 0;
    if (!base_.empty()) XGBoosterBoostedRounds(h, &done);
    for (int i = 0; i < kRounds; ++i) {
      if (absl::Status s = Check(XGBoosterUpdateOneIter(h, done + i, m->get()), "training");
          !s.ok()) {
        return s;
      }
    }
    booster_ = std::move(booster);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<float>> Predict(const std::vector<FeatureVector>& features) override {
    std::vector<float> out;
    if (features.empty()) return out;
    BoosterHandle h = booster_.get();
    Booster loaded;
    if (h == nullptr && !base_.empty()) {  // Loaded, not trained here yet.
      if (absl::Status s = Check(XGBoosterCreate(nullptr, 0, &h), "making a booster"); !s.ok()) {
        return s;
      }
      loaded.reset(h);
      if (absl::Status s = Check(XGBoosterLoadModelFromBuffer(h, base_.data(), base_.size()),
                                 "loading the model");
          !s.ok()) {
        return s;
      }
    }
    if (h == nullptr) return std::vector<float>(features.size(), 0.0f);  // Knows nothing yet.
    absl::StatusOr<Matrix> m = MakeMatrix(features);
    if (!m.ok()) return m.status();
    bst_ulong n = 0;
    const float* result = nullptr;
    if (absl::Status s = Check(XGBoosterPredict(h, m->get(), 0, 0, 0, &n, &result), "predicting");
        !s.ok()) {
      return s;
    }
    out.assign(result, result + n);
    return out;
  }

  absl::StatusOr<std::string> Save() const override {
    if (booster_ == nullptr) {
      if (!base_.empty()) return base_;
      return absl::FailedPreconditionError("xgboost: the model has not been trained");
    }
    bst_ulong n = 0;
    const char* bytes = nullptr;
    if (absl::Status s =
            Check(XGBoosterSaveModelToBuffer(booster_.get(), R"({"format": "json"})", &n, &bytes),
                  "saving");
        !s.ok()) {
      return s;
    }
    return std::string(bytes, n);
  }

  absl::Status Load(const std::string& bytes) override {
    // Checked now, so that a damaged model is refused where it is loaded.
    BoosterHandle h = nullptr;
    if (absl::Status s = Check(XGBoosterCreate(nullptr, 0, &h), "making a booster"); !s.ok()) {
      return s;
    }
    Booster probe(h);
    if (absl::Status s =
            Check(XGBoosterLoadModelFromBuffer(h, bytes.data(), bytes.size()), "loading the model");
        !s.ok()) {
      return s;
    }
    base_ = bytes;
    booster_.reset();
    return absl::OkStatus();
  }

 private:
  uint64_t seed_;
  std::vector<FeatureVector> x_;
  std::vector<float> y_;
  std::string base_;  // A loaded model new training starts from.
  Booster booster_;
};

}  // namespace

std::unique_ptr<CostModel> MakeXGBoostModel(uint64_t seed) {
  return std::make_unique<XGBoostModel>(seed);
}

}  // namespace tessel::metaschedule
