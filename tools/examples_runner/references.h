// Direct C++ computations of the example programs in tools/examples/, the
// independent check of what the interpreter computes from the .tsl text.
//
//   const Reference* r = FindReference("matmul");
//   r->compute(args);   // writes the outputs of `matmul` into args, in place
//
// Each reference is keyed by function name and reads/writes HostBuffers in the
// function's parameter order, in plain loops with float arithmetic.
#ifndef TESSEL_TOOLS_EXAMPLES_RUNNER_REFERENCES_H_
#define TESSEL_TOOLS_EXAMPLES_RUNNER_REFERENCES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/interpreter.h"

namespace tessel::examples {

struct Reference {
  std::string function;
  std::string what;  // One line for the table, e.g. "C = A @ B".
  std::function<absl::Status(std::vector<ir::Arg>&)> compute;
};

// Null when no reference exists for `function`.
const Reference* FindReference(const std::string& function);

}  // namespace tessel::examples

#endif  // TESSEL_TOOLS_EXAMPLES_RUNNER_REFERENCES_H_
