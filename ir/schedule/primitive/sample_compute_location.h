// sample_compute_location: a place where compute_at of a block is legal,
// drawn uniformly (or given as the decision): a loop of the block's scope, or
// one of the special locations root (stay; decision -1) and inline (-2).
//
//   b0 = sch.get_block(name="T_add")
//   l1 = sch.sample_compute_location(block=b0, decision=3)   # the 4th loop of the scope
//   sch.compute_at(block=b0, loop=l1, preserve_unit_loops=False)
//
// compute_at at root changes nothing and at inline is compute_inline, as in
// TVM, so that a tuner can treat the three alike. Every candidate is tried on
// a copy of the state: a location is legal exactly when compute_at accepts it.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_COMPUTE_LOCATION_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_COMPUTE_LOCATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"

namespace tessel::ir::schedule::primitive {

struct SampleComputeLocation {
  using Self = SampleComputeLocation;
  BlockRV block;
  // -1 root, -2 inline, k >= 0 the k-th loop of the block's scope in program order.
  std::optional<int64_t> decision;

  static constexpr PrimitiveInfo kInfo{
      .name = "sample_compute_location",
      .pure = true,
      .sampling = true,
      .doc =
          "A loop where compute_at of `block` is legal, or root (-1) / inline (-2), drawn "
          "uniformly or given by `decision`; pass it to compute_at."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block), TESSEL_OPTIONAL_ARG(decision)};
  static absl::StatusOr<ResolvedLocation> Apply(PrimitiveContext& ctx, const std::string& block,
                                                const std::optional<int64_t>& decision);
};

}  // namespace tessel::ir::schedule::primitive

namespace tessel::ir::schedule {

// Every legal compute location of `block` in `state`, as decisions (root, inline
// when legal, then the loops of its scope where compute_at succeeds): what a tuner
// lists as the site's choices. Each loop is tried on a copy of the state.
absl::StatusOr<std::vector<int64_t>> LegalComputeLocations(const ScheduleState& state,
                                                           const std::string& block);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_COMPUTE_LOCATION_H_
