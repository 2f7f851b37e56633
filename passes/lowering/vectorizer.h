// The body rewrite of vectorize-loop: one iteration of a loop over `x` in
// [min, min + lanes) rewritten as one vector iteration doing all lanes at once.
//
//   x -> ramp(min, 1, lanes)
//   C[i * 16 + x] = A[i * 16 + x] + B[x]  ->  C[ramp(i * 16 + min, 1, 16)] = A[ramp(...)] + B[ramp(min, 1, 16)]
//   C[x] = C[x] + A[k]                     ->  C[ramp(min, 1, 16)] = C[ramp(...)] + broadcast(A[k], 16)
//
// Index arithmetic keeps Ramp form (ramp + s, ramp * s, ramp + ramp); a value
// that does not depend on the lane stays scalar and is broadcast where it meets
// a vector. What cannot be written as Ramp/Broadcast vector code is refused with
// the reason (the caller keeps the loop serial): a vector index that is not a
// ramp (a gather), a store whose every lane writes one element (a reduction over
// the loop), a condition or loop bound that depends on the lane, an extern call,
// an allocation, a block, or code that is already vector code.
#ifndef TESSEL_PASSES_LOWERING_VECTORIZER_H_
#define TESSEL_PASSES_LOWERING_VECTORIZER_H_

#include "absl/status/statusor.h"
#include "ir/stmt.h"

namespace tessel::passes::lowering {

// `body` (of a loop over `x` from `min`) as vector code of `lanes` lanes, or an
// error whose message says why it cannot be.
absl::StatusOr<ir::Stmt> VectorizeBody(const ir::Stmt& body, const ir::Var& x, const ir::Expr& min,
                                       int lanes);
// The same for one expression: a scalar when it does not depend on the lane.
absl::StatusOr<ir::Expr> VectorizeExpr(const ir::Expr& e, const ir::Var& x, const ir::Expr& min,
                                       int lanes);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_VECTORIZER_H_
