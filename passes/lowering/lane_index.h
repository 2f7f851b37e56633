// Buffer indices lane by lane: a scalar, Ramp or Broadcast index is
// `base + lane * stride` for lane in [0, lanes), and an affine function of such
// indices (a flat offset, a shift to a new origin) is again one, applied to the
// base and to the stride separately. The lowering passes that rewrite indices use
// this to keep the vector indices that tensorize or vectorize-loop wrote in
// Ramp/Broadcast form:
//
//   C[vi * 4 + i, ramp(vj * 16, 1, 16)]   on f32[64, 64]
//   flat offset: base (vi * 4 + i) * 64 + vj * 16, stride 0 * 64 + 1
//   -> C_1d[ramp((vi * 4 + i) * 64 + vj * 16, 1, 16)]
//
// Any other vector index (a gather: ramp * ramp, a loaded index) is not of this
// form, and the callers refuse it.
#ifndef TESSEL_PASSES_LOWERING_LANE_INDEX_H_
#define TESSEL_PASSES_LOWERING_LANE_INDEX_H_

#include <optional>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace tessel::passes::lowering {

struct LaneIndex {
  ir::Expr base;    // Scalar.
  ir::Expr stride;  // Scalar of base's type; 0 for a scalar or a Broadcast.
  int lanes = 1;
};

// `index` as base + lane * stride, or nothing when it is a vector of another form.
std::optional<LaneIndex> AsLaneIndex(const ir::Expr& index);

// The index of `lanes` lanes whose lane l is base + l * stride: `base` for one
// lane, a Broadcast when the stride is the constant 0, else a Ramp.
absl::StatusOr<ir::Expr> MakeLaneIndex(const ir::Expr& base, const ir::Expr& stride, int lanes);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_LANE_INDEX_H_
