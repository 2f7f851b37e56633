// Thread reductions in GPU kernels: `red[0] = thread_sum_x(red[0])` (ir/expr.h) over
// the threads of a block that differ only in threadIdx.x.
//
//   blockDim.x = 128, f32:
//     v = v + shfl.bfly(v, 16); ... v = v + shfl.bfly(v, 1)   each warp's total in every lane
//     if (tx % 32 == 0) scratch[row * 4 + tx / 32] = v        one per warp (shared memory)
//     bar.sync
//     v = scratch[row * 4] + ... + scratch[row * 4 + 3]       every thread: the row's total
//     bar.sync                                                (the next reduction reuses it)
//
// Butterfly shuffles need 32-bit values and a power-of-two blockDim.x that fits in
// a warp or is a multiple of one; otherwise every thread writes its value to
// shared memory and each reads its row's. The combining arithmetic is the IR's
// own (a Binary node over two bound values), so its dtype rules are codegen's.
#include "absl/strings/str_cat.h"
#include "codegen/mlir_translator.h"
#include "ir/status_macros.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace tessel::codegen {

namespace {
// Unrolled reads of the scratch row: above this many parts, code size would explode.
constexpr int64_t kMaxParts = 256;
bool IsPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
}  // namespace

absl::StatusOr<mlir::Value> detail::FuncTranslator::ThreadReduce(const ir::CallNode* op) {
  if (!in_gpu_kernel_ || !add_workgroup_buffer_) {
    return Error(op, absl::StrCat(op->name, "(...) outside a GPU kernel"));
  }
  TESSEL_ASSIGN_OR_RETURN(mlir::Value v, Expr(op->args[0]));
  const ir::DataType dt = op->dtype;
  ir::Var a = ir::MakeVar("a", dt), b = ir::MakeVar("b", dt);
  const ir::Expr combined =
      ir::ValueOrDie(ir::MakeBinary(*ir::ThreadReduceCombiner(op->name), a, b));
  auto combine = [&](mlir::Value x, mlir::Value y) -> absl::StatusOr<mlir::Value> {
    vars_[a.get()] = x;
    vars_[b.get()] = y;
    absl::StatusOr<mlir::Value> r = Expr(combined);
    vars_.erase(a.get());
    vars_.erase(b.get());
    return r;
  };
  const int64_t dx = block_dims_[0], dy = block_dims_[1], dz = block_dims_[2];
  const mlir::Type et = v.getType();
  const bool shuffles =
      (et.isF32() || et.isInteger(32)) && IsPow2(dx) && (dx <= 32 || dx % 32 == 0);
  const int64_t width = shuffles ? std::min<int64_t>(dx, 32) : 1;
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    auto shuffle = b_.create<mlir::gpu::ShuffleOp>(loc_, v, static_cast<int32_t>(offset), 32,
                                                   mlir::gpu::ShuffleMode::XOR);
    TESSEL_ASSIGN_OR_RETURN(v, combine(v, shuffle.getShuffleResult()));
  }
  if (dx == width) return v;

  const int64_t parts = dx / width;
  if (parts > kMaxParts) {
    return Error(op, absl::StrCat(op->name, " over ", dx, " threads of ", dt.ToString(),
                                  ": more than ", kMaxParts,
                                  " partial values (shuffles need 32-bit "
                                  "values and a power-of-two block width)"));
  }
  mlir::Value scratch = add_workgroup_buffer_(mlir::MemRefType::get({parts * dy * dz}, et));
  auto index = [&](int64_t c) -> mlir::Value {
    return b_.create<mlir::arith::ConstantIndexOp>(loc_, c);
  };
  mlir::Value tx = thread_ids_.at("threadIdx.x");
  mlir::Value row = b_.create<mlir::arith::AddIOp>(
      loc_, thread_ids_.at("threadIdx.y"),
      b_.create<mlir::arith::MulIOp>(loc_, index(dy), thread_ids_.at("threadIdx.z")));
  mlir::Value base = b_.create<mlir::arith::MulIOp>(loc_, row, index(parts));
  mlir::Value slot = b_.create<mlir::arith::AddIOp>(
      loc_, base, b_.create<mlir::arith::DivUIOp>(loc_, tx, index(width)));
  mlir::Value leader = b_.create<mlir::arith::CmpIOp>(
      loc_, mlir::arith::CmpIPredicate::eq, b_.create<mlir::arith::RemUIOp>(loc_, tx, index(width)),
      index(0));
  auto store = b_.create<mlir::scf::IfOp>(loc_, leader, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(&store.getThenRegion().front());
    b_.create<mlir::memref::StoreOp>(loc_, v, scratch, mlir::ValueRange{slot});
  }
  b_.create<mlir::gpu::BarrierOp>(loc_);
  mlir::Value acc = b_.create<mlir::memref::LoadOp>(loc_, scratch, mlir::ValueRange{base});
  for (int64_t j = 1; j < parts; ++j) {
    mlir::Value at = b_.create<mlir::arith::AddIOp>(loc_, base, index(j));
    mlir::Value part = b_.create<mlir::memref::LoadOp>(loc_, scratch, mlir::ValueRange{at});
    TESSEL_ASSIGN_OR_RETURN(acc, combine(acc, part));
  }
  b_.create<mlir::gpu::BarrierOp>(loc_);
  return acc;
}

}  // namespace tessel::codegen
