// The two examples of docs/passes.md ("Writing a pass", "Writing an
// instrument"), compiled and run, so the documentation cannot rot.
#include <sstream>

#include "gtest/gtest.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "passes/instrument.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

// ---- docs/passes.md: Writing a pass (verbatim) --------------------------------------

class ScaleStoresPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "scale-stores",
            .description = "Multiplies every stored f32 value by a factor",
            .opt_level = 1,
            .options = {IntOption("factor", 2, "The factor")}};
  }
  explicit ScaleStoresPass(PassOptions o) : FunctionPass(Info(), std::move(o)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    if (options().GetInt("factor") == 1) return func;  // Unchanged: the same object.
    class Scale : public ir::IRMutator {
     public:
      double factor;
      int count = 0;
      ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
        if (op->value->dtype != ir::DataType::Float(32)) return IRMutator::VisitBufferStore(op);
        auto n = ir::MakeNode<ir::BufferStoreNode>(*op);
        n->value = ir::Mul(op->value, ir::FloatImm(ir::DataType::Float(32), factor));
        ++count;
        return ir::Stmt(std::move(n));
      }
    } scale;
    scale.factor = static_cast<double>(options().GetInt("factor"));
    ir::PrimFunc out = scale.VisitPrimFunc(func);
    ctx.log().RecordApplied(this->name(), name, "scale", scale.count);  // For --print-pass-log.
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(ScaleStoresPass);

namespace {

// ---- docs/passes.md: Writing an instrument (verbatim) -------------------------------

// Counts the passes that changed the module, and reports the count at the end.
class CountChanges : public PassInstrument {
 public:
  explicit CountChanges(std::ostream* out) : out_(out) {}
  std::string name() const override { return "count-changes"; }

  absl::Status AfterPass(const Pass& pass, const ir::IRModule& before, const ir::IRModule& after,
                         PassContext& ctx) override {
    if (!pass.is_pipeline() && !after.same_as(before)) ++changed_;
    return absl::OkStatus();
  }
  absl::Status AfterPipeline(const ir::IRModule& mod, PassContext& ctx) override {
    *out_ << changed_ << " pass(es) changed the module\n";
    return absl::OkStatus();
  }
  void OnFailure(const PassFailure& failure, PassContext& ctx) override {
    *out_ << "stopped at " << (failure.pass ? failure.pass->name() : "<pipeline>") << "\n";
  }

 private:
  std::ostream* out_;
  int changed_ = 0;
};

// ---- The examples at work ------------------------------------------------------------

constexpr char kCopy[] =
    "func @copy(A: f32[4], B: f32[4]) {\n  for i in range(0, 4) {\n    B[i] = A[i]\n  }\n}\n";

TEST(DocsExamples, ScaleStoresPass) {
  PassContext ctx;
  std::ostringstream out;
  ctx.instruments.push_back(std::make_shared<CountChanges>(&out));
  absl::StatusOr<ir::IRModule> m =
      RunPipeline("scale-stores{factor=3},scale-stores{factor=1}", testing::ParseOrDie(kCopy), ctx);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(ir::PrintModule(*m),
            "func @copy(A: f32[4], B: f32[4]) {\n  for i in range(0, 4) {\n"
            "    B[i] = A[i] * 3.0f32\n  }\n}\n");
  EXPECT_EQ(ctx.log().ToString(),
            "scale-stores: changed copy; copy: applied scale\nscale-stores: no change\n");
  EXPECT_EQ(out.str(), "1 pass(es) changed the module\n");

  absl::StatusOr<PassPtr> typo = ParsePipeline("scale-stores{factr=3}");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("has no option 'factr' (did you mean 'factor'?)"),
            std::string::npos);
  EXPECT_NE(PassRegistry::Global().ListPasses().find("  scale-stores\n"), std::string::npos);
}

TEST(DocsExamples, CountChangesReportsFailures) {
  PassContext ctx;
  std::ostringstream out;
  ctx.instruments.push_back(std::make_shared<CountChanges>(&out));
  PassPtr boom = MakeModulePass(
      PassInfo{.name = "boom"},
      [](const ir::IRModule&, const PassOptions&, PassContext&) -> absl::StatusOr<ir::IRModule> {
        return absl::InternalError("no");
      });
  ASSERT_FALSE(RunPipeline(*boom, testing::ParseOrDie(kCopy), ctx).ok());
  EXPECT_EQ(out.str(), "stopped at boom\n");
}

}  // namespace
}  // namespace tessel::passes
