// remove-blocks: once scheduling is done, blocks become plain code. Each block's
// iter vars are replaced by the values they are bound to, its predicate becomes
// an `if`, its alloc_buffers become `allocate` statements (around the innermost
// loop body that holds all their accesses: allocation_place.h), and
// its regions and annotations (facts for the schedule) are dropped, except
// storage_align's `buffer_dim_align`, which becomes the strides of the buffer
// it names (aligned_strides.h).
//
//   for i in range(0, 2) {                                  for i in range(0, 2) {
//     for j in range(0, 16) {                                 for j in range(0, 16) {
//       block B(vi: spatial[0, 30] = i * 16 + j)    ->          if i * 16 + j < 30 {
//           where i * 16 + j < 30 {                               B[i * 16 + j] = A[i * 16 + j] + 1.0f32
//         reads(A[vi])  writes(B[vi])                           }
//         B[vi] = A[vi] + 1.0f32                              }
//       }                                                   }
//     }
//   }
//
// Inits must already be lowered (lower-init-block, which this pass requires). In
// GPU kernels, a reduction across threadIdx.x becomes a collective
// (thread_reduction.h) and the order that blocks gave threads sharing shared
// memory becomes sync_threads() barriers (thread_sync.h).
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/binding_map.h"
#include "ir/fallible_mutator.h"
#include "ir/mutator.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "passes/lowering/aligned_strides.h"
#include "passes/lowering/allocation_place.h"
#include "passes/lowering/compact_buffer_allocation.h"
#include "passes/lowering/thread_reduction.h"
#include "passes/lowering/thread_sync.h"
#include "passes/lowering/warp_mma.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

class BlockRemover : public ir::FallibleMutator<> {
 public:
  int removed = 0;

  ir::Stmt VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    ir::Stmt s = IRMutator::VisitBlockRealize(op);
    if (!ok()) return s;
    const auto* r = ir::cast<ir::BlockRealizeNode>(s);
    const ir::BlockNode* b = r->block.get();
    if (b->init) {
      return FailBlock(b, "it still has an init (run lower-init-block first)");
    }
    if (r->iter_values.size() != b->iter_vars.size()) {
      return FailBlock(b, absl::StrCat("it binds ", r->iter_values.size(), " values to ",
                                       b->iter_vars.size(), " iter vars"));
    }
    if (absl::Status st = CollectAligns(b); !st.ok()) return Fail(std::move(st), s);
    ir::VarMap bind = ir::BindingMap(r);
    // The loops a reduction carries its outputs across: their values live from one
    // iteration to the next, so the outputs cannot be allocated inside them.
    for (auto& [buffer, exprs] : carried_) {
      for (ir::Expr& e : exprs) e = ir::Substitute(e, bind);
    }
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      if (b->iter_vars[k].kind != ir::IterKind::kReduce) continue;
      for (const ir::BufferRegion& w : b->writes) {
        carried_[w.buffer.get()].push_back(ir::Substitute(r->iter_values[k], bind));
      }
    }
    for (const ir::Buffer& buf : b->alloc_buffers) {
      for (const ir::Expr& e : buf->shape) {
        if (ir::arith::AnyVar(e, [&](const ir::VarNode* v) { return bind.count(v) > 0; })) {
          return FailBlock(b, absl::StrCat("the shape of its buffer '", buf->name,
                                           "' uses one of its iter vars"));
        }
      }
    }
    ir::Stmt body = ir::Substitute(b->body, bind);
    for (auto it = b->alloc_buffers.rbegin(); it != b->alloc_buffers.rend(); ++it) {
      const ir::Buffer& buf = *it;
      auto carried = carried_.find(it->get());
      body = lowering::PlaceAllocation(
          body, buf, carried == carried_.end() ? std::vector<ir::Expr>() : carried->second);
      if (auto a = aligns_.find(buf.get()); a != aligns_.end()) {
        // Compacted first: the padding is asked of the rows a kernel keeps (a
        // slice of the reduction staged), not of the whole buffer's.
        absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> shrunk;
        body = lowering::CompactAllocationsOf(body, {buf.get()}, &shrunk);
        const ir::Buffer kept = shrunk.contains(buf.get()) ? shrunk[buf.get()] : buf;
        absl::StatusOr<ir::Buffer> aligned = lowering::AlignBuffer(kept, a->second);
        if (!aligned.ok()) return FailBlock(b, aligned.status().message());
        body = ir::ReplaceBuffers(body, {{kept.get(), *aligned}});
      }
    }
    if (r->predicate && !ir::arith::IsConstTrue(r->predicate)) {
      ir::Expr pred = ir::Substitute(r->predicate, bind);
      absl::StatusOr<ir::Stmt> guarded = ir::MakeIfThenElse(pred, body);
      if (!guarded.ok()) return FailBlock(b, guarded.status().message());
      body = *guarded;
    }
    ++removed;
    return body;
  }

 private:
  // Blocks are removed innermost first, so every writer of a buffer is seen
  // before the block that allocates it.
  absl::Status CollectAligns(const ir::BlockNode* b) {
    absl::StatusOr<std::vector<std::vector<lowering::DimAlign>>> per_write =
        lowering::ReadDimAligns(b);
    if (!per_write.ok()) return per_write.status();
    for (size_t w = 0; w < per_write->size(); ++w) {
      if ((*per_write)[w].empty()) continue;
      std::vector<lowering::DimAlign>& have = aligns_[b->writes[w].buffer.get()];
      for (const lowering::DimAlign& a : (*per_write)[w]) {
        bool same_axis = false;
        for (const lowering::DimAlign& h : have) {
          if (h.axis != a.axis) continue;
          same_axis = true;
          if (h.factor != a.factor || h.offset != a.offset) {
            return absl::FailedPreconditionError(absl::StrCat(
                "block '", b->name, "' cannot be removed: buffer '", b->writes[w].buffer->name,
                "' is aligned twice on axis ", a.axis, " with different factor/offset ([",
                a.factor, ", ", a.offset, "] and [", h.factor, ", ", h.offset, "])"));
          }
        }
        if (!same_axis) have.push_back(a);
      }
    }
    return absl::OkStatus();
  }

  absl::flat_hash_map<const ir::BufferNode*, std::vector<lowering::DimAlign>> aligns_;
  absl::flat_hash_map<const ir::BufferNode*, std::vector<ir::Expr>> carried_;

  ir::Stmt FailBlock(const ir::BlockNode* b, absl::string_view why) {
    return Fail(absl::FailedPreconditionError(
                    absl::StrCat("block '", b->name, "' cannot be removed: ", why)),
                ir::GetRef<ir::StmtNode>(b));
  }
};

// A block not under a BlockRealize cannot be bound to anything.
class BareBlockFinder : public ir::IRVisitor {
 public:
  const ir::BlockNode* found = nullptr;
  void VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    ir::IRVisitor::VisitBlock(op->block.get());
  }
  void VisitBlock(const ir::BlockNode* op) override {
    if (found == nullptr) found = op;
  }
};

class RemoveBlocksPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "remove-blocks",
            .description =
                "Replaces blocks by their bodies: iter vars by their bindings, predicates by "
                "ifs, alloc_buffers by allocate",
            .opt_level = 0,
            .required = {"lower-init-block"}};
  }
  explicit RemoveBlocksPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    BareBlockFinder bare;
    bare.VisitStmt(func->body);
    if (bare.found != nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "block '", bare.found->name, "' is not under a block realize, so its iter vars have no values"));
    }
    // Reductions across threadIdx.x and warp products first: while blocks stand,
    // their reduce iter vars say which loops a reduction runs over.
    int reductions = 0;
    TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc reduced,
                            lowering::LowerThreadReductions(func, &reductions));
    if (reductions > 0) {
      ctx.log().RecordApplied(this->name(), name, "thread-reduction", reductions);
    }
    int mmas = 0;
    TESSEL_ASSIGN_OR_RETURN(reduced, lowering::LowerWarpMmas(reduced, &mmas));
    if (mmas > 0) ctx.log().RecordApplied(this->name(), name, "warp-mma", mmas);
    BlockRemover remover;
    ir::PrimFunc out = remover.VisitPrimFunc(reduced);
    if (!remover.ok()) return remover.status();
    if (remover.removed > 0) ctx.log().RecordApplied(this->name(), name, "removed-block", remover.removed);
    // Blocks ordered the threads of a GPU kernel; without them barriers must.
    int barriers = 0;
    out = lowering::InsertThreadSync(out, &barriers);
    if (barriers > 0) ctx.log().RecordApplied(this->name(), name, "barrier", barriers);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(RemoveBlocksPass);

}  // namespace tessel::passes
