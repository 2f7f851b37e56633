// The emission API (emit.h): each stage of the path to machine code.
#include "codegen/emit.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "codegen/llvm_module.h"
#include "ir/status_macros.h"
#include "llvm/Support/raw_ostream.h"

namespace tessel::codegen {

absl::StatusOr<std::string> EmitMLIR(const ir::IRModule& mod, const Target& target,
                                     bool llvm_dialect) {
  return TranslateToMLIRText(mod, target, llvm_dialect);
}

absl::StatusOr<std::string> EmitLLVMIR(const ir::IRModule& mod, const Target& target) {
  llvm::LLVMContext ctx;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, CompileToOptimizedModule(mod, target, &ctx));
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os, nullptr);
  os.flush();
  return text;
}

static absl::StatusOr<std::string> Emit(const ir::IRModule& mod, const Target& target,
                                        MachineCodeKind kind) {
  llvm::LLVMContext ctx;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, LowerToLLVMModule(mod, target, &ctx));
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  TESSEL_RETURN_IF_ERROR(OptimizeModule(m.get(), tm.get()));
  return EmitMachineCode(m.get(), tm.get(), kind);
}

absl::StatusOr<std::string> EmitAssembly(const ir::IRModule& mod, const Target& target) {
  return Emit(mod, target, MachineCodeKind::kAssembly);
}

absl::StatusOr<std::string> EmitObject(const ir::IRModule& mod, const Target& target) {
  return Emit(mod, target, MachineCodeKind::kObject);
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace tessel::codegen
