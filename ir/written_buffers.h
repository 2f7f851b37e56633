// The buffers a PrimFunc may store into, each followed back to the buffer it views
// (`decl_buffer C_1d: f32[16] = C` after flattening stores into C): a store, a
// block declaring a write region, or a buffer whose address a packed call takes
// (`@tessel_onednn_matmul(..., address_of(C_1d[0]), ...): packed`) at a position the
// callee registered as written (ir/packed_functions.h), or at any position when it
// registered none. What cannot be proved read-only counts as written.
//
//   func @add(A: f32[n], B: f32[n], C: f32[n]) { ... C[i] = A[i] + B[i] ... }
//   WrittenBuffers(add) -> {C}
//
// Codegen records it in a function's signature (an `input` is never written), and
// the verifier refuses a call_tir whose callee writes an argument: graph calls are pure.
#ifndef TESSEL_IR_WRITTEN_BUFFERS_H_
#define TESSEL_IR_WRITTEN_BUFFERS_H_

#include <set>

#include "ir/function.h"

namespace tessel::ir {

std::set<const BufferNode*> WrittenBuffers(const PrimFunc& func);

}  // namespace tessel::ir

#endif  // TESSEL_IR_WRITTEN_BUFFERS_H_
