// The time evaluator (see time_evaluator.h).
#include "codegen/runtime/time_evaluator.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/thread_pool.h"

namespace tessel::runtime {
namespace {

// Calls grow no further: a kernel fast enough to need more is timed well by fewer.
constexpr int64_t kMaxNumber = int64_t{1} << 40;

void FlushCaches() {
  static const int64_t bytes = CacheFlushBytes();
  static std::unique_ptr<volatile char[]> buffer(new volatile char[static_cast<size_t>(bytes)]);
  // Writing every line evicts what the kernel left in every cache level; the byte
  // changes each time so the stores cannot be elided.
  static char value = 0;
  ++value;
  for (int64_t i = 0; i < bytes; i += 64) buffer[i] = value;
}

}  // namespace

int64_t CacheFlushBytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return std::max<int64_t>(2 * static_cast<int64_t>(std::max(llc, 0L)), int64_t{32} << 20);
}

absl::StatusOr<TimeResult> TimeFunction(const Module::Function& function,
                                        absl::Span<DLTensor* const> args,
                                        const TimeOptions& options) {
  const std::string& name = function.signature.name;
  if (options.number < 1 || options.repeat < 1 || options.warmup < 0 ||
      !(options.min_repeat_ms >= 0) || !std::isfinite(options.min_repeat_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time evaluator for ", name, ": number (", options.number, ") and repeat (",
                     options.repeat, ") must be at least 1, warmup (", options.warmup,
                     ") and min_repeat_ms (", options.min_repeat_ms, ") non-negative"));
  }
  if (!function.cannot_run.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(name, ": ", function.cannot_run));
  }
  PackedArgs packed;
  std::string error =
      PackArguments(function.signature, args.data(), static_cast<int32_t>(args.size()), &packed);
  if (!error.empty()) return absl::InvalidArgumentError(error);

  ThreadPool::CallThreads threads(function.num_threads);
  TimeResult result;
  auto call = [&]() -> absl::Status {
    ++result.total_calls;
    if (function.packed(packed.values.data(), packed.size()) == 0) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(name, ": ", tessel_last_error()));
  };
  for (int64_t i = 0; i < options.warmup; ++i) {
    if (absl::Status s = call(); !s.ok()) return s;
  }
  using Clock = std::chrono::steady_clock;
  int64_t number = options.number;
  for (int64_t r = 0; r < options.repeat; ++r) {
    double seconds;
    for (;;) {
      if (options.interrupted && options.interrupted()) {
        return absl::CancelledError(absl::StrCat("time evaluator for ", name, ": interrupted"));
      }
      if (options.flush_cache) FlushCaches();
      Clock::time_point start = Clock::now();
      for (int64_t i = 0; i < number; ++i) {
        if (absl::Status s = call(); !s.ok()) return s;
      }
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
      // Only the first measurement calibrates: every figure then averages as many calls.
      if (r > 0 || seconds * 1e3 >= options.min_repeat_ms || number >= kMaxNumber) break;
      // Aim at min_repeat_ms from the rate just seen, growing by at least 1.6x so that
      // a timer too coarse to see one call still gets there.
      double per_call = seconds / static_cast<double>(number);
      double target = per_call > 0 ? options.min_repeat_ms * 1e-3 / per_call : 0;
      double grown = std::max({target * 1.1, number * 1.618, number + 1.0});
      number = static_cast<int64_t>(std::min(grown, static_cast<double>(kMaxNumber)));
    }
    result.seconds_per_call.push_back(seconds / static_cast<double>(number));
  }
  result.number = number;
  return result;
}

absl::StatusOr<TimeResult> TimeFunction(const Module& module, std::string_view name,
                                        absl::Span<const NDArray> args,
                                        const TimeOptions& options) {
  absl::StatusOr<const Module::Function*> f = module.GetFunction(name);
  if (!f.ok()) return f.status();
  std::vector<DLTensor*> tensors;
  for (const NDArray& a : args) tensors.push_back(a.dltensor());
  return TimeFunction(**f, absl::MakeConstSpan(tensors), options);
}

}  // namespace tessel::runtime
