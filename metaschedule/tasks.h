// The tuning tasks of a module: one per distinct function, weighted by how many
// functions of the module it stands for, each counted as often as the module's
// graph functions call it (once when none does). Distinct means not structurally equal as
// workloads (tuning_db's AsWorkload: attributes aside), found by the persisted
// structural hash and confirmed by structural_equal. Functions already scheduled
// (`scheduled = true`: by hand, by apply-best, wholly dispatched to a library) are
// not tasks; a partly dispatched one is (its tessel code around the calls).
//
//   mod: mm_a, mm_b (the same 64^3 matmul), softmax, conv (dispatched to oneDNN)
//   ExtractTasks(mod, "llvm") -> [{name "mm_a", weight 2, functions [mm_a, mm_b]},
//                                 {name "softmax", weight 1, functions [softmax]}]
#ifndef TESSEL_METASCHEDULE_TASKS_H_
#define TESSEL_METASCHEDULE_TASKS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::metaschedule {

struct TuningTask {
  std::string name;   // The first function it stands for.
  ir::PrimFunc func;  // That function.
  std::string target;
  std::string hash;                    // The workload hash (16 hex digits).
  int64_t weight = 0;                  // How many functions (calls, in a model) it stands for.
  std::vector<std::string> functions;  // Their names, in module order.
};

// The tasks of `mod` for `target`, in the order their first function appears.
absl::StatusOr<std::vector<TuningTask>> ExtractTasks(const ir::IRModule& mod,
                                                     const std::string& target);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_TASKS_H_
