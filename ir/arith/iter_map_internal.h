// Iter-map detection inside: the rewriter that turns index expressions into
// IterSums (iter_map.cc) and the coverage check (iter_map_check.cc).
//
//   rewriter: io * 16 + ii  ->  sum{split(io) * 16, split(ii)}  ->  fuse -> split(M)
//   check:    every mark's splits tile it: lower factors 1, e1, e1*e2, ... up to the extent
#ifndef TESSEL_IR_ARITH_ITER_MAP_INTERNAL_H_
#define TESSEL_IR_ARITH_ITER_MAP_INTERNAL_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/arith/iter_map.h"

namespace tessel::ir::arith::internal {

// OK when the splits that `outputs` (and the fused marks they reach) make of
// each mark fit `level`; `loop_marks` are the marks of the loop variables.
absl::Status CheckIterCoverage(const std::vector<IterSum>& outputs,
                               const std::vector<IterMark>& loop_marks, IterMapLevel level,
                               Analyzer* ana);

// Proofs the rewriter and the check share.
bool ProveEqual(Analyzer* ana, const Expr& a, const Expr& b);
// `c` divides `x`.
bool ProveDivides(Analyzer* ana, const Expr& c, const Expr& x);

}  // namespace tessel::ir::arith::internal

#endif  // TESSEL_IR_ARITH_ITER_MAP_INTERNAL_H_
