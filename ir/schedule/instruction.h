// Instructions: one entry of a trace (DESIGN.md decision 7), and the table of
// instruction kinds that knows how to print and replay each one. Each kind is
// derived from one primitive's declaration (primitive_decl.h).
//
//   Instruction{kind = "split", inputs = [l1, [None, 32]], attrs = {},
//               outputs = [l4, l5]}
//   prints as   l4, l5 = sch.split(loop=l1, factors=[None, 32])
//
//   Instruction{kind = "sample_perfect_tile", inputs = [l3],
//               attrs = {n: 2, max_innermost_factor: 16}, outputs = [v6, v7],
//               decision = [8, 8]}
//   prints as   v6, v7 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=16,
//   decision=[8, 8])
//
// Inputs hold random variables (handles: b = block, l = loop, v = sampled
// value), integers, None and lists of those; attrs hold literal values (ints,
// floats, bools, strings, lists), in the order the kind declares them.
#ifndef TESSEL_IR_SCHEDULE_INSTRUCTION_H_
#define TESSEL_IR_SCHEDULE_INSTRUCTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/attrs.h"

namespace tessel::ir::schedule {

// A random variable: 'b' (block), 'l' (loop) or 'v' (sampled integer), and an id
// unique in its schedule. Written "b0", "l3", "v7".
struct RV {
  char kind = 'v';
  int64_t id = -1;
  std::string Name() const;
  // Parses "l3"; nothing for anything else.
  static std::optional<RV> Parse(absl::string_view name);
  friend bool operator==(const RV& a, const RV& b) { return a.kind == b.kind && a.id == b.id; }
};

class TraceValue {
 public:
  using List = std::vector<TraceValue>;
  TraceValue() = default;                   // None
  TraceValue(int64_t v) : v_(v) {}          // NOLINT: implicit on purpose, like Python's.
  TraceValue(RV v) : v_(v) {}               // NOLINT
  TraceValue(List v) : v_(std::move(v)) {}  // NOLINT

  bool is_none() const { return v_.index() == 0; }
  bool is_int() const { return v_.index() == 1; }
  bool is_rv() const { return v_.index() == 2; }
  bool is_list() const { return v_.index() == 3; }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  const RV& as_rv() const { return std::get<RV>(v_); }
  const List& as_list() const { return std::get<List>(v_); }

  // Python spelling: None, 32, l3, [None, 32].
  std::string ToPython() const;

 private:
  std::variant<std::monostate, int64_t, RV, List> v_;
};

using TraceAttrs = std::vector<std::pair<std::string, AttrValue>>;

struct Instruction {
  std::string kind;
  std::vector<TraceValue> inputs;
  TraceAttrs attrs;
  std::vector<RV> outputs;
  std::optional<TraceValue> decision;  // Sampling instructions only.

  // Null when absent.
  const AttrValue* FindAttr(absl::string_view name) const;
  // The call without its outputs, e.g. `sch.split(loop=l1, factors=[None, 32])`.
  std::string CallToPython() const;
  // The whole line, e.g. `l4, l5 = sch.split(loop=l1, factors=[None, 32])`.
  std::string ToPython() const;
};

class Schedule;

// How an instruction replays: `inst`'s inputs already name `sch`'s handles.
// Returns the outputs it created, in order.
using ApplyInstructionFn = absl::StatusOr<std::vector<RV>> (*)(Schedule* sch,
                                                               const Instruction& inst);

// The type of a primitive's parameter (param_codec.h has one codec per type).
enum class ParamType {
  kBlock,        // BlockRV                      input
  kLoop,         // LoopRV                       input
  kBlockOrLoop,  // BlockRV or LoopRV            input
  kLocation,     // LoopRV, maybe root / inline  input
  kLoops,        // [LoopRV]                     input
  kFactors,      // [int | None | ExprRV]        input
  kAnnValue,     // literal (attr) or ExprRV (input)
  kInt,          // the rest are attrs
  kBool,
  kString,
  kInts,
  kFloats,
  kBuffer,       // a buffer name or index
  kIndexMap,     // "lambda i, j: ..." (Python: also the lambda)
  kIntDecision,  // the decision of a sampling instruction
  kIntsDecision,
};
// True for the types traced as inputs (kAnnValue: only a sampled value).
bool IsInputType(ParamType t);

struct ParamInfo {
  std::string name;  // The Python keyword.
  ParamType type;
  bool optional = false;  // May be omitted: the declaration's default.
  bool variadic = false;  // Printed and passed as positional arguments: sch.reorder(l1, l2).
};

// What a primitive returns.
enum class OutputType { kNone, kBlock, kLoop, kValue, kBlocks, kLoops, kValues };

// One instruction kind, derived from a primitive's declaration
// (primitive_decl.h) when it registers: nothing here is written by hand.
struct InstructionKind {
  std::string name;
  // Python keyword names of the inputs, in order; a name starting with '*'
  // takes a list printed as positional arguments (sch.reorder(l1, l2)).
  std::vector<std::string> input_names;
  std::vector<ParamInfo> params;  // Every parameter, in declaration order.
  bool pure = false;              // Changes no IR: unused ones are dead code.
  bool sampling = false;          // Carries a decision.
  bool tuple_output = false;      // Outputs print as a tuple: `l1, l2 = ...`.
  OutputType output = OutputType::kNone;
  std::string doc;       // One paragraph, for Python's help().
  Instruction defaults;  // The declaration's default arguments, traced.
  ApplyInstructionFn apply = nullptr;
};

// Adds a kind (primitive_registration.h calls it from a static initializer);
// a second kind of one name is a programming error and aborts at start-up.
bool RegisterInstructionKind(InstructionKind kind);

// Null for an unknown kind.
const InstructionKind* FindInstructionKind(absl::string_view name);
// Every registered kind, sorted by name.
std::vector<const InstructionKind*> AllInstructionKinds();

// Python spelling of an attribute value: 16, 0.5, True, "x", [1, 2].
std::string AttrToPython(const AttrValue& value);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_INSTRUCTION_H_
