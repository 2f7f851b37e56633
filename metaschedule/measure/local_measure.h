// Measuring candidates of a tuning task on this machine: a builder that lowers
// and compiles them in parallel worker processes, and a runner that runs each,
// alone, in a worker process of its own -- checked against a reference run of
// the unscheduled function, then timed.
//
//   absl::StatusOr<std::unique_ptr<LocalMeasurer>> m = LocalMeasurer::Create(task, options);
//   std::vector<MeasureResult> r = (*m)->Measure({trace_a, trace_b});
//   r[0].status == RunStatus::kOk, r[0].seconds = {1.2e-3, 1.1e-3, 1.1e-3}
//   r[1].status == RunStatus::kTimeout, r[1].error = "run: timed out after 30 s"
//
// Create makes the reference once per task (worker.h: the interpreter, or the
// unscheduled function compiled when the interpreter would take too long) and
// fails when that fails: without it nothing can be checked. Every failure of a
// candidate -- a trace that does not replay, a compiler error, a crash (a
// signal), a hang past the timeout, a wrong result -- is its result, with the
// reason; Measure itself never fails.
#ifndef TESSEL_METASCHEDULE_MEASURE_LOCAL_MEASURE_H_
#define TESSEL_METASCHEDULE_MEASURE_LOCAL_MEASURE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/trace.h"
#include "metaschedule/database/record.h"
#include "metaschedule/measure/worker_request.h"
#include "metaschedule/search/candidate.h"
#include "metaschedule/tasks.h"

namespace tessel::metaschedule {

struct MeasureOptions {
  std::string work_dir;       // Libraries, requests, logs ("" -> a new temporary directory).
  int build_parallelism = 0;  // Builder processes at once (0 -> the cores).
  double build_timeout_s = 120;
  double run_timeout_s = 60;
  double reference_timeout_s = 600;
  // The time evaluator's (runtime/time_evaluator.h): `repeat` figures, each the mean
  // of `number` calls, number grown until a figure lasts min_repeat_ms.
  int64_t number = 1, repeat = 3;
  double min_repeat_ms = 20;
  bool flush_cache = false;
  uint64_t seed = 42;       // Of the random inputs, the reference's and every candidate's.
  std::string worker;       // The worker executable ("" -> TuneWorkerPath()).
  bool keep_files = false;  // Keep the work directory (else removed with the measurer).
  // Tests only: candidate index in a Measure call -> "build:crash", "build:hang",
  // "run:crash", "run:hang" or "run:wrong".
  std::map<size_t, std::string> faults;
};

class LocalMeasurer {
 public:
  static absl::StatusOr<std::unique_ptr<LocalMeasurer>> Create(const TuningTask& task,
                                                               MeasureOptions options);
  ~LocalMeasurer();
  LocalMeasurer(const LocalMeasurer&) = delete;
  LocalMeasurer& operator=(const LocalMeasurer&) = delete;

  // One result per trace, in order.
  std::vector<MeasureResult> Measure(const std::vector<ir::schedule::Trace>& traces);

  const std::string& work_dir() const { return work_dir_; }
  // How the reference was computed: "interpreter" or "unscheduled code".
  const std::string& reference_by() const { return reference_by_; }

 private:
  LocalMeasurer() = default;
  // A request of `kind` for this task's workload and inputs.
  WorkerRequest Request(const std::string& kind) const;
  TuningTask task_;
  MeasureOptions options_;
  std::string workload_;  // The task's function as module text.
  std::string work_dir_, reference_, reference_by_;
  bool own_dir_ = false;
  int64_t batch_ = 0;  // Measure calls so far: names each batch's files.
};

// The worker executable: $TESSEL_TUNE_WORKER, else tessel-tune-worker in the bin/
// beside the lib/ of the running libtessel_runtime, else beside this program.
absl::StatusOr<std::string> TuneWorkerPath();

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_MEASURE_LOCAL_MEASURE_H_
