// annotate / unannotate: key-value annotations on a loop or a block, for later
// passes and codegen to read (unroll hints, pragmas, schedule-rule tags).
//
//   Annotate(state, k, "pragma_unroll", AttrValue(int64_t{4}))
//     for k in range(0, 64) attrs {pragma_unroll = 4} { ... }
//   Annotate(state, "C", "schedule_rule", AttrValue("matmul"))
//     block C(...) attrs {schedule_rule = "matmul"} { ... }
//   Unannotate(state, k, "pragma_unroll")      -> the annotation is gone
//
// An existing key is overwritten. Values are ints, floats, bools, strings and
// lists of them (no expressions: a trace must be able to write them as JSON).
// Unannotating a key that is not there is an error listing the keys present.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_ANNOTATE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_ANNOTATE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/attrs.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Annotate(ScheduleState* state, const Var& loop, const std::string& key,
                      const AttrValue& value);
absl::Status Annotate(ScheduleState* state, const std::string& block, const std::string& key,
                      const AttrValue& value);
absl::Status Unannotate(ScheduleState* state, const Var& loop, const std::string& key);
absl::Status Unannotate(ScheduleState* state, const std::string& block, const std::string& key);

// "" when `value` may be an annotation written in a trace, else why not.
std::string CheckAnnotationValue(const AttrValue& value);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.annotate(...): Sets annotation `ann_key` (an int, float, bool, str, list of them, or a
// sampled value).
struct Annotate {
  using Self = Annotate;
  BlockOrLoop block_or_loop;
  std::string ann_key;
  AnnValue ann_val;

  static constexpr PrimitiveInfo kInfo{.name = "annotate",
                                       .doc =
                                           "Sets annotation `ann_key` (an int, float, bool, str, "
                                           "list of them, or a sampled value)."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block_or_loop), TESSEL_ARG(ann_key), TESSEL_ARG(ann_val)};
  static absl::Status Apply(PrimitiveContext& ctx,
                            const std::variant<std::string, Var>& block_or_loop,
                            const std::string& ann_key, const AttrValue& ann_val) {
    return std::visit(
        [&](const auto& x) { return schedule::Annotate(ctx.state(), x, ann_key, ann_val); },
        block_or_loop);
  }
};

// sch.unannotate(...): Removes annotation `ann_key`.
struct Unannotate {
  using Self = Unannotate;
  BlockOrLoop block_or_loop;
  std::string ann_key;

  static constexpr PrimitiveInfo kInfo{.name = "unannotate",
                                       .doc = "Removes annotation `ann_key`."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block_or_loop), TESSEL_ARG(ann_key)};
  static absl::Status Apply(PrimitiveContext& ctx,
                            const std::variant<std::string, Var>& block_or_loop,
                            const std::string& ann_key) {
    return std::visit([&](const auto& x) { return schedule::Unannotate(ctx.state(), x, ann_key); },
                      block_or_loop);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_ANNOTATE_H_
