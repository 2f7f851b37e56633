// fuse: a perfect nest of loops becomes one loop over the product of extents.
//
//   for i in range(0, 64) {                  fuse(i, j)
//     for j in range(0, 32) {                ---------->   for i_j_fused in range(0, 2048) {
//       block B(vi = i, vj = j) ...                          block B(vi = i_j_fused // 32,
//                                                                    vj = i_j_fused %% 32) ...
//
// Rules: the loops are given outermost first, each the whole body of the one
// before; all serial and unannotated, of one type; no loop's bounds use the
// variable of another loop being fused. A loop with a nonzero min is
// recovered as min + its digit.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_FUSE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_FUSE_H_

#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the fused loop's variable.
absl::StatusOr<Var> Fuse(ScheduleState* state, const std::vector<Var>& loops);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.fuse(...): Fuses a perfect nest of loops (outermost first) into one loop.
struct Fuse {
  using Self = Fuse;
  std::vector<LoopRV> loops;

  static constexpr PrimitiveInfo kInfo{
      .name = "fuse", .doc = "Fuses a perfect nest of loops (outermost first) into one loop."};
  static constexpr auto kArgs = std::tuple{TESSEL_VARIADIC_ARG(loops)};
  static absl::StatusOr<Var> Apply(PrimitiveContext& ctx, const std::vector<Var>& loops) {
    return schedule::Fuse(ctx.state(), loops);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_FUSE_H_
