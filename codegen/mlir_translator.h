// Internal: the state shared by the two halves of the IR -> MLIR translation
// (mlir_translate_expr.cc: expressions; mlir_translate_stmt.cc: statements,
// functions, packed wrappers, parallel outlining). Only codegen/ includes it.
//
// One PrimFunc `f` with global symbol NAME becomes
//
//   func.func private @tessel_kernel_NAME(%A: memref<1000xf32> {llvm.noalias}, ..., %n: i64)
//   func.func @tessel_packed_NAME(%args: !llvm.ptr, %num_args: i32) -> i32   // the ABI
//
// and every parallel loop in it an outlined body (see mlir_translate_stmt.cc).
// Buffers are 1-D memrefs of their element type (bool as i8), 64-byte aligned.
#ifndef TESSEL_CODEGEN_MLIR_TRANSLATOR_H_
#define TESSEL_CODEGEN_MLIR_TRANSLATOR_H_

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/target.h"
#include "ir/function.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

namespace tessel::codegen {

// Loads every dialect the translation and the lowering use.
void LoadCodegenDialects(mlir::MLIRContext* ctx);

// Translates every function of `mod` (lowered IR only) into one MLIR module.
absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> TranslateToMLIR(const ir::IRModule& mod,
                                                                   const Target& target,
                                                                   mlir::MLIRContext* ctx);

namespace detail {

// Collects MLIR diagnostics into a string for error messages.
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(mlir::MLIRContext* ctx)
      : handler_(ctx, [this](mlir::Diagnostic& d) {
          text_ += d.str();
          text_ += "\n";
          return mlir::success();
        }) {}
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

// The first steps of both lowerings (mlir_lower.cc): f32 exp, log, tanh, erf, ...
// as polynomial approximations (vector-friendly, and no libdevice call on a GPU);
// then canonicalize, CSE and arith-expand (floordivsi, bf16 extf/truncf).
absl::Status ApproximateMath(mlir::ModuleOp module);
void AddCleanupPasses(mlir::PassManager& pm);

// Helpers the statement and function halves share (mlir_translate_stmt.cc).
// A load of the i-th i64/pointer element of an array at `base` (an !llvm.ptr).
mlir::Value LoadElement(class FuncTranslator& t, mlir::Value base, int i, mlir::Type type);
// Marks a function's memref arguments noalias (see kNoAliasAttr).
void MarkNoAlias(mlir::func::FuncOp f);
// A new function at the end of the module, with an entry block.
mlir::func::FuncOp NewFunction(class FuncTranslator& t, const std::string& name,
                               mlir::FunctionType type, bool is_private);
void AssumeAligned(class FuncTranslator& t, mlir::Value memref, int alignment);

// On a func.func: the lowered-argument positions of its noalias data pointers.
inline constexpr const char* kNoAliasAttr = "tessel.noalias_args";

// Translates one function body. Expressions are in mlir_translate_expr.cc,
// statements in mlir_translate_stmt.cc.
class FuncTranslator {
 public:
  FuncTranslator(mlir::ModuleOp module, const Target& target, std::string func_name,
                 std::string symbol)
      : module_(module), b_(module.getContext()), loc_(b_.getUnknownLoc()), target_(target),
        func_name_(std::move(func_name)), symbol_(std::move(symbol)) {}

  absl::Status TranslateFunction(const ir::PrimFunc& func);

  // ---- Expressions (mlir_translate_expr.cc) ----
  absl::StatusOr<mlir::Value> Expr(const ir::Expr& e);
  mlir::Type ScalarType(ir::DataType t);  // Element type: bool -> i1.
  mlir::Type ValueType(ir::DataType t);   // With lanes: vector<NxT>.
  mlir::Type StorageType(ir::DataType t); // In memory: bool -> i8.
  mlir::MemRefType MemRefTypeOf(const ir::Buffer& buffer);
  mlir::Value IndexValue(mlir::Value v);  // Integer scalar -> index.
  mlir::Value IntConst(mlir::Type t, int64_t v);  // Scalar or splat vector.
  // Buffer accesses (mlir_translate_memory.cc): contiguous vectors become
  // vector.load/store, other vector indices gathers and scatters.
  absl::StatusOr<mlir::Value> LoadBuffer(const ir::BufferLoadNode* op);
  absl::Status StoreBuffer(const ir::BufferStoreNode* op);
  absl::Status Allocate(const ir::AllocateNode* op);
  // address_of(A[i]): the element's address as an i64 (for packed calls).
  absl::StatusOr<mlir::Value> ElementAddress(const ir::CallNode* address_of);
  // A memref of `type` over a raw data pointer (an !llvm.ptr value).
  mlir::Value MemRefFromPointer(mlir::Value ptr, mlir::MemRefType type);

  // ---- The status word (mlir_translate_memory.cc) ----
  // Compiled functions report a failure (an allocation that cannot be made) in an
  // i32 of their entry block that they return: the packed function returns its
  // kernel's, an outlined parallel body its own, and a parallel loop's caller takes
  // the first non-zero one of its bodies. InitStatus creates it (0) at the start of
  // entry_; Fail records tessel_set_last_error(message) and status 1.
  void InitStatus();
  mlir::Value LoadStatus();
  void Fail(const std::string& message);
  // A private declaration of external function `name` (once per module).
  mlir::func::FuncOp DeclareExternal(const std::string& name, mlir::FunctionType type);

  // ---- Statements (mlir_translate_stmt.cc) ----
  absl::Status Stmt(const ir::Stmt& s);
  // A loop bound to a GPU thread axis, inside a kernel (gpu_codegen.cc): its variable
  // is min + the axis' id from thread_ids_.
  absl::Status ThreadFor(const ir::ForNode* op);
  // `evaluate sync_threads()`: gpu.barrier inside a kernel (gpu_codegen.cc).
  absl::Status SyncThreads(const ir::EvaluateNode* op);
  // thread_sum_x(v) and friends: warp shuffles, then shared memory across warps
  // (gpu_codegen_reduce.cc).
  absl::StatusOr<mlir::Value> ThreadReduce(const ir::CallNode* op);
  // mma_m16n8k16(a, b, c): one nvvm.mma.sync (gpu_codegen_mma.cc).
  absl::StatusOr<mlir::Value> WarpMma(const ir::CallNode* op);

  absl::Status Error(const ir::Node* where, const std::string& message) const;

  mlir::ModuleOp module_;
  mlir::OpBuilder b_;
  mlir::Location loc_;
  const Target& target_;
  std::string func_name_;  // The IRModule's name, for messages.
  std::string symbol_;     // The global symbol.
  mlir::Block* entry_ = nullptr;  // Entry block of the function being built (allocas go here).
  int outlined_count_ = 0;
  int message_count_ = 0;
  mlir::Value status_;  // An !llvm.ptr to the status word of the function being built.
  absl::flat_hash_map<const ir::VarNode*, mlir::Value> vars_;
  // The 1-D memref holding each bound buffer's storage (a DeclBuffer view maps to
  // its source's; elem_offset and strides are applied at each access).
  absl::flat_hash_map<const ir::BufferNode*, mlir::Value> buffers_;
  // In a GPU kernel (gpu_codegen.cc): the id of each thread axis ("threadIdx.x" ->
  // an index value), and the storage of its shared buffers (workgroup attributions),
  // which their Allocate binds instead of allocating.
  bool in_gpu_kernel_ = false;
  absl::flat_hash_map<std::string, mlir::Value> thread_ids_;
  absl::flat_hash_map<const ir::BufferNode*, mlir::Value> shared_storage_;
  std::array<int64_t, 3> block_dims_ = {1, 1, 1};  // The launch's threads per axis.
  // Adds a workgroup (shared) buffer of that type to the kernel being built.
  std::function<mlir::Value(mlir::MemRefType)> add_workgroup_buffer_;
};

}  // namespace detail
}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_MLIR_TRANSLATOR_H_
