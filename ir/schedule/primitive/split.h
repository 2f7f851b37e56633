// split: one loop becomes a nest of loops whose extents are the factors.
//
//   for i in range(0, 100) {                 split(i, [None, 32])
//     block B(vi: spatial[0, 100] = i) ...   ------------------->
//                                            for i_0 in range(0, 4) {
//                                              for i_1 in range(0, 32) {
//                                                block B(vi: spatial[0, 100] = i_0 * 32 + i_1)
//                                                    where i_0 * 32 + i_1 < 100 ...
//
// At most one factor may be None (inferred as ceil(extent / product of the
// others)). When the product does not equal the extent, the blocks below get the
// predicate `fused < extent` (statements outside blocks get an `if`). Factors of
// 1 keep their unit loop. Rules: the loop is serial; at least two factors, each
// positive and representable in the loop variable's type; the product covers
// the extent (a symbolic extent needs an inferred factor).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_SPLIT_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_SPLIT_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the new loop variables, outermost first.
absl::StatusOr<std::vector<Var>> Split(ScheduleState* state, const Var& loop,
                                       const std::vector<std::optional<int64_t>>& factors);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.split(...): Splits `loop` by `factors` (ints, at most one None, sampled values); returns the
// new loops, outermost first.
struct Split {
  using Self = Split;
  LoopRV loop;
  std::vector<Factor> factors;

  static constexpr PrimitiveInfo kInfo{
      .name = "split",
      .doc =
          "Splits `loop` by `factors` (ints, at most one None, sampled values); returns the new "
          "loops, outermost first."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop), TESSEL_ARG(factors)};
  static absl::StatusOr<std::vector<Var>> Apply(
      PrimitiveContext& ctx, const Var& loop, const std::vector<std::optional<int64_t>>& factors) {
    return schedule::Split(ctx.state(), loop, factors);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_SPLIT_H_
