// Tuning records (see record.h).
#include "metaschedule/database/record.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace tessel::metaschedule {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kBuildError:
      return "build_error";
    case RunStatus::kRunError:
      return "run_error";
    case RunStatus::kTimeout:
      return "timeout";
    case RunStatus::kWrongResult:
      return "wrong_result";
  }
  return "?";
}

absl::StatusOr<RunStatus> ParseRunStatus(const std::string& name) {
  for (RunStatus s : {RunStatus::kOk, RunStatus::kBuildError, RunStatus::kRunError,
                      RunStatus::kTimeout, RunStatus::kWrongResult}) {
    if (name == RunStatusName(s)) return s;
  }
  return absl::InvalidArgumentError("unknown run status '" + name +
                                    "' (ok, build_error, run_error, timeout, wrong_result)");
}

double TuningRecord::MeanSeconds() const {
  if (seconds.empty()) return std::numeric_limits<double>::infinity();
  return std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
}

std::string CanonicalTrace(const std::string& trace_json) {
  nlohmann::json j = nlohmann::json::parse(trace_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return trace_json;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string NowRfc3339() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace tessel::metaschedule
