// Random arrays and kernel timing for the benchmarks (kernel_timing.h).
#include "tools/bench/kernel_timing.h"

#include "ir/status_macros.h"
#include "tools/bench/benchmark.h"

namespace tessel::bench {

absl::StatusOr<runtime::NDArray> Random(std::vector<int64_t> shape, uint32_t seed) {
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, runtime::NDArray::Zeros(shape, ir::DataType::Float(32)));
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  float* p = static_cast<float*>(a.data());
  uint32_t x = seed;
  for (int64_t k = 0; k < n; ++k) {
    x = x * 1664525u + 1013904223u;
    p[k] = static_cast<float>(x >> 8) * 0x1.0p-24f - 0.5f;
  }
  return a;
}

// Median seconds per call of a compiled function, timed call by call with the
// bench's TimeCalls exactly as the reference is (arguments checked every call:
// about a microsecond, against milliseconds of work).
absl::StatusOr<double> KernelSeconds(const runtime::Module::Function& f,
                                     absl::Span<DLTensor* const> args, int repeat) {
  absl::Status failed;
  Timing t = TimeCalls(repeat, [&] {
    if (absl::Status s = runtime::CallFunction(f, args); !s.ok()) failed = s;
  });
  if (!failed.ok()) return failed;
  return t.median_us * 1e-6;
}

}  // namespace tessel::bench
