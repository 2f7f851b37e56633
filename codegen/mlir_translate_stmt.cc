// IR statements -> MLIR: loops, conditionals and the outlining of parallel loops
// (functions and the packed ABI wrapper: mlir_translate_function.cc).
//
//   func @add(A: f32[1000], B: f32[1000]) attrs {global_symbol = "add"} {
//     for i in parallel(0, 1000) { B[i] = A[i] + 1.0f32 }
//   }
// becomes
//   func.func private @tessel_kernel_add(%A: memref<1000xf32> {llvm.noalias}, %B: ...) -> i32 {
//     (status word: alloca i32 <- 0; closure: alloca [2 x i64] <- aligned pointers of A, B)
//     %rc = func.call @tessel_parallel_for(%c1000_i64, @tessel_kernel_add_parallel0, %closure)
//     (status <- rc unless already non-zero; returns status)
//   }
//   func.func private @tessel_kernel_add_parallel0(%begin: i64, %end: i64, %closure) -> i32
//     (unpacks A, B from the closure, returns ..._parallel0_impl(begin, end, A, B))
//   func.func private @tessel_kernel_add_parallel0_impl(%begin, %end, %A, %B) -> i32 {
//     scf.for %i = %begin to %end { B[i] = A[i] + 1 }   (returns its own status word)
//   }
//   func.func @tessel_packed_add(%args: !llvm.ptr, %num_args: i32) -> i32
//     (args[0], args[1] are DLTensor*: memrefs over data + byte_offset of each; a shape
//     variable no scalar parameter passes, as in `func @f[n](A: f32[n])`, is read from
//     the first tensor whose dimension names it and passed to the kernel after the
//     parameters; returns @tessel_kernel_add's status)
//
// Buffers passed to one function must not overlap where one is written (they are
// marked noalias, like C's restrict): LLVM then keeps loads and stores of different
// buffers apart. The runtime refuses calls that break this (CheckWrittenDisjoint).
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

constexpr const char* kParallelFor = "tessel_parallel_for";

// The vars and buffers a statement refers to (for closures).
class UsedNames : public ir::IRVisitor {
 public:
  std::vector<const ir::VarNode*> vars;
  std::vector<const ir::BufferNode*> buffers;

  void VisitVar(const ir::VarNode* op) override { AddVar(op); }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    AddBuffer(op->buffer);
    ir::IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    AddBuffer(op->buffer);
    ir::IRVisitor::VisitBufferStore(op);
  }
  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    AddBuffer(op->source);
    ir::IRVisitor::VisitDeclBuffer(op);
  }
  void VisitBufferDef(const ir::Buffer& b) override {
    // Uses of a buffer's layout (elem_offset, strides) refer to vars too.
    ir::IRVisitor::VisitBufferDef(b);
  }

 private:
  void AddVar(const ir::VarNode* v) {
    if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
  }
  void AddBuffer(const ir::Buffer& b) {
    if (std::find(buffers.begin(), buffers.end(), b.get()) == buffers.end()) {
      buffers.push_back(b.get());
      if (b->elem_offset) VisitExpr(b->elem_offset);
      for (const ir::Expr& s : b->strides) VisitExpr(s);
    }
  }
};


// Closure slots are i64: scalars are widened or bit-cast, memrefs and pointers
// stored as addresses, vectors one lane per slot.
int SlotCount(mlir::Type type) {
  auto vt = mlir::dyn_cast<mlir::VectorType>(type);
  return vt ? static_cast<int>(vt.getNumElements()) : 1;
}

mlir::Value ToSlot(FuncTranslator& t, mlir::Value v) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type i64 = b.getI64Type();
  mlir::Type type = v.getType();
  if (mlir::isa<mlir::MemRefType>(type)) {
    mlir::Value p = b.create<mlir::memref::ExtractAlignedPointerAsIndexOp>(t.loc_, v);
    return b.create<mlir::arith::IndexCastOp>(t.loc_, i64, p);
  }
  if (mlir::isa<mlir::LLVM::LLVMPointerType>(type)) return b.create<mlir::LLVM::PtrToIntOp>(t.loc_, i64, v);
  if (type.isIndex()) return b.create<mlir::arith::IndexCastOp>(t.loc_, i64, v);
  if (auto ft = mlir::dyn_cast<mlir::FloatType>(type)) {
    v = b.create<mlir::arith::BitcastOp>(t.loc_, b.getIntegerType(ft.getWidth()), v);
    type = v.getType();
  }
  if (type.getIntOrFloatBitWidth() == 64) return v;
  return b.create<mlir::arith::ExtUIOp>(t.loc_, i64, v);
}

mlir::Value FromSlot(FuncTranslator& t, mlir::Value slot, mlir::Type type) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  if (auto mt = mlir::dyn_cast<mlir::MemRefType>(type)) {
    return t.MemRefFromPointer(b.create<mlir::LLVM::IntToPtrOp>(t.loc_, ptr, slot), mt);
  }
  if (mlir::isa<mlir::LLVM::LLVMPointerType>(type)) return b.create<mlir::LLVM::IntToPtrOp>(t.loc_, ptr, slot);
  if (type.isIndex()) return b.create<mlir::arith::IndexCastOp>(t.loc_, type, slot);
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 64) slot = b.create<mlir::arith::TruncIOp>(t.loc_, b.getIntegerType(bits), slot);
  if (mlir::isa<mlir::FloatType>(type)) slot = b.create<mlir::arith::BitcastOp>(t.loc_, type, slot);
  return slot;
}

}  // namespace

// A load of the i-th i64/pointer element of an array at `base` (an !llvm.ptr).
mlir::Value LoadElement(FuncTranslator& t, mlir::Value base, int i, mlir::Type type) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  mlir::Value p = b.create<mlir::LLVM::GEPOp>(t.loc_, ptr, type, base,
                                              llvm::ArrayRef<mlir::LLVM::GEPArg>{i});
  return b.create<mlir::LLVM::LoadOp>(t.loc_, type, p);
}

mlir::func::FuncOp DeclareParallelFor(FuncTranslator& t, mlir::FunctionType body_type) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  return t.DeclareExternal(
      kParallelFor, b.getFunctionType({b.getI64Type(), body_type, ptr}, {b.getI32Type()}));
}

// Marks the memref arguments noalias. The func-to-llvm conversion drops
// `llvm.noalias` on memrefs, so the positions of their aligned pointers in the
// lowered signature (a rank-1 memref becomes 5 arguments, the aligned pointer
// second) are recorded in kNoAliasAttr; mlir_lower.cc applies them.
void MarkNoAlias(mlir::func::FuncOp f) {
  std::vector<int64_t> positions;
  int64_t p = 0;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    if (mlir::isa<mlir::MemRefType>(f.getArgument(i).getType())) {
      f.setArgAttr(i, "llvm.noalias", mlir::UnitAttr::get(f.getContext()));
      positions.push_back(p + 1);
      p += 5;
    } else {
      p += 1;
    }
  }
  mlir::OpBuilder b(f.getContext());
  f->setAttr(kNoAliasAttr, b.getI64ArrayAttr(positions));
}

mlir::func::FuncOp NewFunction(FuncTranslator& t, const std::string& name, mlir::FunctionType type,
                               bool is_private) {
  mlir::OpBuilder mb = mlir::OpBuilder::atBlockEnd(t.module_.getBody());
  auto f = mb.create<mlir::func::FuncOp>(t.loc_, name, type);
  if (is_private) f.setPrivate();
  f.addEntryBlock();
  return f;
}

void AssumeAligned(FuncTranslator& t, mlir::Value memref, int alignment) {
  t.b_.create<mlir::memref::AssumeAlignmentOp>(t.loc_, memref, alignment);
}

namespace {

// Outlines `op` (a parallel loop) into a body function called through
// tessel_parallel_for with a closure of what the loop uses.
absl::Status Outline(FuncTranslator& t, const ir::ForNode* op) {
  mlir::OpBuilder& b = t.b_;
  UsedNames used;
  used.VisitStmt(ir::GetRef<ir::StmtNode>(op));
  // Captured values: memrefs first, then scalars; each once.
  std::vector<mlir::Value> memrefs, scalars;
  auto add = [](std::vector<mlir::Value>& list, mlir::Value v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  for (const ir::BufferNode* buf : used.buffers) {
    auto it = t.buffers_.find(buf);
    if (it != t.buffers_.end()) add(memrefs, it->second);
  }
  for (const ir::VarNode* v : used.vars) {
    auto it = t.vars_.find(v);
    if (it != t.vars_.end()) add(scalars, it->second);
  }
  std::vector<mlir::Value> captured = memrefs;
  captured.insert(captured.end(), scalars.begin(), scalars.end());

  std::string name = absl::StrCat("tessel_kernel_", t.symbol_, "_parallel", t.outlined_count_++);
  mlir::Type i64 = b.getI64Type(), i32 = b.getI32Type();
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());

  // The implementation: a serial loop over [begin, end) with captured values as arguments.
  std::vector<mlir::Type> impl_args = {i64, i64};
  for (mlir::Value v : captured) impl_args.push_back(v.getType());
  auto impl = NewFunction(t, name + "_impl", b.getFunctionType(impl_args, {i32}), true);
  MarkNoAlias(impl);
  auto body_type = b.getFunctionType({i64, i64, ptr}, {i32});
  auto body = NewFunction(t, name, body_type, true);

  // Translate the loop inside the implementation, with the environment remapped.
  auto saved_vars = t.vars_;
  auto saved_buffers = t.buffers_;
  mlir::Block* saved_entry = t.entry_;
  mlir::Value saved_status = t.status_;
  mlir::OpBuilder::InsertPoint saved_ip = b.saveInsertionPoint();
  absl::Status status;
  {
    mlir::Block* entry = &impl.getBody().front();
    t.entry_ = entry;
    b.setInsertionPointToStart(entry);
    t.InitStatus();
    auto remap = [&](mlir::Value outer) -> mlir::Value {
      for (size_t i = 0; i < captured.size(); ++i) {
        if (captured[i] == outer) return entry->getArgument(2 + i);
      }
      return mlir::Value();
    };
    t.vars_.clear();
    t.buffers_.clear();
    for (auto& [v, value] : saved_vars) {
      if (mlir::Value inner = remap(value)) t.vars_[v] = inner;
    }
    for (auto& [buf, value] : saved_buffers) {
      if (mlir::Value inner = remap(value)) t.buffers_[buf] = inner;
    }
    for (size_t i = 0; i < memrefs.size(); ++i) AssumeAligned(t, entry->getArgument(2 + i), 64);
    absl::StatusOr<mlir::Value> min = t.Expr(op->min);
    if (!min.ok()) {
      status = min.status();
    } else {
      mlir::Value one = b.create<mlir::arith::ConstantIndexOp>(t.loc_, 1);
      auto loop = b.create<mlir::scf::ForOp>(t.loc_, t.IndexValue(entry->getArgument(0)),
                                             t.IndexValue(entry->getArgument(1)), one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      mlir::Type vt = t.ValueType(op->loop_var->dtype);
      mlir::Value iv = b.create<mlir::arith::IndexCastOp>(t.loc_, vt, loop.getInductionVar());
      t.vars_[op->loop_var.get()] = b.create<mlir::arith::AddIOp>(t.loc_, *min, iv);
      status = t.Stmt(op->body);
      b.setInsertionPointToEnd(entry);
      b.create<mlir::func::ReturnOp>(t.loc_, mlir::ValueRange{t.LoadStatus()});
    }
  }
  // The body: unpack the closure, call the implementation.
  if (status.ok()) {
    mlir::Block* entry = &body.getBody().front();
    t.entry_ = entry;
    b.setInsertionPointToStart(entry);
    std::vector<mlir::Value> args = {entry->getArgument(0), entry->getArgument(1)};
    int slot = 0;
    for (mlir::Value v : captured) {
      mlir::Type type = v.getType();
      auto vt = mlir::dyn_cast<mlir::VectorType>(type);
      if (!vt) {
        args.push_back(FromSlot(t, LoadElement(t, entry->getArgument(2), slot++, i64), type));
        continue;
      }
      mlir::Value vec = b.create<mlir::arith::ConstantOp>(t.loc_, b.getZeroAttr(vt));
      for (int64_t l = 0; l < vt.getNumElements(); ++l) {
        mlir::Value lane =
            FromSlot(t, LoadElement(t, entry->getArgument(2), slot++, i64), vt.getElementType());
        vec = b.create<mlir::vector::InsertOp>(t.loc_, lane, vec, l);
      }
      args.push_back(vec);
    }
    mlir::Value rc = b.create<mlir::func::CallOp>(t.loc_, impl, args).getResult(0);
    b.create<mlir::func::ReturnOp>(t.loc_, mlir::ValueRange{rc});
  }
  t.vars_ = std::move(saved_vars);
  t.buffers_ = std::move(saved_buffers);
  t.entry_ = saved_entry;
  t.status_ = saved_status;
  b.restoreInsertionPoint(saved_ip);
  TESSEL_RETURN_IF_ERROR(status);

  // The call site: fill the closure, run the loop on the runtime's threads.
  mlir::Value closure;
  {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(t.entry_);
    int64_t slots = 0;
    for (mlir::Value v : captured) slots += SlotCount(v.getType());
    mlir::Value n = b.create<mlir::LLVM::ConstantOp>(t.loc_, i64, b.getI64IntegerAttr(
                                                                      std::max<int64_t>(slots, 1)));
    closure = b.create<mlir::LLVM::AllocaOp>(t.loc_, ptr, i64, n, 8);
  }
  int slot = 0;
  for (mlir::Value v : captured) {
    int lanes = SlotCount(v.getType());
    for (int l = 0; l < lanes; ++l) {
      mlir::Value lane = mlir::isa<mlir::VectorType>(v.getType())
                             ? mlir::Value(b.create<mlir::vector::ExtractOp>(t.loc_, v, int64_t{l}))
                             : v;
      mlir::Value p = b.create<mlir::LLVM::GEPOp>(t.loc_, ptr, i64, closure,
                                                  llvm::ArrayRef<mlir::LLVM::GEPArg>{slot++});
      b.create<mlir::LLVM::StoreOp>(t.loc_, ToSlot(t, lane), p);
    }
  }
  TESSEL_ASSIGN_OR_RETURN(mlir::Value extent, t.Expr(op->extent));
  if (extent.getType() != i64) extent = b.create<mlir::arith::ExtSIOp>(t.loc_, i64, extent);
  mlir::func::FuncOp pfor = DeclareParallelFor(t, body_type);
  mlir::Value fn = b.create<mlir::func::ConstantOp>(t.loc_, body_type, name);
  mlir::Value rc =
      b.create<mlir::func::CallOp>(t.loc_, pfor, mlir::ValueRange{extent, fn, closure}).getResult(0);
  // The first failure wins: a body's status only where none was recorded yet.
  mlir::Value before = t.LoadStatus();
  mlir::Value clean = b.create<mlir::arith::CmpIOp>(t.loc_, mlir::arith::CmpIPredicate::eq, before,
                                                    t.IntConst(i32, 0));
  b.create<mlir::LLVM::StoreOp>(t.loc_, b.create<mlir::arith::SelectOp>(t.loc_, clean, rc, before),
                                t.status_);
  return absl::OkStatus();
}

absl::Status SerialFor(FuncTranslator& t, const ir::ForNode* op) {
  mlir::OpBuilder& b = t.b_;
  TESSEL_ASSIGN_OR_RETURN(mlir::Value min, t.Expr(op->min));
  TESSEL_ASSIGN_OR_RETURN(mlir::Value extent, t.Expr(op->extent));
  mlir::Value max = b.create<mlir::arith::AddIOp>(t.loc_, min, extent);
  mlir::Value one = t.IntConst(min.getType(), 1);
  auto loop = b.create<mlir::scf::ForOp>(t.loc_, min, max, one);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  t.vars_[op->loop_var.get()] = loop.getInductionVar();
  absl::Status s = t.Stmt(op->body);
  t.vars_.erase(op->loop_var.get());
  return s;
}

}  // namespace

absl::Status FuncTranslator::Stmt(const ir::Stmt& s) {
  switch (s->kind()) {
    case ir::NodeKind::kBufferStore: return StoreBuffer(ir::cast<ir::BufferStoreNode>(s));
    case ir::NodeKind::kFor: {
      const auto* op = ir::cast<ir::ForNode>(s);
      if (op->for_kind == ir::ForKind::kParallel && !in_gpu_kernel_) return Outline(*this, op);
      if (op->for_kind == ir::ForKind::kThreadBinding) return ThreadFor(op);
      return SerialFor(*this, op);
    }
    case ir::NodeKind::kIfThenElse: {
      const auto* op = ir::cast<ir::IfThenElseNode>(s);
      TESSEL_ASSIGN_OR_RETURN(mlir::Value c, Expr(op->condition));
      auto if_op = b_.create<mlir::scf::IfOp>(loc_, c, op->else_case.defined());
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPoint(if_op.thenBlock()->getTerminator());
      TESSEL_RETURN_IF_ERROR(Stmt(op->then_case));
      if (op->else_case) {
        b_.setInsertionPoint(if_op.elseBlock()->getTerminator());
        TESSEL_RETURN_IF_ERROR(Stmt(op->else_case));
      }
      return absl::OkStatus();
    }
    case ir::NodeKind::kLetStmt: {
      const auto* op = ir::cast<ir::LetStmtNode>(s);
      TESSEL_ASSIGN_OR_RETURN(mlir::Value v, Expr(op->value));
      vars_[op->var.get()] = v;
      absl::Status st = Stmt(op->body);
      vars_.erase(op->var.get());
      return st;
    }
    case ir::NodeKind::kSeqStmt:
      for (const ir::Stmt& c : ir::cast<ir::SeqStmtNode>(s)->seq) TESSEL_RETURN_IF_ERROR(Stmt(c));
      return absl::OkStatus();
    case ir::NodeKind::kEvaluate: {
      const auto* op = ir::cast<ir::EvaluateNode>(s);
      const auto* call = ir::dyn_cast<ir::CallNode>(op->value.get());
      if (call != nullptr && call->callee == ir::CallNode::Callee::kSyncThreads) {
        return SyncThreads(op);
      }
      return Expr(op->value).status();
    }
    case ir::NodeKind::kAllocate: return Allocate(ir::cast<ir::AllocateNode>(s));
    case ir::NodeKind::kDeclBuffer: {
      const auto* op = ir::cast<ir::DeclBufferNode>(s);
      auto it = buffers_.find(op->source.get());
      if (it == buffers_.end()) return Error(op, absl::StrCat("buffer '", op->source->name, "' is not bound here"));
      if (op->buffer->dtype != op->source->dtype) {
        return Error(op, "a DeclBuffer view with another element type than its source");
      }
      buffers_[op->buffer.get()] = it->second;
      absl::Status st = Stmt(op->body);
      buffers_.erase(op->buffer.get());
      return st;
    }
    default:
      return Error(s.get(), absl::StrCat("unsupported statement ", ir::NodeKindName(s->kind()),
                                         "; run the 'lower' pipeline first"));
  }
}

}  // namespace detail
}  // namespace tessel::codegen
