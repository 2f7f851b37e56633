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
// constants no larger than the old ones (any constant, where the old one is a
// shape variable's); otherwise the allocation is kept.
// Parameters are never touched: their shape is the caller's. A buffer with
// explicit strides (storage_align) keeps them, so the shrunk allocation spans
// up to its last element under those strides.
//
// A `local` buffer is each thread's own (every thread of a kernel runs its
// allocate), so its box may move with the thread. A GPU matmul's accumulator,
// allocated once per block of threads and indexed by threadIdx, shrinks to the
// thread's own tile:
//
//   allocate C_local: f32[8, 8, 2, 2] {              allocate C_local: f32[1, 1, 2, 2] {
//     for ty in thread_binding(0, 8, "threadIdx.y")     for ty in thread_binding(...) {
//       for tx in thread_binding(0, 8, ...)     ->        for tx in thread_binding(...)
//         C_local[ty, tx, a, b] = 0.0f32                    C_local[0, 0, a, b] = 0.0f32
//     ... (another nest bound to the same threads)   ...
//
// While the box is computed, every threadIdx-bound loop's variable is named by
// one variable per axis (the loops of an axis are one thread); afterwards each
// loop gets its own variable back.
#include "passes/lowering/compact_buffer_allocation.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/int_set.h"
#include "ir/arith/region.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"
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
  // `known`: ranges of variables bound outside the walk (the threads' variables).
  AccessShifter(const ir::BufferNode* from, ir::Buffer to, std::vector<ir::Expr> origin,
                const std::vector<std::pair<ir::Var, ir::Range>>& known = {})
      : from_(from), to_(std::move(to)), origin_(std::move(origin)) {
    for (const auto& [v, r] : known) analyzer().Bind(v, r);
  }

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

bool IsThreadLoop(const ir::ForNode* op) {
  if (op->for_kind != ir::ForKind::kThreadBinding) return false;
  std::optional<int> axis = ir::LaunchAxisOf(op->thread_tag);
  return axis && ir::IsThreadIdxAxis(*axis);
}

// Names the variable of every threadIdx-bound loop by one variable per axis.
// `ok` turns false for a loop that does not start at 0 (its variable would not
// be the thread's index) or two loops of one axis with different types.
class NameThreadAxes : public ir::IRMutator {
 public:
  bool ok = true;
  absl::flat_hash_map<std::string, ir::Var> axis_var;  // thread tag -> its variable
  std::vector<std::pair<ir::Var, ir::Range>> ranges;   // of those variables

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Stmt s = IRMutator::VisitFor(op);
    if (!IsThreadLoop(op)) return s;
    ok &= ir::arith::IsConstInt(op->min, 0);
    auto [it, fresh] = axis_var.try_emplace(op->thread_tag, ir::Var());
    if (fresh) {
      it->second = ir::MakeVar(absl::StrCat(op->loop_var->name, "_thread"), op->loop_var->dtype);
      ranges.emplace_back(it->second, ir::Range{op->min, op->extent});
    }
    ok &= it->second->dtype == op->loop_var->dtype;
    auto n = ir::MakeNode<ir::ForNode>(*ir::cast<ir::ForNode>(s));
    n->body = ir::Substitute(n->body, {{op->loop_var.get(), it->second}});
    return ir::Stmt(std::move(n));
  }
};

// Gives each threadIdx-bound loop its own variable back.
class RestoreThreadAxes : public ir::IRMutator {
 public:
  explicit RestoreThreadAxes(const absl::flat_hash_map<std::string, ir::Var>& axis_var)
      : axis_var_(axis_var) {}
  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Stmt s = IRMutator::VisitFor(op);
    auto it = axis_var_.find(op->thread_tag);
    if (!IsThreadLoop(op) || it == axis_var_.end()) return s;
    auto n = ir::MakeNode<ir::ForNode>(*ir::cast<ir::ForNode>(s));
    n->body = ir::Substitute(n->body, {{it->second.get(), op->loop_var}});
    return ir::Stmt(std::move(n));
  }

 private:
  const absl::flat_hash_map<std::string, ir::Var>& axis_var_;
};

// Whether a statement uses one of some variables.
class UsesAnyVar : public ir::IRVisitor {
 public:
  explicit UsesAnyVar(absl::flat_hash_set<const ir::VarNode*> vars) : vars_(std::move(vars)) {}
  bool found = false;
  void VisitVar(const ir::VarNode* op) override { found |= vars_.contains(op); }

 private:
  absl::flat_hash_set<const ir::VarNode*> vars_;
};

class Compactor : public lowering::ContextMutator {
 public:
  int compacted = 0;
  // When set, only these allocations are compacted; each one shrunk is recorded.
  const absl::flat_hash_set<const ir::BufferNode*>* only = nullptr;
  absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> shrunk;

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    ir::Stmt s = IRMutator::VisitAllocate(op);  // Inner allocations first.
    const auto* a = ir::cast<ir::AllocateNode>(s);
    if (only != nullptr && !only->contains(a->buffer.get())) return s;
    ir::Stmt body = a->body;
    NameThreadAxes threads;
    if (a->buffer->scope == "local") {
      ir::Stmt named = threads.VisitStmt(a->body);
      if (threads.ok && !threads.axis_var.empty())
        body = named;
      else
        threads = NameThreadAxes();
    }
    std::optional<std::vector<ir::Range>> box;
    {
      ir::arith::Analyzer::Scope scope(&analyzer());
      for (const auto& [v, r] : threads.ranges) analyzer().Bind(v, r);
      box = UsedBox(a->buffer, body);
    }
    if (!box) return s;
    std::vector<ir::Expr> shape, origin;
    bool smaller = false;
    for (int d = 0; d < a->buffer->ndim(); ++d) {
      std::optional<int64_t> old_ext = ir::arith::AsConstInt(a->buffer->shape[d]);
      std::optional<int64_t> ext = ir::arith::AsConstInt((*box)[d].extent);
      // A constant box of a buffer of symbolic extent (softmax's row maxima, f32[n],
      // in a block per row) shrinks to the box: a kernel allocates constant sizes.
      if (!ext || *ext < 1 || (old_ext && *ext > *old_ext)) return s;
      smaller |= !old_ext || *ext < *old_ext;
      shape.push_back(ir::IntImm(a->buffer->shape[d]->dtype, *ext));
      origin.push_back((*box)[d].min);
    }
    if (!smaller) return s;
    auto n = ir::MakeNode<ir::BufferNode>(*a->buffer);
    // Explicit strides (storage_align's padding) stay: they still address
    // the smaller box one to one, and keep the alignment asked for.
    n->shape = shape;
    ir::Buffer to(std::move(n));
    AccessShifter shift(a->buffer.get(), to, origin, threads.ranges);
    ir::Stmt shifted = shift.VisitStmt(body);
    if (!threads.axis_var.empty()) {
      shifted = RestoreThreadAxes(threads.axis_var).VisitStmt(shifted);
      absl::flat_hash_set<const ir::VarNode*> named;
      for (const auto& [tag, v] : threads.axis_var) named.insert(v.get());
      UsesAnyVar left(std::move(named));
      left.VisitStmt(shifted);
      if (left.found) return s;  // The box moves with a thread some access is not under.
    }
    ++compacted;
    shrunk[a->buffer.get()] = to;
    return ir::Stmt(ir::MakeNode<ir::AllocateNode>(to, shifted));
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
          // Indices of one dimension may differ in width (i32 and i64): the
          // union is taken in the extent's type.
          ir::Range range = r.region.region[d];
          const ir::DataType want = buf->shape[d]->dtype;
          if (range.min->dtype != want) range.min = ir::Cast(want, range.min);
          if (range.extent->dtype != want) range.extent = ir::Cast(want, range.extent);
          ir::arith::IntSet s = ir::arith::IntSet::FromRange(range);
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

namespace lowering {

ir::Stmt CompactAllocationsOf(const ir::Stmt& s,
                              const absl::flat_hash_set<const ir::BufferNode*>& buffers,
                              absl::flat_hash_map<const ir::BufferNode*, ir::Buffer>* shrunk) {
  Compactor c;
  c.only = &buffers;
  ir::Stmt out = c.VisitStmt(s);
  if (shrunk != nullptr) *shrunk = std::move(c.shrunk);
  return out;
}

}  // namespace lowering

TESSEL_REGISTER_PASS(CompactBufferAllocationPass);

}  // namespace tessel::passes
