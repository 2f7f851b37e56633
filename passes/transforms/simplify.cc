// simplify: arithmetic simplification of index expressions and constant folding,
// by the arithmetic analyser (ir/arith: canonical affine form, rewrite rules,
// bounds of loop variables and known conditions).
//
//   for i in range(0, 4 * 2) {                for i in range(0, 8) {
//     if 1 < 2 {                        ->      B[i + 3] = A[i] * 2.0f32
//       B[(i + 1) + 2] = A[i * 1] * 2.0f32    }
//     }
//   }
//
// Statement rules: an `if` whose condition is decided in context becomes the
// branch taken (or nothing), and sequences nested in sequences are flattened. The
// pass log counts each rule per function (canonical-form, constant-branch, ...).
#include "absl/strings/str_cat.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/stmt_simplify.h"

namespace tessel::passes {

namespace {

// The arithmetic analyser's statement simplifier (constant branches decided in
// context), plus flattening of sequences nested in sequences.
class StmtSimplifier : public ir::arith::StmtSimplifier {
 public:
  using ir::arith::StmtSimplifier::StmtSimplifier;

  ir::Stmt VisitSeqStmt(const ir::SeqStmtNode* op) override {
    ir::Stmt s = ir::arith::StmtSimplifier::VisitSeqStmt(op);
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
    ir::arith::RuleCounts counts;
    // Checked mode: rewrites that depend on exact values apply only where bounds
    // prove nothing wraps, so the result matches bit for bit on every input.
    ir::arith::Analyzer analyzer(ir::arith::AnalyzerOptions{.assume_no_overflow = false});
    analyzer.set_rule_counts(&counts);
    StmtSimplifier simplifier(&analyzer);
    ir::PrimFunc out = simplifier.SimplifyFunction(func);
    for (const auto& [rule, n] : counts) ctx.log().RecordApplied(this->name(), name, rule, n);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(SimplifyPass);

}  // namespace tessel::passes
