// Every stage of compiling a lowered IRModule, as text or bytes:
//
//   Target t = *Target::Parse("llvm");
//   EmitMLIR(mod, t)          // func/scf/memref/arith/math/vector, as translated
//   EmitMLIR(mod, t, true)    // the same in the LLVM dialect
//   EmitLLVMIR(mod, t)        // LLVM IR after O3 for the target CPU
//   EmitAssembly(mod, t)      // x86 assembly
//   EmitObject(mod, t)        // ELF object bytes: tessel_packed_NAME per function
//
// A shared library for libtessel_runtime is the object given to
// runtime::ExportModule (codegen/runtime/export_library.h); `tessel-opt --emit=so`
// does that.
//
// The input must be lowered (no blocks, 1-D buffer accesses): anything else is
// an error that says to run the 'lower' pipeline first. docs/codegen.md has the
// whole path with examples.
#ifndef TESSEL_CODEGEN_EMIT_H_
#define TESSEL_CODEGEN_EMIT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "codegen/target.h"
#include "ir/function.h"

namespace tessel::codegen {

absl::StatusOr<std::string> EmitMLIR(const ir::IRModule& mod, const Target& target,
                                     bool llvm_dialect = false);
absl::StatusOr<std::string> EmitLLVMIR(const ir::IRModule& mod, const Target& target);
absl::StatusOr<std::string> EmitAssembly(const ir::IRModule& mod, const Target& target);
absl::StatusOr<std::string> EmitObject(const ir::IRModule& mod, const Target& target);

absl::Status WriteFile(const std::string& path, const std::string& bytes);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_EMIT_H_
