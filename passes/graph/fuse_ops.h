// fuse-ops: decides which call_tir bindings of each graph function run as one
// kernel, by the op patterns of their PrimFuncs (op_pattern.h), and records the
// groups as the graph function's attr `fusion_groups` (binding indices) for
// `fuse-tir`, which builds the fused PrimFuncs.
//
//   h = call_tir @matmul(x, w)      output-fusable   ┐
//   hb = call_tir @add(h, b)        broadcast        ├ group [0, 1, 2]: an epilogue
//   y = call_tir @relu(hb)          elementwise      ┘
//   t = call_tir @transpose(y)      injective        ┐ group [3, 4]: an injective
//   s = call_tir @softmax(t)        reduction        ┘ producer into a reduction
//   r = call_tir @matmul_1(s, y)    output-fusable     alone: another anchor
//
// A binding joins the group that defines one of its arguments while that group
// still has readers of the value to come, so a value may be read twice inside a
// group (GELU's x * erf(x)), and:
// - elementwise and broadcast join any group but an opaque one (an epilogue of a
//   matmul, a conv or a reduction, or a longer chain);
// - injective joins a group of injective or weaker ops;
// - a reduction joins a group of injective or weaker ops (it becomes the anchor);
// - an output-fusable op (matmul, conv) joins a group whose strongest op is
//   injective (a reshape or transpose feeding it: a prologue), and otherwise
//   starts a group of its own, as does an opaque one;
// - a group holds at most `max-depth` bindings;
// - in the end a group's values are read outside it only through its last
//   binding's value (one kernel, one output): a group that lets another value
//   out is cut back to its longest prefix that does not.
// The log names the groups: "fuse-ops: main: 2 groups (3, 2 bindings)".
#ifndef TESSEL_PASSES_GRAPH_FUSE_OPS_H_
#define TESSEL_PASSES_GRAPH_FUSE_OPS_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"

namespace tessel::passes {

// How often each value of `g` is used: as an argument of a binding or a result.
absl::flat_hash_map<const ir::BufferNode*, int> ValueUses(const ir::GraphFunc& g);

// The groups of `g` with two or more bindings, each ascending.
std::vector<std::vector<int>> FusionGroups(const ir::IRModule& mod, const ir::GraphFunc& g,
                                           int max_depth);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_FUSE_OPS_H_
