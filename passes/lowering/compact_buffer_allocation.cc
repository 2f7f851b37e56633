// compact-buffer-allocation: an allocation shrinks to the box its body actually
// accesses (ir/arith region inference), and every access is shifted to the
// box's origin.
//
//   for i in range(0, 4) {                          for i in range(0, 4) {
//     allocate T: f32[64, 64] {                       allocate T: f32[1, 16] {
//       for j in range(0, 16) {              ->         for j in range(0, 16) {
//         T[i, j + 8] = A[i, j] * 2.0f32                  T[0, j] = A[i, j] * 2.0f32
//         B[i, j] = T[i, j + 8]                           B[i, j] = T[0, j]
//   } } }                                           } } }
//
// The shifted indices are simplified in their loops' context. The box may
// start at a value of the loops outside the allocation, but its extents must be
// constants no larger than the old ones; otherwise the allocation is kept.
// Parameters are never touched: their shape is the caller's. A buffer with
// explicit strides (storage_align) keeps them, so the shrunk allocation spans
// up to its last element under those strides.
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/int_set.h"
#include "ir/arith/region.h"
#include "ir/mutator.h"
#include "passes/lowering/context_mutator.h"
#include "passes/lowering/lane_index.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

// Accesses of one buffer moved to another with each index shifted by -origin.
class AccessShifter : public lowering::ContextMutator {
 public:
  AccessShifter(const ir::BufferNode* from, ir::Buffer to, std::vector<ir::Expr> origin)
      : from_(from), to_(std::move(to)), origin_(std::move(origin)) {}

  ir::Expr VisitBufferLoad(const ir::BufferLoadNode* op) override {
    ir::Expr e = ContextMutator::VisitBufferLoad(op);
    if (op->buffer.get() != from_) return e;
    return ir::Load(to_, Shift(ir::cast<ir::BufferLoadNode>(e)->indices));
  }
  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = ContextMutator::VisitBufferStore(op);
    if (op->buffer.get() != from_) return s;
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    return ir::Store(to_, st->value, Shift(st->indices));
  }

 private:
  // A ramp or broadcast index (tensorize writes them) moves by its base; any
  // other vector index lane by lane (region inference gives its dimension the
  // whole extent, origin 0, so that is for safety only).
  std::vector<ir::Expr> Shift(const std::vector<ir::Expr>& idx) {
    std::vector<ir::Expr> out;
    for (size_t d = 0; d < idx.size(); ++d) {
      const ir::Expr& o = origin_[d];
      if (ir::arith::IsConstInt(o, 0)) {
        out.push_back(idx[d]);
        continue;
      }
      ir::DataType t = idx[d]->dtype.with_lanes(1);
      ir::Expr oo = o->dtype == t ? o : ir::Cast(t, o);
      std::optional<lowering::LaneIndex> li = lowering::AsLaneIndex(idx[d]);
      out.push_back(li ? ir::ValueOrDie(lowering::MakeLaneIndex(Index(ir::Sub(li->base, oo)),
                                                                li->stride, li->lanes))
                       : ir::Sub(idx[d], ir::Broadcast(oo, idx[d]->dtype.lanes())));
    }
    return out;
  }
  const ir::BufferNode* from_;
  ir::Buffer to_;
  std::vector<ir::Expr> origin_;
};

class Compactor : public lowering::ContextMutator {
 public:
  int compacted = 0;

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    ir::Stmt s = IRMutator::VisitAllocate(op);  // Inner allocations first.
    const auto* a = ir::cast<ir::AllocateNode>(s);
    std::optional<std::vector<ir::Range>> box = UsedBox(a->buffer, a->body);
    if (!box) return s;
    std::vector<ir::Expr> shape, origin;
    bool smaller = false;
    for (int d = 0; d < a->buffer->ndim(); ++d) {
      std::optional<int64_t> old_ext = ir::arith::AsConstInt(a->buffer->shape[d]);
      std::optional<int64_t> ext = ir::arith::AsConstInt((*box)[d].extent);
      if (!old_ext || !ext || *ext > *old_ext || *ext < 1) return s;
      smaller |= *ext < *old_ext;
      shape.push_back(ir::IntImm(a->buffer->shape[d]->dtype, *ext));
      origin.push_back((*box)[d].min);
    }
    if (!smaller) return s;
    auto n = ir::MakeNode<ir::BufferNode>(*a->buffer);
    // Explicit strides (storage_align's padding) stay: they still address
    // the smaller box one to one, and keep the alignment asked for.
    n->shape = shape;
    ir::Buffer to(std::move(n));
    AccessShifter shift(a->buffer.get(), to, origin);
    ++compacted;
    return ir::Stmt(ir::MakeNode<ir::AllocateNode>(to, shift.VisitStmt(a->body)));
  }

 private:
  // The box of `buf` that `body` reads or writes, in terms of the variables
  // bound outside `body`; nothing when it is unknown or unbounded.
  std::optional<std::vector<ir::Range>> UsedBox(const ir::Buffer& buf, const ir::Stmt& body) {
    ir::arith::Analyzer* ana = &analyzer();
    absl::StatusOr<ir::arith::AccessRegions> acc = ir::arith::InferSubtreeAccess(body, ana);
    if (!acc.ok()) return std::nullopt;
    std::vector<ir::arith::IntSet> sets;
    bool found = false;
    for (const auto* list : {&acc->reads, &acc->writes}) {
      for (const ir::arith::AccessRegion& r : *list) {
        if (r.region.buffer.get() != buf.get()) continue;
        if (r.region.region.size() != static_cast<size_t>(buf->ndim())) return std::nullopt;
        for (int d = 0; d < buf->ndim(); ++d) {
          ir::arith::IntSet s = ir::arith::IntSet::FromRange(r.region.region[d]);
          if (!found) sets.push_back(s);
          else sets[d] = ir::arith::Union(sets[d], s, ana);
        }
        found = true;
      }
    }
    if (!found) return std::nullopt;
    std::vector<ir::Range> box;
    for (const ir::arith::IntSet& s : sets) {
      std::optional<ir::Range> r = s.ToRange(ana);
      if (!r) return std::nullopt;
      box.push_back(ir::Range{r->min, ana->Simplify(r->extent)});
    }
    return box;
  }
};

class CompactBufferAllocationPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "compact-buffer-allocation",
            .description =
                "Shrinks each allocation to the box of it that is accessed, shifting the "
                "accesses to the box's origin",
            .opt_level = 0,
            .required = {"remove-blocks"}};
  }
  explicit CompactBufferAllocationPass(PassOptions options)
      : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    Compactor c;
    ir::PrimFunc out = c.VisitPrimFunc(func);
    if (c.compacted > 0) ctx.log().RecordApplied(this->name(), name, "compacted", c.compacted);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(CompactBufferAllocationPass);

}  // namespace tessel::passes
