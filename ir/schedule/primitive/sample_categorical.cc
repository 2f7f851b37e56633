#include "ir/schedule/primitive/sample_categorical.h"

#include "absl/strings/str_cat.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/sampling.h"

namespace tessel::ir::schedule {

absl::StatusOr<int64_t> primitive::SampleCategorical::Apply(
    PrimitiveContext& ctx, const std::vector<int64_t>& candidates, const std::vector<double>& probs,
    const std::optional<int64_t>& decision) {
  std::string why = CheckCategorical(candidates, probs);
  if (!why.empty()) return absl::InvalidArgumentError(why);
  int64_t index;
  if (decision) {
    if (*decision < 0 || *decision >= static_cast<int64_t>(candidates.size())) {
      return absl::InvalidArgumentError(absl::StrCat("the decision ", *decision,
                                                     " is not an index into the ",
                                                     candidates.size(), " candidates"));
    }
    index = *decision;
  } else {
    index = schedule::SampleCategorical(ctx.rng(), probs);
    ctx.Decide(TraceValue(index));
  }
  return candidates[index];
}

TESSEL_REGISTER_PRIMITIVE(primitive::SampleCategorical);

}  // namespace tessel::ir::schedule
