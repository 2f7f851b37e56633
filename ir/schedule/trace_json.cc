// The versioned JSON form of a trace (see trace.h):
//
//   {"format": "tessel-trace", "version": 1, "instructions": [
//     {"kind": "get_block", "inputs": [], "attrs": {"name": "C"}, "outputs": ["b0"]},
//     {"kind": "get_loops", "inputs": ["b0"], "attrs": {}, "outputs": ["l1", "l2", "l3"]},
//     {"kind": "split", "inputs": ["l1", [null, 32]], "attrs": {}, "outputs": ["l4", "l5"]},
//     {"kind": "sample_categorical", "inputs": [], "attrs": {"candidates": [1, 4],
//      "probs": [0.5, 0.5]}, "outputs": ["v6"], "decision": 1}
//   ]}
//
// In "inputs" a string is always a handle ("b0", "l3", "v7"), defined as an
// output of an earlier instruction; "attrs" hold literal values. Reading is
// strict (unknown keys, kinds and versions are errors) so that a hand-edited
// file fails where it is wrong rather than replaying something else.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/schedule/json.h"
#include "ir/schedule/trace.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

Json ValueToJson(const TraceValue& v) {
  if (v.is_none()) return Json::Null();
  if (v.is_int()) return Json::Int(v.as_int());
  if (v.is_rv()) return Json::String(v.as_rv().Name());
  Json::Array items;
  for (const TraceValue& x : v.as_list()) items.push_back(ValueToJson(x));
  return Json::MakeArray(std::move(items));
}

absl::StatusOr<Json> AttrToJson(const AttrValue& v) {
  if (const auto* i = v.get_if<int64_t>()) return Json::Int(*i);
  if (const auto* d = v.get_if<double>()) {
    if (!std::isfinite(*d)) {
      return absl::InvalidArgumentError(absl::StrCat("the value ", *d, " has no JSON form"));
    }
    return Json::Double(*d);
  }
  if (const auto* b = v.get_if<bool>()) return Json::Bool(*b);
  if (const auto* s = v.get_if<std::string>()) return Json::String(*s);
  if (const auto* l = v.get_if<AttrValue::List>()) {
    Json::Array items;
    for (const AttrValue& x : *l) {
      TESSEL_ASSIGN_OR_RETURN(Json j, AttrToJson(x));
      items.push_back(std::move(j));
    }
    return Json::MakeArray(std::move(items));
  }
  return absl::InvalidArgumentError("an expression has no JSON form");
}

// Handles defined so far, by kind and id.
using Defined = absl::flat_hash_set<std::pair<char, int64_t>>;

absl::StatusOr<TraceValue> ValueFromJson(const Json& j, const Defined& defined) {
  switch (j.type()) {
    case Json::Type::kNull:
      return TraceValue();
    case Json::Type::kInt:
      return TraceValue(j.as_int());
    case Json::Type::kString: {
      std::optional<RV> rv = RV::Parse(j.as_string());
      if (!rv) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", j.as_string(), "\" is not a handle (b<n>, l<n> or v<n>)"));
      }
      if (!defined.contains({rv->kind, rv->id})) {
        return absl::InvalidArgumentError(
            absl::StrCat(rv->Name(), " is used before any instruction defines it"));
      }
      return TraceValue(*rv);
    }
    case Json::Type::kArray: {
      TraceValue::List items;
      for (const Json& x : j.items()) {
        TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(x, defined));
        items.push_back(std::move(v));
      }
      return TraceValue(std::move(items));
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "an input is null, an int, a handle or a list of those, not ", Json::TypeName(j.type())));
  }
}

absl::StatusOr<AttrValue> AttrFromJson(const Json& j) {
  switch (j.type()) {
    case Json::Type::kInt:
      return AttrValue(j.as_int());
    case Json::Type::kDouble:
      return AttrValue(j.as_double());
    case Json::Type::kBool:
      return AttrValue(j.as_bool());
    case Json::Type::kString:
      return AttrValue(j.as_string());
    case Json::Type::kArray: {
      AttrValue::List items;
      for (const Json& x : j.items()) {
        TESSEL_ASSIGN_OR_RETURN(AttrValue v, AttrFromJson(x));
        items.push_back(std::move(v));
      }
      return AttrValue(std::move(items));
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("an attr is an int, a float, a bool, a string or a list, not ",
                       Json::TypeName(j.type())));
  }
}

absl::StatusOr<Instruction> InstructionFromJson(const Json& j, Defined* defined) {
  if (!j.is_object()) return absl::InvalidArgumentError("an instruction must be an object");
  for (const auto& [key, value] : j.members()) {
    if (key != "kind" && key != "inputs" && key != "attrs" && key != "outputs" &&
        key != "decision") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown key \"", key, "\" (an instruction has kind, inputs, attrs, outputs, decision)"));
    }
  }
  const Json* kind = j.Find("kind");
  if (kind == nullptr || !kind->is_string()) {
    return absl::InvalidArgumentError("\"kind\" must be a string");
  }
  Instruction inst;
  inst.kind = kind->as_string();
  const InstructionKind* k = FindInstructionKind(inst.kind);
  if (k == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown instruction kind '", inst.kind, "'"));
  }
  if (const Json* inputs = j.Find("inputs")) {
    if (!inputs->is_array()) return absl::InvalidArgumentError("\"inputs\" must be an array");
    for (const Json& x : inputs->items()) {
      TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(x, *defined));
      inst.inputs.push_back(std::move(v));
    }
  }
  if (const Json* attrs = j.Find("attrs")) {
    if (!attrs->is_object()) return absl::InvalidArgumentError("\"attrs\" must be an object");
    for (const auto& [key, value] : attrs->members()) {
      absl::StatusOr<AttrValue> v = AttrFromJson(value);
      if (!v.ok())
        return absl::Status(v.status().code(),
                            absl::StrCat("attr '", key, "': ", v.status().message()));
      inst.attrs.emplace_back(key, *std::move(v));
    }
  }
  if (const Json* decision = j.Find("decision")) {
    if (!k->sampling) {
      return absl::InvalidArgumentError(absl::StrCat(inst.kind, " takes no decision"));
    }
    TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(*decision, *defined));
    inst.decision = std::move(v);
  }
  const Json* outputs = j.Find("outputs");
  if (outputs != nullptr) {
    if (!outputs->is_array()) return absl::InvalidArgumentError("\"outputs\" must be an array");
    for (const Json& o : outputs->items()) {
      std::optional<RV> rv = o.is_string() ? RV::Parse(o.as_string()) : std::nullopt;
      if (!rv)
        return absl::InvalidArgumentError("an output must be a handle name (b<n>, l<n>, v<n>)");
      if (!defined->insert({rv->kind, rv->id}).second) {
        return absl::InvalidArgumentError(absl::StrCat(rv->Name(), " is defined twice"));
      }
      inst.outputs.push_back(*rv);
    }
  }
  return inst;
}

}  // namespace

absl::StatusOr<std::string> Trace::ToJson() const {
  std::string out = absl::StrCat(
      "{\"format\": \"tessel-trace\", \"version\": ", kTraceFormatVersion, ", \"instructions\": [");
  for (size_t k = 0; k < insts_.size(); ++k) {
    const Instruction& inst = insts_[k];
    Json::Array inputs, outputs;
    for (const TraceValue& v : inst.inputs) inputs.push_back(ValueToJson(v));
    for (const RV& rv : inst.outputs) outputs.push_back(Json::String(rv.Name()));
    Json::Members attrs;
    for (const auto& [key, value] : inst.attrs) {
      absl::StatusOr<Json> j = AttrToJson(value);
      if (!j.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("trace to JSON: instruction ", k, " (",
                                                       inst.ToPython(), "): attr '", key,
                                                       "': ", j.status().message()));
      }
      attrs.emplace_back(key, *std::move(j));
    }
    Json::Members members = {{"kind", Json::String(inst.kind)},
                             {"inputs", Json::MakeArray(std::move(inputs))},
                             {"attrs", Json::Object(std::move(attrs))},
                             {"outputs", Json::MakeArray(std::move(outputs))}};
    if (inst.decision) members.emplace_back("decision", ValueToJson(*inst.decision));
    absl::StrAppend(&out, k == 0 ? "\n  " : ",\n  ", Json::Object(std::move(members)).Dump());
  }
  absl::StrAppend(&out, insts_.empty() ? "]}\n" : "\n]}\n");
  return out;
}

absl::StatusOr<Trace> Trace::FromJson(absl::string_view text, absl::string_view what) {
  TESSEL_ASSIGN_OR_RETURN(Json root, ParseJson(text, what));
  auto error = [&](const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", message));
  };
  if (!root.is_object()) return error("a trace is a JSON object");
  const Json* format = root.Find("format");
  if (format == nullptr || !format->is_string() || format->as_string() != "tessel-trace") {
    return error("not a tessel trace (\"format\" must be \"tessel-trace\")");
  }
  const Json* version = root.Find("version");
  if (version == nullptr || !version->is_int()) return error("\"version\" must be an int");
  if (version->as_int() != kTraceFormatVersion) {
    return error(
        absl::StrCat("trace format version ", version->as_int(),
                     version->as_int() > kTraceFormatVersion ? " is newer than" : " is not",
                     " the version this build reads (", kTraceFormatVersion, ")"));
  }
  for (const auto& [key, value] : root.members()) {
    if (key != "format" && key != "version" && key != "instructions") {
      return error(absl::StrCat("unknown key \"", key, "\""));
    }
  }
  const Json* insts = root.Find("instructions");
  if (insts == nullptr || !insts->is_array()) return error("\"instructions\" must be an array");
  Defined defined;
  std::vector<Instruction> out;
  for (size_t k = 0; k < insts->items().size(); ++k) {
    absl::StatusOr<Instruction> inst = InstructionFromJson(insts->items()[k], &defined);
    if (!inst.ok()) return error(absl::StrCat("instruction ", k, ": ", inst.status().message()));
    out.push_back(*std::move(inst));
  }
  return Trace(std::move(out));
}

}  // namespace tessel::ir::schedule
