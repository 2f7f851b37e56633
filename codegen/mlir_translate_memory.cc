// Buffer accesses and storage: loads, stores, Allocate, and memrefs over raw
// pointers (the packed ABI and parallel closures hand data pointers around).
//
//   A[i]                       memref.load %A[%i]
//   A[ramp(b, 1, 16)]          vector.load %A[%b] : vector<16xf32>     (contiguous)
//   A[broadcast(j, 16)]        memref.load %A[%j] + vector.broadcast   (one address)
//   A[ramp(b, 4, 16)]          vector.gather %A[%c0] [%idx]            (anything else)
//   allocate(T: f32[64], local)  memref.alloca() {alignment = 64} in the entry block
//
// The element address is elem_offset + index * stride of the buffer (strides of a
// 1-D view), counted from the start of its storage (a DeclBuffer shares its
// source's storage). Bool buffers hold one byte per element.
#include "absl/strings/str_cat.h"
#include "codegen/mlir_translator.h"
#include "ir/status_macros.h"

namespace tessel::codegen::detail {
namespace {

// Local allocations up to this size live on the stack (and get promoted to
// registers by LLVM when small); larger ones are heap-allocated.
constexpr int64_t kMaxStackBytes = 256 * 1024;

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

absl::Status FuncTranslator::Allocate(const ir::AllocateNode* op) {
  const ir::Buffer& buf = op->buffer;
  mlir::MemRefType type = MemRefTypeOf(buf);
  mlir::IntegerAttr align = b_.getI64IntegerAttr(std::max(buf->alignment, ir::kDefaultBufferAlignment));
  mlir::Value m;
  bool heap = true;
  if (type.hasStaticShape() && buf->strides.empty()) {
    int64_t bytes = type.getDimSize(0) * ((type.getElementTypeBitWidth() + 7) / 8);
    if (bytes <= kMaxStackBytes) {
      // In the entry block, so that a loop around the Allocate does not grow the
      // stack and LLVM can promote small buffers to registers.
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(entry_);
      m = b_.create<mlir::memref::AllocaOp>(loc_, type, align);
      heap = false;
    }
  }
  if (heap) {
    // Size: the product of the shape (or the extent reached through strides).
    mlir::Value n = b_.create<mlir::arith::ConstantIndexOp>(loc_, 1);
    for (int d = 0; d < buf->ndim(); ++d) {
      TESSEL_ASSIGN_OR_RETURN(mlir::Value e, Expr(buf->shape[d]));
      mlir::Value ext = IndexValue(e);
      if (!buf->strides.empty()) {
        TESSEL_ASSIGN_OR_RETURN(mlir::Value s, Expr(buf->strides[d]));
        ext = b_.create<mlir::arith::MulIOp>(loc_, ext, IndexValue(s));
      }
      n = b_.create<mlir::arith::MulIOp>(loc_, n, ext);
    }
    auto dyn = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, type.getElementType());
    m = b_.create<mlir::memref::AllocOp>(loc_, dyn, mlir::ValueRange{n}, align);
  }
  buffers_[buf.get()] = m;
  absl::Status s = Stmt(op->body);
  buffers_.erase(buf.get());
  if (heap) b_.create<mlir::memref::DeallocOp>(loc_, m);
  return s;
}

}  // namespace tessel::codegen::detail
