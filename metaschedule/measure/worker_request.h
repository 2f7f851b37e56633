// What the tuner asks of a worker process, and what the worker answers: one
// JSON object each, written to files (tessel-tune-worker REQUEST RESULT).
//
//   {"kind": "build", "workload": "func @mm(...) {...}", "function": "mm",
//    "trace": "{\"format\": \"tessel-trace\", ...}", "target": "llvm",
//    "library": "/tmp/tessel-tune-x/c3.so"}
//   -> {"status": "ok", "elapsed_ms": 412.5}
//   {"kind": "run", ..., "library": ".../c3.so", "reference": ".../ref.bin",
//    "number": 1, "repeat": 3, "min_repeat_ms": 20}
//   -> {"status": "ok", "seconds": [1.2e-3, 1.1e-3, 1.1e-3], "max_error": 2.4e-7}
//   -> {"status": "wrong_result", "error": "C[3, 7]: expected 4.5, got 0.0"}
//   {"kind": "reference", ..., "reference": ".../ref.bin", "seed": 42}
//   -> {"status": "ok", "checked_by": "interpreter"}
//
// `fault` makes a worker fail on purpose ("crash", "hang", "wrong"): how the
// tests show that a crashing, hanging or wrong candidate never takes the tuner
// down. Nothing else sets it.
#ifndef TESSEL_METASCHEDULE_MEASURE_WORKER_REQUEST_H_
#define TESSEL_METASCHEDULE_MEASURE_WORKER_REQUEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessel::metaschedule {

struct WorkerRequest {
  std::string kind;       // "build", "run" or "reference".
  std::string workload;   // The module's .tsl text.
  std::string function;   // The function of `workload` tuned.
  std::string trace;      // build: the candidate's trace (JSON).
  std::string target;     // build, reference: the target string.
  std::string library;    // build: written; run: loaded.
  std::string reference;  // reference: written; run: compared with.
  uint64_t seed = 42;     // reference: the inputs' seed.
  // reference: interpreter statements allowed before compiled unscheduled code
  // computes the reference instead.
  int64_t interp_budget = 20'000'000;
  // run: the time evaluator's options (codegen/runtime/time_evaluator.h).
  int64_t number = 1, repeat = 3;
  double min_repeat_ms = 20;
  bool flush_cache = false;
  std::string fault;  // "", "crash", "hang" or "wrong" (tests only).

  std::string ToJson() const;
  static absl::StatusOr<WorkerRequest> FromJson(const std::string& text);
};

struct WorkerResult {
  std::string status = "ok";  // A RunStatus name: ok, build_error, run_error, wrong_result.
  std::string error;
  std::vector<double> seconds;  // run: every measurement.
  double max_error = 0;         // run: the largest difference from the reference.
  double elapsed_ms = 0;        // Wall time of the work.
  std::string checked_by;       // reference: "interpreter" or "unscheduled code".

  std::string ToJson() const;
  static absl::StatusOr<WorkerResult> FromJson(const std::string& text);
};

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_MEASURE_WORKER_REQUEST_H_
