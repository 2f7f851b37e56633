// Registers the runtime shims (dispatch/runtime/dispatch_runtime.h) with the
// reference interpreter (ir/packed_functions.h): a dispatched function then runs
// in the interpreter on the very library code compiled code calls, which is how
// `check-semantics` and the tests compare it with the function it replaced.
#include "codegen/runtime/tessel_runtime.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "ir/packed_functions.h"

namespace tessel::dispatch {
namespace {

using ShimFn = int32_t (*)(const int64_t*, int32_t);

void Register(const char* name, ShimFn fn) {
  ir::RegisterPackedFunction(name, [fn](const int64_t* args, int32_t n) {
    if (fn(args, n) == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(tessel_last_error());
  });
}

const bool kRegistered = [] {
  Register("tessel_blas_gemm", tessel_blas_gemm);
  Register("tessel_blas_gemv", tessel_blas_gemv);
  Register("tessel_onednn_matmul", tessel_onednn_matmul);
  Register("tessel_onednn_conv2d", tessel_onednn_conv2d);
  return true;
}();

}  // namespace
}  // namespace tessel::dispatch
