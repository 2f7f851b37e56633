// From an IRModule to functions callable with NDArrays/DLPack tensors in this
// process: the `lower` pipeline (unless asked not to), codegen's JIT, and the
// runtime's checked Module over the compiled entry points.
//
//   absl::StatusOr<runtime::Module> m = codegen::Build(mod, *Target::Parse("llvm"));
//   absl::Status s = m->Call("matmul", {a, b, c});      // arguments checked, then run
//
// The JIT resolves the runtime's C functions (tessel_parallel_for, ...) from their
// addresses in libtessel_runtime, so a caller that loaded it privately (Python
// extensions do) still gets parallel loops.
#ifndef TESSEL_CODEGEN_BUILD_H_
#define TESSEL_CODEGEN_BUILD_H_

#include "absl/status/statusor.h"
#include "codegen/jit.h"
#include "codegen/runtime/module.h"
#include "codegen/target.h"
#include "ir/function.h"

namespace tessel::codegen {

struct BuildOptions {
  bool lower = true;      // Run the `lower` pipeline first (false: `mod` is already lowered).
  JitOptions jit;         // The runtime's symbols are added to these.
};

// The JIT options that give compiled code the runtime's C functions.
JitOptions WithRuntimeSymbols(JitOptions options);

// Lowers (by default) and compiles `mod`; errors name the stage that failed.
absl::StatusOr<runtime::Module> Build(const ir::IRModule& mod, const Target& target,
                                      const BuildOptions& options = {});

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_BUILD_H_
