// What schedule primitives take and return: handles on the schedule's blocks,
// loops and sampled values, and the few argument types that are more than a
// handle or a literal.
//
//   BlockRV b = *sch.GetBlock("C");                  // b0
//   LoopRV l = (*sch.GetLoops(b))[0];                // l1
//   sch.Split(l, {std::nullopt, 32});                // Factor: None or 32 or a sampled ExprRV
//   sch.Annotate(BlockOrLoop(b), "k", AnnValue(AttrValue(4)));
//
// Handles are small ids into the schedule's table (schedule.h says what they
// follow). Every type here has one ParamCodec (param_codec.h), which says how
// it is traced, read back from a trace, resolved against the schedule and
// spelled in Python.
#ifndef TESSEL_IR_SCHEDULE_HANDLES_H_
#define TESSEL_IR_SCHEDULE_HANDLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ir/attrs.h"
#include "ir/expr.h"

namespace tessel::ir::schedule {

struct BlockRV {
  int64_t id = -1;
};
struct LoopRV {
  int64_t id = -1;
};
struct ExprRV {
  int64_t id = -1;
};

// A split factor: an integer, a sampled value, or None (inferred).
class Factor {
 public:
  Factor(std::nullopt_t) {}         // NOLINT: None, inferred.
  Factor(int64_t v) : value_(v) {}  // NOLINT
  Factor(int v) : value_(v) {}      // NOLINT
  Factor(ExprRV rv) : rv_(rv) {}    // NOLINT
  bool is_inferred() const { return !value_ && rv_.id < 0; }
  std::optional<int64_t> value() const { return value_; }
  const ExprRV& rv() const { return rv_; }

 private:
  std::optional<int64_t> value_;
  ExprRV rv_;
};

// A primitive that works on either a block or a loop (annotate, tensorize ...).
using BlockOrLoop = std::variant<BlockRV, LoopRV>;

// An annotation value: a literal, or a sampled value (traced as an input).
using AnnValue = std::variant<AttrValue, ExprRV>;

// Where compute_at puts a block: a loop handle, which may be one of the two
// special locations sample_compute_location draws (root: stay; inline).
struct Location {
  Location() = default;
  Location(LoopRV l) : loop(l) {}  // NOLINT: a loop handle is a location.
  LoopRV loop;
};
// What a Location resolves to: the loop's variable, or kRootLocation /
// kInlineLocation.
inline constexpr int64_t kRootLocation = -1;
inline constexpr int64_t kInlineLocation = -2;
using ResolvedLocation = std::variant<Var, int64_t>;

// A buffer of a block, by name or by index in its reads then writes.
using BufferRef = std::variant<std::string, int64_t>;

// An index map as text, "lambda i, j: (i // 16, j, i % 16)" (ir/index_map.h);
// Python also accepts the lambda itself.
struct IndexMapText {
  IndexMapText() = default;
  IndexMapText(std::string t) : text(std::move(t)) {}  // NOLINT
  IndexMapText(const char* t) : text(t) {}             // NOLINT
  std::string text;
};

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_HANDLES_H_
