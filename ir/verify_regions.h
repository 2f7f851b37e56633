// The verifier's region rule (ir/verifier.h): every load and store of a block
// lies inside the regions it declares, so that a primitive or an analysis that
// reasons from `reads`/`writes` alone (cache stages, compute_at, loop
// independence) sees every access.
//
//   block C(vi: spatial[0, 16] = i, vk: reduce[0, 8] = k) {
//     reads(A[vi, vk])  writes(C[vi])
//     C[vi] = C[vi] + A[vi, vk + 1]
//   }
//   -> "the load A[vi, vk + 1] lies outside the read region A[vi, vk] of buffer
//       'A' that the block declares (at vi = 0, vk = 7 it reads A[0, 8])"
//
// Containment is proved with the arith analyzer, the block's iter vars bound to
// their domains and the loops inside the block to their ranges. A load may lie
// in a read region, or, in a block with an init (a reduction), in a write region
// too: its update reads the accumulator it writes. A store lies in a write
// region. Buffers the block or its body allocate are its own and need none. A
// block without iter vars that declares no region at all (a root block, an
// opaque wrapper) is left alone: it states nothing to hold its accesses to.
//
// Where the analyzer cannot prove containment the access is refused only when
// the escape is proven as well: at a point the block certainly runs (no `if`
// around the access, every range on the way non-empty), for every value of
// the variables left symbolic, the access lies outside every candidate region.
// Anything the analyzer cannot decide either way is accepted: the rule refuses
// what it can show wrong, never what it merely cannot show right.
#ifndef TESSEL_IR_VERIFY_REGIONS_H_
#define TESSEL_IR_VERIFY_REGIONS_H_

#include <optional>
#include <string>

#include "ir/stmt.h"

namespace tessel::ir {

struct RegionEscape {
  const StmtNode* stmt = nullptr;  // The statement holding the access (a store: itself).
  const ExprNode* load = nullptr;  // The load, or null for a store.
  std::string problem;             // "the load A[...] lies outside ..."
};

// The first access of `block` itself (its init and body, the bindings and
// predicates of the blocks inside it, but not their bodies) that provably lies
// outside the regions `block` declares; nullopt when there is none.
std::optional<RegionEscape> FindRegionEscape(const BlockNode& block);

}  // namespace tessel::ir

#endif  // TESSEL_IR_VERIFY_REGIONS_H_
