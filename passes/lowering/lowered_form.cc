// The lowered-form check (see lowered_form.h).
#include "passes/lowering/lowered_form.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/visitor.h"

namespace tessel::passes::lowering {
namespace {

class FormChecker : public ir::IRVisitor {
 public:
  std::string problem;
  absl::flat_hash_set<const ir::BufferNode*> nd_params;

  void VisitBlock(const ir::BlockNode* op) override {
    Problem(absl::StrCat("block '", op->name, "' is left (run remove-blocks)"));
  }
  void VisitBlockRealize(const ir::BlockRealizeNode* op) override { VisitBlock(op->block.get()); }
  void VisitFor(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kVectorized || op->for_kind == ir::ForKind::kUnrolled) {
      Problem(absl::StrCat("loop '", op->loop_var->name, "' is still ", ir::ForKindName(op->for_kind),
                           " (run vectorize-loop and unroll-loop)"));
    }
    IRVisitor::VisitFor(op);
  }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    Access("BufferLoad from", op->buffer, op->indices);
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    Access("BufferStore to", op->buffer, op->indices);
    IRVisitor::VisitBufferStore(op);
  }
  void VisitAllocate(const ir::AllocateNode* op) override {
    if (op->buffer->ndim() != 1) {
      Problem(absl::StrCat("allocate '", op->buffer->name, "' is ", op->buffer->ndim(),
                           "-D (run flatten-buffer)"));
    }
    IRVisitor::VisitAllocate(op);
  }
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kIntrinsic &&
        (op->name == "sigmoid" || (op->name == "fabs" && op->dtype.is_integer()))) {
      Problem(absl::StrCat("intrinsic '", op->name, "' is left (run lower-intrinsics)"));
    }
    IRVisitor::VisitCall(op);
  }

 private:
  void Access(const char* what, const ir::Buffer& b, const std::vector<ir::Expr>& idx) {
    if (nd_params.count(b.get())) {
      Problem(absl::StrCat(what, " '", b->name,
                           "' uses an N-D parameter directly; lowered code accesses its 1-D view "
                           "(run flatten-buffer)"));
    } else if (idx.size() != 1 || b->ndim() != 1) {
      Problem(absl::StrCat(what, " '", b->name, "' has ", idx.size(),
                           " indices; lowered code accesses only 1-D buffers (run flatten-buffer)"));
    } else if (idx[0]->dtype.is_vector() && !ir::isa<ir::RampNode>(idx[0])) {
      Problem(absl::StrCat(what, " '", b->name, "' has a vector index that is not a ramp"));
    }
  }
  void Problem(std::string p) {
    if (problem.empty()) problem = std::move(p);
  }
};

class BlockOrNdFinder : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitBlock(const ir::BlockNode*) override { found = true; }
  void VisitBlockRealize(const ir::BlockRealizeNode*) override { found = true; }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    found |= op->indices.size() != 1;
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    found |= op->indices.size() != 1;
    IRVisitor::VisitBufferStore(op);
  }
};

}  // namespace

bool NeedsLowering(const ir::PrimFunc& func) {
  BlockOrNdFinder f;
  f.VisitStmt(func->body);
  return f.found;
}

absl::Status CheckLoweredForm(const ir::PrimFunc& func, const std::string& name) {
  FormChecker c;
  for (const ir::Param& p : func->params) {
    if (!p.is_buffer()) continue;
    const ir::Buffer& b = p.buffer;
    bool unit_stride = b->strides.empty() || (b->strides.size() == 1 &&
                                               ir::isa<ir::IntImmNode>(b->strides[0]) &&
                                               ir::cast<ir::IntImmNode>(b->strides[0])->value == 1);
    bool flat = b->ndim() == 1 && unit_stride &&
                (!b->elem_offset || (ir::isa<ir::IntImmNode>(b->elem_offset) &&
                                     ir::cast<ir::IntImmNode>(b->elem_offset)->value == 0));
    if (!flat) c.nd_params.insert(b.get());
  }
  c.VisitStmt(func->body);
  if (c.problem.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("lowered form: function '", name, "': ", c.problem));
}

}  // namespace tessel::passes::lowering
