// Registers the runtime shims (dispatch/runtime/dispatch_runtime.h) with the
// reference interpreter (ir/packed_functions.h): a dispatched function then runs
// in the interpreter on the very library code compiled code calls, which is how
// `check-semantics` and the tests compare it with the function it replaced.
#include "codegen/runtime/tessel_runtime.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "ir/packed_functions.h"

namespace tessel::dispatch {
namespace {

const bool kRegistered = [] {
  for (const TesselShim* s = tessel_dispatch_shims(); s->name != nullptr; ++s) {
    const TesselShimFunc fn = s->fn;
    ir::RegisterPackedFunction(
        s->name,
        [fn](const int64_t* args, int32_t n) {
          if (fn(args, n) == 0) return absl::OkStatus();
          return absl::InvalidArgumentError(tessel_last_error());
        },
        std::vector<int32_t>{s->output_slot});
  }
  // The cublas rule's call (dispatch/rules/cublas.cc) has the host BLAS gemm's
  // layout: the interpreter, on the host, runs it through that shim (the device runs
  // cuBLAS: codegen/runtime/cuda_libraries.h). f32 only, as the rule.
  ir::RegisterPackedFunction(
      "tessel_cublas_gemm",
      [](const int64_t* args, int32_t n) {
        if (n > 0 && args[0] != 32) {
          return absl::InvalidArgumentError("tessel_cublas_gemm: f32 only (dtype bits 32)");
        }
        if (tessel_blas_gemm(args, n) == 0) return absl::OkStatus();
        return absl::InvalidArgumentError(tessel_last_error());
      },
      std::vector<int32_t>{13});
  return true;
}();

}  // namespace
}  // namespace tessel::dispatch
