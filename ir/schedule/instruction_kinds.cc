// The table of instruction kinds: filled at start-up by each primitive's
// registration (primitive_registration.h), read by trace printing, JSON and
// Python-script reading, replay and the Python binding.
//
//   TESSEL_REGISTER_PRIMITIVE(primitive::Split);     // in split.cc
//   FindInstructionKind("split")->input_names        // {"loop", "factors"}
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "ir/schedule/instruction.h"

namespace tessel::ir::schedule {

namespace {

// Ordered by name, so that listings do not depend on the link order.
std::map<std::string, InstructionKind, std::less<>>& Registry() {
  static auto* kinds = new std::map<std::string, InstructionKind, std::less<>>();
  return *kinds;
}

}  // namespace

bool IsInputType(ParamType t) {
  switch (t) {
    case ParamType::kBlock:
    case ParamType::kLoop:
    case ParamType::kBlockOrLoop:
    case ParamType::kLocation:
    case ParamType::kLoops:
    case ParamType::kFactors:
    case ParamType::kAnnValue:
      return true;
    default:
      return false;
  }
}

bool RegisterInstructionKind(InstructionKind kind) {
  std::string name = kind.name;
  if (!Registry().emplace(name, std::move(kind)).second) {
    std::fprintf(stderr, "two schedule primitives declare the instruction kind '%s'\n",
                 name.c_str());
    std::abort();
  }
  return true;
}

const InstructionKind* FindInstructionKind(absl::string_view name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<const InstructionKind*> AllInstructionKinds() {
  std::vector<const InstructionKind*> out;
  for (const auto& [name, kind] : Registry()) out.push_back(&kind);
  return out;
}

}  // namespace tessel::ir::schedule
