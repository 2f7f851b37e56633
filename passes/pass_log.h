// The per-run log of a pipeline: which passes ran or were skipped, which
// functions each changed, and for rule-driven passes which rule or record applied
// to which function (DESIGN.md decision 6).
//
//   log.RecordRan("simplify");
//   log.RecordChanged("simplify", "matmul");
//   log.RecordApplied("remove-no-op", "matmul", "empty-loop");   // twice
//   log.ToString():
//     simplify: changed matmul
//     remove-no-op: matmul: applied empty-loop x2
// (a run's line lists changed functions, then rules per function, then skips
// and notes: "simplify: changed f; f: applied fold-constant x3, identity")
//
// The pass manager records runs, skips and changed functions itself (by pointer
// comparison of each function before and after), so a pass only records rules.
#ifndef TESSEL_PASSES_PASS_LOG_H_
#define TESSEL_PASSES_PASS_LOG_H_

#include <string>
#include <vector>

namespace tessel::passes {

struct PassLogEntry {
  enum class Kind {
    kRan,      // The pass ran (function: "", detail: "").
    kSkipped,  // The pass, or one function of it, was skipped; detail says why.
    kChanged,  // The pass changed `function`.
    kAdded,    // The pass added `function`.
    kRemoved,  // The pass removed `function`.
    kApplied,  // Rule or record `detail` applied to `function`, `count` times.
    kNote,     // Free text from the pass manager or an instrument.
  };
  Kind kind;
  std::string pass;
  std::string function;
  std::string detail;
  int count = 1;
};

class PassLog {
 public:
  void RecordRan(const std::string& pass);
  // `function` may be empty when the whole pass was skipped.
  void RecordSkipped(const std::string& pass, const std::string& function, const std::string& why);
  void RecordChanged(const std::string& pass, const std::string& function);
  void RecordAdded(const std::string& pass, const std::string& function);
  void RecordRemoved(const std::string& pass, const std::string& function);
  // Repeated applications of one rule to one function in a row are counted.
  void RecordApplied(const std::string& pass, const std::string& function, const std::string& rule,
                     int count = 1);
  void RecordNote(const std::string& pass, const std::string& text);

  const std::vector<PassLogEntry>& entries() const { return entries_; }
  bool HasRun(const std::string& pass) const;
  // Functions `pass` changed, in order, without repeats.
  std::vector<std::string> ChangedFunctions(const std::string& pass) const;
  // Rules `pass` applied to `function`, as "rule" or "rule x3".
  std::vector<std::string> AppliedRules(const std::string& pass, const std::string& function) const;

  // One line per pass run, in order (see the example above).
  std::string ToString() const;
  void Clear() { entries_.clear(); }

 private:
  std::vector<PassLogEntry> entries_;
};

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PASS_LOG_H_
