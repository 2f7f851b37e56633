// The form `lower` produces and codegen consumes (DESIGN.md decision 9;
// docs/lowering.md): a check that a function is in it, for tests and as
// codegen's precondition.
//
//   absl::Status s = CheckLoweredForm(func, "mm");
//   // "lowered form: function 'mm': BufferStore to 'C' has 2 indices; lowered code
//   //  accesses only 1-D buffers (run flatten-buffer)"
//
// In lowered form:
// - no Block or BlockRealize;
// - every BufferLoad/BufferStore has exactly one index, scalar or a Ramp; a vector
//   load or store's index is a Ramp (never a gather);
// - loops are serial or parallel (thread-bound loops are left to GPU codegen):
//   no vectorized or unrolled loop is left;
// - buffers accessed are 1-D: a compact 1-D parameter, an Allocate, or a
//   DeclBuffer; an N-D (or strided or offset) parameter appears only as the
//   source of a DeclBuffer whose 1-D view the body accesses;
// - calls are intrinsics other than sigmoid (and integer fabs), or extern calls.
#ifndef TESSEL_PASSES_LOWERING_LOWERED_FORM_H_
#define TESSEL_PASSES_LOWERING_LOWERED_FORM_H_

#include <string>

#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::passes::lowering {

absl::Status CheckLoweredForm(const ir::PrimFunc& func, const std::string& name);

// True when `func` holds a block or an access with other than one index: what
// codegen refuses and only `lower` removes. Hand-written code that codegen takes
// as it is (vectorized loops, say) is not in lowered form but needs no lowering;
// tools that lower on the user's behalf (tessel-opt --emit) ask this.
bool NeedsLowering(const ir::PrimFunc& func);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_LOWERED_FORM_H_
