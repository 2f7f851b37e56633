// Tuning many tasks from one trial budget: which task gets the next batch.
//
//   round-robin  batches go to the tasks in turn;
//   gradient     each task first gets one batch; then the next goes to the task
//                whose weighted time is shrinking fastest: weight x best time x
//                (its relative improvement over its last `window` batches + 0.02),
//                so a heavy task still improving gets the trials, a converged one
//                only now and then (the 0.02 floor).
//
//   tasks: mm (weight 2, 1.0 ms, was 1.6 ms three batches ago), softmax (weight 1,
//   0.1 ms, unchanged): scores 2 x 1.0 x (0.375 + 0.02) = 0.79 and 1 x 0.1 x 0.02
//   = 0.002 -> mm gets the batch.
//
// A task whose strategy is done (a finished grid) gets no more batches; the
// budget then goes to the others.
#ifndef TESSEL_METASCHEDULE_SEARCH_TASK_SCHEDULER_H_
#define TESSEL_METASCHEDULE_SEARCH_TASK_SCHEDULER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metaschedule/search/tune_task.h"

namespace tessel::metaschedule {

struct TaskSchedulerOptions {
  std::string kind = "gradient";  // or "round-robin".
  int64_t total_trials = 64;      // Across every task.
  int window = 3;                 // gradient: batches the improvement is measured over.
};

// How each task is measured (e.g. a LocalMeasurer made for it).
using MeasureFactory = std::function<absl::StatusOr<MeasureFn>(const TuningTask&)>;

// One result per task, in order. `options.trials` is ignored: the budget is the
// scheduler's total; `options.batch` the batch size.
absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<TuningTask>& tasks,
                                                  const MeasureFactory& measure_for, Database* db,
                                                  const TuneOptions& options,
                                                  const TaskSchedulerOptions& scheduler);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_TASK_SCHEDULER_H_
