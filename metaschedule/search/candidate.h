// What search strategies hand to measurement and get back: a candidate is a
// trace (a point of the design space), its result how it fared.
//
//   MeasureFn measure = [&](const std::vector<Trace>& t) { return measurer->Measure(t); };
//   std::vector<MeasureResult> r = measure({a, b});   // r[0].MeanSeconds()
#ifndef TESSEL_METASCHEDULE_SEARCH_CANDIDATE_H_
#define TESSEL_METASCHEDULE_SEARCH_CANDIDATE_H_

#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ir/schedule/trace.h"
#include "metaschedule/database/record.h"

namespace tessel::metaschedule {

struct MeasureResult {
  RunStatus status = RunStatus::kOk;
  std::vector<double> seconds;  // kOk: every figure.
  std::string error;            // Otherwise: why, starting with "build: " or "run: ".
  double build_s = 0, run_s = 0;

  static MeasureResult Failed(RunStatus status, std::string error) {
    MeasureResult r;
    r.status = status;
    r.error = std::move(error);
    return r;
  }

  // The mean of `seconds`; infinity for a failed candidate.
  double MeanSeconds() const {
    if (status != RunStatus::kOk || seconds.empty()) return std::numeric_limits<double>::infinity();
    return std::accumulate(seconds.begin(), seconds.end(), 0.0) / seconds.size();
  }
};

// Measures candidates: one result per trace, in order; never fails as a whole.
using MeasureFn =
    std::function<std::vector<MeasureResult>(const std::vector<ir::schedule::Trace>&)>;

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_CANDIDATE_H_
