// How a schedule primitive declares itself, once, in its own header: its
// arguments as the fields of a struct (their names are the Python keywords),
// a few facts, and the function that does the work on resolved arguments.
//
//   struct Split {
//     using Self = Split;
//     LoopRV loop;
//     std::vector<Factor> factors;
//     static constexpr PrimitiveInfo kInfo{.name = "split", .doc = "Splits `loop` ..."};
//     static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop), TESSEL_ARG(factors)};
//     static absl::StatusOr<std::vector<Var>> Apply(PrimitiveContext& ctx, const Var& loop,
//                                                   const std::vector<std::optional<int64_t>>& f);
//   };
//   TESSEL_REGISTER_PRIMITIVE(Split);        // in split.cc (primitive_registration.h)
//
// Everything else is derived: `sch.Apply(Split{l1, {std::nullopt, 32}})`
// resolves the handles, calls Apply on the schedule state, leaves the schedule
// as it was on failure and reports the call, commits and records the
// instruction `l2, l3 = sch.split(loop=l1, factors=[None, 32])`; the
// instruction kind (printing, JSON and script replay), the Python method
// `sch.split(loop=..., factors=...)` and its stub come from the same struct.
// Apply's argument types are the resolved ones (ParamCodec<T>::Resolved: a
// block's name, a loop's Var, a sampled int ...) and its result is turned into
// handles (a name into a BlockRV, a Var into a LoopRV, an int into an ExprRV).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_DECL_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_DECL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/instruction.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

struct PrimitiveInfo {
  const char* name;       // The instruction kind and the Python method.
  bool pure = false;      // Changes no IR (queries, samples).
  bool sampling = false;  // Draws a decision (recorded through PrimitiveContext::Decide).
  const char* doc = "";   // One paragraph for Python's help().
};

// One argument: the field holding it and how Python may pass it.
template <typename P, typename T>
struct ArgSpec {
  using type = T;
  const char* name;
  T P::*member;
  bool optional;  // May be omitted (Python, replay): the field's default.
  bool variadic;  // Passed and printed as positional arguments.
};

template <typename P, typename T>
constexpr ArgSpec<P, T> MakeArg(const char* name, T P::*member, bool optional, bool variadic) {
  return {name, member, optional, variadic};
}

// Inside a declaration with `using Self = ...;`: the field is the keyword.
#define TESSEL_ARG(field) ::tessel::ir::schedule::MakeArg(#field, &Self::field, false, false)
#define TESSEL_OPTIONAL_ARG(field) \
  ::tessel::ir::schedule::MakeArg(#field, &Self::field, true, false)
#define TESSEL_VARIADIC_ARG(field) \
  ::tessel::ir::schedule::MakeArg(#field, &Self::field, false, true)

// What a primitive's Apply works with: the state it edits (restored by the
// schedule if Apply fails), the random engine, and the decision it drew.
class PrimitiveContext {
 public:
  PrimitiveContext(ScheduleState* state, RandomEngine* rng) : state_(state), rng_(rng) {}
  ScheduleState* state() { return state_; }
  RandomEngine* rng() { return rng_; }
  // A sampling primitive records the decision it drew when none was given.
  void Decide(TraceValue decision) { decision_ = std::move(decision); }
  const std::optional<TraceValue>& decision() const { return decision_; }

 private:
  ScheduleState* state_;
  RandomEngine* rng_;
  std::optional<TraceValue> decision_;
};

// The handle a primitive's result becomes: a block's name a BlockRV, a loop's
// Var (or a special location) a LoopRV, a sampled int an ExprRV.
template <typename R>
struct HandleOf;
template <>
struct HandleOf<std::string> {
  using type = BlockRV;
  static constexpr OutputType kOutput = OutputType::kBlock;
};
template <>
struct HandleOf<Var> {
  using type = LoopRV;
  static constexpr OutputType kOutput = OutputType::kLoop;
};
template <>
struct HandleOf<ResolvedLocation> {
  using type = LoopRV;
  static constexpr OutputType kOutput = OutputType::kLoop;
};
template <>
struct HandleOf<int64_t> {
  using type = ExprRV;
  static constexpr OutputType kOutput = OutputType::kValue;
};
template <typename R>
struct HandleOf<std::vector<R>> {
  using type = std::vector<typename HandleOf<R>::type>;
  static constexpr OutputType kOutput =
      HandleOf<R>::kOutput == OutputType::kBlock  ? OutputType::kBlocks
      : HandleOf<R>::kOutput == OutputType::kLoop ? OutputType::kLoops
                                                  : OutputType::kValues;
};

// What a primitive's Apply returns (absl::Status or absl::StatusOr<R>), and
// what Schedule::Apply returns for it.
template <typename F>
struct FunctionResult;
template <typename R, typename... A>
struct FunctionResult<R (*)(A...)> {
  using type = R;
};
template <typename P>
using PrimitiveResult = typename FunctionResult<decltype(&P::Apply)>::type;

template <typename R>
struct FacadeResultOf {
  using type = absl::Status;
  static constexpr OutputType kOutput = OutputType::kNone;
};
template <typename R>
struct FacadeResultOf<absl::StatusOr<R>> {
  using type = absl::StatusOr<typename HandleOf<R>::type>;
  static constexpr OutputType kOutput = HandleOf<R>::kOutput;
};
template <typename R>
using FacadeResult = typename FacadeResultOf<R>::type;

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_DECL_H_
