// The MLIR lowering pipeline, from the translated dialects to the LLVM dialect,
// and the translation to an llvm::Module.
//
//   math (f32 exp/log/tanh/erf)  -> polynomial approximations in arith (vectorise)
//   arith-expand (floordivsi, bf16 extf/truncf) -> scf-to-cf -> vector/math/arith/
//   memref/func/cf to LLVM -> reconcile-unrealized-casts -> LLVM IR
//
// The PassManager is anchored on builtin.module and given the bare pass list:
// an unanchored manager silently nests module passes and runs nothing.
#include "absl/strings/str_cat.h"
#include "codegen/llvm_module.h"
#include "codegen/mlir_translator.h"
#include "ir/status_macros.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace tessel::codegen {

namespace detail {

absl::Status ApproximateMath(mlir::ModuleOp module) {
  mlir::MLIRContext* ctx = module.getContext();
  DiagnosticCollector diags(ctx);
  mlir::RewritePatternSet patterns(ctx);
  mlir::populateMathPolynomialApproximationPatterns(patterns);
  if (mlir::failed(mlir::applyPatternsAndFoldGreedily(module, std::move(patterns)))) {
    return absl::InternalError("codegen: math approximation did not converge: " + diags.text());
  }
  return absl::OkStatus();
}

void AddCleanupPasses(mlir::PassManager& pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
}

}  // namespace detail

namespace {

using detail::DiagnosticCollector;
using detail::ApproximateMath;
using detail::AddCleanupPasses;

std::unique_ptr<mlir::MLIRContext> NewContext() {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->disableMultithreading();  // Small modules; threads cost more than they save.
  LoadCodegenDialects(ctx.get());
  return ctx;
}

absl::Status LowerToLLVMDialect(mlir::ModuleOp module) {
  mlir::MLIRContext* ctx = module.getContext();
  DiagnosticCollector diags(ctx);
  TESSEL_RETURN_IF_ERROR(ApproximateMath(module));
  mlir::PassManager pm(ctx, mlir::ModuleOp::getOperationName());
  AddCleanupPasses(pm);
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createConvertVectorToLLVMPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createUBToLLVMConversionPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  if (mlir::failed(pm.run(module))) {
    return absl::InternalError(
        absl::StrCat("codegen: lowering to the LLVM dialect failed (a codegen bug): ", diags.text()));
  }
  // Noalias data pointers (see MarkNoAlias) and internal linkage for everything
  // but the packed entry points, so that LLVM inlines and drops the kernels.
  module.walk([](mlir::LLVM::LLVMFuncOp f) {
    if (auto positions = f->getAttrOfType<mlir::ArrayAttr>(detail::kNoAliasAttr)) {
      for (mlir::Attribute a : positions) {
        f.setArgAttr(mlir::cast<mlir::IntegerAttr>(a).getInt(), "llvm.noalias",
                     mlir::UnitAttr::get(f.getContext()));
      }
      f->removeAttr(detail::kNoAliasAttr);
    }
    if (!f.isExternal() && !f.getName().starts_with("tessel_packed_")) {
      f.setLinkage(mlir::LLVM::Linkage::Internal);
    }
  });
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> TranslateToMLIRText(const ir::IRModule& mod, const Target& target,
                                                bool lowered) {
  std::unique_ptr<mlir::MLIRContext> ctx = NewContext();
  TESSEL_ASSIGN_OR_RETURN(mlir::OwningOpRef<mlir::ModuleOp> module,
                          TranslateToMLIR(mod, target, ctx.get()));
  if (lowered) {
    TESSEL_RETURN_IF_ERROR(LowerToLLVMDialect(*module));
  } else {
    // Folded constants and shared subexpressions: the same ops, easier to read.
    mlir::PassManager pm(ctx.get(), mlir::ModuleOp::getOperationName());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    DiagnosticCollector diags(ctx.get());
    if (mlir::failed(pm.run(*module))) return absl::InternalError("codegen: canonicalize: " + diags.text());
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os.flush();
  return text;
}

absl::StatusOr<std::unique_ptr<llvm::Module>> LowerToLLVMModule(const ir::IRModule& mod,
                                                                const Target& target,
                                                                llvm::LLVMContext* llvm_ctx) {
  std::unique_ptr<mlir::MLIRContext> ctx = NewContext();
  TESSEL_ASSIGN_OR_RETURN(mlir::OwningOpRef<mlir::ModuleOp> module,
                          TranslateToMLIR(mod, target, ctx.get()));
  TESSEL_RETURN_IF_ERROR(LowerToLLVMDialect(*module));
  DiagnosticCollector diags(ctx.get());
  std::unique_ptr<llvm::Module> out = mlir::translateModuleToLLVMIR(*module, *llvm_ctx, "tessel");
  if (out == nullptr) {
    return absl::InternalError("codegen: translation to LLVM IR failed: " + diags.text());
  }
  return out;
}

}  // namespace tessel::codegen
