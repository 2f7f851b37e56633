// Region inference inside: the exactness test of one relaxed dimension
// (region.cc), shared with the collecting walks (region_collect.cc).
//
//   A[i * 16 + j] with i, j relaxed: digits 1 (extent 16) and 16 (extent 4)
//   tile the range: exact; `used` records i and j so that another dimension
//   using them makes the region a non-box (not exact).
#ifndef TESSEL_IR_ARITH_REGION_INTERNAL_H_
#define TESSEL_IR_ARITH_REGION_INTERNAL_H_

#include <vector>

#include "ir/arith/int_set.h"

namespace tessel::ir::arith::internal {

// True when the union over `dom` of [range.min, range.min + range.extent) is
// exactly an interval and uses relaxed variables no other dimension used.
bool DimIsExact(const Range& range, const IntSetMap& dom, Analyzer* ana,
                std::vector<const VarNode*>* used);

}  // namespace tessel::ir::arith::internal

#endif  // TESSEL_IR_ARITH_REGION_INTERNAL_H_
