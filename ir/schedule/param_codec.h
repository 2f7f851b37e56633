// One codec per type a schedule primitive takes (handles.h and literals): how a
// value is traced into an Instruction, read back from one (JSON, a Python
// script, a Python call), resolved against the schedule, and named in Python.
// The declaration kit (primitive_decl.h) derives a primitive's tracing, replay
// and Python binding from these, so each rule lives here once.
//
//   ParamCodec<LoopRV>::Record(l3, "loop", &inst)      inst.inputs += [l3]
//   ParamCodec<int64_t>::Record(16, "n", &inst)        inst.attrs += {n: 16}
//   ParamCodec<LoopRV>::Read("loop", &reader)          l3; nothing when absent; or
//                                                      "split: 'loop' must be a loop handle"
//   ParamCodec<LoopRV>::Resolve(sch, l3)               the loop's Var, or "loop handle l3 was
//                                                      consumed by split"
//
// Where a value goes is the type's role: handles (and lists of them) are
// inputs, literals are attrs, an optional decision of a sampling instruction
// is the decision, and an annotation value is an input when it is a sampled
// value and an attr otherwise.
#ifndef TESSEL_IR_SCHEDULE_PARAM_CODEC_H_
#define TESSEL_IR_SCHEDULE_PARAM_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/instruction.h"

namespace tessel::ir::schedule {

class Schedule;

// Reads a primitive's arguments back from an instruction, inputs in order and
// attrs by name; messages name the instruction and the parameter.
class InstructionReader {
 public:
  explicit InstructionReader(const Instruction& inst) : inst_(inst) {}
  const Instruction& inst() const { return inst_; }
  // The next input, or null when all are taken.
  const TraceValue* NextInput();
  // Whether an input is left: an input-or-attr parameter takes it if so.
  bool HasInput() const { return next_ < inst_.inputs.size(); }
  const AttrValue* Attr(const char* name) const { return inst_.FindAttr(name); }
  absl::Status Bad(const char* param, const std::string& what) const;
  // Every input taken: a trace giving more is refused.
  absl::Status CheckAllTaken() const;

 private:
  const Instruction& inst_;
  size_t next_ = 0;
};

template <typename T>
struct ParamCodec;  // Specialised for each supported type below.

// Handles and lists of them: inputs.
template <>
struct ParamCodec<BlockRV> {
  static constexpr ParamType kType = ParamType::kBlock;
  using Resolved = std::string;  // The block's name.
  static void Record(const BlockRV& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<BlockRV>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const BlockRV& v);
};
template <>
struct ParamCodec<LoopRV> {
  static constexpr ParamType kType = ParamType::kLoop;
  using Resolved = Var;
  static void Record(const LoopRV& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<LoopRV>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const LoopRV& v);
};
template <>
struct ParamCodec<BlockOrLoop> {
  static constexpr ParamType kType = ParamType::kBlockOrLoop;
  using Resolved = std::variant<std::string, Var>;
  static void Record(const BlockOrLoop& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<BlockOrLoop>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const BlockOrLoop& v);
};
template <>
struct ParamCodec<Location> {
  static constexpr ParamType kType = ParamType::kLocation;
  using Resolved = ResolvedLocation;
  static void Record(const Location& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<Location>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const Location& v);
};
template <>
struct ParamCodec<std::vector<LoopRV>> {
  static constexpr ParamType kType = ParamType::kLoops;
  using Resolved = std::vector<Var>;
  static void Record(const std::vector<LoopRV>& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<std::vector<LoopRV>>> Read(const char* name,
                                                                 InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const std::vector<LoopRV>& v);
};
template <>
struct ParamCodec<std::vector<Factor>> {
  static constexpr ParamType kType = ParamType::kFactors;
  using Resolved = std::vector<std::optional<int64_t>>;
  static void Record(const std::vector<Factor>& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<std::vector<Factor>>> Read(const char* name,
                                                                 InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const std::vector<Factor>& v);
};
template <>
struct ParamCodec<AnnValue> {
  static constexpr ParamType kType = ParamType::kAnnValue;
  using Resolved = AttrValue;
  static void Record(const AnnValue& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<AnnValue>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule& sch, const AnnValue& v);
};

// Literals: attrs, resolved to themselves.
template <typename T, ParamType kParamType>
struct LiteralCodec {
  static constexpr ParamType kType = kParamType;
  using Resolved = T;
  static void Record(const T& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<T>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<T> Resolve(const Schedule&, const T& v) { return v; }
};
template <>
struct ParamCodec<int64_t> : LiteralCodec<int64_t, ParamType::kInt> {};
template <>
struct ParamCodec<bool> : LiteralCodec<bool, ParamType::kBool> {};
template <>
struct ParamCodec<std::string> : LiteralCodec<std::string, ParamType::kString> {};
template <>
struct ParamCodec<std::vector<int64_t>> : LiteralCodec<std::vector<int64_t>, ParamType::kInts> {};
template <>
struct ParamCodec<std::vector<double>> : LiteralCodec<std::vector<double>, ParamType::kFloats> {};
template <>
struct ParamCodec<BufferRef> : LiteralCodec<BufferRef, ParamType::kBuffer> {};
template <>
struct ParamCodec<IndexMapText> : LiteralCodec<IndexMapText, ParamType::kIndexMap> {};

// Decisions of sampling instructions: the decision, when given.
template <>
struct ParamCodec<std::optional<int64_t>> {
  static constexpr ParamType kType = ParamType::kIntDecision;
  using Resolved = std::optional<int64_t>;
  static void Record(const std::optional<int64_t>& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<std::optional<int64_t>>> Read(const char* name,
                                                                    InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule&, const Resolved& v) { return v; }
};
template <>
struct ParamCodec<std::optional<std::vector<int64_t>>> {
  static constexpr ParamType kType = ParamType::kIntsDecision;
  using Resolved = std::optional<std::vector<int64_t>>;
  static void Record(const Resolved& v, const char* name, Instruction* inst);
  static absl::StatusOr<std::optional<Resolved>> Read(const char* name, InstructionReader* r);
  static absl::StatusOr<Resolved> Resolve(const Schedule&, const Resolved& v) { return v; }
};

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PARAM_CODEC_H_
