// Rows for training cost models from the database, and held-out quality (see
// training_rows.h).
#include "metaschedule/cost_model/training_rows.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/parser.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/trace.h"

namespace tessel::metaschedule {

absl::StatusOr<std::vector<TrainingRow>> RowsFromDatabase(Database& db, const std::string& target,
                                                          int64_t* skipped) {
  absl::StatusOr<std::vector<Workload>> workloads = db.Workloads();
  if (!workloads.ok()) return workloads.status();
  std::vector<TrainingRow> rows;
  int64_t left_out = 0;
  for (const Workload& w : *workloads) {
    absl::StatusOr<ir::IRModule> mod = ir::ParseModule(w.tsl, "a stored workload");
    if (!mod.ok() || (*mod)->functions.empty()) continue;
    const std::string func = (*mod)->functions[0].first;
    absl::StatusOr<std::vector<TuningRecord>> records = db.Records(w.id);
    if (!records.ok()) return records.status();
    double best = INFINITY;
    for (const TuningRecord& r : *records) {
      if (r.target == target && r.status == RunStatus::kOk) best = std::min(best, r.MeanSeconds());
    }
    for (const TuningRecord& r : *records) {
      if (r.target != target) continue;
      absl::StatusOr<ir::schedule::Trace> t = ir::schedule::Trace::FromJson(r.trace_json);
      absl::StatusOr<FeatureVector> f =
          t.ok() ? CandidateFeatures(*mod, func, *t) : absl::StatusOr<FeatureVector>(t.status());
      if (!f.ok()) {
        ++left_out;
        continue;
      }
      float score = r.status == RunStatus::kOk && std::isfinite(best)
                        ? static_cast<float>(best / r.MeanSeconds())
                        : 0.0f;
      rows.push_back({*f, score, w.hash});
    }
  }
  if (skipped != nullptr) *skipped = left_out;
  return rows;
}

std::vector<FeatureVector> Features(const std::vector<TrainingRow>& rows) {
  std::vector<FeatureVector> out;
  for (const TrainingRow& r : rows) out.push_back(r.features);
  return out;
}

std::vector<float> Scores(const std::vector<TrainingRow>& rows) {
  std::vector<float> out;
  for (const TrainingRow& r : rows) out.push_back(r.score);
  return out;
}

absl::Status WarmStart(CostModel& model, const std::string& spec, const std::string& target,
                       int64_t* rows) {
  size_t colon = spec.find(':');
  const std::string path = spec.substr(0, colon);
  const std::string of = colon == std::string::npos ? target : spec.substr(colon + 1);
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path, /*create=*/false);
  if (!db.ok()) return db.status();
  absl::StatusOr<std::vector<TrainingRow>> r = RowsFromDatabase(**db, of);
  if (!r.ok()) return r.status();
  if (r->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("warm start: ", path, " has no records for target \"", of, "\""));
  }
  if (rows != nullptr) *rows = static_cast<int64_t>(r->size());
  return model.Update(Features(*r), Scores(*r));
}

absl::StatusOr<ModelQuality> HeldOutQuality(const std::string& model,
                                            const std::vector<TrainingRow>& rows, uint64_t seed) {
  absl::StatusOr<std::unique_ptr<CostModel>> m = MakeCostModel(model, seed);
  if (!m.ok()) return m.status();
  ir::schedule::RandomEngine rng(seed);
  std::vector<TrainingRow> train;
  std::map<std::string, std::vector<const TrainingRow*>> held;  // By workload.
  for (const TrainingRow& r : rows) {
    if (rng.Below(4) == 0) {
      held[r.workload].push_back(&r);
    } else {
      train.push_back(r);
    }
  }
  if (absl::Status s = (*m)->Update(Features(train), Scores(train)); !s.ok()) return s;
  ModelQuality total;
  double weight = 0;
  for (const auto& [workload, group] : held) {
    if (group.size() < 2) continue;
    std::vector<FeatureVector> x;
    std::vector<float> y;
    for (const TrainingRow* r : group) {
      x.push_back(r->features);
      y.push_back(r->score);
    }
    absl::StatusOr<std::vector<float>> p = (*m)->Predict(x);
    if (!p.ok()) return p.status();
    ModelQuality q = RankQuality(*p, y, 10);
    const double w = static_cast<double>(group.size());
    total.kendall_tau += q.kendall_tau * w;
    total.top_k_recall += q.top_k_recall * w;
    total.rows += q.rows;
    weight += w;
  }
  if (weight > 0) {
    total.kendall_tau /= weight;
    total.top_k_recall /= weight;
  }
  return total;
}

}  // namespace tessel::metaschedule
