// Prints the module before and/or after passes, to follow a pipeline step by step.
//
//   PrintIROptions o;
//   o.after = {"simplify"};          // or o.after_all = true
//   o.after_change = true;           // only when the pass changed the module
//   ctx.instruments.push_back(MakePrintIRInstrument(o, &std::cerr));
//
// Output, one dump per pass (leaf passes only; pipelines are not dumped):
//   // ----- IR after simplify ----- //
//   func @f(...) { ... }
//
// "Changed" is decided without printing: the same module object means unchanged
// (DESIGN.md decision 2); a different object is compared structurally, so a pass
// that rebuilt an equal module does not count as a change.
#ifndef TESSEL_PASSES_INSTRUMENTS_PRINT_IR_H_
#define TESSEL_PASSES_INSTRUMENTS_PRINT_IR_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "passes/instrument.h"

namespace tessel::passes {

struct PrintIROptions {
  bool before_all = false;
  std::vector<std::string> before;  // Pass names.
  bool after_all = false;
  std::vector<std::string> after;  // Pass names.
  // Print after a pass only if it changed the module. Alone, it means "after
  // every pass that changed the module".
  bool after_change = false;
};

std::shared_ptr<PassInstrument> MakePrintIRInstrument(PrintIROptions options, std::ostream* out);

// True when `after` differs from `before`: a pointer test, then structural.
bool ModuleChanged(const ir::IRModule& before, const ir::IRModule& after);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_PRINT_IR_H_
