// The legality rules of the loop primitives that depend on how a block's
// bindings use its loops, built on iter-map detection (ir/arith/iter_map.h).
//
//   loops i_j_fused in [0, 256), k in [0, 16)
//   block C(vi = i_j_fused // 16, vj = i_j_fused %% 16, vk = k)
//   CheckReorderable(index, C, {i_j_fused, k})   -> ""  (an affine bijection)
//   CheckDistinctInstances(index, C, i_j_fused)  -> ""  (each value: its own vi, vj)
//   CheckDistinctInstances(index, C, r)          -> "... does not run a distinct
//                                                   instance ..." for a loop r the
//                                                   spatial bindings ignore
//   block B(vi = i * j)                          -> "... not an affine map ...: <why>"
//
// Each returns "" when the rule holds, else the reason for the error message.
#ifndef TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_
#define TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/schedule/stmt_index.h"

namespace tessel::ir::schedule {

// For reorder of the loops in `loops`: every iter var of block sref `block`
// bound to one of them is spatial or reduce; the bindings are an affine map of
// the block's loops -- a bijection when the block reduces (an instance run
// twice would meet its init twice), a surjection otherwise; and reduce
// bindings grow with every loop (so the init instance still comes first).
std::string CheckReorderable(const StmtIndex& index, int block,
                             const absl::flat_hash_map<const VarNode*, int>& loops);

// For parallel, vectorize and bind of loop sref `loop`: no iter var of block
// sref `block` bound to it is reduce or opaque, and the spatial bindings are a
// bijection of the loops they use, which include this one (so two iterations
// never run the same block instance).
std::string CheckDistinctInstances(const StmtIndex& index, int block, int loop);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_
