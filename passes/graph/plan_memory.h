// plan-memory: decides which intermediates of each graph function share storage
// and records it as the function's `storage` attribute (ir/graph_memory_plan.h),
// which the executor allocates once per storage.
//
//   graph @ffn(x: f32[128, 768], ...) {                  bytes     storage
//     h: f32[128, 3072] = call_tir @fused_matmul_add(x, w1, b1)   1572864   0
//     g: f32[128, 3072] = call_tir @gelu(h)              1572864   1  (h is still read)
//     y: f32[128, 768] = call_tir @matmul(g, w2)         393216    0  (h is dead: best fit)
//     z: f32[128, 768] = call_tir @add(y, b2)            result: the caller's
//     return z
//   }
//   -> attrs {storage = [["h", "y"], ["g"]]}
//
// Bindings are walked in order. A storage is free for binding k's outputs when
// every value in it was last read before k; of the free storages an output takes
// the smallest that is large enough (best fit), else the largest, which grows
// to it, else a new one. Sizes are bytes, so values of different dtypes share.
// A size with shape variables goes only where it provably fits (equal, or
// bounded by the storage's size for every value of the variables).
// The log reports the bytes before and after:
//   "plan-memory: ffn: 3 intermediates, 3538944 bytes -> 2 storages, 3145728 bytes"
#ifndef TESSEL_PASSES_GRAPH_PLAN_MEMORY_H_
#define TESSEL_PASSES_GRAPH_PLAN_MEMORY_H_

#include "ir/function.h"
#include "ir/graph_memory_plan.h"

namespace tessel::passes {

// The plan for `g` (see the top of this file).
ir::MemoryPlan PlanMemory(const ir::GraphFunc& g);

// The bytes of `value` as an i64 expression of the function's shape variables.
ir::Expr ValueBytes(const ir::Buffer& value);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_PLAN_MEMORY_H_
