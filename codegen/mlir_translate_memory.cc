// Buffer accesses and storage: loads, stores, Allocate, and memrefs over raw
// pointers (the packed ABI and parallel closures hand data pointers around).
//
//   A[i]                       memref.load %A[%i]
//   A[ramp(b, 1, 16)]          vector.load %A[%b] : vector<16xf32>     (contiguous)
//   A[broadcast(j, 16)]        memref.load %A[%j] + vector.broadcast   (one address)
//   A[ramp(b, 4, 16)]          vector.gather %A[%c0] [%idx]            (anything else)
//   allocate(T: f32[64], local)  memref.alloca() {alignment = 64} in the entry block
//   allocate(T: f32[n], global)  checked aligned_alloc: a negative or oversized
//                                size, or no memory, sets the status word and
//                                skips the body (the call returns the error)
//
// The element address is elem_offset + index * stride of the buffer (strides of a
// 1-D view), counted from the start of its storage (a DeclBuffer shares its
// source's storage). Bool buffers hold one byte per element.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/mlir_translator.h"
#include "ir/printer.h"
#include "ir/status_macros.h"

namespace tessel::codegen::detail {
namespace {

// Local allocations up to this size live on the stack (and get promoted to
// registers by LLVM when small); larger ones are heap-allocated.
constexpr int64_t kMaxStackBytes = 256 * 1024;
// The largest heap allocation a kernel asks for: far beyond any memory, and small
// enough that rounding it up to the alignment cannot overflow.
constexpr int64_t kMaxHeapBytes = int64_t{1} << 62;

bool IsIntImm(const ir::Expr& e, int64_t v) {
  const auto* imm = ir::dyn_cast<ir::IntImmNode>(e);
  return imm != nullptr && imm->value == v;
}

bool HasUnitStride(const ir::Buffer& buf) {
  return buf->strides.empty() || IsIntImm(buf->strides[0], 1);
}

}  // namespace

mlir::Value FuncTranslator::MemRefFromPointer(mlir::Value ptr, mlir::MemRefType type) {
  mlir::MLIRContext* ctx = b_.getContext();
  mlir::Type p = mlir::LLVM::LLVMPointerType::get(ctx);
  mlir::Type i64 = b_.getI64Type();
  mlir::Type arr = mlir::LLVM::LLVMArrayType::get(i64, 1);
  auto desc_type = mlir::LLVM::LLVMStructType::getLiteral(ctx, {p, p, i64, arr, arr});
  auto c64 = [&](int64_t v) -> mlir::Value {
    return b_.create<mlir::LLVM::ConstantOp>(loc_, i64, b_.getI64IntegerAttr(v));
  };
  int64_t size = type.isDynamicDim(0) ? 0 : type.getDimSize(0);  // Sizes are never read.
  mlir::Value d = b_.create<mlir::LLVM::UndefOp>(loc_, desc_type);
  d = b_.create<mlir::LLVM::InsertValueOp>(loc_, d, ptr, llvm::ArrayRef<int64_t>{0});
  d = b_.create<mlir::LLVM::InsertValueOp>(loc_, d, ptr, llvm::ArrayRef<int64_t>{1});
  d = b_.create<mlir::LLVM::InsertValueOp>(loc_, d, c64(0), llvm::ArrayRef<int64_t>{2});
  d = b_.create<mlir::LLVM::InsertValueOp>(loc_, d, c64(size), llvm::ArrayRef<int64_t>{3, 0});
  d = b_.create<mlir::LLVM::InsertValueOp>(loc_, d, c64(1), llvm::ArrayRef<int64_t>{4, 0});
  return b_.create<mlir::UnrealizedConversionCastOp>(loc_, mlir::TypeRange{type}, mlir::ValueRange{d})
      .getResult(0);
}

namespace {

struct Access {
  mlir::Value memref;
  enum Kind { kScalar, kContiguous, kBroadcast, kGather } kind;
  mlir::Value index;      // Scalar element index (kScalar, kContiguous, kBroadcast).
  mlir::Value index_vec;  // Per-lane element indices, relative to `base` (kGather).
  mlir::Value base;       // Index added to index_vec (kGather).
};

// Resolves buffer[index] to an access; the error names the buffer.
absl::StatusOr<Access> ResolveAccess(FuncTranslator& t, const ir::Node* where, const ir::Buffer& buf,
                                     const std::vector<ir::Expr>& indices) {
  auto it = t.buffers_.find(buf.get());
  if (it == t.buffers_.end()) {
    return t.Error(where, absl::StrCat("buffer '", buf->name, "' is not bound here"));
  }
  if (indices.size() != 1) {
    return t.Error(where, absl::StrCat("buffer '", buf->name, "' is accessed with ", indices.size(),
                                       " indices; codegen takes lowered IR with 1-D buffers: run "
                                       "the 'lower' pipeline first"));
  }
  Access a;
  a.memref = it->second;
  mlir::OpBuilder& b = t.b_;
  mlir::Value offset;  // index, elem_offset of the buffer.
  if (buf->elem_offset && !IsIntImm(buf->elem_offset, 0)) {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value o, t.Expr(buf->elem_offset));
    offset = t.IndexValue(o);
  }
  mlir::Value stride;  // index; null for 1.
  if (!HasUnitStride(buf)) {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value s, t.Expr(buf->strides[0]));
    stride = t.IndexValue(s);
  }
  auto scalar_index = [&](const ir::Expr& e) -> absl::StatusOr<mlir::Value> {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(e));
    v = t.IndexValue(v);
    if (stride) v = b.create<mlir::arith::MulIOp>(t.loc_, v, stride);
    if (offset) v = b.create<mlir::arith::AddIOp>(t.loc_, v, offset);
    return v;
  };
  const ir::Expr& idx = indices[0];
  if (idx->dtype.is_scalar()) {
    a.kind = Access::kScalar;
    TESSEL_ASSIGN_OR_RETURN(a.index, scalar_index(idx));
    return a;
  }
  if (const auto* ramp = ir::dyn_cast<ir::RampNode>(idx); ramp && !stride && IsIntImm(ramp->stride, 1)) {
    a.kind = Access::kContiguous;
    TESSEL_ASSIGN_OR_RETURN(a.index, scalar_index(ramp->base));
    return a;
  }
  if (const auto* bc = ir::dyn_cast<ir::BroadcastNode>(idx)) {
    a.kind = Access::kBroadcast;
    TESSEL_ASSIGN_OR_RETURN(a.index, scalar_index(bc->value));
    return a;
  }
  a.kind = Access::kGather;
  TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(idx));
  if (!HasUnitStride(buf)) {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value s, t.Expr(buf->strides[0]));
    mlir::Type et = mlir::cast<mlir::VectorType>(v.getType()).getElementType();
    if (s.getType() != et) s = b.create<mlir::arith::IndexCastOp>(t.loc_, et, t.IndexValue(s));
    v = b.create<mlir::arith::MulIOp>(t.loc_, v, b.create<mlir::vector::BroadcastOp>(t.loc_, v.getType(), s));
  }
  a.index_vec = v;
  a.base = offset ? offset : mlir::Value(b.create<mlir::arith::ConstantIndexOp>(t.loc_, 0));
  return a;
}

mlir::Value AllTrueMask(mlir::OpBuilder& b, mlir::Location loc, int lanes) {
  auto mt = mlir::VectorType::get({lanes}, b.getI1Type());
  return b.create<mlir::arith::ConstantOp>(loc, mlir::DenseElementsAttr::get(mt, true));
}

}  // namespace

absl::StatusOr<mlir::Value> FuncTranslator::LoadBuffer(const ir::BufferLoadNode* op) {
  TESSEL_ASSIGN_OR_RETURN(Access a, ResolveAccess(*this, op, op->buffer, op->indices));
  ir::DataType dt = op->dtype;
  mlir::Type st = StorageType(dt);
  int lanes = dt.lanes();
  auto vt = mlir::VectorType::get({lanes}, st);
  mlir::Value v;
  switch (a.kind) {
    case Access::kScalar:
      v = b_.create<mlir::memref::LoadOp>(loc_, a.memref, mlir::ValueRange{a.index});
      break;
    case Access::kContiguous:
      v = b_.create<mlir::vector::LoadOp>(loc_, vt, a.memref, mlir::ValueRange{a.index});
      break;
    case Access::kBroadcast:
      v = b_.create<mlir::memref::LoadOp>(loc_, a.memref, mlir::ValueRange{a.index});
      v = b_.create<mlir::vector::BroadcastOp>(loc_, vt, v);
      break;
    case Access::kGather: {
      mlir::Value pass = b_.create<mlir::arith::ConstantOp>(
          loc_, mlir::DenseElementsAttr::get(vt, b_.getZeroAttr(st)));
      v = b_.create<mlir::vector::GatherOp>(loc_, vt, a.memref, mlir::ValueRange{a.base}, a.index_vec,
                                            AllTrueMask(b_, loc_, lanes), pass);
      break;
    }
  }
  if (dt.is_bool()) {
    v = b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::ne, v, IntConst(v.getType(), 0));
  }
  return v;
}

absl::Status FuncTranslator::StoreBuffer(const ir::BufferStoreNode* op) {
  TESSEL_ASSIGN_OR_RETURN(mlir::Value v, Expr(op->value));
  TESSEL_ASSIGN_OR_RETURN(Access a, ResolveAccess(*this, op, op->buffer, op->indices));
  ir::DataType dt = op->value->dtype;
  if (dt.is_bool()) v = b_.create<mlir::arith::ExtUIOp>(loc_, ValueType(ir::DataType::UInt(8, dt.lanes())), v);
  int lanes = dt.lanes();
  switch (a.kind) {
    case Access::kScalar:
      if (lanes != 1) return Error(op, "a vector value stored at a scalar index");
      b_.create<mlir::memref::StoreOp>(loc_, v, a.memref, mlir::ValueRange{a.index});
      break;
    case Access::kContiguous:
      b_.create<mlir::vector::StoreOp>(loc_, v, a.memref, mlir::ValueRange{a.index});
      break;
    case Access::kBroadcast: {
      // Every lane writes the same element: the last lane wins.
      mlir::Value last = b_.create<mlir::vector::ExtractOp>(loc_, v, int64_t{lanes - 1});
      b_.create<mlir::memref::StoreOp>(loc_, last, a.memref, mlir::ValueRange{a.index});
      break;
    }
    case Access::kGather:
      b_.create<mlir::vector::ScatterOp>(loc_, a.memref, mlir::ValueRange{a.base}, a.index_vec,
                                         AllTrueMask(b_, loc_, lanes), v);
      break;
  }
  return absl::OkStatus();
}

absl::StatusOr<mlir::Value> FuncTranslator::ElementAddress(const ir::CallNode* address_of) {
  const auto* ld = ir::cast<ir::BufferLoadNode>(address_of->args[0]);
  TESSEL_ASSIGN_OR_RETURN(Access a, ResolveAccess(*this, address_of, ld->buffer, ld->indices));
  if (a.kind != Access::kScalar) return Error(address_of, "address_of a vector of elements");
  mlir::Type i64 = b_.getI64Type();
  mlir::Value base = b_.create<mlir::memref::ExtractAlignedPointerAsIndexOp>(loc_, a.memref);
  const int64_t elem_bytes = (StorageType(ld->buffer->dtype).getIntOrFloatBitWidth() + 7) / 8;
  mlir::Value bytes = b_.create<mlir::arith::MulIOp>(
      loc_, a.index, b_.create<mlir::arith::ConstantIndexOp>(loc_, elem_bytes));
  mlir::Value addr = b_.create<mlir::arith::AddIOp>(loc_, base, bytes);
  return mlir::Value(b_.create<mlir::arith::IndexCastOp>(loc_, i64, addr));
}

void FuncTranslator::InitStatus() {
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(entry_);
  mlir::Type i32 = b_.getI32Type();
  mlir::Value one = b_.create<mlir::LLVM::ConstantOp>(loc_, b_.getI64Type(), b_.getI64IntegerAttr(1));
  status_ = b_.create<mlir::LLVM::AllocaOp>(
      loc_, mlir::LLVM::LLVMPointerType::get(b_.getContext()), i32, one, 4);
  b_.create<mlir::LLVM::StoreOp>(loc_, IntConst(i32, 0), status_);
}

mlir::Value FuncTranslator::LoadStatus() {
  return b_.create<mlir::LLVM::LoadOp>(loc_, b_.getI32Type(), status_);
}

mlir::func::FuncOp FuncTranslator::DeclareExternal(const std::string& name,
                                                   mlir::FunctionType type) {
  if (auto f = module_.lookupSymbol<mlir::func::FuncOp>(name)) return f;
  mlir::OpBuilder mb(module_.getBodyRegion());
  auto f = mb.create<mlir::func::FuncOp>(loc_, name, type);
  f.setPrivate();
  return f;
}

void FuncTranslator::Fail(const std::string& message) {
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b_.getContext());
  mlir::Type i32 = b_.getI32Type();
  std::string global = absl::StrCat("tessel_message_", symbol_, "_", message_count_++);
  mlir::Value text = mlir::LLVM::createGlobalString(loc_, b_, global, std::string(message) + '\0',
                                                    mlir::LLVM::Linkage::Internal);
  mlir::func::FuncOp set_error =
      DeclareExternal("tessel_set_last_error", b_.getFunctionType({ptr}, {i32}));
  b_.create<mlir::func::CallOp>(loc_, set_error, mlir::ValueRange{text});
  b_.create<mlir::LLVM::StoreOp>(loc_, IntConst(i32, 1), status_);
}

absl::Status FuncTranslator::Allocate(const ir::AllocateNode* op) {
  const ir::Buffer& buf = op->buffer;
  mlir::MemRefType type = MemRefTypeOf(buf);
  const int64_t alignment = std::max(buf->alignment, ir::kDefaultBufferAlignment);
  const int64_t elem_bytes = (type.getElementTypeBitWidth() + 7) / 8;
  if (auto shared = shared_storage_.find(buf.get()); shared != shared_storage_.end()) {
    buffers_[buf.get()] = shared->second;
    absl::Status s = Stmt(op->body);
    buffers_.erase(buf.get());
    return s;
  }
  if (type.hasStaticShape() && buf->strides.empty()) {
    int64_t bytes = 0;
    if (!__builtin_mul_overflow(type.getDimSize(0), elem_bytes, &bytes) &&
        bytes <= kMaxStackBytes) {
      // In the entry block, so that a loop around the Allocate does not grow the
      // stack and LLVM can promote small buffers to registers.
      mlir::Value m;
      {
        mlir::OpBuilder::InsertionGuard guard(b_);
        b_.setInsertionPointToStart(entry_);
        m = b_.create<mlir::memref::AllocaOp>(loc_, type, b_.getI64IntegerAttr(alignment));
      }
      buffers_[buf.get()] = m;
      absl::Status s = Stmt(op->body);
      buffers_.erase(buf.get());
      return s;
    }
  }
  if (in_gpu_kernel_) {
    return Error(op, absl::StrCat("buffer '", buf->name, "' (scope ", buf->scope,
                                  ") is too large for a GPU thread's local memory"));
  }
  // On the heap, checked: the size (the product of the extents, or of the extents
  // and strides) must be non-negative and below kMaxHeapBytes, the function must not
  // have failed already, and aligned_alloc must succeed; otherwise the body is
  // skipped and the call reports which buffer could not be allocated.
  mlir::Type i1 = b_.getI1Type(), i64 = b_.getI64Type();
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b_.getContext());
  auto c64 = [&](int64_t v) { return IntConst(i64, v); };
  auto to_i64 = [&](mlir::Value v) -> mlir::Value {
    if (v.getType().isIndex()) return b_.create<mlir::arith::IndexCastOp>(loc_, i64, v);
    if (v.getType().getIntOrFloatBitWidth() < 64) return b_.create<mlir::arith::ExtSIOp>(loc_, i64, v);
    return v;
  };
  using Pred = mlir::arith::CmpIPredicate;
  mlir::Value bytes = c64(elem_bytes);
  mlir::Value ok = IntConst(i1, 1);
  auto times = [&](mlir::Value factor) {  // bytes *= factor, with ok tracking the range.
    mlir::Value zero = b_.create<mlir::arith::CmpIOp>(loc_, Pred::eq, factor, c64(0));
    mlir::Value divisor = b_.create<mlir::arith::SelectOp>(loc_, zero, c64(1), factor);
    mlir::Value room = b_.create<mlir::arith::DivSIOp>(loc_, c64(kMaxHeapBytes), divisor);
    mlir::Value fits = b_.create<mlir::arith::OrIOp>(
        loc_, zero, b_.create<mlir::arith::CmpIOp>(loc_, Pred::sle, bytes, room));
    mlir::Value non_negative = b_.create<mlir::arith::CmpIOp>(loc_, Pred::sge, factor, c64(0));
    ok = b_.create<mlir::arith::AndIOp>(
        loc_, ok, b_.create<mlir::arith::AndIOp>(loc_, fits, non_negative));
    bytes = b_.create<mlir::arith::MulIOp>(loc_, bytes, factor);
  };
  std::vector<std::string> extents;
  for (int d = 0; d < buf->ndim(); ++d) {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value e, Expr(buf->shape[d]));
    times(to_i64(e));
    extents.push_back(ir::PrintExpr(buf->shape[d]));
    if (!buf->strides.empty()) {
      TESSEL_ASSIGN_OR_RETURN(mlir::Value st, Expr(buf->strides[d]));
      times(to_i64(st));
    }
  }
  ok = b_.create<mlir::arith::AndIOp>(
      loc_, ok, b_.create<mlir::arith::CmpIOp>(loc_, Pred::eq, LoadStatus(), IntConst(b_.getI32Type(), 0)));
  // aligned_alloc wants a multiple of the alignment, and may return NULL for 0.
  mlir::Value rounded = b_.create<mlir::arith::AndIOp>(
      loc_, b_.create<mlir::arith::AddIOp>(loc_, bytes, c64(alignment - 1)), c64(-alignment));
  rounded = b_.create<mlir::arith::MaxSIOp>(loc_, rounded, c64(alignment));
  auto alloc = b_.create<mlir::scf::IfOp>(loc_, mlir::TypeRange{ptr}, ok, /*withElseRegion=*/true);
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(alloc.thenBlock());
    mlir::func::FuncOp aligned_alloc =
        DeclareExternal("aligned_alloc", b_.getFunctionType({i64, i64}, {ptr}));
    mlir::Value p =
        b_.create<mlir::func::CallOp>(loc_, aligned_alloc, mlir::ValueRange{c64(alignment), rounded})
            .getResult(0);
    b_.create<mlir::scf::YieldOp>(loc_, p);
    b_.setInsertionPointToStart(alloc.elseBlock());
    b_.create<mlir::scf::YieldOp>(loc_, mlir::Value(b_.create<mlir::LLVM::ZeroOp>(loc_, ptr)));
  }
  mlir::Value p = alloc.getResult(0);
  mlir::Value got = b_.create<mlir::LLVM::ICmpOp>(loc_, mlir::LLVM::ICmpPredicate::ne, p,
                                                  b_.create<mlir::LLVM::ZeroOp>(loc_, ptr));
  auto use = b_.create<mlir::scf::IfOp>(loc_, got, /*withElseRegion=*/true);
  absl::Status s;
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(use.thenBlock()->getTerminator());
    auto dyn = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, type.getElementType());
    buffers_[buf.get()] = MemRefFromPointer(p, dyn);
    s = Stmt(op->body);
    buffers_.erase(buf.get());
    mlir::func::FuncOp free_fn = DeclareExternal("free", b_.getFunctionType({ptr}, {}));
    b_.create<mlir::func::CallOp>(loc_, free_fn, mlir::ValueRange{p});
    b_.setInsertionPoint(use.elseBlock()->getTerminator());
    Fail(absl::StrCat("function '", func_name_, "': cannot allocate buffer '", buf->name, "' (",
                      buf->dtype.ToString(), "[", absl::StrJoin(extents, ", "),
                      "]): out of memory, or a size that is negative or beyond 2^62 bytes"));
  }
  return s;
}

}  // namespace tessel::codegen::detail
