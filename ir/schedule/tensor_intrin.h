// Tensor intrinsics: named pairs of a description (what a small computation
// is, as a loop nest around one block) and an implementation (how to do it:
// vector code, a call), which `tensorize` matches and substitutes.
//
//   // C++: from .tsl text (or any PrimFuncs), once, e.g. at start-up.
//   absl::Status s = RegisterTensorIntrin("my_dot4", desc_func, impl_func);
//   absl::Status t = RegisterTensorIntrinText("my_dot4", R"(
//     func @desc(A: f32[4], B: f32[4], C: f32[1]) { for k in range(0, 4) { block update(...) ... } }
//     func @impl(A: f32[4], B: f32[4], C: f32[1]) { C[0] = C[0] + ... }
//   )");
//   # Python: tessel.schedule.register_tensor_intrin("my_dot4", desc_text, impl_text)
//
// The description's body is a chain of loops ending in one block without init,
// predicate or allocations; its buffer parameters are the tiles the intrinsic
// works on (constant shapes, starting at 0). The implementation takes the same
// buffer parameters in the same order (dtypes and shapes equal) and holds no
// blocks (it is inlined into the tensorized block, where block names must
// stay unique); its loops are copied fresh at every use.
//
// Built in (ir/schedule/intrin/cpu_fma.h): `f32_fma_4x16`, a 16-lane f32
// outer-product update C[4, 16] += A[4, 1] * B[1, 16] by broadcast/ramp loads
// and fma, and `f32_fma_1x16`.
#ifndef TESSEL_IR_SCHEDULE_TENSOR_INTRIN_H_
#define TESSEL_IR_SCHEDULE_TENSOR_INTRIN_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::ir::schedule {

struct TensorIntrin {
  std::string name;
  PrimFunc desc;
  PrimFunc impl;
};

// Checks the pair (see above) and registers it. A name that is taken fails
// unless `replace` is set.
absl::Status RegisterTensorIntrin(const std::string& name, PrimFunc desc, PrimFunc impl,
                                  bool replace = false);
// Parses a module of two functions, the description first.
absl::Status RegisterTensorIntrinText(const std::string& name, const std::string& text,
                                      bool replace = false);
// NotFound lists the registered names.
absl::StatusOr<TensorIntrin> GetTensorIntrin(const std::string& name);
// Sorted.
std::vector<std::string> TensorIntrinNames();

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_TENSOR_INTRIN_H_
