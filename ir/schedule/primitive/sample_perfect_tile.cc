#include "ir/schedule/primitive/sample_perfect_tile.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/sampling.h"

namespace tessel::ir::schedule {

namespace {

// Sampling walks the divisors of the extent; beyond this it would be slow.
constexpr int64_t kMaxTileExtent = int64_t{1} << 40;

}  // namespace

absl::StatusOr<std::vector<int64_t>> primitive::SamplePerfectTile::Apply(
    PrimitiveContext& ctx, const Var& loop, int64_t n, int64_t max_innermost_factor,
    const std::optional<std::vector<int64_t>>& decision) {
  const ScheduleState& state = *ctx.state();
  TESSEL_ASSIGN_OR_RETURN(int sref, state.LoopSRef(loop));
  const ForNode* f = state.index().loop(sref);
  if (n < 1 || n > 64) return state.ArgError(f, absl::StrCat("n must be in [1, 64], not ", n));
  std::optional<int64_t> extent = arith::AsConstInt(f->extent);
  if (!extent || *extent < 1 || *extent > kMaxTileExtent) {
    return state.Error(f, absl::StrCat(DescribeLoop(f),
                                       " needs a constant extent in [1, 2^40] to be tiled "
                                       "perfectly"));
  }
  if (n == 1 && max_innermost_factor > 0 && *extent > max_innermost_factor) {
    return state.ArgError(f,
                          absl::StrCat("with n = 1 the only tiling is [", *extent,
                                       "], above max_innermost_factor = ", max_innermost_factor));
  }
  if (decision) {
    std::string why =
        CheckPerfectTile(*decision, *extent, static_cast<int>(n), max_innermost_factor);
    if (!why.empty()) return state.ArgError(f, why);
    return *decision;
  }
  std::vector<int64_t> tile =
      schedule::SamplePerfectTile(ctx.rng(), *extent, static_cast<int>(n), max_innermost_factor);
  ctx.Decide(TraceValue(TraceValue::List(tile.begin(), tile.end())));
  return tile;
}

TESSEL_REGISTER_PRIMITIVE(primitive::SamplePerfectTile);

}  // namespace tessel::ir::schedule
