// The CPU schedule rules, their design spaces and the default-schedule pass:
// draws agree with the interpreter, a rule that does not apply leaves the
// schedule untouched, draws are deterministic and replay as traces, and the
// machine model parses targets and refuses what it cannot serve.
#include <gtest/gtest.h>

#include <set>

#include "ir/interpreter.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/workloads.h"
#include "metaschedule/design_space.h"
#include "metaschedule/machine.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "tests/unit/op_library_cases.h"

namespace tessel::metaschedule {
namespace {

constexpr char kTarget[] = "llvm -mattr=+avx,+avx2,+fma,+avx512f -num-cores=2";

std::vector<ir::te::Workload> SmallWorkloads() {
  std::vector<ir::te::Workload> out;
  for (const ir::te::Workload& w : ir::te::AllWorkloads()) {
    if (w.small) out.push_back(w);
  }
  return out;
}

// >= 500 draws over the small workloads: each scheduled function computes
// what the unscheduled one does (the interpreter on seeded random inputs).
TEST(DesignSpace, EveryDrawAgreesWithTheInterpreter) {
  const std::vector<ir::te::Workload> workloads = SmallWorkloads();
  ASSERT_GE(workloads.size(), 5u);
  const int per_workload = 500 / static_cast<int>(workloads.size()) + 1;
  int draws = 0, changed = 0;
  std::set<std::string> rules_seen;
  for (const ir::te::Workload& w : workloads) {
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name << ": " << mod.status().message();
    const ir::PrimFunc original = (*mod)->functions[0].second;
    absl::StatusOr<std::vector<ir::Arg>> inputs = ir::RandomArgs(original, 5);
    ASSERT_TRUE(inputs.ok()) << inputs.status().message();
    std::vector<ir::Arg> expected = ir::CloneArgs(*inputs);
    ASSERT_TRUE(ir::Run(original, expected).ok());
    absl::StatusOr<DesignSpace> space = DesignSpace::Create(*mod, "", kTarget);
    ASSERT_TRUE(space.ok()) << space.status().message();
    for (int seed = 1; seed <= per_workload; ++seed) {
      absl::StatusOr<RuleSchedule> d = space->Draw(static_cast<uint64_t>(seed));
      ASSERT_TRUE(d.ok()) << w.name << " seed " << seed << ": " << d.status().message();
      ++draws;
      for (const RuleRecord& a : d->applied) rules_seen.insert(a.rule);
      if (!ir::StructuralEqual(d->schedule.func(), original)) ++changed;
      std::vector<ir::Arg> got = ir::CloneArgs(*inputs);
      absl::Status ran = ir::Run(d->schedule.func(), got);
      ASSERT_TRUE(ran.ok()) << w.name << " seed " << seed << ": " << ran.message();
      absl::Status same =
          ir::CompareArgs(expected, got, original, {.rtol = 1e-4, .atol = 1e-5});
      ASSERT_TRUE(same.ok()) << w.name << " seed " << seed << ": " << same.message() << "\n"
                             << d->schedule.trace().AsPython();
    }
  }
  EXPECT_GE(draws, 500);
  EXPECT_GE(changed, draws * 99 / 100);  // A draw that schedules nothing is a wasted draw.
  EXPECT_EQ(rules_seen, (std::set<std::string>{"auto-inline", "multi-level-tiling", "add-rfactor",
                                               "compute-location", "parallelize-vectorize"}));
}

// Every op of the op library, a few draws each: the rules meet every kind of
// block there is (broadcasts, pads, pools, argmax's tuple reduction, attention).
TEST(DesignSpace, DrawsOverTheOpLibraryAgreeWithTheInterpreter) {
  int draws = 0, changed = 0;
  for (const auto& [name, build] : testing::OpLibraryCases()) {
    testing::Built args = build();
    ASSERT_TRUE(args.ok()) << name << ": " << args.status().message();
    absl::StatusOr<ir::IRModule> mod = ir::te::CreateModule(*args, name);
    ASSERT_TRUE(mod.ok()) << name << ": " << mod.status().message();
    const ir::PrimFunc original = (*mod)->functions[0].second;
    absl::StatusOr<DesignSpace> space = DesignSpace::Create(*mod, "", kTarget);
    ASSERT_TRUE(space.ok()) << space.status().message();
    for (uint64_t seed = 0; seed < 4; ++seed) {
      absl::StatusOr<RuleSchedule> d = seed == 0 ? space->Heuristic() : space->Draw(seed);
      ASSERT_TRUE(d.ok()) << name << " seed " << seed << ": " << d.status().message();
      ++draws;
      if (!ir::StructuralEqual(d->schedule.func(), original)) ++changed;
      absl::Status same = ir::CheckSameResults(original, d->schedule.func(), 11 + seed,
                                               {.rtol = 1e-4, .atol = 1e-5});
      ASSERT_TRUE(same.ok()) << name << " seed " << seed << ": " << same.message() << "\n"
                             << d->schedule.trace().AsPython();
    }
  }
  EXPECT_GE(draws, 100);
  EXPECT_GE(changed, draws * 9 / 10);
}

// Draws are deterministic, differ between seeds, and their traces replay onto
// the unscheduled function to the same schedule (what a tuning database needs).
TEST(DesignSpace, DrawsAreDeterministicAndReplay) {
  absl::StatusOr<ir::IRModule> mod = ir::te::BuildWorkload("matmul_64x64x64_f32");
  ASSERT_TRUE(mod.ok());
  absl::StatusOr<DesignSpace> space = DesignSpace::Create(*mod, "", kTarget);
  ASSERT_TRUE(space.ok());
  std::set<std::string> distinct;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    absl::StatusOr<RuleSchedule> a = space->Draw(seed), b = space->Draw(seed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->schedule.trace().AsPython(), b->schedule.trace().AsPython());
    distinct.insert(a->schedule.trace().AsPython());
    absl::StatusOr<ir::schedule::Schedule> replay = ir::schedule::Schedule::Create(*mod);
    ASSERT_TRUE(replay.ok());
    absl::Status ok = a->schedule.trace().ApplyToSchedule(&*replay);
    ASSERT_TRUE(ok.ok()) << ok.message();
    EXPECT_TRUE(ir::StructuralEqual(replay->func(), a->schedule.func()));
  }
  EXPECT_GE(distinct.size(), 4u);
}

// Each rule, offered each block: when it does not apply, the schedule -- the
// function and the trace -- is exactly as before.
TEST(ScheduleRule, NotApplicableLeavesTheScheduleUnchanged) {
  RuleContext ctx;
  ctx.machine = *Machine::FromTarget(kTarget);
  int refusals = 0;
  for (const ir::te::Workload& w : SmallWorkloads()) {
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok());
    for (const RegisteredRule& r : RulesFor("llvm")) {
      absl::StatusOr<ir::schedule::Schedule> s = ir::schedule::Schedule::Create(*mod);
      ASSERT_TRUE(s.ok());
      for (const std::string& block : s->state().index().BlockNames()) {
        const ir::PrimFunc before = s->func();
        const std::string trace = s->trace().AsPython();
        RuleOutcome o = ApplyRule(*r.rule, ctx, *s, block);
        if (o.applied) continue;
        ++refusals;
        EXPECT_FALSE(o.detail.empty()) << r.rule->name() << " on " << block;
        EXPECT_TRUE(ir::StructuralEqual(before, s->func())) << r.rule->name() << " on " << block;
        EXPECT_EQ(trace, s->trace().AsPython()) << r.rule->name() << " on " << block;
      }
    }
  }
  EXPECT_GE(refusals, 20);
}

TEST(DefaultSchedule, PassAppliesTheHeuristicPointAndSkipsScheduledFunctions) {
  absl::StatusOr<ir::IRModule> mod = ir::te::BuildWorkload("softmax_16x33");
  ASSERT_TRUE(mod.ok());
  absl::StatusOr<passes::PassPtr> pass =
      passes::ParsePipeline(absl::StrCat("default-schedule{target=\"", kTarget, "\"}"));
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  passes::PassContext ctx;
  absl::StatusOr<ir::IRModule> once = passes::RunPipeline(**pass, *mod, ctx);
  ASSERT_TRUE(once.ok()) << once.status().message();
  absl::StatusOr<RuleSchedule> h = DesignSpace::Create(*mod, "", kTarget)->Heuristic();
  ASSERT_TRUE(h.ok());
  const ir::PrimFunc scheduled = (*once)->functions[0].second;
  EXPECT_TRUE(ir::StructuralEqual(scheduled->body, h->schedule.func()->body));
  EXPECT_FALSE(ctx.log().AppliedRules("default-schedule", "softmax_16x33").empty());
  // Again: the function says it is scheduled, so the pass leaves it alone.
  absl::StatusOr<ir::IRModule> twice = passes::RunPipeline(**pass, *once, ctx);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ((*twice)->functions[0].second.get(), scheduled.get());
}

TEST(DefaultSchedule, BadTargetsAreClearErrors) {
  auto error = [](const std::string& target) {
    absl::StatusOr<passes::PassPtr> p =
        passes::ParsePipeline(absl::StrCat("default-schedule{target=\"", target, "\"}"));
    return p.ok() ? std::string("ok") : std::string(p.status().message());
  };
  EXPECT_NE(error("rocm").find("the schedule rules serve the target kinds 'llvm' and 'cuda', not 'rocm'"),
            std::string::npos);
  EXPECT_EQ(error("cuda -arch=sm_90"), "ok");
  EXPECT_NE(error("cuda -max-threads-per-block=4096").find("[32, 1024]"), std::string::npos);
  EXPECT_NE(error("cuda -mcpu=znver4").find("unknown option '-mcpu=znver4'"), std::string::npos);
  EXPECT_NE(error("llvm -num-cores=lots").find("'-num-cores' takes a whole number"),
            std::string::npos);
  EXPECT_NE(error("llvm -fast").find("unknown option '-fast'"), std::string::npos);
  EXPECT_NE(error("llvm -mattr=avx2").find("needs a leading + or -"), std::string::npos);
  // This binary does not link codegen: a named CPU's features are unknown here.
  EXPECT_NE(error("llvm -mcpu=skylake").find("known only to codegen"), std::string::npos);
}

TEST(Machine, TargetsSetVectorWidthAndCores) {
  absl::StatusOr<Machine> m = Machine::FromTarget("llvm -mattr=+avx,+avx2,+fma,-avx512f -num-cores=8");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->vector_bits, 256);
  EXPECT_EQ(m->vector_registers, 16);
  EXPECT_EQ(m->num_cores, 8);
  EXPECT_EQ(m->Lanes(ir::DataType::Float(32)), 8);
  m = Machine::FromTarget("llvm -mattr=+avx512f -num-threads=3");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->vector_bits, 512);
  EXPECT_EQ(m->num_cores, 3);
  EXPECT_EQ(m->Lanes(ir::DataType::Float(16)), 32);
  const Machine host = Machine::Host();
  EXPECT_GE(host.num_cores, 1);
  EXPECT_GE(host.vector_bits, 128);
  EXPECT_NE(host.ToString().find("cores="), std::string::npos);
}

// A machine printed as a target string reads back to itself, whatever the host
// has: the host, and machines narrower and wider than it with other caches.
TEST(Machine, PrintsAsATargetThatReadsBack) {
  std::vector<Machine> machines = {Machine::Host()};
  for (const char* t :
       {"llvm -mattr=-avx,-avx2,-fma,-avx512f -num-cores=1",
        "llvm -mattr=+avx,+avx2,+fma,-avx512f -num-cores=8 -l2-cache=262144",
        "llvm -mattr=+avx512f -num-cores=64 -l1d-cache=32768 -l3-cache=1073741824"}) {
    absl::StatusOr<Machine> m = Machine::FromTarget(t);
    ASSERT_TRUE(m.ok()) << t << ": " << m.status().message();
    machines.push_back(*m);
  }
  EXPECT_EQ(machines[2].l2_bytes, 262144);
  EXPECT_EQ(machines[3].l1d_bytes, 32768);
  EXPECT_EQ(machines[3].l3_bytes, int64_t{1} << 30);
  for (const Machine& m : machines) {
    SCOPED_TRACE(m.ToTarget());
    absl::StatusOr<Machine> back = Machine::FromTarget(m.ToTarget());
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, m) << back->ToString() << " vs " << m.ToString();
  }
  absl::StatusOr<Machine> bad = Machine::FromTarget("llvm -l2-cache=512");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message())
                .find("'-l2-cache' takes a size in bytes from 1024 to 2^40, got '512'"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace tessel::metaschedule
