// Names for what a graph pass adds to a module (constants, kernels, values): a
// module's functions and constants share one namespace, so a new name must be
// free in both. Every pass numbers a taken name the same way.
//
//   FreshModuleName(*mod, "w1")   // "w1", or "w1_1", "w1_2", ... when taken
#ifndef TESSEL_PASSES_GRAPH_MODULE_NAMES_H_
#define TESSEL_PASSES_GRAPH_MODULE_NAMES_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "ir/function.h"

namespace tessel::passes {

inline bool ModuleNameTaken(const ir::IRModuleNode& mod, const std::string& name) {
  return mod.Lookup(name) || mod.LookupGraph(name) || mod.LookupConstant(name) != nullptr;
}

// `want`, or `want_1`, `want_2` ... : the first name `taken(name)` is false for.
template <typename Taken>
std::string FreshName(const std::string& want, const Taken& taken) {
  std::string name = want;
  for (int i = 1; taken(name); ++i) name = absl::StrCat(want, "_", i);
  return name;
}

inline std::string FreshModuleName(const ir::IRModuleNode& mod, const std::string& want) {
  return FreshName(want, [&](const std::string& n) { return ModuleNameTaken(mod, n); });
}

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_MODULE_NAMES_H_
