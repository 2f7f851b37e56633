// hoist-constant-packing: a kernel that repacks a constant weight whole at the
// start of every call -- the CPU rules lay a conv2d kernel out channels last --
// gets the packed buffer as a parameter instead, the packing becomes a kernel of
// its own before the call, and fold-constants computes it once, at compile time.
// The weight nothing else reads leaves the module.
//
//   graph @conv(img) {                              graph @conv(img) {
//     k: f32[16, 8, 3, 3] = const @k                  k_global: f32[8, 3, 3, 16] = const @k_global
//     c = call_tir @conv2d(img, k)           ->       c = call_tir @conv2d_prepacked(img, k_global)
//   }                                               }
//   func @conv2d(img, k, conv2d) {                  func @conv2d_prepacked(img, k_global, conv2d) {
//     alloc_buffer k_global: f32[8, 3, 3, 16]         ... reads k_global ...
//     for ax0, ..: block k_global(v0, v1, v2, v3)   }
//       k_global[v1, v2, v3, v0] = k[v0, v1, v2, v3]
//     ... reads k_global ...
//
// A packing block is a copy: all-spatial, no init, no predicate, constant
// domains, one store whose value is one load of a parameter the call passes a
// constant for, into a global buffer the root block allocates and nothing else
// writes. It sits at the kernel's top level (packed whole) or under tile loops
// when each tile's part is one dense run of the packed buffer: a matmul's panel
// of B, which multi-level-tiling lays out panel-major ([N / T * K, T]), so the
// kernel reads the same contiguous panels from the hoisted constant. A copy whose
// tiles are strided ([K, N] per column tile) stays: read from a whole packed
// weight, each step of k would jump a row. The packing kernel runs the block over
// its whole domain. A graph function whose packings fold-constants cannot fold
// (over max-bytes) is left as it was. Each call site gets the prepacked kernel
// (one per kernel and argument); a kernel no graph calls any more leaves the
// module (the graph passes made it).
#ifndef TESSEL_PASSES_GRAPH_HOIST_CONSTANT_PACKING_H_
#define TESSEL_PASSES_GRAPH_HOIST_CONSTANT_PACKING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

// `mod` with the packings of constants hoisted out of the kernels graph
// function `name` calls and folded; `hoisted` gets "kernel: packed buffer" for each.
absl::StatusOr<ir::IRModule> HoistConstantPacking(const ir::IRModule& mod, const std::string& name,
                                                  int64_t max_bytes,
                                                  std::vector<std::string>* hoisted);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_HOIST_CONSTANT_PACKING_H_
