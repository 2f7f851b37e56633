// fold-constants: a binding whose arguments are all constants of the module is
// computed once, now, on the reference interpreter, and becomes a constant — so
// what a model does to its weights alone (a transpose, a reshape, a scale, a
// layout packing split out of a kernel) is not paid on every call.
//
//   graph @main(x: f32[8, 16]) {                   graph @main(x: f32[8, 16]) {
//     w: f32[4, 16] = const @w                       wt: f32[16, 4] = const @wt
//     wt: f32[16, 4] = transpose(w) {...}    ->      y: f32[8, 4] = matmul(x, wt)
//     y: f32[8, 4] = matmul(x, wt)                   return y
//     return y                                     }
//   }                                              const @wt: f32[16, 4] = "..."
//
// Operators run through their legalized PrimFunc, call_tir through the module's.
// A constant is named after its value (numbered when the module has the name);
// constants nothing reads any more leave the module, and so do the kernels only
// folded bindings called (dropped_kernels.h). Options: `max-bytes`, the
// largest result folded (a bigger one stays a call, so a model's size is bounded
// by what it was given). Binding indices and values change, so `fusion_groups`
// and `storage` are dropped: run it after `legalize`, before `fuse-ops`.
// The log names what it folded: "fold-constants: main: 1 binding folded (wt)".
#ifndef TESSEL_PASSES_GRAPH_FOLD_CONSTANTS_H_
#define TESSEL_PASSES_GRAPH_FOLD_CONSTANTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

// Graph function `name` of `mod` with its foldable bindings folded; `folded` gets
// the names of the values that became constants.
absl::StatusOr<ir::IRModule> FoldConstants(const ir::IRModule& mod, const std::string& name,
                                           int64_t max_bytes, std::vector<std::string>* folded);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_FOLD_CONSTANTS_H_
