// eliminate-common-calls: a binding that calls what an earlier binding called —
// the same operator or PrimFunc, on the same values, with equal attributes — is
// removed, and its values' uses read the earlier binding's. Graph calls are pure,
// so both compute the same tensors.
//
//   ln1: f32[1, 8, 16] = layer_norm(x, g, b) {axes = [-1]}
//   q2: f32[8, 16] = reshape(ln1) {shape = [8, 16]}        q2: ... = reshape(ln1) {...}
//   q: f32[8, 16] = matmul(q2, wq)                          q: ... = matmul(q2, wq)
//   k2: f32[8, 16] = reshape(ln1) {shape = [8, 16]}   ->    k: ... = matmul(q2, wk)
//   k: f32[8, 16] = matmul(k2, wk)
//
// The attributes that name bindings or values (`fusion_groups`, `storage`) no
// longer hold once a binding goes, and are dropped; run it before `fuse-ops`.
// The log counts what went: "eliminate-common-calls: main: 2 bindings removed".
#ifndef TESSEL_PASSES_GRAPH_ELIMINATE_COMMON_CALLS_H_
#define TESSEL_PASSES_GRAPH_ELIMINATE_COMMON_CALLS_H_

#include "ir/function.h"

namespace tessel::passes {

// `g` without its repeated calls, and how many bindings went.
ir::GraphFunc EliminateCommonCalls(const ir::GraphFunc& g, int* removed);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_ELIMINATE_COMMON_CALLS_H_
