// check-semantics from C++: the first pass that changes results is named with
// the function, buffer and index; correct passes go through; unchanged
// functions are not re-run; the work limit and the estimate behind it.
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ir/mutator.h"
#include "passes/instruments/semantic_check.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using testing::ParseOrDie;

constexpr char kModule[] =
    "func @copy(A: f32[4], B: f32[4]) {\n  for i in range(0, 4) {\n    B[i] = A[i]\n  }\n}\n\n"
    "func @shift(A: i32[8], B: i32[8]) {\n  for i in range(0, 7) {\n    B[i + 1] = A[i]\n  }\n}\n";

// Changes the store index i + 1 into i + 2 in function `only` (a miscompile).
class ShiftMore : public ir::IRMutator {
 public:
  ir::Expr VisitIntImm(const ir::IntImmNode* op) override {
    if (op->value == 1) return ir::IntImm32(2);
    return IRMutator::VisitIntImm(op);
  }
};

PassPtr Miscompile(const std::string& name) {
  return MakeFunctionPass(PassInfo{.name = name},
                          [](const ir::PrimFunc& f, const std::string& fname, const PassOptions&,
                             PassContext&) -> absl::StatusOr<ir::PrimFunc> {
                            if (fname != "shift") return f;
                            // The loop runs to 6 so i + 2 stays in bounds: only values differ.
                            auto body = ir::cast<ir::ForNode>(f->body);
                            auto loop = ir::MakeNode<ir::ForNode>(*body);
                            loop->extent = ir::IntImm32(6);
                            ShiftMore m;
                            loop->body = m.VisitStmt(body->body);
                            auto n = ir::MakeNode<ir::PrimFuncNode>(*f);
                            n->body = ir::Stmt(std::move(loop));
                            return ir::PrimFunc(std::move(n));
                          });
}

TEST(SemanticCheck, NamesTheFirstPassThatChangesResults) {
  std::ostringstream diag;
  PassContext ctx;
  ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
  absl::StatusOr<PassPtr> simplify = CreatePass("simplify");
  int after = 0;
  PassPtr counter =
      MakeModulePass(PassInfo{.name = "counter"},
                     [&after](const ir::IRModule& m, const PassOptions&, PassContext&) {
                       ++after;
                       return absl::StatusOr<ir::IRModule>(m);
                     });
  absl::StatusOr<ir::IRModule> out =
      RunPipeline(*MakeSequential({*simplify, Miscompile("unit-miscompile"), counter}),
                  ParseOrDie(kModule), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(after, 0);  // The pipeline stopped at the miscompile.
  std::string msg(out.status().message());
  EXPECT_EQ(
      msg.rfind("check-semantics: pass 'unit-miscompile' is the first to change the results "
                "of function 'shift': parameter 'B' (i32[8]) differs at flat index 1, index [1]",
                0),
      0u)
      << msg;
  EXPECT_EQ(diag.str(), "");  // Nothing was skipped.
}

TEST(SemanticCheck, PassesThatKeepTheMeaningGoThrough) {
  std::ostringstream diag;
  PassContext ctx;
  ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
  ASSERT_TRUE(ctx.SetConfigFromText("check-semantics.seed", "99").ok());
  absl::StatusOr<ir::IRModule> out =
      RunPipeline("simplify,fixed-point(remove-no-op),canonicalize-names{renumber=true}",
                  ParseOrDie(kModule), ctx);
  EXPECT_TRUE(out.ok()) << out.status();
  // One summary line says that the check ran.
  EXPECT_EQ(diag.str().rfind("check-semantics: 2 functions checked, ", 0), 0u) << diag.str();
  EXPECT_TRUE(absl::EndsWith(diag.str(), " after passes that changed them, all equal\n"))
      << diag.str();
}

TEST(SemanticCheck, FunctionsOverTheWorkLimitAreSkippedWithANote) {
  std::ostringstream diag;
  PassContext ctx;
  ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
  ASSERT_TRUE(ctx.SetConfigFromText("check-semantics.work-limit", "6").ok());
  absl::StatusOr<ir::IRModule> out =
      RunPipeline(*MakeSequential({Miscompile("unit-miscompile")}), ParseOrDie(kModule), ctx);
  EXPECT_TRUE(out.ok());  // `shift` (8 statements) was not checked.
  EXPECT_EQ(diag.str(),
            "check-semantics: skipping function 'shift': estimated 8 statements > work limit 6 "
            "(raise it with --config=check-semantics.work-limit=N)\n"
            "check-semantics: 1 function checked, 0 comparisons after passes that changed them, "
            "all equal; skipped 1: shift (over the work limit)\n");
  EXPECT_NE(ctx.log().ToString().find("check-semantics: skipping function 'shift'"),
            std::string::npos);
}

TEST(SemanticCheck, RemovedFunctionsAreNoLongerChecked) {
  std::ostringstream diag;
  PassContext ctx;
  ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
  PassPtr drop = MakeModulePass(
      PassInfo{.name = "drop"}, [](const ir::IRModule& m, const PassOptions&, PassContext&) {
        return absl::StatusOr<ir::IRModule>(ir::MakeIRModule({m->functions[0]}));
      });
  ASSERT_TRUE(RunPipeline(*MakeSequential({drop}), ParseOrDie(kModule), ctx).ok());
  EXPECT_EQ(
      diag.str(),
      "check-semantics: function 'shift' was removed by pass 'drop'; it is no longer checked\n"
      "check-semantics: 1 function checked, 0 comparisons after passes that changed them, all "
      "equal; skipped 1: shift (removed by pass 'drop')\n");
}

TEST(SemanticCheck, ReshapedBuffersAreComparedElementByElement) {
  // A pass that flattens B from [2, 4] to [8] (same elements, same order) keeps
  // the meaning; the check adapts the inputs and compares.
  const char* two_d =
      "func @f(A: f32[2, 4], B: f32[2, 4]) {\n  for i in range(0, 2) {\n    for j in range(0, 4) "
      "{\n"
      "      B[i, j] = A[i, j]\n    }\n  }\n}\n";
  const char* flat =
      "func @f(A: f32[2, 4], B: f32[8]) {\n  for i in range(0, 2) {\n    for j in range(0, 4) {\n"
      "      B[i * 4 + j] = A[i, j]\n    }\n  }\n}\n";
  const char* wrong =
      "func @f(A: f32[2, 4], B: f32[8]) {\n  for i in range(0, 2) {\n    for j in range(0, 4) {\n"
      "      B[j * 2 + i] = A[i, j]\n    }\n  }\n}\n";
  for (const char* after : {flat, wrong}) {
    ir::IRModule replacement = ParseOrDie(after);
    PassPtr flatten =
        MakeModulePass(PassInfo{.name = "flatten"},
                       [replacement](const ir::IRModule&, const PassOptions&, PassContext&) {
                         return absl::StatusOr<ir::IRModule>(replacement);
                       });
    std::ostringstream diag;
    PassContext ctx;
    ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
    absl::StatusOr<ir::IRModule> out =
        RunPipeline(*MakeSequential({flatten}), ParseOrDie(two_d), ctx);
    if (after == flat) {
      EXPECT_TRUE(out.ok()) << out.status();
    } else {
      ASSERT_FALSE(out.ok());
      EXPECT_NE(out.status().message().find("is the first to change the results of function 'f': "
                                            "parameter 'B'"),
                std::string::npos)
          << out.status();
    }
    // The summary comes only when every comparison held.
    EXPECT_EQ(diag.str(), after == flat ? "check-semantics: 1 function checked, 1 comparison after "
                                          "passes that changed them, all equal\n"
                                        : "");
  }
}

TEST(SemanticCheck, ASignatureChangeStopsCheckingThatFunction) {
  ir::IRModule replacement = ParseOrDie("func @copy(A: f32[4]) {\n  A[0] = 1.0f32\n}\n");
  PassPtr p = MakeModulePass(PassInfo{.name = "resign"},
                             [replacement](const ir::IRModule&, const PassOptions&, PassContext&) {
                               return absl::StatusOr<ir::IRModule>(replacement);
                             });
  std::ostringstream diag;
  PassContext ctx;
  ctx.instruments.push_back(MakeSemanticCheckInstrument(&diag));
  ASSERT_TRUE(RunPipeline(*MakeSequential({p}), ParseOrDie(kModule), ctx).ok());
  EXPECT_NE(diag.str().find("cannot check function 'copy' after pass 'resign': its parameter count "
                            "changed from 2 to 1; it is no longer checked"),
            std::string::npos)
      << diag.str();
  EXPECT_NE(diag.str().find("skipped 2: copy (not comparable after pass 'resign'), shift "
                            "(removed by pass 'resign')"),
            std::string::npos)
      << diag.str();
}

TEST(EstimateWork, CountsStatementsFromConstantExtents) {
  ir::IRModule m = ParseOrDie(
      "func @a(A: i32[4]) {\n  for i in range(0, 4) {\n    for j in range(0, 3) {\n"
      "      A[i] = j\n    }\n  }\n  A[0] = 1\n}\n\n"
      "func @b(A: i32[4], n: i32) {\n  for i in range(0, n) {\n    A[0] = i\n  }\n}\n\n"
      "func @c(A: i32[4], n: i32) {\n  if n > 0 {\n    for i in range(0, 4) {\n      A[i] = 0\n"
      "    }\n  } else {\n    A[0] = 0\n  }\n}\n");
  EXPECT_EQ(EstimateWork(m->Lookup("a")), 1 + 4 * (1 + 3 * 1) + 1);
  EXPECT_EQ(EstimateWork(m->Lookup("b")), -1);           // Not constant: unknown.
  EXPECT_EQ(EstimateWork(m->Lookup("c")), 1 + (1 + 4));  // The longer branch.
}

}  // namespace
}  // namespace tessel::passes
