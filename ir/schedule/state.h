// The state a schedule primitive works on: one function of a module, its sref
// index, and how to report a failure.
//
//   ScheduleState state(func, "matmul");
//   int s = state.index().FindLoop(i.get());
//   ...build the new function g...
//   state.Replace(g);                        // re-indexes; the old index is gone
//   return state.Error(loop, "loop i is parallel; split only serial loops");
//   // FailedPrecondition: "loop i is parallel; split only serial loops\n"
//   //                     + the function with loop i marked by `>>`
//
// A primitive (DESIGN.md: one free function over the schedule state per file
// pair) computes its whole result before calling Replace, so a primitive that
// fails leaves the state exactly as it was (DESIGN.md decision 5).
#ifndef TESSEL_IR_SCHEDULE_STATE_H_
#define TESSEL_IR_SCHEDULE_STATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/stmt_index.h"

namespace tessel::ir::schedule {

class ScheduleState {
 public:
  ScheduleState(PrimFunc func, std::string func_name);

  const PrimFunc& func() const { return func_; }
  const std::string& func_name() const { return func_name_; }
  const StmtIndex& index() const { return index_; }

  // Installs the transformed function and rebuilds the index.
  void Replace(PrimFunc func);

  // The sref of a live loop or block, or an error (a handle the caller resolved
  // must exist; this guards against misuse from C++).
  absl::StatusOr<int> LoopSRef(const Var& loop_var) const;
  absl::StatusOr<int> BlockSRef(const std::string& block_name) const;

  // A failed rule: `rule`, then the function with `marked` (a loop, a block or
  // any statement; null for none) marked and annotated with `note` (default:
  // the rule).
  absl::Status Error(const Node* marked, const std::string& rule, const std::string& note = "",
                     absl::StatusCode code = absl::StatusCode::kFailedPrecondition) const;
  // A bad argument (a factor of 0, an unknown thread axis): same form,
  // InvalidArgument.
  absl::Status ArgError(const Node* marked, const std::string& rule) const;

 private:
  PrimFunc func_;
  std::string func_name_;
  StmtIndex index_;
};

// "loop i" / "block C", for messages.
std::string DescribeLoop(const ForNode* loop);
std::string DescribeBlock(const BlockNode* block);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_STATE_H_
