// Region inference: which part of each buffer a block or a loop nest reads and
// writes, as a function of the loops around it.
//
//   for i in range(0, 17) { for j in range(0, 31) { for k in range(0, 23) {
//     block C(vi = i, vj = j, vk = k) { reads(A[vi, vk], B[vk, vj]) writes(C[vi, vj]) ... } } } }
//
//   InferSubtreeAccess(<the j loop>)  ->  reads  A[i, 0 +: 23]        exact
//                                             B[0 +: 23, 0 +: 31]   exact
//                                         writes C[i, 0 +: 31]        exact
//   (i, outside the subtree, stays symbolic; j and k are relaxed over their ranges.)
//
//   InferBlockAccess(<a stencil block>)  for B[vi] = A[vi - 1] + A[vi] + A[vi + 1]
//                                     ->  reads A[vi - 1 +: 3] exact, writes B[vi]
//
// A region is `exact` when it is precisely the set of elements accessed, and
// otherwise covers them (e.g. A[i * 2] relaxed over i has holes; A[i, i] is a
// diagonal, not a box; an access under an `if` may not happen; A[B[i]] reads
// anything). Affine accesses with unit-or-dense strides relax exactly; a block
// predicate `fused < bound` (a non-divisible split) trims the region and keeps it
// exact. Blocks inside the subtree contribute their declared regions with their
// bindings substituted; buffers allocated inside the subtree are left out.
#ifndef TESSEL_IR_ARITH_REGION_H_
#define TESSEL_IR_ARITH_REGION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/arith/int_set.h"
#include "ir/function.h"

namespace tessel::ir::arith {

class Analyzer;

struct AccessRegion {
  BufferRegion region;
  bool exact = true;
};

struct AccessRegions {
  std::vector<AccessRegion> reads;  // One per buffer, in order of first access.
  std::vector<AccessRegion> writes;
};

// What a block's body and init access, in terms of the block's iter vars: the
// regions its reads/writes should declare. Loops inside the body are relaxed.
absl::StatusOr<AccessRegions> InferBlockAccess(const Block& block, Analyzer* ana);

// What `subtree` (a loop, a block realize, any statement) accesses, with every
// variable bound inside it relaxed and the variables outside kept symbolic
// (bind their ranges in `ana` for tighter results).
absl::StatusOr<AccessRegions> InferSubtreeAccess(const Stmt& subtree, Analyzer* ana);

// InferSubtreeAccess for the loop `loop` of `func`, with the loops and blocks
// around it bound in a scope of `ana`. Fails when `loop` is not in `func`.
absl::StatusOr<AccessRegions> InferLoopAccess(const PrimFunc& func, const ForNode* loop,
                                              Analyzer* ana);

// `region` with the variables of `dom` relaxed over their sets.
AccessRegion RelaxRegion(const BufferRegion& region, const IntSetMap& dom, Analyzer* ana);

// As .tsl writes regions: "A[i, 0 +: 23]" (exact) or "A[0 +: 64] (covers)".
std::string AccessRegionToString(const AccessRegion& r);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_REGION_H_
