// legalize: every operator call of every graph function becomes a call_tir of a
// PrimFunc built from the op library for the call's argument types.
//
//   graph @main(x: f32[8, 16], w: f32[16, 4]) {    graph @main(x: f32[8, 16], w: f32[16, 4]) {
//     h: f32[8, 4] = matmul(x, w)             ->     h: f32[8, 4] = call_tir @matmul(x, w)
//     y: f32[8, 4] = relu(h)                         y: f32[8, 4] = call_tir @relu(h)
//     z: f32[8, 4] = relu(y)                         z: f32[8, 4] = call_tir @relu(y)
//     return z                                       return z
//   }                                              }
//                                                  func @matmul(x, w, T_matmul) {...}
//                                                  func @relu(h, T_relu) {...}
//
// Calls whose PrimFuncs are structurally equal share one (the second relu above),
// also with a PrimFunc the module already has. A new PrimFunc is named after its
// operator, with `_1`, `_2`... when the name is taken. A call the op library
// refuses fails the pass with the op's message and the binding; the module is
// then unchanged. The pass log notes how many calls it legalized and how many
// PrimFuncs it added.
#ifndef TESSEL_PASSES_GRAPH_LEGALIZE_H_
#define TESSEL_PASSES_GRAPH_LEGALIZE_H_

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

// The pass's work, for callers outside a pipeline; `added`, when given, counts
// the PrimFuncs it added.
absl::StatusOr<ir::IRModule> LegalizeGraphOps(const ir::IRModule& mod, int* legalized = nullptr,
                                              int* added = nullptr);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_LEGALIZE_H_
