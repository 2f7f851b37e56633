// Warp matrix products in GPU kernels: `D[i] = mma_m16n8k16(a, b, c)` (ir/expr.h)
// becomes one `nvvm.mma.sync` (PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32):
//
//   a: vector<8xf16> -> four vector<2xf16> (a[0:2], a[2:4], a[4:6], a[6:8])
//   b: vector<4xf16> -> two vector<2xf16>
//   c: vector<4xf32> -> four f32
//   nvvm.mma.sync A[...] B[...] C[...] {shape m16n8k16, layoutA row, layoutB col}
//     -> struct of four f32 -> vector<4xf32>
//
// The IR's fragments are PTX's: a lane's elements in register order, so the
// slices are the registers themselves (ir/expr.h spells out which element is where).
#include "absl/strings/str_cat.h"
#include "codegen/mlir_translator.h"
#include "ir/status_macros.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tessel::codegen {

absl::StatusOr<mlir::Value> detail::FuncTranslator::WarpMma(const ir::CallNode* op) {
  if (!in_gpu_kernel_) return Error(op, absl::StrCat(op->name, "(...) outside a GPU kernel"));
  if (op->args.size() != 3) return Error(op, absl::StrCat(op->name, " takes a, b and c"));
  mlir::MLIRContext* ctx = b_.getContext();
  const mlir::Type f32 = b_.getF32Type();
  // A fragment's 32-bit registers: pairs of f16, or single f32.
  auto registers = [&](const ir::Expr& e, int width) -> absl::StatusOr<std::vector<mlir::Value>> {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value v, Expr(e));
    const int64_t lanes = e->dtype.lanes();
    std::vector<mlir::Value> regs;
    for (int64_t at = 0; at < lanes; at += width) {
      if (width == 1) {
        regs.push_back(b_.create<mlir::vector::ExtractOp>(loc_, v, llvm::ArrayRef<int64_t>{at}));
      } else {
        regs.push_back(b_.create<mlir::vector::ExtractStridedSliceOp>(
            loc_, v, llvm::ArrayRef<int64_t>{at}, llvm::ArrayRef<int64_t>{width},
            llvm::ArrayRef<int64_t>{1}));
      }
    }
    return regs;
  };
  TESSEL_ASSIGN_OR_RETURN(std::vector<mlir::Value> a, registers(op->args[0], 2));
  TESSEL_ASSIGN_OR_RETURN(std::vector<mlir::Value> b, registers(op->args[1], 2));
  TESSEL_ASSIGN_OR_RETURN(std::vector<mlir::Value> c, registers(op->args[2], 1));
  if (a.size() != 4 || b.size() != 2 || c.size() != 4) {
    return Error(op, absl::StrCat(op->name, " takes fragments of 8, 4 and 4 lanes"));
  }
  const mlir::Type result = mlir::LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  auto mma = b_.create<mlir::NVVM::MmaOp>(
      loc_, result, a, b, c, llvm::ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<mlir::NVVM::MMATypes, 2>{mlir::NVVM::MMATypes::f16, mlir::NVVM::MMATypes::f16},
      std::array<mlir::NVVM::MMALayout, 2>{mlir::NVVM::MMALayout::row, mlir::NVVM::MMALayout::col});
  const auto vt = mlir::VectorType::get({4}, f32);
  mlir::Value d = b_.create<mlir::arith::ConstantOp>(
      loc_, vt, mlir::DenseElementsAttr::get(vt, b_.getF32FloatAttr(0.0f)));
  for (int64_t r = 0; r < 4; ++r) {
    mlir::Value x =
        b_.create<mlir::LLVM::ExtractValueOp>(loc_, mma.getResult(), llvm::ArrayRef<int64_t>{r});
    d = b_.create<mlir::vector::InsertOp>(loc_, x, d, llvm::ArrayRef<int64_t>{r});
  }
  return d;
}

}  // namespace tessel::codegen
