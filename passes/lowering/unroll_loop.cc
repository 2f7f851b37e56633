// unroll-loop: a loop marked `unrolled` with a constant extent becomes one copy
// of its body per iteration, the loop variable replaced by its value.
//
//   for k in unrolled(0, 3) {           A[0] = B[0] * 2.0f32
//     A[k] = B[k] * 2.0f32        ->    A[1] = B[1] * 2.0f32
//   }                                   A[2] = B[2] * 2.0f32
//
// Loops and lets and allocations inside the body are bound afresh in each copy
// (fresh_copy.h), and an `if` in a copy whose condition became constant is
// decided (a split's guard: `if k_0 * 8 + 6 < 6` drops that copy). A loop whose extent is not a constant, or above the option
// `max-extent`, or whose copies would hold more than `max-statements`
// statements in all, stays a serial loop and the pass log says why: unrolling
// is for small bodies, and code size grows with every copy.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/fallible_mutator.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "passes/lowering/context_mutator.h"
#include "ir/fresh_copy.h"
#include "passes/lowering/lane_index.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

class StmtCounter : public ir::IRVisitor {
 public:
  int64_t n = 0;
  void VisitBufferStore(const ir::BufferStoreNode* op) override { ++n; IRVisitor::VisitBufferStore(op); }
  void VisitEvaluate(const ir::EvaluateNode* op) override { ++n; IRVisitor::VisitEvaluate(op); }
  void VisitFor(const ir::ForNode* op) override { ++n; IRVisitor::VisitFor(op); }
  void VisitIfThenElse(const ir::IfThenElseNode* op) override { ++n; IRVisitor::VisitIfThenElse(op); }
};

// Decides the `if`s of a copy whose condition became constant once the loop
// variable is a constant (the guard of a split that does not divide): the dead
// copies go, instead of holding accesses at constant indices out of bounds.
// The copy's access indices are simplified too (a ramp's base and stride), so
// that each copy names the elements it touches: C[ramp(1 * 128 + 2 * 32, 1, 16)]
// -> C[ramp(192, 1, 16)]. Only conditions and indices are simplified, with the
// loops around them bound (never an `if` or `select` condition, see
// context_mutator.h).
class BranchFolder : public ir::IRMutator {
 public:
  explicit BranchFolder(ir::arith::Analyzer* ana) : ana_(ana) {}
  ir::Expr VisitBufferLoad(const ir::BufferLoadNode* op) override {
    ir::Expr e = IRMutator::VisitBufferLoad(op);
    const auto* l = ir::cast<ir::BufferLoadNode>(e);
    std::optional<std::vector<ir::Expr>> idx = Fold(l->indices);
    return idx ? ir::ValueOrDie(ir::MakeBufferLoad(l->buffer, *idx)) : e;
  }
  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    std::optional<std::vector<ir::Expr>> idx = Fold(st->indices);
    return idx ? ir::ValueOrDie(ir::MakeBufferStore(st->buffer, st->value, *idx)) : s;
  }
  int folded = 0;
  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::arith::Analyzer::Scope scope(ana_);
    ana_->Bind(op->loop_var, ir::Range{op->min, op->extent});
    return IRMutator::VisitFor(op);
  }
  ir::Stmt VisitIfThenElse(const ir::IfThenElseNode* op) override {
    if (std::optional<bool> c = ir::arith::AsConstBool(ana_->Simplify(op->condition))) {
      ++folded;
      if (*c) return VisitStmt(op->then_case);
      if (op->else_case) return VisitStmt(op->else_case);
      return ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::vector<ir::Stmt>{}));
    }
    return IRMutator::VisitIfThenElse(op);
  }

 private:
  // The indices simplified, or nothing when none changed.
  std::optional<std::vector<ir::Expr>> Fold(const std::vector<ir::Expr>& indices) {
    std::vector<ir::Expr> out;
    bool changed = false;
    for (const ir::Expr& i : indices) {
      std::optional<lowering::LaneIndex> li = lowering::AsLaneIndex(i);
      ir::Expr f = i;
      if (li && ir::arith::IsIndexType(li->base->dtype)) {
        f = ir::ValueOrDie(lowering::MakeLaneIndex(ana_->Simplify(li->base), ana_->Simplify(li->stride), li->lanes));
      }
      changed |= !ir::arith::ExprEqual(f, i);
      out.push_back(f);
    }
    if (!changed) return std::nullopt;
    return out;
  }
  ir::arith::Analyzer* ana_;
};

class Unroller : public ir::FallibleMutator<lowering::ContextMutator> {
 public:
  Unroller(int64_t max_extent, int64_t max_statements)
      : max_extent_(max_extent), max_statements_(max_statements) {}
  int unrolled = 0;
  std::vector<std::string> kept;  // "loop 'k' stays serial: why"

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Stmt s = ContextMutator::VisitFor(op);  // Inner loops first.
    const auto* f = ir::cast<ir::ForNode>(s);
    if (f->for_kind != ir::ForKind::kUnrolled || !ok()) return s;
    std::optional<int64_t> ext = ir::arith::AsConstInt(f->extent);
    StmtCounter count;
    count.VisitStmt(f->body);
    std::string why;
    if (!ext) {
      why = absl::StrCat("its extent ", ir::PrintExpr(f->extent), " is not a constant");
    } else if (*ext > max_extent_) {
      why = absl::StrCat("its extent ", *ext, " is above max-extent=", max_extent_);
    } else if (*ext * count.n > max_statements_) {
      why = absl::StrCat("its ", *ext, " copies would hold ", *ext * count.n,
                         " statements, above max-statements=", max_statements_);
    }
    if (!why.empty()) {
      kept.push_back(absl::StrCat("loop '", f->loop_var->name, "' stays serial: ", why));
      auto n = ir::MakeNode<ir::ForNode>(*f);
      n->for_kind = ir::ForKind::kSerial;
      return ir::Stmt(std::move(n));
    }
    std::vector<ir::Stmt> copies;
    for (int64_t k = 0; k < *ext; ++k) {
      ir::Expr value = ir::arith::AddE(f->min, ir::IntImm(f->loop_var->dtype, k));
      // The first copy may keep the original bindings; the others need fresh ones.
      absl::StatusOr<ir::Stmt> c =
          k == 0 ? absl::StatusOr<ir::Stmt>(ir::Substitute(
                       f->body, {{f->loop_var.get(), value}}))
                 : ir::FreshCopy(f->body, {{f->loop_var.get(), value}});
      if (!c.ok()) return Fail(c.status(), s);
      BranchFolder fold(&analyzer());
      copies.push_back(fold.VisitStmt(*c));
    }
    ++unrolled;
    if (copies.size() == 1) return copies[0];
    return ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::move(copies)));
  }

 private:
  int64_t max_extent_, max_statements_;
};

class UnrollLoopPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "unroll-loop",
            .description = "Expands loops marked unrolled into one copy of the body per iteration",
            .opt_level = 0,
            .required = {"remove-blocks"},
            .options = {IntOption("max-extent", 64, "Most iterations a loop may have to be unrolled"),
                        IntOption("max-statements", 1024,
                                  "Most statements the copies of one loop may hold in all")}};
  }
  explicit UnrollLoopPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    int64_t max_extent = options().GetInt("max-extent");
    int64_t max_statements = options().GetInt("max-statements");
    if (max_extent < 1 || max_statements < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "options 'max-extent' and 'max-statements' must be at least 1, got ", max_extent, " and ",
          max_statements));
    }
    Unroller u(max_extent, max_statements);
    ir::PrimFunc out = u.VisitPrimFunc(func);
    if (!u.ok()) return u.status();
    if (u.unrolled > 0) ctx.log().RecordApplied(this->name(), name, "unrolled", u.unrolled);
    for (const std::string& why : u.kept) ctx.log().RecordNote(this->name(), absl::StrCat(name, ": ", why));
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(UnrollLoopPass);

}  // namespace tessel::passes
