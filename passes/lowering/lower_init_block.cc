// lower-init-block: a block's `init` becomes a guarded statement in its body,
// run when every reduce iter var is at the minimum of its domain (the meaning
// the interpreter gives `init`, ir/interpreter.h).
//
//   block C(vi: spatial[0, 8] = i, vk: reduce[0, 4] = k) {
//     reads(A[vi, vk])  writes(C[vi])
//     init { C[vi] = 0.0f32 }
//     C[vi] = C[vi] + A[vi, vk]
//   }
//   ->
//   block C(vi: spatial[0, 8] = i, vk: reduce[0, 4] = k) {
//     reads(C[vi], A[vi, vk])  writes(C[vi])
//     if vk == 0 { C[vi] = 0.0f32 }
//     C[vi] = C[vi] + A[vi, vk]
//   }
//
// A block with init but no reduce iter var runs its init every time, so the init
// is put before the body unguarded. The block stays (remove-blocks drops it).
// Without its init the block declares the accumulator it loads (C[vi] above) in
// its reads: only a block with an init may leave that read implicit.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/fallible_mutator.h"
#include "ir/schedule/block_dataflow.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

class InitLowerer : public ir::FallibleMutator<> {
 public:
  int lowered = 0;

  ir::Stmt VisitBlock(const ir::BlockNode* op) override {
    ir::Stmt s = IRMutator::VisitBlock(op);
    const auto* b = ir::cast<ir::BlockNode>(s);
    if (!b->init || !ok()) return s;
    ir::Expr cond;
    for (const ir::IterVar& iv : b->iter_vars) {
      if (iv.kind != ir::IterKind::kReduce) continue;
      absl::StatusOr<ir::Expr> eq = ir::MakeBinary(ir::NodeKind::kEQ, iv.var, iv.dom.min);
      if (eq.ok() && cond) eq = ir::MakeBinary(ir::NodeKind::kAnd, cond, *eq);
      if (!eq.ok()) return FailBlock(b, eq.status());
      cond = *eq;
    }
    ir::Stmt init = b->init;
    if (cond) {
      absl::StatusOr<ir::Stmt> guarded = ir::MakeIfThenElse(cond, init);
      if (!guarded.ok()) return FailBlock(b, guarded.status());
      init = *guarded;
    }
    absl::StatusOr<ir::Stmt> body = ir::MakeSeqStmt({init, b->body});
    if (!body.ok()) return FailBlock(b, body.status());
    auto n = ir::MakeNode<ir::BlockNode>(*b);
    n->init = nullptr;
    n->body = *body;
    std::vector<ir::BufferRegion> accumulators = ir::schedule::AccumulatorReads(*n);
    n->reads.insert(n->reads.begin(), accumulators.begin(), accumulators.end());
    ++lowered;
    return ir::Stmt(std::move(n));
  }

 private:
  ir::Stmt FailBlock(const ir::BlockNode* b, const absl::Status& s) {
    return Fail(absl::InvalidArgumentError(
                    absl::StrCat("block '", b->name, "': cannot guard its init: ", s.message())),
                ir::GetRef<ir::StmtNode>(b));
  }
};

class LowerInitBlockPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "lower-init-block",
            .description =
                "Turns each block's init into a statement guarded by 'every reduce iter var "
                "is at its minimum'",
            .opt_level = 0};
  }
  explicit LowerInitBlockPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    InitLowerer lowerer;
    ir::PrimFunc out = lowerer.VisitPrimFunc(func);
    if (!lowerer.ok()) return lowerer.status();
    if (lowerer.lowered > 0) ctx.log().RecordApplied(this->name(), name, "guarded-init", lowerer.lowered);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(LowerInitBlockPass);

}  // namespace tessel::passes
