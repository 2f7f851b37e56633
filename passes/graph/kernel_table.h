// The PrimFuncs of a module by structure, for graph passes that add kernels
// (legalize, fuse-tir): an added kernel equal to one the module has is not added
// again, and a new one gets its base name, or `base_1`, `base_2`... when taken.
//
//   KernelTable kernels(mod);
//   std::string name = kernels.Intern(func, "relu");   // "relu", or the equal one's name
//   n->functions = kernels.functions();
#ifndef TESSEL_PASSES_GRAPH_KERNEL_TABLE_H_
#define TESSEL_PASSES_GRAPH_KERNEL_TABLE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/function.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "passes/graph/module_names.h"

namespace tessel::passes {

class KernelTable {
 public:
  explicit KernelTable(const ir::IRModule& mod) : functions_(mod->functions) {
    for (const auto& [name, f] : functions_) Index(name, f);
    for (const auto& [name, g] : mod->graph_functions) taken_.insert(name);
    for (const auto& [name, c] : mod->constants) taken_.insert(name);  // One namespace.
  }

  // The name of a PrimFunc structurally equal to `f`, adding `f` when there is none.
  std::string Intern(const ir::PrimFunc& f, const std::string& base) {
    uint64_t h = ir::StructuralHash(f);
    for (const std::string& name : by_hash_[h]) {
      if (ir::StructuralEqual(Find(name), f)) return name;
    }
    const std::string name =
        FreshName(base, [&](const std::string& n) { return taken_.contains(n); });
    functions_.emplace_back(name, f);
    Index(name, f);
    ++added_;
    return name;
  }

  const std::vector<std::pair<std::string, ir::PrimFunc>>& functions() const { return functions_; }
  int added() const { return added_; }

 private:
  void Index(const std::string& name, const ir::PrimFunc& f) {
    taken_.insert(name);
    by_hash_[ir::StructuralHash(f)].push_back(name);
  }
  const ir::PrimFunc& Find(const std::string& name) const {
    for (const auto& [n, f] : functions_) {
      if (n == name) return f;
    }
    static const ir::PrimFunc kNone;
    return kNone;
  }

  std::vector<std::pair<std::string, ir::PrimFunc>> functions_;
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<uint64_t, std::vector<std::string>> by_hash_;
  int added_ = 0;
};

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_KERNEL_TABLE_H_
