// Tuning tasks (see tasks.h).
#include "metaschedule/tasks.h"

#include "ir/structural_equal.h"
#include "metaschedule/database/database.h"

namespace tessel::metaschedule {

absl::StatusOr<std::vector<TuningTask>> ExtractTasks(const ir::IRModule& mod,
                                                     const std::string& target) {
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
    ++same->weight;
    same->functions.push_back(name);
  }
  return tasks;
}

}  // namespace tessel::metaschedule
