// Registers a declared primitive (primitive_decl.h) as an instruction kind:
// its keyword names, flags, defaults and replay function, all derived from the
// declaration. One line in the primitive's .cc file:
//
//   TESSEL_REGISTER_PRIMITIVE(primitive::Split);
//
// Replay reads each argument back from the instruction with its codec (an
// optional argument the instruction omits keeps the declaration's default)
// and runs the primitive through Schedule::Apply, which records it again.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_REGISTRATION_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_REGISTRATION_H_

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ir/schedule/instruction.h"
#include "ir/schedule/param_codec.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

inline std::vector<RV> HandlesToRVs(BlockRV b) { return {RV{'b', b.id}}; }
inline std::vector<RV> HandlesToRVs(LoopRV l) { return {RV{'l', l.id}}; }
inline std::vector<RV> HandlesToRVs(ExprRV v) { return {RV{'v', v.id}}; }
template <typename H>
std::vector<RV> HandlesToRVs(const std::vector<H>& hs) {
  std::vector<RV> out;
  for (const H& h : hs) out.push_back(HandlesToRVs(h).front());
  return out;
}

template <typename P>
absl::StatusOr<std::vector<RV>> ReplayPrimitive(Schedule* sch, const Instruction& inst) {
  InstructionReader reader(inst);
  P call{};
  absl::Status read = std::apply(
      [&](const auto&... spec) {
        absl::Status first;
        auto one = [&](const auto& s) {
          using T = typename std::remove_cvref_t<decltype(s)>::type;
          if (!first.ok()) return;
          absl::StatusOr<std::optional<T>> v = ParamCodec<T>::Read(s.name, &reader);
          if (!v.ok()) {
            first = v.status();
          } else if (v->has_value()) {
            call.*s.member = **v;
          } else if (!s.optional) {
            first = reader.Bad(s.name, "is missing");
          }
        };
        (one(spec), ...);
        return first;
      },
      P::kArgs);
  if (!read.ok()) return read;
  TESSEL_RETURN_IF_ERROR(reader.CheckAllTaken());
  auto out = sch->Apply(call);
  if constexpr (std::is_same_v<decltype(out), absl::Status>) {
    if (!out.ok()) return out;
    return std::vector<RV>{};
  } else {
    if (!out.ok()) return out.status();
    return HandlesToRVs(*out);
  }
}

template <typename P>
InstructionKind MakeInstructionKind() {
  InstructionKind k;
  k.name = P::kInfo.name;
  k.pure = P::kInfo.pure;
  k.sampling = P::kInfo.sampling;
  k.doc = P::kInfo.doc;
  k.output = FacadeResultOf<PrimitiveResult<P>>::kOutput;
  k.tuple_output = k.output == OutputType::kBlocks || k.output == OutputType::kLoops ||
                   k.output == OutputType::kValues;
  std::apply(
      [&](const auto&... spec) {
        auto one = [&](const auto& s) {
          using T = typename std::remove_cvref_t<decltype(s)>::type;
          ParamInfo info{s.name, ParamCodec<T>::kType, s.optional, s.variadic};
          if (IsInputType(info.type)) {
            k.input_names.push_back(s.variadic ? absl::StrCat("*", s.name) : s.name);
          }
          k.params.push_back(std::move(info));
        };
        (one(spec), ...);
      },
      P::kArgs);
  k.defaults = TraceCall(P{});
  k.apply = &ReplayPrimitive<P>;
  return k;
}

}  // namespace tessel::ir::schedule

#define TESSEL_REGISTER_PRIMITIVE_CONCAT_INNER(a, b) a##b
#define TESSEL_REGISTER_PRIMITIVE_CONCAT(a, b) TESSEL_REGISTER_PRIMITIVE_CONCAT_INNER(a, b)
// At namespace scope in the primitive's .cc file.
#define TESSEL_REGISTER_PRIMITIVE(P)                                   \
  [[maybe_unused]] static const bool TESSEL_REGISTER_PRIMITIVE_CONCAT( \
      tessel_primitive_registered_, __LINE__) =                        \
      ::tessel::ir::schedule::RegisterInstructionKind(                 \
          ::tessel::ir::schedule::MakeInstructionKind<P>())

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_REGISTRATION_H_
