// The schedule state (see state.h).
#include "ir/schedule/state.h"

#include "absl/strings/str_cat.h"
#include "ir/printer.h"

namespace tessel::ir::schedule {

ScheduleState::ScheduleState(PrimFunc func, std::string func_name)
    : func_(std::move(func)), func_name_(std::move(func_name)), index_(func_) {}

void ScheduleState::Replace(PrimFunc func) {
  func_ = std::move(func);
  index_ = StmtIndex(func_);
}

absl::StatusOr<int> ScheduleState::LoopSRef(const Var& loop_var) const {
  int s = loop_var ? index_.FindLoop(loop_var.get()) : -1;
  if (s < 0) {
    return absl::NotFoundError(absl::StrCat("no loop over '", loop_var ? loop_var->name : "<null>",
                                            "' in function '", func_name_, "'"));
  }
  return s;
}

absl::StatusOr<int> ScheduleState::BlockSRef(const std::string& block_name) const {
  int s = index_.FindBlock(block_name);
  if (s < 0) {
    return absl::NotFoundError(
        absl::StrCat("no block named '", block_name, "' in function '", func_name_, "'"));
  }
  return s;
}

absl::Status ScheduleState::Error(const Node* marked, const std::string& rule,
                                  const std::string& note, absl::StatusCode code) const {
  std::string text = absl::StrCat(rule, "\n");
  if (marked != nullptr) {
    absl::StrAppend(&text,
                    PrintFunctionMarked(func_, func_name_, marked, note.empty() ? rule : note));
  } else {
    absl::StrAppend(&text, PrintFunction(func_, func_name_));
  }
  return absl::Status(code, text);
}

absl::Status ScheduleState::ArgError(const Node* marked, const std::string& rule) const {
  return Error(marked, rule, "", absl::StatusCode::kInvalidArgument);
}

std::string DescribeLoop(const ForNode* loop) {
  return absl::StrCat("loop ", loop->loop_var->name);
}

std::string DescribeBlock(const BlockNode* block) { return absl::StrCat("block ", block->name); }

}  // namespace tessel::ir::schedule
