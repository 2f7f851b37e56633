// Internal: the stages between IR and machine code, as functions over LLVM
// objects (no MLIR types, so callers do not pay for MLIR headers).
//
//   ir::IRModule --TranslateToMLIR--> MLIR (func/scf/memref/arith/math/vector)
//     --LowerToLLVMModule--> llvm::Module --OptimizeModule (O3, host CPU)-->
//     --EmitMachineCode--> assembly / object bytes, or the JIT (jit.cc)
#ifndef TESSEL_CODEGEN_LLVM_MODULE_H_
#define TESSEL_CODEGEN_LLVM_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/target.h"
#include "ir/function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tessel::codegen {

// The MLIR of `mod` as text: as translated (`lowered` false) or in the LLVM
// dialect after the lowering pipeline (`lowered` true).
absl::StatusOr<std::string> TranslateToMLIRText(const ir::IRModule& mod, const Target& target,
                                                bool lowered);

// Translation, MLIR lowering and translation to LLVM IR (not yet optimised).
absl::StatusOr<std::unique_ptr<llvm::Module>> LowerToLLVMModule(const ir::IRModule& mod,
                                                                const Target& target,
                                                                llvm::LLVMContext* ctx);

// A TargetMachine for `target` (PIC, aggressive codegen).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target);

// Sets triple, data layout and CPU attributes, then runs LLVM's O3 pipeline.
absl::Status OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm);

enum class MachineCodeKind { kAssembly, kObject };
absl::StatusOr<std::string> EmitMachineCode(llvm::Module* module, llvm::TargetMachine* tm,
                                            MachineCodeKind kind);

// All of the above: an optimised module for `target`.
absl::StatusOr<std::unique_ptr<llvm::Module>> CompileToOptimizedModule(const ir::IRModule& mod,
                                                                       const Target& target,
                                                                       llvm::LLVMContext* ctx);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_LLVM_MODULE_H_
