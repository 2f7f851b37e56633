// remove-no-op: drops statements that do nothing.
//
//   for i in range(0, 0) { A[i] = 1.0f32 }      ->   (nothing)       empty-loop
//   for i in range(0, 8) { }                    ->   (nothing)       empty-loop
//   A[i, j] = A[i, j]                           ->   (nothing)       self-store
//   evaluate 0                                  ->   (nothing)       no-op-evaluate
//   if c { } else { B[0] = 1 }                  ->   if !c { B[0] = 1 }   empty-branch
//   block "b"(...) { reads(...) }  (no body)    ->   (nothing)       empty-block
//   seq { A[0] = 1 }                            ->   A[0] = 1        (one element left)
//
// What remains of a sequence is kept in order; a body with nothing left is the
// empty sequence `{ }`. Nothing that calls an external function is dropped.
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/structural_equal.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

namespace {

// How often each rule applied, for the pass log.
using RuleCounts = std::map<std::string, int>;

ir::Stmt Empty() { return ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::vector<ir::Stmt>{})); }

bool IsEmpty(const ir::Stmt& s) {
  if (!s) return true;
  const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(s);
  return seq != nullptr && seq->seq.empty();
}

class NoOpRemover : public ir::IRMutator {
 public:
  explicit NoOpRemover(RuleCounts* counts) : counts_(counts) {}

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    const auto* ext = ir::dyn_cast<ir::IntImmNode>(op->extent);
    if (ext != nullptr && ext->value <= 0) return Removed("empty-loop");
    ir::Stmt s = IRMutator::VisitFor(op);
    const auto* f = ir::cast<ir::ForNode>(s);
    if (IsEmpty(f->body)) return Removed("empty-loop");
    return s;
  }

  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    const auto* load = ir::dyn_cast<ir::BufferLoadNode>(st->value);
    if (load != nullptr && load->buffer.same_as(st->buffer) &&
        load->indices.size() == st->indices.size()) {
      bool same = true;
      for (size_t i = 0; i < st->indices.size() && same; ++i) {
        same =
            ir::StructuralEqual(load->indices[i], st->indices[i]) && ir::arith::IsPure(st->indices[i]);
      }
      if (same) return Removed("self-store");
    }
    return s;
  }

  ir::Stmt VisitEvaluate(const ir::EvaluateNode* op) override {
    if (ir::arith::IsPure(op->value)) return Removed("no-op-evaluate");
    return IRMutator::VisitEvaluate(op);
  }

  ir::Stmt VisitIfThenElse(const ir::IfThenElseNode* op) override {
    ir::Stmt s = IRMutator::VisitIfThenElse(op);
    const auto* n = ir::cast<ir::IfThenElseNode>(s);
    bool then_empty = IsEmpty(n->then_case);
    bool else_empty = IsEmpty(n->else_case);
    if (then_empty && else_empty && ir::arith::IsPure(n->condition)) return Removed("empty-branch");
    if (n->else_case && else_empty) {
      absl::StatusOr<ir::Stmt> r = ir::MakeIfThenElse(n->condition, n->then_case);
      if (r.ok()) return Applied("empty-branch", *r);
    }
    if (then_empty && !else_empty) {
      absl::StatusOr<ir::Expr> c = ir::MakeNot(n->condition);
      if (c.ok()) {
        absl::StatusOr<ir::Stmt> r = ir::MakeIfThenElse(*c, n->else_case);
        if (r.ok()) return Applied("empty-branch", *r);
      }
    }
    return s;
  }

  ir::Stmt VisitLetStmt(const ir::LetStmtNode* op) override {
    ir::Stmt s = IRMutator::VisitLetStmt(op);
    const auto* n = ir::cast<ir::LetStmtNode>(s);
    if (IsEmpty(n->body) && ir::arith::IsPure(n->value)) return Removed("empty-scope");
    return s;
  }

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    ir::Stmt s = IRMutator::VisitAllocate(op);
    if (IsEmpty(ir::cast<ir::AllocateNode>(s)->body)) return Removed("empty-scope");
    return s;
  }

  ir::Stmt VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    ir::Stmt s = IRMutator::VisitDeclBuffer(op);
    if (IsEmpty(ir::cast<ir::DeclBufferNode>(s)->body)) return Removed("empty-scope");
    return s;
  }

  ir::Stmt VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    ir::Stmt s = IRMutator::VisitBlockRealize(op);
    const auto* r = ir::cast<ir::BlockRealizeNode>(s);
    bool pure = true;
    for (const ir::Expr& v : r->iter_values) pure &= ir::arith::IsPure(v);
    if (IsEmpty(r->block->body) && IsEmpty(r->block->init) && pure) return Removed("empty-block");
    return s;
  }

  ir::Stmt VisitSeqStmt(const ir::SeqStmtNode* op) override {
    ir::Stmt s = IRMutator::VisitSeqStmt(op);
    const auto* seq = ir::cast<ir::SeqStmtNode>(s);
    std::vector<ir::Stmt> kept;
    for (const ir::Stmt& c : seq->seq) {
      if (IsEmpty(c)) continue;
      // Sequences nested in sequences are spliced in.
      if (const auto* inner = ir::dyn_cast<ir::SeqStmtNode>(c)) {
        kept.insert(kept.end(), inner->seq.begin(), inner->seq.end());
      } else {
        kept.push_back(c);
      }
    }
    if (kept.size() == 1) return kept[0];
    if (kept.size() == seq->seq.size()) {
      bool same = true;
      for (size_t i = 0; i < kept.size(); ++i) same &= kept[i].same_as(seq->seq[i]);
      if (same) return s;
    }
    return ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::move(kept)));
  }

 private:
  ir::Stmt Removed(const char* rule) { return Applied(rule, Empty()); }
  ir::Stmt Applied(const char* rule, ir::Stmt s) {
    ++(*counts_)[rule];
    return s;
  }

  RuleCounts* counts_;
};

class RemoveNoOpPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "remove-no-op",
            .description =
                "Drops empty loops, empty branches and blocks, self-stores and other "
                "statements that do nothing",
            .opt_level = 1};
  }
  explicit RemoveNoOpPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    RuleCounts counts;
    NoOpRemover remover(&counts);
    ir::PrimFunc out = remover.VisitPrimFunc(func);
    for (const auto& [rule, n] : counts) ctx.log().RecordApplied(this->name(), name, rule, n);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(RemoveNoOpPass);

}  // namespace tessel::passes
