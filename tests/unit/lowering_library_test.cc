// `lower` over the whole op library and every small workload, unscheduled, with
// a generic schedule (innermost loop split by 8, its inner part vectorized or
// else unrolled, the outermost loop parallel), and with each producer computed
// at its consumer's outer loop: each result is in lowered form
// (passes/lowering/lowered_form.h) and computes what the input computes on
// seeded random inputs (the interpreter is the oracle). Sizes are small and odd
// so that most splits leave tails (the elementwise ops' rows are 16 long, so
// theirs do not).
//
//   Gemv(a: f32[9, 6], x: f32[6]) --schedule--> for k_1 in unrolled(0, 8) {
//     block ... where k_0 * 8 + k_1 < 6 ...
//   --lower--> eight copies; the two whose guard is false (k = 6, 7) are dropped
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"
#include "ir/te/workloads.h"
#include "ir/verifier.h"
#include "ir/visitor.h"
#include "passes/lowering/lowered_form.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::passes {
namespace {

namespace te = ir::te;
namespace ops = ir::te::ops;
using ir::DataType;

constexpr DataType kF32 = DataType::Float(32);

te::Tensor In(const std::string& name, te::Shape shape, DataType t = kF32) {
  return *te::Placeholder(shape, t, name);
}

struct OpCase {
  std::string name;
  std::function<absl::StatusOr<std::vector<te::FuncArg>>()> build;
};

#define TESSEL_OP(name, ...) \
  OpCase { name, [&]() -> absl::StatusOr<std::vector<te::FuncArg>> { __VA_ARGS__ } }

std::vector<OpCase> OpCases() {
  std::vector<OpCase> c;
  auto unary = [&](const std::string& n, auto op) {
    c.push_back({n, [op]() -> absl::StatusOr<std::vector<te::FuncArg>> {
                   te::Tensor x = In("x", {5, 16});
                   absl::StatusOr<te::Tensor> y = op(x);
                   if (!y.ok()) return y.status();
                   return std::vector<te::FuncArg>{x, *y};
                 }});
  };
  unary("relu", [](const te::Tensor& x) { return ops::Relu(x); });
  unary("neg", [](const te::Tensor& x) { return ops::Neg(x); });
  unary("abs", [](const te::Tensor& x) { return ops::Abs(x); });
  unary("exp", [](const te::Tensor& x) { return ops::Exp(x); });
  unary("tanh", [](const te::Tensor& x) { return ops::Tanh(x); });
  unary("erf", [](const te::Tensor& x) { return ops::Erf(x); });
  unary("sigmoid", [](const te::Tensor& x) { return ops::Sigmoid(x); });
  unary("silu", [](const te::Tensor& x) { return ops::Silu(x); });
  unary("gelu", [](const te::Tensor& x) { return ops::Gelu(x); });
  unary("gelu_tanh", [](const te::Tensor& x) { return ops::Gelu(x, ops::GeluForm::kTanh); });
  unary("cast_i32", [](const te::Tensor& x) { return ops::Cast(x, DataType::Int(32)); });
  unary("sum", [](const te::Tensor& x) { return ops::Sum(x, {1}); });
  unary("max", [](const te::Tensor& x) { return ops::Max(x, {0}); });
  unary("mean", [](const te::Tensor& x) { return ops::Mean(x, {1}); });
  unary("softmax", [](const te::Tensor& x) { return ops::Softmax(x); });
  unary("log_softmax", [](const te::Tensor& x) { return ops::LogSoftmax(x); });
  unary("l2_normalize", [](const te::Tensor& x) { return ops::L2Normalize(x, 1); });
  unary("transpose", [](const te::Tensor& x) { return ops::Transpose(x); });
  unary("reshape", [](const te::Tensor& x) { return ops::Reshape(x, {8, 10}); });
  unary("pad", [](const te::Tensor& x) { return ops::Pad(x, {1, 0}, {2, 3}, 7.0); });
  c.push_back(TESSEL_OP("add_broadcast", te::Tensor a = In("a", {5, 7}); te::Tensor b = In("b", {7});
                        absl::StatusOr<te::Tensor> y = ops::Add(a, b); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{a, b, *y};));
  c.push_back(TESSEL_OP("where", te::Tensor a = In("a", {5, 7}); te::Tensor b = In("b", {5, 7});
                        te::Tensor m = In("m", {5, 7}, DataType::Bool());
                        absl::StatusOr<te::Tensor> y = ops::Where(m, a, b); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{m, a, b, *y};));
  c.push_back(TESSEL_OP("concat", te::Tensor a = In("a", {3, 5}); te::Tensor b = In("b", {4, 5});
                        absl::StatusOr<te::Tensor> y = ops::Concat({a, b}, 0); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{a, b, *y};));
  c.push_back(TESSEL_OP("matmul", te::Tensor a = In("a", {9, 5}); te::Tensor b = In("b", {5, 11});
                        absl::StatusOr<te::Tensor> y = ops::Matmul(a, b); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{a, b, *y};));
  c.push_back(TESSEL_OP("batch_matmul", te::Tensor a = In("a", {2, 3, 5}); te::Tensor b = In("b", {2, 5, 9});
                        absl::StatusOr<te::Tensor> y = ops::BatchMatmul(a, b); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{a, b, *y};));
  c.push_back(TESSEL_OP("dense", te::Tensor x = In("x", {3, 6}); te::Tensor w = In("w", {10, 6});
                        te::Tensor bias = In("bias", {10});
                        absl::StatusOr<te::Tensor> y = ops::Dense(x, w, bias); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{x, w, bias, *y};));
  c.push_back(TESSEL_OP("gemv", te::Tensor a = In("a", {9, 6}); te::Tensor x = In("x", {6});
                        absl::StatusOr<te::Tensor> y = ops::Gemv(a, x); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{a, x, *y};));
  c.push_back(TESSEL_OP("conv2d_nchw", te::Tensor d = In("d", {1, 2, 7, 6}); te::Tensor k = In("k", {3, 2, 3, 3});
                        absl::StatusOr<te::Tensor> y = ops::Conv2D(d, k, {.padding = {1}});
                        if (!y.ok()) return y.status(); return std::vector<te::FuncArg>{d, k, *y};));
  c.push_back(TESSEL_OP("conv2d_nhwc_depthwise", te::Tensor d = In("d", {1, 6, 5, 4});
                        te::Tensor k = In("k", {3, 3, 1, 4});
                        absl::StatusOr<te::Tensor> y = ops::Conv2D(
                            d, k, {.strides = {2}, .padding = {1}, .groups = 4, .layout = ops::Layout::kNHWC});
                        if (!y.ok()) return y.status(); return std::vector<te::FuncArg>{d, k, *y};));
  c.push_back(TESSEL_OP("max_pool", te::Tensor d = In("d", {1, 2, 7, 6});
                        absl::StatusOr<te::Tensor> y = ops::MaxPool2D(d, {.kernel = {3}, .strides = {2}, .padding = {1}});
                        if (!y.ok()) return y.status(); return std::vector<te::FuncArg>{d, *y};));
  c.push_back(TESSEL_OP("avg_pool", te::Tensor d = In("d", {1, 2, 7, 6});
                        absl::StatusOr<te::Tensor> y = ops::AvgPool2D(d, {.kernel = {2}, .strides = {2}});
                        if (!y.ok()) return y.status(); return std::vector<te::FuncArg>{d, *y};));
  c.push_back(TESSEL_OP("layer_norm", te::Tensor x = In("x", {3, 10}); te::Tensor g = In("g", {10});
                        te::Tensor b = In("b", {10});
                        absl::StatusOr<te::Tensor> y = ops::LayerNorm(x, g, b); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{x, g, b, *y};));
  c.push_back(TESSEL_OP("rms_norm", te::Tensor x = In("x", {3, 10}); te::Tensor w = In("w", {10});
                        absl::StatusOr<te::Tensor> y = ops::RmsNorm(x, w); if (!y.ok()) return y.status();
                        return std::vector<te::FuncArg>{x, w, *y};));
  c.push_back(TESSEL_OP("attention", te::Tensor q = In("q", {2, 3, 4}); te::Tensor k = In("k", {2, 5, 4});
                        te::Tensor v = In("v", {2, 5, 3});
                        absl::StatusOr<te::Tensor> y = ops::Attention(q, k, v, {.causal = false});
                        if (!y.ok()) return y.status(); return std::vector<te::FuncArg>{q, k, v, *y};));
  return c;
}

// The names of the blocks of `f` that have loops around them.
std::vector<std::string> BlockNames(const ir::PrimFunc& f) {
  struct Finder : ir::IRVisitor {
    std::vector<std::string> names;
    void VisitBlock(const ir::BlockNode* op) override {
      if (!op->iter_vars.empty()) names.push_back(op->name);
      ir::IRVisitor::VisitBlock(op);
    }
  } finder;
  finder.VisitStmt(f->body);
  return finder.names;
}

// Splits each block's innermost loop by `factor`, vectorizes (or else unrolls)
// the inner part, and makes the outermost loop parallel. A primitive that
// refuses (a reduction loop cannot be vectorized, ...) leaves the schedule as it
// was. With `rng`, the factor and what is done to each loop are drawn per block.
ir::IRModule GenericSchedule(const ir::IRModule& mod, std::mt19937* rng = nullptr) {
  absl::StatusOr<ir::schedule::Schedule> sch = ir::schedule::Schedule::Create(mod);
  if (!sch.ok()) return mod;
  for (const std::string& name : BlockNames(sch->func())) {
    absl::StatusOr<ir::schedule::BlockRV> b = sch->GetBlock(name);
    if (!b.ok()) continue;
    absl::StatusOr<std::vector<ir::schedule::LoopRV>> loops = sch->GetLoops(*b);
    if (!loops.ok() || loops->empty()) continue;
    int64_t factor = 8;
    int inner = 0, outer = 0;  // 0: vectorize (else unroll) / parallel; 1: unroll / serial; 2: leave
    if (rng != nullptr) {
      const int64_t factors[] = {2, 3, 4, 5, 8, 16};
      factor = factors[(*rng)() % 6];
      inner = static_cast<int>((*rng)() % 3);
      outer = static_cast<int>((*rng)() % 2);
    }
    absl::StatusOr<std::vector<ir::schedule::LoopRV>> parts =
        sch->Split(loops->back(), {std::nullopt, factor});
    if (parts.ok() && inner == 0 && !sch->Vectorize((*parts)[1]).ok()) inner = 1;
    if (parts.ok() && inner == 1) (void)sch->Unroll((*parts)[1]);
    if (loops->size() >= 2 && outer == 0) (void)sch->Parallel((*loops)[0]);
  }
  return sch->mod();
}

// Moves each producer under the outermost loop of its only consumer (where
// compute_at accepts it), so that its buffer is used inside that loop only.
ir::IRModule ComputeAtSchedule(const ir::IRModule& mod) {
  absl::StatusOr<ir::schedule::Schedule> sch = ir::schedule::Schedule::Create(mod);
  if (!sch.ok()) return mod;
  std::vector<std::string> names = BlockNames(sch->func());
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    absl::StatusOr<ir::schedule::BlockRV> b = sch->GetBlock(*it);
    if (!b.ok()) continue;
    absl::StatusOr<std::vector<ir::schedule::BlockRV>> consumers = sch->GetConsumers(*b);
    if (!consumers.ok() || consumers->size() != 1) continue;
    absl::StatusOr<std::vector<ir::schedule::LoopRV>> loops = sch->GetLoops((*consumers)[0]);
    if (loops.ok() && !loops->empty()) (void)sch->ComputeAt(*b, (*loops)[0]);
  }
  return sch->mod();
}

int CountRamps(const ir::PrimFunc& f) {
  struct Counter : ir::IRVisitor {
    int n = 0;
    void VisitRamp(const ir::RampNode* op) override {
      ++n;
      ir::IRVisitor::VisitRamp(op);
    }
  } c;
  c.VisitStmt(f->body);
  return c.n;
}

// Lowers `mod`'s one function; checks the form, the verifier and the results.
// Returns how many Ramps the lowered function holds.
int LowerAndCheck(const ir::IRModule& mod, const std::string& what) {
  SCOPED_TRACE(what);
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline("lower", mod, ctx);
  if (!out.ok()) {
    ADD_FAILURE() << out.status() << "\n" << ir::PrintModule(mod);
    return 0;
  }
  const auto& [name, before] = mod->functions[0];
  ir::PrimFunc after = (*out)->functions[0].second;
  EXPECT_TRUE(ir::VerifyModule(*out).ok()) << ir::VerifyModule(*out);
  absl::Status form = lowering::CheckLoweredForm(after, name);
  EXPECT_TRUE(form.ok()) << form << "\n" << ir::PrintFunction(after, name);
  absl::Status same = ir::CheckSameResults(before, after, /*seed=*/7, {.rtol = 1e-4, .atol = 1e-5});
  EXPECT_TRUE(same.ok()) << same << "\n" << ir::PrintFunction(after, name);
  return CountRamps(after);
}

TEST(LoweringLibrary, EveryOpUnscheduledAndScheduled) {
  int ramps = 0;
  for (const OpCase& c : OpCases()) {
    absl::StatusOr<std::vector<te::FuncArg>> args = c.build();
    ASSERT_TRUE(args.ok()) << c.name << ": " << args.status();
    absl::StatusOr<ir::IRModule> mod = te::CreateModule(*args, c.name);
    ASSERT_TRUE(mod.ok()) << c.name << ": " << mod.status();
    LowerAndCheck(*mod, c.name);
    ramps += LowerAndCheck(GenericSchedule(*mod), c.name + " (scheduled)");
    LowerAndCheck(ComputeAtSchedule(*mod), c.name + " (compute_at)");
  }
  // The schedule vectorizes spatial loops whose split divides; some must have
  // become vector code, or the check above proves little about vectorizing.
  EXPECT_GT(ramps, 0);
}

// Seeded random factors (tails of every length, 2 to 16 lanes) and loop kinds.
TEST(LoweringLibrary, RandomSchedulesOfEveryOp) {
  std::mt19937 rng(20261122);
  for (const OpCase& c : OpCases()) {
    absl::StatusOr<std::vector<te::FuncArg>> args = c.build();
    ASSERT_TRUE(args.ok()) << c.name << ": " << args.status();
    absl::StatusOr<ir::IRModule> mod = te::CreateModule(*args, c.name);
    ASSERT_TRUE(mod.ok()) << c.name << ": " << mod.status();
    for (int round = 0; round < 3; ++round) {
      LowerAndCheck(GenericSchedule(*mod, &rng), c.name + " (random schedule " + std::to_string(round) + ")");
    }
  }
}

TEST(LoweringLibrary, EverySmallWorkloadUnscheduledAndScheduled) {
  int small = 0, moved = 0;
  std::mt19937 rng(7);
  for (const te::Workload& w : te::AllWorkloads()) {
    if (!w.small) continue;
    ++small;
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name << ": " << mod.status();
    LowerAndCheck(*mod, w.name);
    LowerAndCheck(GenericSchedule(*mod), w.name + " (scheduled)");
    ir::IRModule at = ComputeAtSchedule(*mod);
    moved += !at.same_as(*mod);
    LowerAndCheck(at, w.name + " (compute_at)");
    // On top of compute_at: seeded random splits and loop kinds.
    for (int r = 0; r < 2; ++r) LowerAndCheck(GenericSchedule(at, &rng), w.name + " (compute_at, random)");
  }
  EXPECT_GE(small, 5);
  EXPECT_GT(moved, 0) << "compute_at applied to no workload";
}

}  // namespace
}  // namespace tessel::passes
