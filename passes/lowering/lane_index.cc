// Buffer indices lane by lane (see lane_index.h).
#include "passes/lowering/lane_index.h"

#include "ir/arith/expr_util.h"

namespace tessel::passes::lowering {

std::optional<LaneIndex> AsLaneIndex(const ir::Expr& index) {
  if (index->dtype.is_scalar()) return LaneIndex{index, ir::IntImm(index->dtype, 0), 1};
  if (const auto* r = ir::dyn_cast<ir::RampNode>(index)) return LaneIndex{r->base, r->stride, r->lanes};
  if (const auto* b = ir::dyn_cast<ir::BroadcastNode>(index); b && b->value->dtype.is_int()) {
    return LaneIndex{b->value, ir::IntImm(b->value->dtype, 0), b->lanes};
  }
  return std::nullopt;
}

absl::StatusOr<ir::Expr> MakeLaneIndex(const ir::Expr& base, const ir::Expr& stride, int lanes) {
  if (lanes == 1) return base;
  if (ir::arith::IsConstInt(stride, 0)) return ir::MakeBroadcast(base, lanes);
  return ir::MakeRamp(base, stride, lanes);
}

}  // namespace tessel::passes::lowering
