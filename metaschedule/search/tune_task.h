// Tuning one task: a search strategy proposes candidates in batches, they are
// measured, each result is committed to the database as a record of its own,
// and the strategy sees the results -- until `trials` candidates were measured
// or the strategy has nothing new to offer.
//
//   absl::StatusOr<TuneResult> r = TuneTask(task, measure, db.get(),
//                                           {.strategy = "genetic", .trials = 64, .batch = 16});
//   r->best_seconds, r->curve (the best time after each trial), r->failed
//
// A tuner started again on the same database resumes: the task's records for
// the target are loaded first, so nothing measured is proposed again and the
// `trials` measured now are all new. A killed tuner loses at most the batch it
// was measuring.
#ifndef TESSEL_METASCHEDULE_SEARCH_TUNE_TASK_H_
#define TESSEL_METASCHEDULE_SEARCH_TUNE_TASK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/trace.h"
#include "metaschedule/cost_model/cost_model.h"
#include "metaschedule/database/database.h"
#include "metaschedule/search/candidate.h"
#include "metaschedule/tasks.h"

namespace tessel::metaschedule {

struct TuneProgress {
  std::string task;
  int64_t trials = 0, of = 0;  // Measured in this run, of the budget.
  int64_t failed = 0;
  double best_seconds = 0;  // Infinity until one succeeded.
};

struct TuneOptions {
  std::string strategy = "evolutionary";
  int64_t trials = 64;  // New candidates to measure.
  int batch = 16;       // Candidates proposed and measured together.
  uint64_t seed = 1;
  int64_t max_grid = 4096;                            // grid's bound on the space.
  bool heuristic_start = true;                        // SearchContext::heuristic_start.
  // evolutionary: the model ("xgboost", "analytic", "random"), or one given (shared
  // across tasks and runs; e.g. warm-started from another target's records).
  std::string cost_model = "xgboost";
  std::shared_ptr<CostModel> model;
  std::function<void(const TuneProgress&)> progress;  // After each batch.
};

struct TuneResult {
  int64_t trials = 0;  // Measured in this run.
  int64_t failed = 0;  // Of those, how many failed (by status in `failures`).
  std::map<std::string, int64_t> failures;
  int64_t resumed = 0;      // Records of earlier runs loaded from the database.
  double best_seconds = 0;  // The best of every record, earlier runs' included.
  std::optional<ir::schedule::Trace> best;
  std::vector<double> curve;  // The best time after each trial of this run.
};

// One task's search, a batch at a time: what TuneTask loops over, and what a
// task scheduler (task_scheduler.h) interleaves across tasks.
class TaskTuner {
 public:
  // Loads the task's earlier records and starts the strategy.
  static absl::StatusOr<std::unique_ptr<TaskTuner>> Create(const TuningTask& task, Database* db,
                                                           const TuneOptions& options);
  ~TaskTuner();
  // Proposes up to `n` candidates, measures and commits them. False when the
  // strategy had nothing new (the task is done).
  absl::StatusOr<bool> Step(const MeasureFn& measure, int n);
  bool done() const { return done_; }
  const TuningTask& task() const { return task_; }
  const TuneResult& result() const { return result_; }

 private:
  struct State;
  TaskTuner() = default;
  TuningTask task_;
  TuneOptions options_;
  Database* db_ = nullptr;
  int64_t workload_id_ = 0;
  std::unique_ptr<State> state_;
  TuneResult result_;
  bool done_ = false;
};

// Steps one task until `options.trials` were measured or its strategy is done.
absl::StatusOr<TuneResult> TuneTask(const TuningTask& task, const MeasureFn& measure, Database* db,
                                    const TuneOptions& options);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_TUNE_TASK_H_
