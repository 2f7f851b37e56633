// PrimFuncs -> MLIR functions: the kernel function of each PrimFunc and its packed
// ABI wrapper (the example atop mlir_translate_stmt.cc shows both), and the
// translation of a whole IRModule.
#include <dlpack/dlpack.h>

#include <cstddef>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "codegen/mlir_translator.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"
#include "ir/visitor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace tessel::codegen {
namespace detail {
namespace {

// Finds what codegen does not take: blocks (not lowered) and GPU thread bindings.
class Unsupported : public ir::IRVisitor {
 public:
  const ir::Node* node = nullptr;
  std::string why;
  void VisitBlock(const ir::BlockNode* op) override {
    Set(op, absl::StrCat("block '", op->name,
                         "' is still present; codegen takes lowered IR: run the 'lower' pipeline first"));
  }
  void VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    Set(op, absl::StrCat("block '", op->block->name,
                         "' is still present; codegen takes lowered IR: run the 'lower' pipeline first"));
  }
  void VisitFor(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding) {
      Set(op, absl::StrCat("loop '", op->loop_var->name, "' is bound to thread '", op->thread_tag,
                           "'; the llvm target runs on the CPU (build it for a cuda target: docs/gpu.md)"));
    }
    ir::IRVisitor::VisitFor(op);
  }

 private:
  void Set(const ir::Node* n, std::string w) {
    if (node == nullptr) {
      node = n;
      why = std::move(w);
    }
  }
};


// The shape variables the packed wrapper binds from its DLTensors: those named as a
// buffer parameter's dimension and not passed as a scalar parameter, each with the
// first (parameter, dimension) that names it. `func @f[n](A: f32[n, 4], B: f32[n])`:
// {n <- A dimension 0}.
struct ShapeBinding {
  const ir::VarNode* var;
  size_t param;
  int dim;
};
std::vector<ShapeBinding> ShapeBindings(const ir::PrimFunc& func) {
  std::vector<ShapeBinding> out;
  auto bound = [&](const ir::VarNode* v) {
    for (const ir::Param& p : func->params) {
      if (!p.is_buffer() && p.var.get() == v) return true;
    }
    for (const ShapeBinding& b : out) {
      if (b.var == v) return true;
    }
    return false;
  };
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Param& p = func->params[i];
    if (!p.is_buffer()) continue;
    for (size_t d = 0; d < p.buffer->shape.size(); ++d) {
      if (p.buffer->shape[d]->kind() != ir::NodeKind::kVar) continue;
      const auto* v = ir::cast<ir::VarNode>(p.buffer->shape[d]);
      if (!bound(v)) out.push_back({v, i, static_cast<int>(d)});
    }
  }
  return out;
}

// A load of a `type` field `offset` bytes into the struct at `base` (an !llvm.ptr).
mlir::Value LoadField(FuncTranslator& t, mlir::Value base, size_t offset, mlir::Type type) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  mlir::Value p =
      b.create<mlir::LLVM::GEPOp>(t.loc_, ptr, b.getI8Type(), base,
                                  llvm::ArrayRef<mlir::LLVM::GEPArg>{static_cast<int32_t>(offset)});
  return b.create<mlir::LLVM::LoadOp>(t.loc_, type, p);
}

}  // namespace

absl::Status FuncTranslator::TranslateFunction(const ir::PrimFunc& func) {
  Unsupported unsupported;
  unsupported.VisitStmt(func->body);
  if (unsupported.node != nullptr) return Error(unsupported.node, unsupported.why);

  // The kernel: buffers as memrefs, scalars by value, then the shape variables the
  // wrapper reads from the DLTensors.
  const std::vector<ShapeBinding> shape_bindings = ShapeBindings(func);
  std::vector<mlir::Type> types;
  for (const ir::Param& p : func->params) {
    types.push_back(p.is_buffer() ? mlir::Type(MemRefTypeOf(p.buffer)) : ValueType(p.var->dtype));
  }
  for (const ShapeBinding& sb : shape_bindings) types.push_back(ValueType(sb.var->dtype));
  std::string kernel_name = "tessel_kernel_" + symbol_;
  auto kernel =
      NewFunction(*this, kernel_name, b_.getFunctionType(types, {b_.getI32Type()}), true);
  MarkNoAlias(kernel);
  entry_ = &kernel.getBody().front();
  b_.setInsertionPointToStart(entry_);
  InitStatus();
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Param& p = func->params[i];
    mlir::Value arg = entry_->getArgument(i);
    if (p.is_buffer()) {
      buffers_[p.buffer.get()] = arg;
      AssumeAligned(*this, arg, std::max(p.buffer->alignment, 1));
    } else {
      vars_[p.var.get()] = arg;
    }
  }
  for (size_t k = 0; k < shape_bindings.size(); ++k) {
    vars_[shape_bindings[k].var] = entry_->getArgument(func->params.size() + k);
  }
  TESSEL_RETURN_IF_ERROR(Stmt(func->body));
  b_.create<mlir::func::ReturnOp>(loc_, mlir::ValueRange{LoadStatus()});
  vars_.clear();
  buffers_.clear();

  // The packed wrapper of the ABI (codegen/runtime/tessel_runtime.h): args[i] is a
  // DLTensor* for a buffer, a pointer to the value for a scalar.
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b_.getContext());
  mlir::Type i64 = b_.getI64Type();
  auto packed = NewFunction(*this, "tessel_packed_" + symbol_,
                            b_.getFunctionType({ptr, b_.getI32Type()}, {b_.getI32Type()}), false);
  mlir::Block* entry = &packed.getBody().front();
  entry_ = entry;
  b_.setInsertionPointToStart(entry);
  std::vector<mlir::Value> args;
  std::vector<mlir::Value> tensors(func->params.size());
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Param& p = func->params[i];
    mlir::Value pi = LoadElement(*this, entry->getArgument(0), static_cast<int>(i), ptr);
    if (p.is_buffer()) {
      // data + byte_offset; the runtime checked its alignment, dtype and shape.
      tensors[i] = pi;
      mlir::Value data = LoadField(*this, pi, offsetof(DLTensor, data), ptr);
      mlir::Value offset = LoadField(*this, pi, offsetof(DLTensor, byte_offset), i64);
      data =
          b_.create<mlir::LLVM::GEPOp>(loc_, ptr, b_.getI8Type(), data, mlir::ValueRange{offset});
      args.push_back(MemRefFromPointer(data, mlir::cast<mlir::MemRefType>(types[i])));
      continue;
    }
    ir::DataType dt = p.var->dtype;
    mlir::Value v;
    if (dt.is_integer()) {  // Passed as int64_t.
      v = b_.create<mlir::LLVM::LoadOp>(loc_, i64, pi);
      if (dt.bits() < 64) v = b_.create<mlir::arith::TruncIOp>(loc_, types[i], v);
    } else if (dt.is_bool()) {  // A C bool: one byte.
      v = b_.create<mlir::LLVM::LoadOp>(loc_, b_.getI8Type(), pi);
      v = b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::ne, v,
                                         IntConst(b_.getI8Type(), 0));
    } else {
      v = b_.create<mlir::LLVM::LoadOp>(loc_, types[i], pi);
    }
    args.push_back(v);
  }
  // tensor->shape[dim], narrowed to the variable's type (the runtime checked that the
  // extent is non-negative). An extent beyond a narrower type's range refuses the call
  // instead of wrapping around.
  mlir::Value too_large;
  std::string too_large_names;
  for (const ShapeBinding& sb : shape_bindings) {
    mlir::Value shape = LoadField(*this, tensors[sb.param], offsetof(DLTensor, shape), ptr);
    mlir::Value v = LoadElement(*this, shape, sb.dim, i64);
    mlir::Type vt = ValueType(sb.var->dtype);
    if (vt != i64) {
      const int bits = static_cast<int>(vt.getIntOrFloatBitWidth());
      // The largest extent the type holds: 2^(bits-1) - 1 signed, 2^bits - 1 unsigned.
      const int value_bits = sb.var->dtype.is_uint() ? bits : bits - 1;
      mlir::Value over = b_.create<mlir::arith::CmpIOp>(
          loc_, mlir::arith::CmpIPredicate::ugt, v, IntConst(i64, (int64_t{1} << value_bits) - 1));
      too_large = too_large ? b_.create<mlir::arith::OrIOp>(loc_, too_large, over) : over;
      absl::StrAppend(&too_large_names, too_large_names.empty() ? "" : ", ", sb.var->name, " (",
                      sb.var->dtype.ToString(), ")");
      v = b_.create<mlir::arith::TruncIOp>(loc_, vt, v);
    }
    args.push_back(v);
  }
  if (!too_large) {
    mlir::Value status = b_.create<mlir::func::CallOp>(loc_, kernel, args).getResult(0);
    b_.create<mlir::func::ReturnOp>(loc_, mlir::ValueRange{status});
    return absl::OkStatus();
  }
  auto if_op = b_.create<mlir::scf::IfOp>(loc_, mlir::TypeRange{b_.getI32Type()}, too_large, true);
  b_.setInsertionPointToStart(if_op.thenBlock());
  std::string message =
      absl::StrCat(symbol_, ": a tensor extent does not fit the type of ", too_large_names);
  mlir::Value text = mlir::LLVM::createGlobalString(
      loc_, b_, absl::StrCat("tessel_message_", symbol_, "_", message_count_++), message + '\0',
      mlir::LLVM::Linkage::Internal);
  mlir::func::FuncOp set_error =
      DeclareExternal("tessel_set_last_error", b_.getFunctionType({ptr}, {b_.getI32Type()}));
  b_.create<mlir::func::CallOp>(loc_, set_error, mlir::ValueRange{text});
  b_.create<mlir::scf::YieldOp>(loc_, mlir::ValueRange{IntConst(b_.getI32Type(), 1)});
  b_.setInsertionPointToStart(if_op.elseBlock());
  mlir::Value status = b_.create<mlir::func::CallOp>(loc_, kernel, args).getResult(0);
  b_.create<mlir::scf::YieldOp>(loc_, mlir::ValueRange{status});
  b_.setInsertionPointAfter(if_op);
  b_.create<mlir::func::ReturnOp>(loc_, mlir::ValueRange{if_op.getResult(0)});
  return absl::OkStatus();
}

}  // namespace detail

void LoadCodegenDialects(mlir::MLIRContext* ctx) {
  ctx->loadDialect<mlir::func::FuncDialect, mlir::scf::SCFDialect, mlir::memref::MemRefDialect,
                   mlir::arith::ArithDialect, mlir::math::MathDialect, mlir::vector::VectorDialect,
                   mlir::LLVM::LLVMDialect>();
}

namespace {

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || absl::ascii_isdigit(s[0])) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> TranslateToMLIR(const ir::IRModule& mod,
                                                                   const Target& target,
                                                                   mlir::MLIRContext* ctx) {
  // Machine code runs without the interpreter's checks: refuse what the verifier
  // proves wrong (an access certainly out of bounds, an unbound variable, ...).
  if (target.is_cuda()) {
    return absl::InvalidArgumentError(
        absl::StrCat("codegen: target '", target.ToString(),
                     "' is a GPU: its kernels become PTX "
                     "(codegen/gpu_codegen.h, tessel-opt --emit=ptx), not CPU code"));
  }
  if (absl::Status s = ir::VerifyModule(mod); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("codegen: ", s.message()));
  }
  LoadCodegenDialects(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(mlir::UnknownLoc::get(ctx));
  std::vector<std::string> symbols;
  for (const auto& [name, func] : mod->functions) {
    std::string symbol = name;
    auto it = func->attrs.find("global_symbol");
    if (it != func->attrs.end()) {
      const std::string* s = it->second.get_if<std::string>();
      if (s == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("codegen: function '", name, "': attribute global_symbol must be a string"));
      }
      symbol = *s;
    }
    if (!IsCIdentifier(symbol)) {
      return absl::InvalidArgumentError(absl::StrCat("codegen: function '", name, "': global symbol '",
                                                     symbol, "' is not a C identifier"));
    }
    if (std::find(symbols.begin(), symbols.end(), symbol) != symbols.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("codegen: function '", name, "': global symbol '", symbol, "' is used twice"));
    }
    symbols.push_back(symbol);
    detail::FuncTranslator t(*module, target, name, symbol);
    TESSEL_RETURN_IF_ERROR(t.TranslateFunction(func));
  }
  std::string diagnostics;
  {
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic& d) {
      absl::StrAppend(&diagnostics, d.str(), "\n");
      return mlir::success();
    });
    if (mlir::failed(mlir::verify(*module))) {
      return absl::InternalError(
          absl::StrCat("codegen: the generated MLIR does not verify (a codegen bug): ", diagnostics));
    }
  }
  return module;
}

}  // namespace tessel::codegen
