// Timing a compiled function: `repeat` measurements, each the mean of `number`
// back-to-back calls, in seconds per call.
//
//   TimeOptions o{.number = 10, .repeat = 3, .min_repeat_ms = 50, .flush_cache = true};
//   absl::StatusOr<TimeResult> r = TimeFunction(*m.Find("matmul"), args, o);
//   // r->seconds_per_call = {3.1e-3, 3.0e-3, 3.0e-3}; r->number = 20 when 10 calls
//   // took under 50 ms.
//
// The arguments are checked once, then the kernel is called directly, so the figures
// hold the kernel and nothing of the checks. One untimed warm-up call comes first.
// With min_repeat_ms, the first measurement, while it finishes sooner, is discarded
// and redone with more calls (number grows to about what fills min_repeat_ms, at
// least by 1.6x); the other measurements then use that number, so every figure is
// the mean of as many calls. With flush_cache, a buffer
// larger than the last-level cache is written before every measurement.
#ifndef TESSEL_CODEGEN_RUNTIME_TIME_EVALUATOR_H_
#define TESSEL_CODEGEN_RUNTIME_TIME_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/runtime/module.h"

namespace tessel::runtime {

struct TimeOptions {
  int64_t number = 1;        // Calls per measurement (the starting count with min_repeat_ms).
  int64_t repeat = 1;        // Measurements.
  double min_repeat_ms = 0;  // Grow `number` until one measurement lasts this long.
  bool flush_cache = false;  // Evict the caches before each measurement.
  int64_t warmup = 1;        // Untimed calls before the first measurement.
  // Polled before each measurement (never inside one); true stops the timing with a
  // Cancelled error (Python's bindings stop on Ctrl-C this way).
  std::function<bool()> interrupted;
};

struct TimeResult {
  std::vector<double> seconds_per_call;  // One entry per repeat.
  int64_t number = 0;                    // Calls per measurement in the end.
  int64_t total_calls = 0;               // Every call made, warm-up and discarded included.
};

// Fails on bad options (number or repeat < 1, negative min_repeat_ms or warmup), on a
// bad argument (the check's message) or when a call fails (the kernel's message).
absl::StatusOr<TimeResult> TimeFunction(const Module::Function& function,
                                        absl::Span<DLTensor* const> args,
                                        const TimeOptions& options);
absl::StatusOr<TimeResult> TimeFunction(const Module& module, std::string_view name,
                                        absl::Span<const NDArray> args, const TimeOptions& options);

// Bytes the cache flush writes: twice the last-level cache (sysconf), at least 32 MiB.
int64_t CacheFlushBytes();

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_TIME_EVALUATOR_H_
