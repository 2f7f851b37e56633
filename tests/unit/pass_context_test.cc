// PassContext: scoping (nested contexts restore the outer one), typed config,
// opt-level gating, disabled and required passes, and the per-run log.
#include "passes/pass_context.h"

#include "gtest/gtest.h"
#include "passes/pass_config.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using testing::ParseOrDie;

TESSEL_REGISTER_CONFIG(IntOption("unit-context.int", 5, "Unit test: an int"));
TESSEL_REGISTER_CONFIG(ListOption("unit-context.list", {"a"}, "Unit test: a list"));
TESSEL_REGISTER_CONFIG(StringOption("unit-context.string", "s", "Unit test: a string"));

// Counts its runs; opt level and requirements are chosen by the test.
PassPtr Counter(const std::string& name, int opt_level, int* runs,
                std::vector<std::string> required = {}) {
  PassInfo info{.name = name, .opt_level = opt_level, .required = std::move(required)};
  return MakeModulePass(info, [runs](const ir::IRModule& m, const PassOptions&, PassContext&) {
    ++*runs;
    return absl::StatusOr<ir::IRModule>(m);
  });
}

// Registered so that requirements can name it.
int g_required_runs = 0;
const PassRegistrar kRequired(PassInfo{.name = "unit-required", .opt_level = 3},
                              [](PassOptions) -> absl::StatusOr<PassPtr> {
                                return Counter("unit-required", 3, &g_required_runs);
                              });

ir::IRModule Module() { return ParseOrDie("func @f(A: i32[1]) {\n  A[0] = 1\n}\n"); }

TEST(PassContext, NestedScopesRestoreTheOuterContext) {
  PassContext& outside = PassContext::Current();
  PassContext a, b;
  a.opt_level = 1;
  b.opt_level = 3;
  {
    PassContext::Scope sa(a);
    EXPECT_EQ(&PassContext::Current(), &a);
    {
      PassContext::Scope sb(b);
      EXPECT_EQ(&PassContext::Current(), &b);
      EXPECT_EQ(PassContext::Current().opt_level, 3);
    }
    EXPECT_EQ(&PassContext::Current(), &a);
    EXPECT_EQ(PassContext::Current().opt_level, 1);
  }
  EXPECT_EQ(&PassContext::Current(), &outside);
}

TEST(PassContext, RunPipelineMakesItsContextCurrent) {
  PassContext ctx;
  const PassContext* seen = nullptr;
  PassPtr p = MakeModulePass(PassInfo{.name = "unit-peek"},
                             [&seen](const ir::IRModule& m, const PassOptions&, PassContext&) {
                               seen = &PassContext::Current();
                               return absl::StatusOr<ir::IRModule>(m);
                             });
  ASSERT_TRUE(RunPipeline(*MakeSequential({p}), Module(), ctx).ok());
  EXPECT_EQ(seen, &ctx);
  EXPECT_NE(&PassContext::Current(), &ctx);
  // The overload without a context runs under the current one.
  PassContext other;
  PassContext::Scope scope(other);
  ASSERT_TRUE(RunPipeline(*MakeSequential({p}), Module()).ok());
  EXPECT_EQ(seen, &other);
}

TEST(PassContext, TypedConfig) {
  PassContext ctx;
  EXPECT_EQ(ctx.GetConfigInt("unit-context.int"), 5);  // The registered default.
  ASSERT_TRUE(ctx.SetConfigFromText("unit-context.int", "12").ok());
  EXPECT_EQ(ctx.GetConfigInt("unit-context.int"), 12);
  ASSERT_TRUE(ctx.SetConfigFromText("unit-context.list", "[x, \"y z\"]").ok());
  EXPECT_EQ(ctx.GetConfigList("unit-context.list"), (std::vector<std::string>{"x", "y z"}));
  ASSERT_TRUE(ctx.SetConfig("unit-context.string", std::string("t")).ok());
  EXPECT_EQ(ctx.GetConfigString("unit-context.string"), "t");
  EXPECT_EQ(ctx.ConfigToStrings(),
            (std::vector<std::string>{"unit-context.int=12", "unit-context.list=[x,\"y z\"]",
                                      "unit-context.string=t"}));

  EXPECT_EQ(ctx.SetConfigFromText("unit-context.int", "x").message(),
            "config 'unit-context.int' expects an int, got x");
  EXPECT_EQ(ctx.SetConfig("unit-context.int", true).message(),
            "config 'unit-context.int' is an int, not a bool");
  EXPECT_EQ(ctx.SetConfigFromText("unit-context.lst", "[a]").message(),
            "unknown config 'unit-context.lst'; did you mean 'unit-context.list'? "
            "(--list-configs shows them all)");
  EXPECT_NE(ctx.SetConfigFromText("unit-context.int", "1 2")
                .message()
                .find("config 'unit-context.int': pipeline:1:3: expected end of value"),
            std::string::npos);
  EXPECT_EQ(ctx.GetConfigInt("unit-context.int"), 12);  // Failed sets change nothing.
}

TEST(PassContextDeathTest, ReadingAnUnregisteredConfigIsAProgrammingError) {
  PassContext ctx;
  EXPECT_DEATH(ctx.GetConfigInt("unit-context.nope"), "reading unregistered int config");
  EXPECT_DEATH(ctx.GetConfigBool("unit-context.int"), "reading unregistered bool config");
}

TEST(PassContext, OptLevelGatesPassesUnlessRequired) {
  int low = 0, high = 0;
  PassPtr p = MakeSequential({Counter("unit-low", 1, &low), Counter("unit-high", 3, &high)});
  PassContext ctx;
  ctx.opt_level = 2;
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(low, 1);
  EXPECT_EQ(high, 0);
  EXPECT_EQ(ctx.log().ToString(),
            "unit-low: no change\nunit-high: skipped (opt level 3 > context opt level 2)\n");
  ctx.required_passes = {"unit-high"};
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(high, 1);
  ctx.opt_level = 0;
  ctx.required_passes.clear();
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(low, 2);  // Unchanged: opt level 1 > 0.
  EXPECT_EQ(high, 1);
}

TEST(PassContext, DisabledPassesNeverRun) {
  int runs = 0;
  PassPtr p = MakeSequential({Counter("unit-off", 0, &runs)});
  PassContext ctx;
  ctx.disabled_passes = {"unit-off"};
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(ctx.log().ToString(), "unit-off: skipped (disabled)\n");
  // Disabling a pipeline skips the passes inside it.
  PassContext group_ctx;
  group_ctx.disabled_passes = {"nested"};
  ir::IRModule m = ParseOrDie("func @f(A: i32[1]) {\n  A[0] = 1 + 1\n}\n");
  absl::StatusOr<ir::IRModule> kept = RunPipeline("nested(simplify)", m, group_ctx);
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->same_as(m));
  EXPECT_EQ(group_ctx.log().ToString(), "nested: skipped (disabled)\n");

  ctx.required_passes = {"unit-off"};
  absl::StatusOr<ir::IRModule> out = RunPipeline(*p, Module(), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "pass 'unit-off' is both required and disabled");
}

TEST(PassContext, RequiredPassesRunFirstOncePerPipeline) {
  g_required_runs = 0;
  int a = 0, b = 0;
  PassPtr p = MakeSequential(
      {Counter("unit-a", 0, &a, {"unit-required"}), Counter("unit-b", 0, &b, {"unit-required"})});
  PassContext ctx;
  ctx.opt_level = 0;  // A required pass runs whatever its own opt level.
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(g_required_runs, 1);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(ctx.log().ToString(),
            "unit-a: ran required pass 'unit-required' first\n"
            "unit-required: no change\n"
            "unit-a: no change\n"
            "unit-b: no change\n");
  // A new run starts a new log, so the requirement is met afresh.
  ASSERT_TRUE(RunPipeline(*p, Module(), ctx).ok());
  EXPECT_EQ(g_required_runs, 2);

  ctx.disabled_passes = {"unit-required"};
  absl::StatusOr<ir::IRModule> out = RunPipeline(*p, Module(), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "pass 'unit-a' requires pass 'unit-required', which is disabled");

  PassPtr missing = MakeSequential({Counter("unit-c", 0, &a, {"unit-qqqqqqqqqq"})});
  ctx.disabled_passes.clear();
  out = RunPipeline(*missing, Module(), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "pass 'unit-c' requires unknown pass 'unit-qqqqqqqqqq' (--list-passes shows them all)");
}

TEST(PassLog, RecordsAndRendersOneLinePerRun) {
  PassLog log;
  log.RecordRan("simplify");
  log.RecordChanged("simplify", "f");
  log.RecordChanged("simplify", "g");
  log.RecordApplied("simplify", "f", "fold-constant");
  log.RecordApplied("simplify", "f", "fold-constant", 2);
  log.RecordApplied("simplify", "g", "identity");
  log.RecordSkipped("simplify", "h", "it is already scheduled");
  log.RecordRan("remove-no-op");
  log.RecordRan("simplify");
  log.RecordNote("check-semantics", "skipping function 'big'");
  EXPECT_TRUE(log.HasRun("remove-no-op"));
  EXPECT_FALSE(log.HasRun("canonicalize-names"));
  EXPECT_EQ(log.ChangedFunctions("simplify"), (std::vector<std::string>{"f", "g"}));
  EXPECT_EQ(log.AppliedRules("simplify", "f"), std::vector<std::string>{"fold-constant x3"});
  EXPECT_EQ(log.ToString(),
            "simplify: changed f, g; f: applied fold-constant x3; g: applied identity; "
            "skipped h (it is already scheduled)\n"
            "remove-no-op: no change\n"
            "simplify: no change\n"
            "check-semantics: skipping function 'big'\n");
  log.Clear();
  EXPECT_TRUE(log.entries().empty());
  EXPECT_EQ(log.ToString(), "");
}

}  // namespace
}  // namespace tessel::passes
