// Registers the runtime shims (dispatch/runtime/dispatch_runtime.h) with the
// reference interpreter (ir/packed_functions.h): a dispatched function then runs
// in the interpreter on the very library code compiled code calls, which is how
// `check-semantics` and the tests compare it with the function it replaced.
#include "codegen/runtime/tessel_runtime.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "ir/packed_functions.h"
#include "ir/scalar_value.h"

namespace tessel::dispatch {
namespace {

// An f16 gemm in the layout of tessel_blas_gemm, as cuBLAS computes it with f32
// accumulation: each product and sum in f32, the result rounded to f16 once.
absl::Status HalfGemm(const int64_t* a) {
  const int64_t batch = a[1], m = a[2], n = a[3], k = a[4];
  if (batch < 1 || m < 1 || n < 1 || k < 1) {
    return absl::InvalidArgumentError("tessel_cublas_gemm: batch, M, N, K must be positive");
  }
  if (a[5] == 0 || a[9] == 0 || a[13] == 0) {
    return absl::InvalidArgumentError("tessel_cublas_gemm: a null buffer");
  }
  auto at = [](int64_t address) { return reinterpret_cast<uint16_t*>(address); };
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const float x =
              static_cast<float>(ir::DecodeF16(at(a[5])[b * a[6] + i * a[7] + p * a[8]]));
          const float y =
              static_cast<float>(ir::DecodeF16(at(a[9])[b * a[10] + p * a[11] + j * a[12]]));
          sum += x * y;
        }
        at(a[13])[b * a[14] + i * a[15] + j] = ir::EncodeF16(sum);
      }
    }
  }
  return absl::OkStatus();
}

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
  // layout: the interpreter, on the host, runs an f32 call through that shim and an
  // f16 one through HalfGemm (the device runs cuBLAS: codegen/runtime/cuda_libraries.h).
  ir::RegisterPackedFunction(
      "tessel_cublas_gemm",
      [](const int64_t* args, int32_t n) {
        if (n == 16 && args[0] == 16) return HalfGemm(args);
        if (n > 0 && args[0] != 32) {
          return absl::InvalidArgumentError("tessel_cublas_gemm: dtype bits 32 or 16");
        }
        if (tessel_blas_gemm(args, n) == 0) return absl::OkStatus();
        return absl::InvalidArgumentError(tessel_last_error());
      },
      std::vector<int32_t>{13});
  return true;
}();

}  // namespace
}  // namespace tessel::dispatch
