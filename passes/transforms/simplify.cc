// simplify: arithmetic simplification of index expressions and constant folding
// (a first version; passes/transforms/arith_fold.h has the expression rules).
//
//   for i in range(0, 4 * 2) {                for i in range(0, 8) {
//     if 1 < 2 {                        ->      B[i + 3] = A[i] * 2.0f32
//       B[(i + 1) + 2] = A[i * 1] * 2.0f32    }
//     }
//   }
//
// Statement rules: an `if` on a constant condition becomes the branch taken (or
// nothing), and sequences nested in sequences are flattened. The pass log counts
// each rule per function (fold-constant, identity, reassociate-constants, ...).
#include "absl/strings/str_cat.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"
#include "passes/transforms/arith_fold.h"

namespace tessel::passes {

namespace {

class StmtSimplifier : public ArithFolder {
 public:
  using ArithFolder::ArithFolder;

  ir::Stmt VisitIfThenElse(const ir::IfThenElseNode* op) override {
    ir::Stmt s = ArithFolder::VisitIfThenElse(op);
    const auto* n = ir::dyn_cast<ir::IfThenElseNode>(s);
    if (n == nullptr) return s;
    const auto* c = ir::dyn_cast<ir::IntImmNode>(n->condition);
    if (c == nullptr) return s;
    if (c->value != 0) return Applied("constant-branch", n->then_case);
    if (n->else_case) return Applied("constant-branch", n->else_case);
    return Applied("constant-branch",
                   ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::vector<ir::Stmt>{})));
  }

  ir::Stmt VisitSeqStmt(const ir::SeqStmtNode* op) override {
    ir::Stmt s = ArithFolder::VisitSeqStmt(op);
    const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(s);
    if (seq == nullptr) return s;
    bool nested = false;
    for (const ir::Stmt& c : seq->seq) nested |= ir::isa<ir::SeqStmtNode>(c);
    if (!nested) return s;
    std::vector<ir::Stmt> flat;
    for (const ir::Stmt& c : seq->seq) {
      if (const auto* inner = ir::dyn_cast<ir::SeqStmtNode>(c)) {
        flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
      } else {
        flat.push_back(c);
      }
    }
    return Applied("flatten-seq", ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::move(flat))));
  }
};

class SimplifyPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "simplify",
            .description =
                "Folds constants and simplifies index arithmetic (x+0, x*1, "
                "nested constant adds, constant conditions)",
            .opt_level = 1};
  }
  explicit SimplifyPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    FoldCounts counts;
    StmtSimplifier simplifier(&counts);
    ir::PrimFunc out = simplifier.VisitPrimFunc(func);
    for (const auto& [rule, n] : counts) ctx.log().RecordApplied(this->name(), name, rule, n);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(SimplifyPass);

}  // namespace tessel::passes
