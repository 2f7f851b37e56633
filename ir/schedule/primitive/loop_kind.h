// parallel, vectorize, unroll, bind: set how a loop's iterations run.
//
//   for i in range(0, 64) { block B(vi: spatial[0, 64] = i) ... }
//   Parallel(i)            ->  for i in parallel(0, 64) { ... }
//   Vectorize(i)           ->  for i in vectorized(0, 64) { ... }
//   Unroll(i)              ->  for i in unrolled(0, 64) { ... }
//   Bind(i, "threadIdx.x") ->  for i in thread_binding(0, 64, "threadIdx.x") { ... }
//
// Rules: the loop is serial. Parallel, vectorize and bind need iterations that
// are independent given the blocks' iter kinds: every block below binds the
// loop only through spatial iter vars, with affine bindings that run a distinct
// block instance in each iteration; no statement outside blocks; every block
// below writes a place that depends on the loop; and no block below reads or
// overwrites what another block below writes in a different iteration -- the
// regions one iteration touches are compared with those of every other, and a
// buffer each iteration gets its own copy of is left out (loop_independence.h
// has the rule in full). compute_at and reverse_compute_at recheck it for the
// non-serial loops around the block they move. Bind takes blockIdx.x/y/z,
// threadIdx.x/y/z or vthread(.x/y/z), and refuses an axis that a loop above or below is already
// bound to. Unroll changes no order, so it has no further rule.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_KIND_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_KIND_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Parallel(ScheduleState* state, const Var& loop);
absl::Status Vectorize(ScheduleState* state, const Var& loop);
absl::Status Unroll(ScheduleState* state, const Var& loop);
absl::Status Bind(ScheduleState* state, const Var& loop, const std::string& thread_axis);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.parallel(...): Marks `loop` parallel (its iterations must be independent).
struct Parallel {
  using Self = Parallel;
  LoopRV loop;

  static constexpr PrimitiveInfo kInfo{
      .name = "parallel", .doc = "Marks `loop` parallel (its iterations must be independent)."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop)};
  static absl::Status Apply(PrimitiveContext& ctx, const Var& loop) {
    return schedule::Parallel(ctx.state(), loop);
  }
};

// sch.vectorize(...): Marks `loop` vectorized.
struct Vectorize {
  using Self = Vectorize;
  LoopRV loop;

  static constexpr PrimitiveInfo kInfo{.name = "vectorize", .doc = "Marks `loop` vectorized."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop)};
  static absl::Status Apply(PrimitiveContext& ctx, const Var& loop) {
    return schedule::Vectorize(ctx.state(), loop);
  }
};

// sch.unroll(...): Marks `loop` unrolled.
struct Unroll {
  using Self = Unroll;
  LoopRV loop;

  static constexpr PrimitiveInfo kInfo{.name = "unroll", .doc = "Marks `loop` unrolled."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop)};
  static absl::Status Apply(PrimitiveContext& ctx, const Var& loop) {
    return schedule::Unroll(ctx.state(), loop);
  }
};

// sch.bind(...): Binds `loop` to a GPU axis: blockIdx.x/y/z, threadIdx.x/y/z, vthread(.x/y/z).
struct Bind {
  using Self = Bind;
  LoopRV loop;
  std::string thread_axis;

  static constexpr PrimitiveInfo kInfo{
      .name = "bind",
      .doc = "Binds `loop` to a GPU axis: blockIdx.x/y/z, threadIdx.x/y/z, vthread(.x/y/z)."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop), TESSEL_ARG(thread_axis)};
  static absl::Status Apply(PrimitiveContext& ctx, const Var& loop,
                            const std::string& thread_axis) {
    return schedule::Bind(ctx.state(), loop, thread_axis);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_LOOP_KIND_H_
