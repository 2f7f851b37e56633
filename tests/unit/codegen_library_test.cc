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

namespace tessel::codegen::testing {
namespace {

namespace te = ir::te;
namespace ops = ir::te::ops;
using ir::DataType;
using Built = absl::StatusOr<std::vector<te::FuncArg>>;

te::Tensor T(const std::string& name, te::Shape shape, DataType t = DataType::Float(32)) {
  return *te::Placeholder(shape, t, name);
}

// out = op(inputs...), as the argument list of a function.
Built Args(std::vector<te::Tensor> in, absl::StatusOr<te::Tensor> out) {
  if (!out.ok()) return out.status();
  std::vector<te::FuncArg> args(in.begin(), in.end());
  args.push_back(*out);
  return args;
}

std::vector<std::pair<std::string, std::function<Built()>>> Ops() {
  te::Tensor x = T("x", {5, 19}), y = T("y", {5, 19}), row = T("r", {19});
  return {
      {"relu", [=] { return Args({x}, ops::Relu(x)); }},
      {"abs_neg", [=] { return Args({x}, ops::Neg(*ops::Abs(x))); }},
      {"exp", [=] { return Args({x}, ops::Exp(x)); }},
      {"tanh", [=] { return Args({x}, ops::Tanh(x)); }},
      {"erf", [=] { return Args({x}, ops::Erf(x)); }},
      {"sigmoid", [=] { return Args({x}, ops::Sigmoid(x)); }},
      {"silu", [=] { return Args({x}, ops::Silu(x)); }},
      {"gelu", [=] { return Args({x}, ops::Gelu(x)); }},
      {"gelu_tanh", [=] { return Args({x}, ops::Gelu(x, ops::GeluForm::kTanh)); }},
      {"cast_i32", [=] { return Args({x}, ops::Cast(*ops::Mul(x, 10.0), DataType::Int(32))); }},
      {"sum", [=] { return Args({x}, ops::Sum(x, {1})); }},
      {"max", [=] { return Args({x}, ops::Max(x, {0})); }},
      {"mean", [=] { return Args({x}, ops::Mean(x, {1})); }},
      {"argmax", [=] { return Args({x}, ops::ArgMax(x, 1)); }},
      {"softmax", [=] { return Args({x}, ops::Softmax(x)); }},
      {"log_softmax", [=] { return Args({x}, ops::LogSoftmax(x)); }},
      {"l2_normalize", [=] { return Args({x}, ops::L2Normalize(x, 1)); }},
      {"transpose", [=] { return Args({x}, ops::Transpose(x)); }},
      {"pad", [=] { return Args({x}, ops::Pad(x, {1, 0}, {2, 3}, 7.0)); }},
      {"add_broadcast", [=] { return Args({x, row}, ops::Add(x, row)); }},
      {"maximum", [=] { return Args({x, y}, ops::Maximum(x, y)); }},
      {"where", [=] {
         te::Tensor m = T("m", {5, 19}, DataType::Bool());
         return Args({m, x, y}, ops::Where(m, x, y));
       }},
      {"concat", [=] { return Args({x, y}, ops::Concat({x, y}, 0)); }},
      {"matmul", [] {
         te::Tensor a = T("a", {9, 5}), b = T("b", {5, 35});
         return Args({a, b}, ops::Matmul(a, b));
       }},
      {"batch_matmul", [] {
         te::Tensor a = T("a", {2, 3, 5}), b = T("b", {2, 5, 17});
         return Args({a, b}, ops::BatchMatmul(a, b));
       }},
      {"dense", [] {
         te::Tensor d = T("d", {3, 6}), w = T("w", {10, 6}), bias = T("bias", {10});
         return Args({d, w, bias}, ops::Dense(d, w, bias));
       }},
      {"gemv", [] {
         te::Tensor a = T("a", {9, 6}), v = T("v", {6});
         return Args({a, v}, ops::Gemv(a, v));
       }},
      {"conv2d", [] {
         te::Tensor d = T("d", {1, 2, 7, 6}), k = T("k", {3, 2, 3, 3});
         return Args({d, k}, ops::Conv2D(d, k, {.padding = {1}}));
       }},
      {"max_pool", [] {
         te::Tensor d = T("d", {1, 2, 7, 6});
         return Args({d}, ops::MaxPool2D(d, {.kernel = {3}, .strides = {2}, .padding = {1}}));
       }},
      {"avg_pool", [] {
         te::Tensor d = T("d", {1, 2, 7, 6});
         return Args({d}, ops::AvgPool2D(d, {.kernel = {2}, .strides = {2}}));
       }},
      {"layer_norm", [] {
         te::Tensor v = T("v", {3, 21}), g = T("g", {21}), b = T("b", {21});
         return Args({v, g, b}, ops::LayerNorm(v, g, b));
       }},
      {"rms_norm", [] {
         te::Tensor v = T("v", {3, 21}), w = T("w", {21});
         return Args({v, w}, ops::RmsNorm(v, w));
       }},
      {"attention", [] {
         te::Tensor q = T("q", {2, 3, 4}), k = T("k", {2, 5, 4}), v = T("v", {2, 5, 3});
         return Args({q, k, v}, ops::Attention(q, k, v, {.causal = true}));
       }},
  };
}

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
  for (const auto& [name, build] : Ops()) {
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
