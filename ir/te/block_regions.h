// The read regions of a block made from a compute: one region per buffer read,
// in order of first read, as exact as the accesses allow.
//
//   reads of  A[vi, vk] * B[vk, vj]          ->  A[vi, vk], B[vk, vj]     (points)
//   reads of  A[vi] + A[vi + 2]              ->  A[vi : vi + 3]           (one span)
//   reads of  A[vi, vj] + A[vj, vi]          ->  A[0 : n, 0 : n]          (whole dims)
//
// A dimension accessed at one index is a point; at indices that differ by
// constants (same linear form) it is the span between them; otherwise the whole
// extent of the dimension, a sound over-approximation.
#ifndef TESSEL_IR_TE_BLOCK_REGIONS_H_
#define TESSEL_IR_TE_BLOCK_REGIONS_H_

#include <vector>

#include "ir/stmt.h"

namespace tessel::ir::te {

std::vector<BufferRegion> ReadRegions(const std::vector<Expr>& exprs);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_BLOCK_REGIONS_H_
