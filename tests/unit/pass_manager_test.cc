// The pass manager: instrument hook order, failures reaching OnFailure, function
// passes (pointer identity, skips, errors), combinators, and the changed-function
// log.
#include "passes/pass_manager.h"

#include "gtest/gtest.h"
#include "ir/printer.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using testing::ParseOrDie;
using testing::RecordingInstrument;

constexpr char kTwoFunctions[] =
    "func @f(A: i32[4]) {\n  A[0] = 1 + 2\n}\n\n"
    "func @g(A: i32[4]) attrs {scheduled = true} {\n  A[0] = 3 + 4\n}\n";

PassPtr Identity(const std::string& name) {
  return MakeModulePass(PassInfo{.name = name},
                        [](const ir::IRModule& m, const PassOptions&, PassContext&) {
                          return absl::StatusOr<ir::IRModule>(m);
                        });
}

PassPtr Failing(const std::string& name) {
  return MakeModulePass(
      PassInfo{.name = name},
      [](const ir::IRModule&, const PassOptions&, PassContext&) -> absl::StatusOr<ir::IRModule> {
        return absl::InternalError("it broke");
      });
}

// Replaces the body of every function by an empty sequence.
PassPtr Clear(const std::string& name, bool skips_scheduled = false) {
  return MakeFunctionPass(PassInfo{.name = name, .skips_scheduled = skips_scheduled},
                          [](const ir::PrimFunc& f, const std::string&, const PassOptions&,
                             PassContext&) -> absl::StatusOr<ir::PrimFunc> {
                            auto n = ir::MakeNode<ir::PrimFuncNode>(*f);
                            n->body =
                                ir::Stmt(ir::MakeNode<ir::SeqStmtNode>(std::vector<ir::Stmt>{}));
                            return ir::PrimFunc(std::move(n));
                          });
}

TEST(PassManager, InstrumentHooksNestAroundEveryPass) {
  std::vector<std::string> calls;
  PassContext ctx;
  ctx.instruments.push_back(std::make_shared<RecordingInstrument>("A", &calls));
  ctx.instruments.push_back(std::make_shared<RecordingInstrument>("B", &calls));
  PassPtr nested = std::make_shared<const Sequential>(PassInfo{.name = "group"}, PassOptions(),
                                                      std::vector<PassPtr>{Identity("p2")},
                                                      Sequential::Form::kCombinator);
  PassPtr p = MakeSequential({Identity("p1"), nested});
  ASSERT_TRUE(RunPipeline(*p, ParseOrDie(kTwoFunctions), ctx).ok());
  EXPECT_EQ(calls, (std::vector<std::string>{"A:before-pipeline", "B:before-pipeline",  //
                                             "A:before p1", "B:before p1", "B:after p1",
                                             "A:after p1", "A:before group", "B:before group",  //
                                             "A:before p2", "B:before p2", "B:after p2",
                                             "A:after p2", "B:after group", "A:after group",  //
                                             "B:after-pipeline", "A:after-pipeline"}));
  EXPECT_EQ(ctx.pipeline_text(), "p1,group(p2)");
}

TEST(PassManager, AFailingPassStopsThePipelineAndReachesOnFailure) {
  std::vector<std::string> calls;
  auto rec = std::make_shared<RecordingInstrument>("R", &calls);
  PassContext ctx;
  ctx.instruments.push_back(rec);
  ir::IRModule input = ParseOrDie(kTwoFunctions);
  PassPtr p = MakeSequential({Clear("clear"), Failing("boom"), Identity("never")});
  absl::StatusOr<ir::IRModule> out = RunPipeline(*p, input, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(out.status().message(), "pass 'boom' failed: it broke");
  EXPECT_EQ(calls, (std::vector<std::string>{"R:before-pipeline", "R:before clear", "R:after clear",
                                             "R:before boom", "R:failure boom"}));
  ASSERT_EQ(rec->failures.size(), 1u);
  const PassFailure& f = rec->failures[0];
  EXPECT_EQ(f.pass->name(), "boom");
  EXPECT_FALSE(f.input.same_as(input));  // What `boom` was given: clear's output.
  EXPECT_EQ(f.output, nullptr);
  EXPECT_EQ(f.error, out.status());
}

TEST(PassManager, AnInstrumentErrorStopsThePipelineWithTheOutputAtHand) {
  std::vector<std::string> calls;
  auto rec = std::make_shared<RecordingInstrument>("R", &calls);
  rec->fail_after = "clear";
  PassContext ctx;
  ctx.instruments.push_back(rec);
  PassPtr p = MakeSequential({Clear("clear"), Identity("never")});
  absl::StatusOr<ir::IRModule> out = RunPipeline(*p, ParseOrDie(kTwoFunctions), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "R rejects clear");
  ASSERT_EQ(rec->failures.size(), 1u);
  EXPECT_NE(rec->failures[0].output, nullptr);
  EXPECT_EQ(calls.back(), "R:failure clear");
}

TEST(PassManager, AFailureInsideANestedPipelineIsReportedOnce) {
  std::vector<std::string> calls;
  auto rec = std::make_shared<RecordingInstrument>("R", &calls);
  PassContext ctx;
  ctx.instruments.push_back(rec);
  absl::StatusOr<PassPtr> p = ParsePipeline("nested(fixed-point(remove-no-op),simplify)");
  ASSERT_TRUE(p.ok());
  PassPtr bad = MakeSequential({std::make_shared<const Sequential>(
      PassInfo{.name = "outer"}, PassOptions(), std::vector<PassPtr>{*p, Failing("boom")},
      Sequential::Form::kCombinator)});
  absl::StatusOr<ir::IRModule> out = RunPipeline(*bad, ParseOrDie(kTwoFunctions), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "pass 'boom' failed: it broke");
  EXPECT_EQ(rec->failures.size(), 1u);
}

TEST(PassManager, FunctionPassesKeepUnchangedModulesAndFunctions) {
  ir::IRModule input = ParseOrDie(kTwoFunctions);
  PassContext ctx;
  PassPtr nothing = MakeFunctionPass(
      PassInfo{.name = "nothing"}, [](const ir::PrimFunc& f, const std::string&, const PassOptions&,
                                      PassContext&) { return absl::StatusOr<ir::PrimFunc>(f); });
  absl::StatusOr<ir::IRModule> out = RunPipeline(*MakeSequential({nothing}), input, ctx);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->same_as(input));  // Pointer identity: "did it change" is cheap.

  // A pass changing one function rebuilds the module, keeping the other function
  // object, the order and the module attrs.
  out = RunPipeline(*MakeSequential({Clear("clear", /*skips_scheduled=*/true)}), input, ctx);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ((*out)->functions.size(), 2u);
  EXPECT_EQ((*out)->functions[0].first, "f");
  EXPECT_FALSE((*out)->functions[0].second.same_as(input->functions[0].second));
  EXPECT_TRUE((*out)->functions[1].second.same_as(input->functions[1].second));
  EXPECT_EQ(ctx.log().ToString(), "clear: changed f; skipped g (it is already scheduled)\n");
}

TEST(PassManager, SkipPassesAttrNamesPassesOrEverything) {
  ir::IRModule input = ParseOrDie(
      "func @a(A: i32[1]) attrs {skip_passes = [\"clear\"]} {\n  A[0] = 1\n}\n\n"
      "func @b(A: i32[1]) attrs {skip_passes = \"*\"} {\n  A[0] = 1\n}\n\n"
      "func @c(A: i32[1]) attrs {skip_passes = [\"other\"]} {\n  A[0] = 1\n}\n");
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline(*MakeSequential({Clear("clear")}), input, ctx);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(ctx.log().ToString(),
            "clear: changed c; skipped a (its attr skip_passes names this pass); "
            "skipped b (its attr skip_passes names this pass)\n");
}

TEST(PassManager, FunctionPassErrorsNameTheFunction) {
  PassPtr p =
      MakeFunctionPass(PassInfo{.name = "picky"},
                       [](const ir::PrimFunc& f, const std::string& name, const PassOptions&,
                          PassContext&) -> absl::StatusOr<ir::PrimFunc> {
                         if (name == "g")
                           return absl::InvalidArgumentError("cannot handle this one");
                         return f;
                       });
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out =
      RunPipeline(*MakeSequential({p}), ParseOrDie(kTwoFunctions), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "pass 'picky' failed: function 'g': cannot handle this one");
}

TEST(PassManager, APassReturningNothingIsAnErrorNotACrash) {
  PassPtr p = MakeModulePass(PassInfo{.name = "null"},
                             [](const ir::IRModule&, const PassOptions&, PassContext&) {
                               return absl::StatusOr<ir::IRModule>(ir::IRModule());
                             });
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out =
      RunPipeline(*MakeSequential({p}), ParseOrDie(kTwoFunctions), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "pass 'null' returned no module");
  out = RunPipeline(*MakeSequential({}), ir::IRModule(), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "RunPipeline: the module is missing");
}

TEST(PassManager, ModulePassesThatAddOrRemoveFunctionsAreLogged) {
  PassPtr p = MakeModulePass(
      PassInfo{.name = "swap"}, [](const ir::IRModule& m, const PassOptions&, PassContext&) {
        ir::IRModule out = ir::MakeIRModule({{"h", m->functions[0].second}, m->functions[1]});
        return absl::StatusOr<ir::IRModule>(out);
      });
  PassContext ctx;
  ASSERT_TRUE(RunPipeline(*MakeSequential({p}), ParseOrDie(kTwoFunctions), ctx).ok());
  EXPECT_EQ(ctx.log().ToString(), "swap: added h; removed f\n");
}

TEST(PassManager, FixedPointRepeatsUntilNothingChanges) {
  ir::IRModule input = ParseOrDie(
      "func @f(A: i32[4]) {\n  for i in range(0, 4) {\n    for j in range(0, 0) {\n"
      "      A[j] = 0\n    }\n  }\n}\n");
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out =
      RunPipeline("fixed-point{max-iterations=5}(remove-no-op)", input, ctx);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ir::PrintModule(*out), "func @f(A: i32[4]) {\n}\n");
  EXPECT_EQ(ctx.log().ToString(),
            "remove-no-op: changed f; f: applied empty-loop x2\n"
            "remove-no-op: no change\n"
            "fixed-point: fixed point after 2 round(s)\n");

  // A pass that always changes something stops at max-iterations.
  int rounds = 0;
  PassPtr churn = MakeModulePass(
      PassInfo{.name = "churn"},
      [&rounds](const ir::IRModule& m, const PassOptions&, PassContext&) {
        ++rounds;
        return absl::StatusOr<ir::IRModule>(ir::MakeIRModule(m->functions, m->attrs));
      });
  const RegistryEntry* entry = PassRegistry::Global().Lookup("fixed-point");
  PassOptions opts(entry->info.options, "fixed-point");
  ASSERT_TRUE(opts.Set("max-iterations", OptionLiteral::Scalar("3")).ok());
  absl::StatusOr<PassPtr> loop = entry->make_pipeline(opts, {churn});
  ASSERT_TRUE(loop.ok());
  ASSERT_TRUE(RunPipeline(**loop, input, ctx).ok());
  EXPECT_EQ(rounds, 3);
  EXPECT_NE(
      ctx.log().ToString().find("fixed-point: still changing after max-iterations=3; stopped"),
      std::string::npos);
}

TEST(PassManager, SequentialsPrintAsPipelineText) {
  PassPtr p = MakeSequential({Identity("a"), MakeSequential({Identity("b"), Identity("c")})});
  EXPECT_EQ(p->ToString(), "a,b,c");
  EXPECT_EQ(MakeSequential({})->ToString(), "");
}

}  // namespace
}  // namespace tessel::passes
