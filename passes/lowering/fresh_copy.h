// A copy of a statement in which everything the statement itself binds (loop
// and let variables, allocated and declared buffers) is a new object, so that
// the copy can sit beside the original in one function: the verifier wants each
// variable and buffer bound exactly once (ir/verifier.h).
//
//   for k in range(0, 4) { allocate t: f32[4] { t[k] = A[k] } }
//   FreshCopy(s, {{i, 2}})  ->  for k_1 in range(0, 4) { allocate t_1: f32[4] { t_1[k_1] = A[k_1] } }
//   (names are the printer's to disambiguate; what counts is that k_1 is a new Var)
//
// `replace` substitutes free variables at the same time (an unrolled loop's
// variable by its value in each copy).
#ifndef TESSEL_PASSES_LOWERING_FRESH_COPY_H_
#define TESSEL_PASSES_LOWERING_FRESH_COPY_H_

#include "absl/status/statusor.h"
#include "ir/stmt.h"
#include "ir/substitute.h"

namespace tessel::passes::lowering {

// Fails on a block inside `s` (copies of blocks would need new names too).
absl::StatusOr<ir::Stmt> FreshCopy(const ir::Stmt& s, const ir::VarMap& replace);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_FRESH_COPY_H_
