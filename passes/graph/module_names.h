// Names for what a graph pass adds to a module (constants, kernels): a module's
// functions and constants share one namespace, so a new name must be free in both.
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

inline std::string FreshModuleName(const ir::IRModuleNode& mod, const std::string& want) {
  std::string name = want;
  for (int i = 1; ModuleNameTaken(mod, name); ++i) name = absl::StrCat(want, "_", i);
  return name;
}

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_MODULE_NAMES_H_
