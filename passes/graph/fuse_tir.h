// fuse-tir: each group that `fuse-ops` recorded (attr `fusion_groups`) becomes
// one PrimFunc, and its bindings one call_tir of it, where the group's last
// binding was:
//
//   h: f32[8, 4] = call_tir @matmul(x, w)
//   hb: f32[8, 4] = call_tir @add(h, b)
//   y: f32[8, 4] = call_tir @relu(hb)
//     ->
//   y: f32[8, 4] = call_tir @fused_matmul_add_relu(x, w, b)
//
//   func @fused_matmul_add_relu(x: f32[8, 16], w: f32[16, 4], b: f32[4], y: f32[8, 4]) {
//     block root() {
//       alloc_buffer h: f32[8, 4]          the group's inner values: block-local, so that
//       alloc_buffer hb: f32[8, 4]         default-schedule can inline them or compute
//       <matmul's blocks, then add's, then relu's>       them at the tile
//     }
//   }
//
// Parameters: the group's inputs (in order of first use), then its output. Each
// member's body is a fresh copy (a PrimFunc called twice in a group gives two
// sets of loops); blocks keep their names, with `_1`... where two would clash.
// Fused PrimFuncs that are structurally equal are shared; PrimFuncs no graph
// function calls any more are removed if a graph function called them before.
// The attr goes; a group that is malformed (not a chain fuse-ops could make) is an
// error naming the function and the group.
#ifndef TESSEL_PASSES_GRAPH_FUSE_TIR_H_
#define TESSEL_PASSES_GRAPH_FUSE_TIR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

// The PrimFunc that runs `members` (call_tir bindings of `mod`, in order) as one:
// parameters `inputs` then `outputs`, every other value they define block-local.
absl::StatusOr<ir::PrimFunc> FuseBindings(const ir::IRModule& mod,
                                          const std::vector<const ir::GraphBinding*>& members,
                                          const std::vector<ir::Buffer>& inputs,
                                          const std::vector<ir::Buffer>& outputs);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_FUSE_TIR_H_
