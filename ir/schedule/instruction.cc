// Instructions as values and as Python (see instruction.h). The table of kinds
// and their replay functions is in instruction_kinds.cc.
#include "ir/schedule/instruction.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace tessel::ir::schedule {

std::string RV::Name() const { return absl::StrCat(std::string(1, kind), id); }

std::optional<RV> RV::Parse(absl::string_view name) {
  if (name.size() < 2 || (name[0] != 'b' && name[0] != 'l' && name[0] != 'v')) return std::nullopt;
  for (char c : name.substr(1)) {
    if (!absl::ascii_isdigit(c)) return std::nullopt;
  }
  if (name.size() > 2 && name[1] == '0') return std::nullopt;  // One spelling per id.
  int64_t id;
  if (!absl::SimpleAtoi(name.substr(1), &id)) return std::nullopt;
  return RV{name[0], id};
}

std::string TraceValue::ToPython() const {
  if (is_none()) return "None";
  if (is_int()) return absl::StrCat(as_int());
  if (is_rv()) return as_rv().Name();
  std::vector<std::string> items;
  for (const TraceValue& v : as_list()) items.push_back(v.ToPython());
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

std::string AttrToPython(const AttrValue& value) {
  if (const auto* i = value.get_if<int64_t>()) return absl::StrCat(*i);
  if (const auto* d = value.get_if<double>()) {
    if (std::isnan(*d)) return "float(\"nan\")";
    if (std::isinf(*d)) return *d > 0 ? "float(\"inf\")" : "float(\"-inf\")";
    // The shortest text that reads back to exactly *d, with '.' or 'e' (2.0, 0.1, 1e-05).
    return nlohmann::json(*d).dump();
  }
  if (const auto* b = value.get_if<bool>()) return *b ? "True" : "False";
  if (const auto* s = value.get_if<std::string>()) {
    return nlohmann::json(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (const auto* l = value.get_if<AttrValue::List>()) {
    std::vector<std::string> items;
    for (const AttrValue& v : *l) items.push_back(AttrToPython(v));
    return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
  }
  return "None";  // Expressions are refused before they reach a trace.
}

const AttrValue* Instruction::FindAttr(absl::string_view name) const {
  for (const auto& [k, v] : attrs) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string Instruction::CallToPython() const {
  const InstructionKind* k = FindInstructionKind(kind);
  std::vector<std::string> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name =
        k != nullptr && i < k->input_names.size() ? k->input_names[i] : absl::StrCat("input", i);
    if (!name.empty() && name[0] == '*' && inputs[i].is_list()) {
      for (const TraceValue& v : inputs[i].as_list()) args.push_back(v.ToPython());
    } else {
      args.push_back(absl::StrCat(name, "=", inputs[i].ToPython()));
    }
  }
  for (const auto& [name, value] : attrs)
    args.push_back(absl::StrCat(name, "=", AttrToPython(value)));
  if (decision) args.push_back(absl::StrCat("decision=", decision->ToPython()));
  return absl::StrCat("sch.", kind, "(", absl::StrJoin(args, ", "), ")");
}

std::string Instruction::ToPython() const {
  const InstructionKind* k = FindInstructionKind(kind);
  std::vector<std::string> outs;
  for (const RV& rv : outputs) outs.push_back(rv.Name());
  std::string lhs;
  if (k != nullptr && k->tuple_output) {
    if (outs.size() == 1)
      lhs = absl::StrCat(outs[0], ", = ");
    else if (!outs.empty())
      lhs = absl::StrCat(absl::StrJoin(outs, ", "), " = ");
  } else if (!outs.empty()) {
    lhs = absl::StrCat(absl::StrJoin(outs, ", "), " = ");
  }
  return absl::StrCat(lhs, CallToPython());
}

}  // namespace tessel::ir::schedule
