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
// strict (unknown or repeated keys, kinds and versions are errors) so that a
// hand-edited file fails where it is wrong rather than replaying something else.
// JSON itself is read and written by nlohmann::json: numbers written with '.',
// 'e' or 'E' are floats, others integers; floats are written in their shortest
// exact form; nesting deeper than 256 levels is refused before it is built.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/schedule/trace.h"
#include "ir/status_macros.h"
#include "nlohmann/json.hpp"

namespace tessel::ir::schedule {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxJsonDepth = 256;

// Strings may hold any bytes a user wrote: invalid UTF-8 is replaced, never thrown.
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Compact, but with a space after ',' and ':', as traces have always been written.
std::string SpacedDump(const Json& j) {
  if (j.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < j.size(); ++i) absl::StrAppend(&out, i ? ", " : "", SpacedDump(j[i]));
    return out + "]";
  }
  if (j.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      absl::StrAppend(&out, first ? "" : ", ", Dump(Json(key)), ": ", SpacedDump(value));
      first = false;
    }
    return out + "}";
  }
  return Dump(j);
}

const char* TypeName(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "bool";
  if (j.is_number_integer()) return "int";
  if (j.is_number_float()) return "float";
  if (j.is_string()) return "string";
  if (j.is_array()) return "array";
  return "object";
}

// An integer JSON value as int64; an unsigned one above INT64_MAX is an error.
absl::StatusOr<int64_t> AsInt(const Json& j) {
  if (j.is_number_unsigned() &&
      j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("the integer ", j.get<uint64_t>(), " is out of range"));
  }
  return j.get<int64_t>();
}

// Parses `text`, refusing repeated keys and nesting deeper than kMaxJsonDepth;
// errors name `what`, the line and the column.
absl::StatusOr<Json> ParseStrict(absl::string_view text, absl::string_view what) {
  struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  std::vector<absl::flat_hash_set<std::string>> keys;  // One set per open object.
  auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxJsonDepth) {
      throw Refused(absl::StrCat("nested deeper than ", kMaxJsonDepth, " levels"));
    }
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == Json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw Refused(absl::StrCat("duplicate key ", Dump(parsed)));
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Refused& e) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", e.what()));
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 6: ..." without the tag.
    std::string message = e.what();
    if (size_t tag = message.find("] ");
        message.starts_with("[json.") && tag != std::string::npos) {
      message = message.substr(tag + 2);
    }
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", message));
  }
}

Json ValueToJson(const TraceValue& v) {
  if (v.is_none()) return nullptr;
  if (v.is_int()) return v.as_int();
  if (v.is_rv()) return v.as_rv().Name();
  Json items = Json::array();
  for (const TraceValue& x : v.as_list()) items.push_back(ValueToJson(x));
  return items;
}

absl::StatusOr<Json> AttrToJson(const AttrValue& v) {
  if (const auto* i = v.get_if<int64_t>()) return Json(*i);
  if (const auto* d = v.get_if<double>()) {
    if (!std::isfinite(*d)) {
      return absl::InvalidArgumentError(absl::StrCat("the value ", *d, " has no JSON form"));
    }
    return Json(*d);
  }
  if (const auto* b = v.get_if<bool>()) return Json(*b);
  if (const auto* s = v.get_if<std::string>()) return Json(*s);
  if (const auto* l = v.get_if<AttrValue::List>()) {
    Json items = Json::array();
    for (const AttrValue& x : *l) {
      TESSEL_ASSIGN_OR_RETURN(Json j, AttrToJson(x));
      items.push_back(std::move(j));
    }
    return items;
  }
  return absl::InvalidArgumentError("an expression has no JSON form");
}

// Handles defined so far, by kind and id.
using Defined = absl::flat_hash_set<std::pair<char, int64_t>>;

absl::StatusOr<TraceValue> ValueFromJson(const Json& j, const Defined& defined) {
  if (j.is_null()) return TraceValue();
  if (j.is_number_integer()) {
    TESSEL_ASSIGN_OR_RETURN(int64_t i, AsInt(j));
    return TraceValue(i);
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    std::optional<RV> rv = RV::Parse(s);
    if (!rv) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", s, "\" is not a handle (b<n>, l<n> or v<n>)"));
    }
    if (!defined.contains({rv->kind, rv->id})) {
      return absl::InvalidArgumentError(
          absl::StrCat(rv->Name(), " is used before any instruction defines it"));
    }
    return TraceValue(*rv);
  }
  if (j.is_array()) {
    TraceValue::List items;
    for (const Json& x : j) {
      TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(x, defined));
      items.push_back(std::move(v));
    }
    return TraceValue(std::move(items));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("an input is null, an int, a handle or a list of those, not ", TypeName(j)));
}

absl::StatusOr<AttrValue> AttrFromJson(const Json& j) {
  if (j.is_number_integer()) {
    TESSEL_ASSIGN_OR_RETURN(int64_t i, AsInt(j));
    return AttrValue(i);
  }
  if (j.is_number_float()) return AttrValue(j.get<double>());
  if (j.is_boolean()) return AttrValue(j.get<bool>());
  if (j.is_string()) return AttrValue(j.get<std::string>());
  if (j.is_array()) {
    AttrValue::List items;
    for (const Json& x : j) {
      TESSEL_ASSIGN_OR_RETURN(AttrValue v, AttrFromJson(x));
      items.push_back(std::move(v));
    }
    return AttrValue(std::move(items));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("an attr is an int, a float, a bool, a string or a list, not ", TypeName(j)));
}

// The member `key` of object `j`, or null.
const Json* Find(const Json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

absl::StatusOr<Instruction> InstructionFromJson(const Json& j, Defined* defined) {
  if (!j.is_object()) return absl::InvalidArgumentError("an instruction must be an object");
  for (const auto& [key, value] : j.items()) {
    if (key != "kind" && key != "inputs" && key != "attrs" && key != "outputs" &&
        key != "decision") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown key \"", key, "\" (an instruction has kind, inputs, attrs, outputs, decision)"));
    }
  }
  const Json* kind = Find(j, "kind");
  if (kind == nullptr || !kind->is_string()) {
    return absl::InvalidArgumentError("\"kind\" must be a string");
  }
  Instruction inst;
  inst.kind = kind->get<std::string>();
  const InstructionKind* k = FindInstructionKind(inst.kind);
  if (k == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown instruction kind '", inst.kind, "'"));
  }
  if (const Json* inputs = Find(j, "inputs")) {
    if (!inputs->is_array()) return absl::InvalidArgumentError("\"inputs\" must be an array");
    for (const Json& x : *inputs) {
      TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(x, *defined));
      inst.inputs.push_back(std::move(v));
    }
  }
  if (const Json* attrs = Find(j, "attrs")) {
    if (!attrs->is_object()) return absl::InvalidArgumentError("\"attrs\" must be an object");
    for (const auto& [key, value] : attrs->items()) {
      absl::StatusOr<AttrValue> v = AttrFromJson(value);
      if (!v.ok())
        return absl::Status(v.status().code(),
                            absl::StrCat("attr '", key, "': ", v.status().message()));
      inst.attrs.emplace_back(key, *std::move(v));
    }
  }
  if (const Json* decision = Find(j, "decision")) {
    if (!k->sampling) {
      return absl::InvalidArgumentError(absl::StrCat(inst.kind, " takes no decision"));
    }
    TESSEL_ASSIGN_OR_RETURN(TraceValue v, ValueFromJson(*decision, *defined));
    inst.decision = std::move(v);
  }
  const Json* outputs = Find(j, "outputs");
  if (outputs != nullptr) {
    if (!outputs->is_array()) return absl::InvalidArgumentError("\"outputs\" must be an array");
    for (const Json& o : *outputs) {
      std::optional<RV> rv = o.is_string() ? RV::Parse(o.get<std::string>()) : std::nullopt;
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
    Json inputs = Json::array(), outputs = Json::array(), attrs = Json::object();
    for (const TraceValue& v : inst.inputs) inputs.push_back(ValueToJson(v));
    for (const RV& rv : inst.outputs) outputs.push_back(rv.Name());
    for (const auto& [key, value] : inst.attrs) {
      absl::StatusOr<Json> j = AttrToJson(value);
      if (!j.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("trace to JSON: instruction ", k, " (",
                                                       inst.ToPython(), "): attr '", key,
                                                       "': ", j.status().message()));
      }
      attrs[key] = *std::move(j);
    }
    Json members = Json::object();
    members["kind"] = inst.kind;
    members["inputs"] = std::move(inputs);
    members["attrs"] = std::move(attrs);
    members["outputs"] = std::move(outputs);
    if (inst.decision) members["decision"] = ValueToJson(*inst.decision);
    absl::StrAppend(&out, k == 0 ? "\n  " : ",\n  ", SpacedDump(members));
  }
  absl::StrAppend(&out, insts_.empty() ? "]}\n" : "\n]}\n");
  return out;
}

absl::StatusOr<Trace> Trace::FromJson(absl::string_view text, absl::string_view what) {
  TESSEL_ASSIGN_OR_RETURN(Json root, ParseStrict(text, what));
  auto error = [&](const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", message));
  };
  if (!root.is_object()) return error("a trace is a JSON object");
  const Json* format = Find(root, "format");
  if (format == nullptr || !format->is_string() || format->get<std::string>() != "tessel-trace") {
    return error("not a tessel trace (\"format\" must be \"tessel-trace\")");
  }
  const Json* version = Find(root, "version");
  if (version == nullptr || !version->is_number_integer()) {
    return error("\"version\" must be an int");
  }
  absl::StatusOr<int64_t> v = AsInt(*version);
  if (!v.ok()) return error(std::string(v.status().message()));
  if (*v != kTraceFormatVersion) {
    return error(absl::StrCat("trace format version ", *v,
                              *v > kTraceFormatVersion ? " is newer than" : " is not",
                              " the version this build reads (", kTraceFormatVersion, ")"));
  }
  for (const auto& [key, value] : root.items()) {
    if (key != "format" && key != "version" && key != "instructions") {
      return error(absl::StrCat("unknown key \"", key, "\""));
    }
  }
  const Json* insts = Find(root, "instructions");
  if (insts == nullptr || !insts->is_array()) return error("\"instructions\" must be an array");
  Defined defined;
  std::vector<Instruction> out;
  for (size_t k = 0; k < insts->size(); ++k) {
    absl::StatusOr<Instruction> inst = InstructionFromJson((*insts)[k], &defined);
    if (!inst.ok()) return error(absl::StrCat("instruction ", k, ": ", inst.status().message()));
    out.push_back(*std::move(inst));
  }
  return Trace(std::move(out));
}

}  // namespace tessel::ir::schedule
