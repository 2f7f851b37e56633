// The compiled half of tessel-examples: each function of a module goes through the
// `lower` pipeline and codegen's JIT (target "llvm"), runs on seeded random inputs,
// and its buffers are compared with what the reference interpreter computes from the
// unlowered function on the same inputs.
//
//   std::vector<CompiledRow> rows = CheckCompiled(mod, "matmul.tsl", {.seed = 42});
//   // rows[0]: matmul  compile 95.1 ms  run 0.21 ms  max err 2.4e-07  OK
//
// A function whose interpreter run exceeds `interp_budget` statements (the large
// workloads: 1024^3 matmul, 4096^2 softmax, ...) is compiled and timed but not
// compared: the row says "unchecked" and does not fail.
#ifndef TESSEL_TOOLS_EXAMPLES_RUNNER_COMPILED_CHECK_H_
#define TESSEL_TOOLS_EXAMPLES_RUNNER_COMPILED_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"

namespace tessel::examples {

struct CompiledOptions {
  uint64_t seed = 42;
  // Interpreter statements allowed per function before the comparison is skipped.
  int64_t interp_budget = 2'000'000;
  // Leave out (no row) the functions over the budget: ctest runs small inputs only.
  bool small_only = false;
};

struct CompiledRow {
  std::string file, function;
  std::string compile_ms = "-", run = "-", max_error = "-";
  std::string result;  // "OK", "unchecked: ..." or "FAIL: ...".
  bool ok = true;
};

// One row per function of `mod` (in module order), minus the ones small_only drops.
std::vector<CompiledRow> CheckCompiled(const ir::IRModule& mod, const std::string& file,
                                       const CompiledOptions& options);

}  // namespace tessel::examples

#endif  // TESSEL_TOOLS_EXAMPLES_RUNNER_COMPILED_CHECK_H_
