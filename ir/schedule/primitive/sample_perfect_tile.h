// sample_perfect_tile: n factors of a loop's constant extent, drawn (or given
// as the decision), the innermost at most max_innermost_factor.
//
//   for k in range(0, 64)         v1, v2 = sch.sample_perfect_tile(loop=l0, n=2,
//                                                   max_innermost_factor=16)
//                                 -> e.g. 8, 8; traced with decision=[8, 8]
//   l3, l4 = sch.split(loop=l0, factors=[v1, v2])
//
// A sampling instruction: it changes no IR, and a tuner mutates its decision.
// A given decision must multiply to the extent, have n factors and keep the
// innermost within the bound (sampling.h's CheckPerfectTile).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_PERFECT_TILE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_PERFECT_TILE_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"

namespace tessel::ir::schedule::primitive {

struct SamplePerfectTile {
  using Self = SamplePerfectTile;
  LoopRV loop;
  int64_t n = 2;
  int64_t max_innermost_factor = 16;  // <= 0: no limit.
  std::optional<std::vector<int64_t>> decision;

  static constexpr PrimitiveInfo kInfo{
      .name = "sample_perfect_tile",
      .pure = true,
      .sampling = true,
      .doc =
          "`n` factors of the loop's constant extent (innermost at most max_innermost_factor; "
          "<= 0: no limit), sampled, or `decision` when given."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(loop), TESSEL_ARG(n), TESSEL_OPTIONAL_ARG(max_innermost_factor),
                 TESSEL_OPTIONAL_ARG(decision)};
  static absl::StatusOr<std::vector<int64_t>> Apply(
      PrimitiveContext& ctx, const Var& loop, int64_t n, int64_t max_innermost_factor,
      const std::optional<std::vector<int64_t>>& decision);
};

}  // namespace tessel::ir::schedule::primitive

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_PERFECT_TILE_H_
