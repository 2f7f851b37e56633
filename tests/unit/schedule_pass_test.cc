// The manual-schedule pass: a trace file or a registered schedule function
// applied in a pipeline, which functions it picks, and its errors. Also the
// issue's "done when": the 1024^3 matmul tiled, reordered, vectorized and
// parallelised by a trace in a pipeline, checked structurally, with the same
// trace checked by the interpreter on the 64^3 and 17x31x23 matmuls (1024^3 is
// ~1e9 multiply-adds, too slow for the interpreter).
#include <fstream>

#include "ir/schedule/schedule_registry.h"
#include "ir/te/workloads.h"
#include "passes/transforms/manual_schedule.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kTrace =
    std::string(TESSEL_SOURCE_DIR) + "/tests/lit/schedule/Inputs/matmul_tile.json";

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

IRModule Workload(const std::string& name) { return Must(te::BuildWorkload(name)); }

// Two functions: a matmul (block C) and a softmax (no block C).
IRModule TwoFunctions() {
  IRModule mm = Workload("matmul_17x31x23_f32");
  IRModule sm = Workload("softmax_16x33");
  return MakeIRModule({mm->functions[0], sm->functions[0]});
}

absl::StatusOr<IRModule> RunText(const std::string& pipeline, const IRModule& mod,
                                 passes::PassContext* ctx = nullptr) {
  passes::PassContext local;
  return passes::RunPipeline(pipeline, mod, ctx ? *ctx : local);
}

TEST(ManualSchedulePass, Matmul1024TiledByATraceInAPipeline) {
  IRModule mod = Workload("matmul_1024x1024x1024_f32");
  passes::PassContext ctx;
  IRModule out = Must(RunText("manual-schedule{trace=" + kTrace + "}", mod, &ctx));
  PrimFunc f = out->functions[0].second;
  EXPECT_TRUE(VerifyModule(out).ok());
  Schedule got = Must(Schedule::Create(out));
  ExpectFunc(got, MatmulNestText(
                      {"i_0_j_0_fused in parallel(0, 512)", "k_0 in range(0, 256)",
                       "i_1 in range(0, 32)", "k_1 in unrolled(0, 4)", "j_1 in vectorized(0, 64)"},
                      {"i_0_j_0_fused // 16 * 32 + i_1", "i_0_j_0_fused %% 16 * 64 + j_1",
                       "k_0 * 4 + k_1"},
                      {.m = 1024,
                       .n = 1024,
                       .k = 1024,
                       .name = "matmul_1024x1024x1024_f32",
                       .attrs = "scheduled = true"}));
  EXPECT_THAT(ctx.log().AppliedRules("manual-schedule", "matmul_1024x1024x1024_f32"),
              ::testing::ElementsAre("trace"));
  // The same trace, in the interpreter, on matmuls small enough to run.
  for (const char* name : {"matmul_64x64x64_f32", "matmul_17x31x23_f32"}) {
    IRModule small = Workload(name);
    IRModule scheduled = Must(RunText("manual-schedule{trace=" + kTrace + "}", small));
    for (uint64_t seed : {1, 2}) {
      absl::Status same =
          CheckSameResults(small->functions[0].second, scheduled->functions[0].second, seed);
      EXPECT_TRUE(same.ok()) << name << ": " << same.message();
    }
  }
}

TEST(ManualSchedulePass, PicksTheFunctionsTheTraceFits) {
  IRModule mod = TwoFunctions();
  passes::PassContext ctx;
  IRModule out = Must(RunText("manual-schedule{trace=" + kTrace + "}", mod, &ctx));
  EXPECT_FALSE(out->functions[0].second.same_as(mod->functions[0].second));
  EXPECT_TRUE(out->functions[1].second.same_as(mod->functions[1].second));
  EXPECT_THAT(ctx.log().ToString(),
              ::testing::HasSubstr("softmax_16x33 (the trace needs block 'C')"));
  // Scheduled functions are not scheduled again.
  passes::PassContext again;
  IRModule twice = Must(RunText("manual-schedule{trace=" + kTrace + "}", out, &again));
  EXPECT_TRUE(twice.same_as(out));
  EXPECT_THAT(again.log().ToString(), ::testing::HasSubstr("it is already scheduled"));
  // Naming a function the trace does not fit is an error, with the replay's reason.
  absl::StatusOr<IRModule> forced =
      RunText("manual-schedule{trace=" + kTrace + ",functions=[softmax_16x33]}", mod);
  ASSERT_FALSE(forced.ok());
  EXPECT_THAT(std::string(forced.status().message()),
              ::testing::HasSubstr("function 'softmax_16x33': trace '" + kTrace +
                                   "': replaying instruction 0"));
  EXPECT_THAT(std::string(forced.status().message()),
              ::testing::HasSubstr("no block named 'C' in function 'softmax_16x33'"));
  // Functions not listed are left alone.
  passes::PassContext only;
  IRModule listed = Must(
      RunText("manual-schedule{trace=" + kTrace + ",functions=[matmul_17x31x23_f32]}", mod, &only));
  EXPECT_TRUE(listed->functions[1].second.same_as(mod->functions[1].second));
  EXPECT_THAT(only.log().ToString(), ::testing::HasSubstr("not in option 'functions'"));
}

TEST(ManualSchedulePass, RegisteredScheduleFunctions) {
  IRModule mod = TwoFunctions();
  passes::PassContext ctx;
  IRModule out = Must(RunText("manual-schedule{schedule=matmul-cpu-tile}", mod, &ctx));
  EXPECT_THAT(ctx.log().AppliedRules("manual-schedule", "matmul_17x31x23_f32"),
              ::testing::ElementsAre("schedule matmul-cpu-tile"));
  EXPECT_THAT(ctx.log().ToString(),
              ::testing::HasSubstr("softmax_16x33 (schedule 'matmul-cpu-tile' does not apply)"));
  EXPECT_TRUE(CheckSameResults(mod->functions[0].second, out->functions[0].second, 3).ok());
  // The recipe stages through a local accumulator and a packed panel, so the
  // loops sit in the root block that allocates them; the outermost is parallel.
  const auto* root = dyn_cast<BlockRealizeNode>(out->functions[0].second->body);
  ASSERT_NE(root, nullptr);
  const auto* loop = dyn_cast<ForNode>(root->block->body);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind, ForKind::kParallel);
  absl::StatusOr<IRModule> forced =
      RunText("manual-schedule{schedule=matmul-cpu-tile,functions=[softmax_16x33]}", mod);
  EXPECT_THAT(std::string(forced.status().message()),
              ::testing::HasSubstr("schedule 'matmul-cpu-tile' does not apply to this function"));
}

// A schedule function that claims every function and then fails.
TESSEL_REGISTER_SCHEDULE("test-always-fails", "Splits a loop by 0 (for the units)",
                         [](Schedule& sch) -> absl::StatusOr<bool> {
                           BlockRV b = sch.GetBlock(sch.state().index().BlockNames()[0]).value();
                           absl::StatusOr<std::vector<LoopRV>> l =
                               sch.Split(sch.GetLoops(b).value()[0], {0, std::nullopt});
                           if (!l.ok()) return l.status();
                           return true;
                         });

TEST(ManualSchedulePass, Errors) {
  IRModule mod = Workload("matmul_64x64x64_f32");
  auto error = [&](const std::string& pipeline) {
    absl::StatusOr<IRModule> out = RunText(pipeline, mod);
    return out.ok() ? std::string("ok") : std::string(out.status().message());
  };
  EXPECT_THAT(error("manual-schedule"),
              ::testing::HasSubstr("function 'matmul_64x64x64_f32': no trace: give "
                                   "manual-schedule one of the options 'trace', 'script' and "
                                   "'schedule', or write the trace in // SCHEDULE: lines"));
  EXPECT_THAT(error("manual-schedule{trace=a.json,schedule=matmul-cpu-tile}"),
              ::testing::HasSubstr("give one of the options 'trace' (a JSON file), 'script' (a "
                                   "Python trace file) and 'schedule'"));
  EXPECT_THAT(error("manual-schedule{script=/nonexistent/t.py}"),
              ::testing::HasSubstr("option 'script': cannot open '/nonexistent/t.py'"));
  std::string bad_py = WriteTemp("bad_trace.py", "b0 = sch.get_block(name=C)\n");
  EXPECT_THAT(error("manual-schedule{script=" + bad_py + "}"),
              ::testing::HasSubstr("option 'script': " + bad_py +
                                   ":1:25: 'C' is neither a literal nor a handle"));
  EXPECT_THAT(error("manual-schedule{schedule=nope}"),
              ::testing::HasSubstr("no schedule function named 'nope'; registered: "
                                   "matmul-cpu-tile, test-always-fails"));
  EXPECT_THAT(error("manual-schedule{trace=/nonexistent/t.json}"),
              ::testing::HasSubstr("option 'trace': cannot open '/nonexistent/t.json'"));
  std::string bad = WriteTemp("bad_trace.json", "{\"format\": \"tessel-trace\", \"version\": 1,");
  EXPECT_THAT(error("manual-schedule{trace=" + bad + "}"),
              ::testing::HasSubstr("option 'trace': " + bad + ": parse error at line 1"));
  EXPECT_THAT(error("manual-schedule{schedule=test-always-fails}"),
              ::testing::HasSubstr("schedule 'test-always-fails': sch.split(loop=l1, factors=[0, "
                                   "None]): factor 0 is 0"));
}

TEST(ManualSchedulePass, SampledTraceUsesItsDecisionsOrTheSeed) {
  // A trace sampled once replays its decisions; without them, the seed decides.
  Schedule sch = Must(Schedule::Create(Workload("matmul_64x64x64_f32")));
  LoopRV k = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[2];
  std::vector<ExprRV> t = Must(sch.SamplePerfectTile(k, 2, 16));
  Must(sch.Split(k, {t[0], t[1]}));
  std::string json = Must(sch.trace().ToJson());
  std::string path = WriteTemp("sampled_trace.json", json);
  IRModule out =
      Must(RunText("manual-schedule{trace=" + path + "}", Workload("matmul_64x64x64_f32")));
  EXPECT_TRUE(
      StructuralEqual(out->functions[0].second->body, sch.func()->body, {.map_free_vars = true}));
  Trace undecided = Must(Trace::FromJson(json));
  Instruction sample = undecided.instructions()[2];
  sample.decision.reset();
  std::vector<Instruction> insts = undecided.instructions();
  insts[2] = sample;
  std::string path2 = WriteTemp("undecided_trace.json", Must(Trace(insts).ToJson()));
  IRModule a =
      Must(RunText("manual-schedule{trace=" + path2 + ",seed=5}", Workload("matmul_64x64x64_f32")));
  IRModule b =
      Must(RunText("manual-schedule{trace=" + path2 + ",seed=5}", Workload("matmul_64x64x64_f32")));
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_TRUE(CheckSameResults(Workload("matmul_64x64x64_f32")->functions[0].second,
                               a->functions[0].second, 1)
                  .ok());
}

TEST(ManualSchedulePass, InlineScriptKeepsTheInputsLinesAndColumns) {
  const std::string input =
      "// a comment\n"
      "  // SCHEDULE: b0 = sch.get_block(name=\"C\")\n"
      "func @f() {}\n"
      "// SCHEDULE: l1, l2, l3 = sch.get_loops(block=b0)\n";
  EXPECT_EQ(passes::InlineScheduleScript(input),
            "\n"
            "               b0 = sch.get_block(name=\"C\")\n"
            "\n"
            "             l1, l2, l3 = sch.get_loops(block=b0)\n"
            "\n");
  EXPECT_EQ(passes::InlineScheduleScript("func @f() {}\n// CHECK: x\n"), "");
  // The pass reads it from the PassContext, as tessel-opt sets it.
  passes::PassContext ctx;
  Must(ctx.SetConfig(passes::kInlineScheduleConfig,
                     passes::InlineScheduleScript(input + "// SCHEDULE: sch.parallel(loop=l1)\n")));
  Must(ctx.SetConfig(passes::kInlineScheduleSourceConfig, std::string("mm.tsl")));
  IRModule out = Must(RunText("manual-schedule", Workload("matmul_64x64x64_f32"), &ctx));
  EXPECT_THAT(PrintModule(out), ::testing::HasSubstr("for i in parallel(0, 64)"));
  Must(ctx.SetConfig(passes::kInlineScheduleConfig,
                     passes::InlineScheduleScript(input + "// SCHEDULE: sch.parallel(l1)\n")));
  EXPECT_THAT(std::string(RunText("manual-schedule", Workload("matmul_64x64x64_f32"), &ctx)
                              .status()
                              .message()),
              ::testing::HasSubstr("mm.tsl:5:27: sch.parallel takes keyword arguments only"));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
