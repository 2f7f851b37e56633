// One tuning measurement as the database keeps it: which workload, for which
// target, the trace that schedules it (JSON, replayable without the original
// model), every time measured, how the candidate fared, and when and by which
// tessel it was made. Records convert to and from one JSON object each (the JSON
// lines of `tessel-db export`), through nlohmann::json.
//
//   TuningRecord r{.target = "llvm -mcpu=znver4", .trace_json = trace.ToJson().value(),
//                  .seconds = {1.2e-3, 1.1e-3, 1.15e-3}};
//   r.MeanSeconds() -> 1.15e-3
//   r.status = RunStatus::kWrongResult; r.error = "C[3, 7]: 4.0 != 5.0"   (a failed candidate)
#ifndef TESSEL_METASCHEDULE_DATABASE_RECORD_H_
#define TESSEL_METASCHEDULE_DATABASE_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessel::metaschedule {

// The version of tessel that writes records (kept with each one).
inline constexpr const char* kTesselVersion = "0.4.0";

enum class RunStatus {
  kOk,           // Built, ran, and matched the reference: `seconds` holds its times.
  kBuildError,   // Lowering, compiling or verifying failed (or crashed).
  kRunError,     // The run failed or crashed.
  kTimeout,      // Building or running took longer than allowed.
  kWrongResult,  // It ran but its output differs from the unscheduled function's.
};
const char* RunStatusName(RunStatus status);  // "ok", "build_error", ...
absl::StatusOr<RunStatus> ParseRunStatus(const std::string& name);

struct TuningRecord {
  int64_t id = 0;             // Set by the database.
  std::string workload_hash;  // The workload's structural hash, 16 hex digits.
  std::string target;
  std::string trace_json;       // ir::schedule::Trace::ToJson().
  std::vector<double> seconds;  // Every measurement; empty unless status is kOk.
  RunStatus status = RunStatus::kOk;
  std::string error;  // Why it failed.
  std::string tessel_version = kTesselVersion;
  std::string created_at;  // UTC, RFC 3339; set on commit when empty.

  // The mean of `seconds` (infinity when there is none).
  double MeanSeconds() const;
};

// A trace's JSON in the one form the database stores (compact, keys sorted), so
// the same trace compares equal however it was written; text that is not JSON is
// returned as it is.
std::string CanonicalTrace(const std::string& trace_json);

// The current time in the format of `created_at`.
std::string NowRfc3339();

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DATABASE_RECORD_H_
