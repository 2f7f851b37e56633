// A trace: the program of schedule instructions that produced a schedule
// (DESIGN.md decision 7). It prints as Python, serialises to versioned JSON,
// and replays onto any structurally equal function.
//
//   const Trace& t = sch.trace();
//   t.AsPython():
//     b0 = sch.get_block(name="C")
//     l1, l2, l3 = sch.get_loops(block=b0)
//     v4, v5 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16, decision=[4, 16])
//     l6, l7 = sch.split(loop=l1, factors=[v4, v5])
//   std::string json = *t.ToJson();          // {"format": "tessel-trace", "version": 1, ...}
//   Trace back = *Trace::FromJson(json);     // the same instructions
//   Schedule other = *Schedule::Create(similar_mod);
//   absl::Status s = back.WithDecision(2, TraceValue::List{8, 8}).ApplyToSchedule(&other);
//
// Replay maps the trace's handles to the target schedule's as instructions
// create them; blocks are found by name, so a function lacking a block the
// trace names fails with a clear error (and the target is left unchanged).
#ifndef TESSEL_IR_SCHEDULE_TRACE_H_
#define TESSEL_IR_SCHEDULE_TRACE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/schedule/instruction.h"

namespace tessel::ir::schedule {

class Schedule;

// Called by a replay before each instruction runs, with the instruction's index
// and the instruction with its handles already naming `sch`'s: what a tuner uses
// to ask, at a sampling instruction, which decisions the schedule allows there.
using ReplayObserver =
    std::function<void(size_t index, const Instruction& mapped, const Schedule& sch)>;

// The JSON format version this build writes and reads.
inline constexpr int kTraceFormatVersion = 1;

class Trace {
 public:
  Trace() = default;
  explicit Trace(std::vector<Instruction> instructions) : insts_(std::move(instructions)) {}

  const std::vector<Instruction>& instructions() const { return insts_; }
  void Append(Instruction inst) { insts_.push_back(std::move(inst)); }
  bool empty() const { return insts_.empty(); }

  // One Python line per instruction.
  std::string AsPython() const;

  // {"format": "tessel-trace", "version": 1, "instructions": [...]}, one
  // instruction per line. Fails for an annotation value JSON cannot hold
  // (NaN, infinity).
  absl::StatusOr<std::string> ToJson() const;
  // Checks the format and version, every kind, and that each handle is defined
  // before use; `what` names the text in messages.
  static absl::StatusOr<Trace> FromJson(absl::string_view text, absl::string_view what = "trace");

  // A copy with instruction `index`'s decision replaced; it must be a sampling
  // instruction (the decision itself is checked when the trace replays).
  absl::StatusOr<Trace> WithDecision(size_t index, TraceValue decision) const;
  // Without the instructions that change nothing and whose outputs nothing
  // uses (queries and samples left dead).
  Trace Simplified() const;

  // Replays every instruction onto `sch` (its current function). On failure
  // `sch` is left as it was and the error names the instruction.
  absl::Status ApplyToSchedule(Schedule* sch, const ReplayObserver& observer = nullptr) const;

 private:
  std::vector<Instruction> insts_;
};

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_TRACE_H_
