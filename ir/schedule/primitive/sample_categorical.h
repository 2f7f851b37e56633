// sample_categorical: one of the candidates, drawn with the given weights (or
// the candidate the decision indexes).
//
//   v0 = sch.sample_categorical(candidates=[0, 16, 64], probs=[0.5, 0.25, 0.25])
//   -> e.g. 16, traced with decision=1
//   sch.annotate(block_or_loop=l1, ann_key="pragma_auto_unroll_max_step", ann_val=v0)
//
// A sampling instruction: it changes no IR, and a tuner mutates its decision.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_CATEGORICAL_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_CATEGORICAL_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"

namespace tessel::ir::schedule::primitive {

struct SampleCategorical {
  using Self = SampleCategorical;
  std::vector<int64_t> candidates;
  std::vector<double> probs;
  std::optional<int64_t> decision;  // An index into candidates.

  static constexpr PrimitiveInfo kInfo{
      .name = "sample_categorical",
      .pure = true,
      .sampling = true,
      .doc = "One of `candidates` drawn with weights `probs`; `decision` is an index."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(candidates), TESSEL_ARG(probs), TESSEL_OPTIONAL_ARG(decision)};
  static absl::StatusOr<int64_t> Apply(PrimitiveContext& ctx,
                                       const std::vector<int64_t>& candidates,
                                       const std::vector<double>& probs,
                                       const std::optional<int64_t>& decision);
};

}  // namespace tessel::ir::schedule::primitive

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_SAMPLE_CATEGORICAL_H_
