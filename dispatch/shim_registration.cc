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
  return true;
}();

}  // namespace
}  // namespace tessel::dispatch
