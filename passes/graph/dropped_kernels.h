// What a graph pass leaves behind when it stops calling a kernel: a PrimFunc some
// graph function called before the pass and none calls after it (the kernels
// fuse-tir fused, a transpose fold-constants folded) leaves the module; one no
// graph function ever called (the user's own, called from C) stays.
//
//   before: main calls transpose, matmul      after: main calls matmul
//   WithoutDroppedKernels(before, after)  ->  after, without @transpose
#ifndef TESSEL_PASSES_GRAPH_DROPPED_KERNELS_H_
#define TESSEL_PASSES_GRAPH_DROPPED_KERNELS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/function.h"

namespace tessel::passes {

// The PrimFuncs `graphs` call (call_tir).
inline absl::flat_hash_set<std::string> CalledKernels(
    const std::vector<std::pair<std::string, ir::GraphFunc>>& graphs) {
  absl::flat_hash_set<std::string> out;
  for (const auto& [name, g] : graphs) {
    for (const ir::GraphBinding& b : g->bindings) {
      if (b.call.kind == ir::GraphCall::Kind::kCallTir) out.insert(b.call.callee);
    }
  }
  return out;
}

// True when `before` called kernel `name` and `after_calls` (CalledKernels of the
// pass's result) does not.
inline bool KernelDropped(const absl::flat_hash_set<std::string>& before_calls,
                          const absl::flat_hash_set<std::string>& after_calls,
                          const std::string& name) {
  return before_calls.contains(name) && !after_calls.contains(name);
}

// `after` without the kernels `before`'s graphs called and its graphs do not.
inline ir::IRModule WithoutDroppedKernels(const ir::IRModule& before, const ir::IRModule& after) {
  const absl::flat_hash_set<std::string> was = CalledKernels(before->graph_functions),
                                         is = CalledKernels(after->graph_functions);
  bool any = false;
  for (const auto& [name, f] : after->functions) any |= KernelDropped(was, is, name);
  if (!any) return after;
  auto n = ir::MakeNode<ir::IRModuleNode>(*after);
  std::erase_if(n->functions, [&](const auto& f) { return KernelDropped(was, is, f.first); });
  return ir::IRModule(std::move(n));
}

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_DROPPED_KERNELS_H_
