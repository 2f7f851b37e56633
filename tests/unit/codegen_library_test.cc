// `lower` then codegen over the op library and the small workloads: each
// function unscheduled and scheduled (outer loop parallel, innermost split by 16
// and vectorized where the schedule allows; the registered matmul-cpu-tile
// schedule on matmul-like blocks; the default-schedule pass's rules), JIT-compiled and run on the parallel runtime
// on the interpreter's random inputs, compared with the interpreter running the
// unlowered function. Sizes are small and odd.
#include <gtest/gtest.h>

#include <functional>

#include "codegen/jit.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"
#include "ir/te/workloads.h"
#include "ir/visitor.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "tests/unit/codegen_test_util.h"
#include "tests/unit/op_library_cases.h"

namespace tessel::codegen::testing {
namespace {

namespace te = ir::te;
using ir::DataType;
using tessel::testing::Built;
using tessel::testing::OpLibraryCases;

// Outermost loop of each block parallel, innermost split by 16 and vectorized;
// a refused primitive leaves the schedule as it was.
ir::IRModule ParallelVectorSchedule(const ir::IRModule& mod) {
  absl::StatusOr<ir::schedule::Schedule> sch = ir::schedule::Schedule::Create(mod);
  if (!sch.ok()) return mod;
  struct Names : ir::IRVisitor {
    std::vector<std::string> blocks;
    void VisitBlock(const ir::BlockNode* op) override {
      if (!op->iter_vars.empty()) blocks.push_back(op->name);
      ir::IRVisitor::VisitBlock(op);
    }
  } names;
  names.VisitStmt(sch->func()->body);
  for (const std::string& name : names.blocks) {
    absl::StatusOr<ir::schedule::BlockRV> block = sch->GetBlock(name);
    if (!block.ok()) continue;
    absl::StatusOr<std::vector<ir::schedule::LoopRV>> loops = sch->GetLoops(*block);
    if (!loops.ok() || loops->empty()) continue;
    if (loops->size() >= 2) (void)sch->Parallel(loops->front());
    absl::StatusOr<std::vector<ir::schedule::LoopRV>> split = sch->Split(loops->back(), {std::nullopt, 16});
    if (split.ok()) (void)sch->Vectorize((*split)[1]);
  }
  return sch->mod();
}

// What the compiled functions held, so that the tests can tell they covered
// vector code and parallel loops.
struct Coverage {
  int vector_functions = 0;
  int parallel_functions = 0;
};

void Count(const ir::PrimFunc& f, Coverage* c) {
  struct Finder : ir::IRVisitor {
    bool ramp = false, parallel = false;
    void VisitRamp(const ir::RampNode* op) override { ramp = true; }
    void VisitFor(const ir::ForNode* op) override {
      parallel |= op->for_kind == ir::ForKind::kParallel;
      ir::IRVisitor::VisitFor(op);
    }
  } finder;
  finder.VisitStmt(f->body);
  c->vector_functions += finder.ramp;
  c->parallel_functions += finder.parallel;
}

// Lowers `mod` with `pipeline`, JITs it and compares with the interpreter on `mod`.
void CheckCompiled(const ir::IRModule& mod, const std::string& pipeline, const std::string& what,
                   Coverage* coverage) {
  SCOPED_TRACE(what);
  passes::PassContext ctx;
  absl::StatusOr<ir::IRModule> lowered = passes::RunPipeline(pipeline, mod, ctx);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  Count((*lowered)->functions[0].second, coverage);
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*lowered, Target(), TestJitOptions(true));
  ASSERT_TRUE(jit.ok()) << jit.status().message() << "\n" << ir::PrintModule(*lowered);
  const auto& [name, func] = mod->functions[0];
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(func, 17);
  ASSERT_TRUE(args.ok()) << args.status().message();
  std::vector<ir::Arg> expected = ir::CloneArgs(*args);
  ASSERT_OK(ir::Run(func, expected, {}, name));
  ASSERT_OK(CallJit(**jit, name, (*lowered)->functions[0].second, *args));
  absl::Status same = ir::CompareArgs(expected, *args, func, {.rtol = 1e-4, .atol = 1e-5});
  EXPECT_TRUE(same.ok()) << same.message() << "\n" << ir::PrintModule(*lowered);
}

TEST(CodegenLibrary, EveryOpLoweredAndCompiled) {
  Coverage c;
  for (const auto& [name, build] : OpLibraryCases()) {
    Built args = build();
    ASSERT_TRUE(args.ok()) << name << ": " << args.status().message();
    absl::StatusOr<ir::IRModule> mod = te::CreateModule(*args, name);
    ASSERT_TRUE(mod.ok()) << name << ": " << mod.status().message();
    CheckCompiled(*mod, "lower", name, &c);
    CheckCompiled(ParallelVectorSchedule(*mod), "lower", name + " (parallel, vectorized)", &c);
    CheckCompiled(*mod, "manual-schedule{schedule=matmul-cpu-tile,allow-no-match=true},lower", name + " (matmul-cpu-tile)", &c);
    CheckCompiled(*mod, "default-schedule,lower", name + " (default-schedule)", &c);
  }
  EXPECT_GE(c.vector_functions, 10);
  EXPECT_GE(c.parallel_functions, 20);
}

TEST(CodegenLibrary, EverySmallWorkloadLoweredAndCompiled) {
  int small = 0;
  Coverage c;
  for (const te::Workload& w : te::AllWorkloads()) {
    if (!w.small) continue;
    ++small;
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name << ": " << mod.status().message();
    CheckCompiled(*mod, "lower", w.name, &c);
    CheckCompiled(ParallelVectorSchedule(*mod), "lower", w.name + " (parallel, vectorized)", &c);
    CheckCompiled(*mod, "manual-schedule{schedule=matmul-cpu-tile,allow-no-match=true},lower", w.name + " (matmul-cpu-tile)", &c);
    CheckCompiled(*mod, "default-schedule,lower", w.name + " (default-schedule)", &c);
  }
  EXPECT_GE(small, 5);
  EXPECT_GE(c.vector_functions, 3);
  EXPECT_GE(c.parallel_functions, 5);
}

}  // namespace
}  // namespace tessel::codegen::testing
