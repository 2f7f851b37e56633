// Training a cost model from a tuning database: each record becomes a row
// (the features of its trace replayed onto its workload and lowered; its score,
// the workload's best time for the target over its time, 0 when it failed).
// What warm start and the model-quality report are made of.
//
//   absl::StatusOr<std::vector<TrainingRow>> rows = RowsFromDatabase(*db, "llvm");
//   model->Update(Features(*rows), Scores(*rows));           // warm start
//   ModelQuality q = *HeldOutQuality("xgboost", *rows, 1);   // tau, top-10 recall
#ifndef TESSEL_METASCHEDULE_COST_MODEL_TRAINING_ROWS_H_
#define TESSEL_METASCHEDULE_COST_MODEL_TRAINING_ROWS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metaschedule/cost_model/cost_model.h"
#include "metaschedule/database/database.h"

namespace tessel::metaschedule {

struct TrainingRow {
  FeatureVector features;
  float score = 0;
  std::string workload;  // Its hash: rows of one workload are ranked together.
};

// Every record of `target` whose trace still replays and lowers; the others are
// left out (counted in `*skipped` when given).
absl::StatusOr<std::vector<TrainingRow>> RowsFromDatabase(Database& db, const std::string& target,
                                                          int64_t* skipped = nullptr);

std::vector<FeatureVector> Features(const std::vector<TrainingRow>& rows);
std::vector<float> Scores(const std::vector<TrainingRow>& rows);

// Trains `model` on the records of another database: `spec` is "FILE" or
// "FILE:TARGET" (TARGET defaults to `target`). The rows it learned from go to
// `*rows` when given. What warm start is: a model that learned one target or
// one set of shapes ranks candidates of another from the first batch.
absl::Status WarmStart(CostModel& model, const std::string& spec, const std::string& target,
                       int64_t* rows = nullptr);

// Trains a fresh `model` on a seeded three quarters of the rows and ranks the
// rest: Kendall's tau and top-10 recall, averaged over workloads by their
// held-out rows (a ranking across workloads would reward telling them apart).
absl::StatusOr<ModelQuality> HeldOutQuality(const std::string& model,
                                            const std::vector<TrainingRow>& rows, uint64_t seed);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_COST_MODEL_TRAINING_ROWS_H_
