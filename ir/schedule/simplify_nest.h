// Simplifies the bindings, predicates and loop bounds of a loop nest a
// primitive just built, with the ranges of every loop around it known.
//
//   for f in range(0, 2) { for j_1 in range(0, 64) {      (fuse of i_0 and j_0 with j_0
//     block C(vj = 0 * 64 + j_1, vi = f // 1 * 32 + ...)    of extent 1, after substitution)
//   -> block C(vj = j_1, vi = f * 32 + ...)
//   predicate i_0 * 32 + i_1 < 64 with i_0 in [0, 2), i_1 in [0, 32)  -> dropped (always true)
//
// Uses the Analyzer of ir/arith/ (index arithmetic, no-overflow assumption).
// Only what the primitive rewrote is touched: block bodies never mention the
// loops around their block, so they are left as they are.
#ifndef TESSEL_IR_SCHEDULE_SIMPLIFY_NEST_H_
#define TESSEL_IR_SCHEDULE_SIMPLIFY_NEST_H_

#include "ir/schedule/stmt_index.h"
#include "ir/stmt.h"

namespace tessel::ir::schedule {

// `nest` is about to be placed where sref `parent` is its nearest enclosing
// loop or block (-1: at the top of the function).
Stmt SimplifyNest(const StmtIndex& index, int parent, const Stmt& nest);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_SIMPLIFY_NEST_H_
