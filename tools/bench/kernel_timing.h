// What the codegen benchmarks share: random f32 arrays and the median time of a
// compiled function, timed exactly as its reference is.
//
//   runtime::NDArray a = *Random({1024, 1024}, /*seed=*/1);   // uniform in [-0.5, 0.5)
//   double s = *KernelSeconds(*module.Find("mm"), args, 15);  // median seconds per call
#ifndef TESSEL_TOOLS_BENCH_KERNEL_TIMING_H_
#define TESSEL_TOOLS_BENCH_KERNEL_TIMING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/ndarray.h"

namespace tessel::bench {

absl::StatusOr<runtime::NDArray> Random(std::vector<int64_t> shape, uint32_t seed);

// Median seconds per call of a compiled function, timed call by call with the
// bench's TimeCalls exactly as the reference is (arguments checked every call:
// about a microsecond, against milliseconds of work).
absl::StatusOr<double> KernelSeconds(const runtime::Module::Function& f,
                                     absl::Span<DLTensor* const> args, int repeat);

}  // namespace tessel::bench

#endif  // TESSEL_TOOLS_BENCH_KERNEL_TIMING_H_
