// Tuning tasks (see tasks.h).
#include "metaschedule/tasks.h"

#include "absl/container/flat_hash_map.h"
#include "ir/structural_equal.h"
#include "metaschedule/database/database.h"

namespace tessel::metaschedule {

absl::StatusOr<std::vector<TuningTask>> ExtractTasks(const ir::IRModule& mod,
                                                     const std::string& target) {
  // A kernel a model calls weighs as often as the model calls it.
  absl::flat_hash_map<std::string, int64_t> calls;
  for (const auto& [gname, g] : mod->graph_functions) {
    for (const ir::GraphBinding& b : g->bindings) {
      if (b.call.kind == ir::GraphCall::Kind::kCallTir) ++calls[b.call.callee];
    }
  }
  std::vector<TuningTask> tasks;
  for (const auto& [name, func] : mod->functions) {
    auto it = func->attrs.find("scheduled");
    if (it != func->attrs.end()) {
      const bool* b = it->second.get_if<bool>();  // As the passes read it (passes/pass.cc).
      if (b != nullptr && *b) continue;
    }
    const std::string hash = WorkloadHash(func);
    const ir::PrimFunc workload = AsWorkload(func);
    TuningTask* same = nullptr;
    for (TuningTask& t : tasks) {
      if (t.hash == hash && ir::StructuralEqual(AsWorkload(t.func), workload)) same = &t;
    }
    if (same == nullptr) {
      tasks.push_back(TuningTask{name, func, target, hash, 0, {}});
      same = &tasks.back();
    }
    auto called = calls.find(name);
    same->weight += called == calls.end() ? 1 : called->second;
    same->functions.push_back(name);
  }
  return tasks;
}

}  // namespace tessel::metaschedule
