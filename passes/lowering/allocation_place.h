// Where remove-blocks puts a block's alloc_buffer: around the body of the
// innermost loop that holds every access of the buffer (the loops' lowest
// common ancestor), not at the top of the block. After compute_at, a producer's
// buffer is used inside one tile only; allocated there, compact-buffer-allocation
// can shrink it to the tile, and a parallel loop gets one copy per iteration.
//
//   block root() {                              for i_0 in parallel(0, 3) {
//     alloc_buffer B: f32[17]                     allocate B: f32[17] {      (compacted to f32[8]
//     later) for i_0 in parallel(0, 3) {         ->        for ax0 in range(0, 8) { B[...] = ... }
//       for ax0 ... { block B ... }                 for i_1 in range(0, 8) { C[...] = B[...] }
//       for i_1 ... { block C ... }             } }
//   } }
//
// Block semantics make this sound: each block instance writes the region it
// declares before its consumers in the same iteration read it, so no value of
// the buffer crosses an iteration of that loop -- except the loops a reduction
// block that writes the buffer binds its reduce iter vars to, whose iterations
// carry the partial result: `carried` holds those bindings, and the buffer is
// placed outside every loop they use. It is never placed inside a vectorized loop
// (vector code holds no allocations).
#ifndef TESSEL_PASSES_LOWERING_ALLOCATION_PLACE_H_
#define TESSEL_PASSES_LOWERING_ALLOCATION_PLACE_H_

#include <vector>

#include "ir/stmt.h"

namespace tessel::passes::lowering {

// `body` with `allocate buffer { ... }` around the innermost loop body holding
// every access of `buffer` in `body` and outside the loops `carried` uses
// (around `body` itself when no loop qualifies).
ir::Stmt PlaceAllocation(const ir::Stmt& body, const ir::Buffer& buffer,
                         const std::vector<ir::Expr>& carried = {});

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_ALLOCATION_PLACE_H_
