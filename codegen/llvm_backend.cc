// LLVM's side: a TargetMachine for the target string, the O3 pipeline with the
// CPU's features on every function (so the vectoriser and instruction selection
// use AVX-512/FMA), and assembly or object emission.
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/llvm_module.h"
#include "ir/status_macros.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

namespace tessel::codegen {

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target) {
  InitializeLLVMTargets();
  std::string triple = target.Triple();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (t == nullptr) return absl::InternalError(absl::StrCat("codegen: no LLVM target for ", triple, ": ", error));
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      triple, target.ResolvedCpu(), target.ResolvedFeatures(), options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return absl::InternalError("codegen: LLVM could not create a target machine for " + triple);
  return tm;
}

absl::Status OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm) {
  module->setTargetTriple(tm->getTargetTriple().str());
  module->setDataLayout(tm->createDataLayout());
  std::string cpu = tm->getTargetCPU().str(), features = tm->getTargetFeatureString().str();
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", cpu);
    f.addFnAttr("target-features", features);
    f.addFnAttr(llvm::Attribute::NoUnwind);
  }
  std::string verify_errors;
  llvm::raw_string_ostream vs(verify_errors);
  if (llvm::verifyModule(*module, &vs)) {
    return absl::InternalError("codegen: invalid LLVM IR (a codegen bug): " + vs.str());
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  llvm::PassBuilder pb(tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*module, mam);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitMachineCode(llvm::Module* module, llvm::TargetMachine* tm,
                                            MachineCodeKind kind) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  llvm::CodeGenFileType type = kind == MachineCodeKind::kAssembly
                                   ? llvm::CodeGenFileType::AssemblyFile
                                   : llvm::CodeGenFileType::ObjectFile;
  if (tm->addPassesToEmitFile(pm, os, nullptr, type)) {
    return absl::InternalError("codegen: this target cannot emit that kind of file");
  }
  pm.run(*module);
  return std::string(buffer.begin(), buffer.end());
}

absl::StatusOr<std::unique_ptr<llvm::Module>> CompileToOptimizedModule(const ir::IRModule& mod,
                                                                       const Target& target,
                                                                       llvm::LLVMContext* ctx) {
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, LowerToLLVMModule(mod, target, ctx));
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  TESSEL_RETURN_IF_ERROR(OptimizeModule(m.get(), tm.get()));
  return m;
}

}  // namespace tessel::codegen
