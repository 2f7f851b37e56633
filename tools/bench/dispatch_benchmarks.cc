// Library dispatch measured against calling the library directly, in the same run.
//
//   tessel-bench --filter=dispatch/
//   {"name": "dispatch/matmul_1024x1024x1024_f32_1t", "threads": 1, "tessel_gflops": 101.3,
//    "reference": "onednn_direct", "reference_gflops": 101.9, "ratio": 0.99, ...}
//
// - matmul 1024³: the workload through dispatch-library{rules=[onednn]} and codegen
//   (argument checks, the packed call, the shim's primitive cache) against the same
//   oneDNN matmul primitive created once and executed directly.
// - matmul 64³: the same, reported as microseconds per call and the overhead.
// - dense 128x3072x768 + bias + GELU: dispatched with the bias and GELU as oneDNN
//   post-ops, against oneDNN's matmul followed by a separate bias pass and GELU pass
//   (what calling the library op by op does), with default-schedule's tessel code
//   beside them.
// - conv2d ResNet-50 stage 2: dispatched (oneDNN on the NCHW arrays) against oneDNN
//   in the blocked layouts it picks, default-schedule beside.
// - softmax over BERT-base's attention scores (12 x 128 rows of 128) and layer norm
//   of its hidden states (128 x 768): dispatched against memcpy of the same bytes
//   (the bandwidth bound; ratio = the fraction of it reached), default-schedule beside.
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "codegen/runtime/ndarray.h"
#include "ir/arith/expr_util.h"
#include "ir/status_macros.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"
#include "ir/te/workloads.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "tools/bench/benchmark.h"
#include "tools/bench/kernel_timing.h"
#include "tools/bench/onednn_reference.h"

namespace tessel::bench {
namespace {

struct Built {
  runtime::Module module;
  std::vector<runtime::NDArray> args;
  std::string name;
};

absl::StatusOr<Built> BuildWith(const ir::IRModule& source, const std::string& pipeline) {
  ir::IRModule mod = source;
  if (!pipeline.empty()) {
    TESSEL_ASSIGN_OR_RETURN(passes::PassPtr pass, passes::ParsePipeline(pipeline));
    TESSEL_ASSIGN_OR_RETURN(mod, passes::RunPipeline(*pass, mod));
  }
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, codegen::Build(mod, codegen::Target::Host()));
  Built b{std::move(m), {}, mod->functions.front().first};
  uint32_t seed = 1;
  for (const ir::Param& p : mod->functions.front().second->params) {
    std::vector<int64_t> shape;
    for (const ir::Expr& d : p.buffer->shape) shape.push_back(*ir::arith::AsConstInt(d));
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, Random(shape, seed++));
    b.args.push_back(std::move(a));
  }
  return b;
}

absl::StatusOr<double> Seconds(Built& b, int threads, int repeat) {
  std::vector<DLTensor*> args;
  for (runtime::NDArray& a : b.args) args.push_back(a.dltensor());
  tessel_set_num_threads(threads);
  absl::Status warm = runtime::CallFunction(*b.module.Find(b.name), args);
  absl::StatusOr<double> s = warm.ok() ? KernelSeconds(*b.module.Find(b.name), args, repeat)
                                       : absl::StatusOr<double>(warm);
  tessel_set_num_threads(0);
  return s;
}

float* F(runtime::NDArray& a) { return static_cast<float*>(a.data()); }

double MaxDiff(runtime::NDArray& a, runtime::NDArray& b) {
  double err = 0;
  for (int64_t k = 0; k < a.nbytes() / 4; ++k) err = std::max(err, double(std::fabs(F(a)[k] - F(b)[k])));
  return err;
}

int Repeats(const BenchOptions& opts) { return std::max(3, std::min(opts.repeats, 15)); }

// A row of GFLOP/s: dispatched, the reference, default-schedule's code beside.
BenchResult Row(int threads, double flops, double dispatched, const std::string& reference,
                double theirs, double scheduled, int repeat) {
  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add("tessel_gflops", flops / dispatched * 1e-9);
  r.Add("reference", reference);
  r.Add("reference_gflops", flops / theirs * 1e-9);
  r.Add("default_schedule_gflops", flops / scheduled * 1e-9);
  r.Add("ratio", theirs / dispatched);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

absl::StatusOr<BenchResult> Matmul(int64_t n, int threads, const BenchOptions& opts) {
  const std::string workload = absl::StrCat("matmul_", n, "x", n, "x", n, "_f32");
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::te::BuildWorkload(workload));
  TESSEL_ASSIGN_OR_RETURN(Built b, BuildWith(mod, "dispatch-library{rules=[onednn]}"));
  const int repeat = n <= 64 ? 200 : Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double ours, Seconds(b, threads, repeat));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref, runtime::NDArray::Zeros({n, n}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(std::function<void()> direct,
                          OneDnnMatmul(n, n, n, F(b.args[0]), F(b.args[1]), F(ref)));
  direct();
  if (double err = MaxDiff(b.args[2], ref); err > 1e-3) {
    return absl::InternalError(absl::StrCat("dispatched matmul differs from oneDNN by ", err));
  }
  const double theirs = TimeCalls(repeat, direct).median_us * 1e-6;
  const double flops = 2.0 * n * n * n;
  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add("tessel_gflops", flops / ours * 1e-9);
  r.Add("reference", "onednn_direct");
  r.Add("reference_gflops", flops / theirs * 1e-9);
  r.Add("tessel_us", ours * 1e6);
  r.Add("reference_us", theirs * 1e6);
  r.Add("overhead_us", (ours - theirs) * 1e6);
  r.Add("ratio", theirs / ours);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

absl::StatusOr<ir::IRModule> DenseBiasGelu(int64_t m, int64_t n, int64_t k) {
  using namespace ir::te;  // NOLINT: the op library's names read best unqualified here.
  const ir::DataType f32 = ir::DataType::Float(32);
  TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({m, k}, f32, "X"));
  TESSEL_ASSIGN_OR_RETURN(Tensor w, Placeholder({n, k}, f32, "W"));
  TESSEL_ASSIGN_OR_RETURN(Tensor bias, Placeholder({n}, f32, "bias"));
  TESSEL_ASSIGN_OR_RETURN(Tensor up, ops::Dense(x, w, bias, ir::DataType::Void(), "up"));
  TESSEL_ASSIGN_OR_RETURN(Tensor y, ops::Gelu(up, ops::GeluForm::kErf, "Y"));
  return CreateModule({x, w, bias, y}, "dense_bias_gelu");
}

absl::StatusOr<BenchResult> DenseBiasGeluRow(int threads, const BenchOptions& opts) {
  constexpr int64_t m = 128, n = 3072, k = 768;
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, DenseBiasGelu(m, n, k));
  TESSEL_ASSIGN_OR_RETURN(Built d, BuildWith(mod, "dispatch-library{rules=[onednn]}"));
  TESSEL_ASSIGN_OR_RETURN(
      Built s, BuildWith(mod, absl::StrCat("default-schedule{target=\"llvm -num-cores=", threads,
                                           "\"}")));
  const int repeat = Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double dispatched, Seconds(d, threads, repeat));
  TESSEL_ASSIGN_OR_RETURN(double scheduled, Seconds(s, threads, repeat));
  // The library op by op: matmul, then a bias pass and a GELU pass over the result.
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref, runtime::NDArray::Zeros({m, n}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  float* x = F(d.args[0]);
  float* w = F(d.args[1]);
  float* bias = F(d.args[2]);
  float* y = F(ref);
  auto op_by_op = [&] {
    (void)OneDnnSgemm(false, true, m, n, k, x, w, y);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) y[i * n + j] += bias[j];
    }
    for (int64_t e = 0; e < m * n; ++e) y[e] = 0.5f * y[e] * (1.0f + std::erf(y[e] * 0.70710677f));
  };
  op_by_op();
  if (double err = MaxDiff(d.args[3], ref); err > 1e-3) {
    return absl::InternalError(absl::StrCat("dispatched dense+bias+gelu differs by ", err));
  }
  const double theirs = TimeCalls(repeat, op_by_op).median_us * 1e-6;
  return Row(threads, 2.0 * m * n * k, dispatched, "onednn_then_epilogue", theirs, scheduled,
             repeat);
}

// ResNet-50 stage 2's 3x3 conv2d (NCHW) dispatched (oneDNN on the NCHW arrays as
// they are) against oneDNN choosing its own blocked layouts (reorders of the
// inputs outside the timing, the one of the result back to NCHW inside), with
// default-schedule's tessel code beside them.
absl::StatusOr<BenchResult> Conv2dRow(int threads, const BenchOptions& opts) {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::te::BuildWorkload("conv2d_nchw_resnet50_stage2"));
  TESSEL_ASSIGN_OR_RETURN(Built d, BuildWith(mod, "dispatch-library{rules=[onednn]}"));
  TESSEL_ASSIGN_OR_RETURN(
      Built s,
      BuildWith(mod, absl::StrCat("default-schedule{target=\"llvm -num-cores=", threads, "\"}")));
  const int repeat = Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double dispatched, Seconds(d, threads, repeat));
  TESSEL_ASSIGN_OR_RETURN(double scheduled, Seconds(s, threads, repeat));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref,
                          runtime::NDArray::Zeros({1, 64, 56, 56}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(
      std::function<void()> conv,
      OneDnnConv2dNchw({1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, F(d.args[0]), F(d.args[1]), F(ref)));
  conv();
  if (double err = MaxDiff(d.args[2], ref); err > 1e-3) {
    return absl::InternalError(absl::StrCat("dispatched conv2d differs from oneDNN by ", err));
  }
  const double theirs = TimeCalls(repeat, conv).median_us * 1e-6;
  return Row(threads, 2.0 * 64 * 56 * 56 * 64 * 9, dispatched, "onednn_blocked", theirs, scheduled,
             repeat);
}

// A memory-bound op over `rows` x `cols` f32: dispatched, default-schedule's code and
// a memcpy of the input to the output, in GB/s of input read plus output written.
absl::StatusOr<BenchResult> RowOpRow(bool layer_norm, int threads, const BenchOptions& opts) {
  using namespace ir::te;  // NOLINT: the op library's names read best unqualified here.
  const int64_t rows = layer_norm ? 128 : 12 * 128, cols = layer_norm ? 768 : 128;
  const ir::DataType f32 = ir::DataType::Float(32);
  TESSEL_ASSIGN_OR_RETURN(Tensor x, Placeholder({rows, cols}, f32, "X"));
  std::vector<FuncArg> inputs = {x};
  absl::StatusOr<Tensor> y;
  if (layer_norm) {
    TESSEL_ASSIGN_OR_RETURN(Tensor g, Placeholder({cols}, f32, "G"));
    TESSEL_ASSIGN_OR_RETURN(Tensor b, Placeholder({cols}, f32, "B"));
    inputs.insert(inputs.end(), {g, b});
    y = ops::LayerNorm(x, g, b);
  } else {
    y = ops::Softmax(x);
  }
  if (!y.ok()) return y.status();
  inputs.push_back(*y);
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, CreateModule(inputs, layer_norm ? "ln" : "softmax"));
  TESSEL_ASSIGN_OR_RETURN(Built d, BuildWith(mod, "dispatch-library{rules=[onednn]}"));
  TESSEL_ASSIGN_OR_RETURN(
      Built s,
      BuildWith(mod, absl::StrCat("default-schedule{target=\"llvm -num-cores=", threads, "\"}")));
  s.args = std::move(d.args);  // One set of inputs for both.
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref, runtime::NDArray::Zeros({rows, cols}, f32));
  const int repeat = 20 * Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double scheduled, Seconds(s, threads, repeat));
  std::memcpy(F(ref), F(s.args.back()), static_cast<size_t>(rows * cols) * 4);
  d.args = std::move(s.args);
  TESSEL_ASSIGN_OR_RETURN(double dispatched, Seconds(d, threads, repeat));
  if (double err = MaxDiff(d.args.back(), ref); err > 1e-3) {
    return absl::InternalError(absl::StrCat("dispatched and default-schedule differ by ", err));
  }
  float* src = F(d.args.front());
  float* dst = F(ref);
  const double copy =
      TimeCalls(repeat, [&] { std::memcpy(dst, src, static_cast<size_t>(rows * cols) * 4); })
          .median_us *
      1e-6;
  const double bytes = 2.0 * rows * cols * 4;
  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add("tessel_gbs", bytes / dispatched * 1e-9);
  r.Add("tessel_us", dispatched * 1e6);
  r.Add("reference", "memcpy");
  r.Add("reference_gbs", bytes / copy * 1e-9);
  r.Add("default_schedule_gbs", bytes / scheduled * 1e-9);
  r.Add("default_schedule_us", scheduled * 1e6);
  r.Add("ratio", copy / dispatched);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

#define TESSEL_DISPATCH_BENCH(id, name, doc, call)                     \
  TESSEL_BENCHMARK(id##1T, "dispatch/" name "_1t", doc ", 1 thread") {  \
    const int threads = 1;                                             \
    return call;                                                       \
  }                                                                    \
  TESSEL_BENCHMARK(id##2T, "dispatch/" name "_2t", doc ", 2 threads") { \
    const int threads = 2;                                             \
    return call;                                                       \
  }

TESSEL_DISPATCH_BENCH(Matmul1024, "matmul_1024x1024x1024_f32",
                      "dispatch-library{rules=[onednn]} matmul 1024^3 against the oneDNN "
                      "primitive called directly",
                      Matmul(1024, threads, opts))
TESSEL_DISPATCH_BENCH(Matmul64, "matmul_64x64x64_f32",
                      "dispatch-library{rules=[onednn]} matmul 64^3: per-call overhead against "
                      "the oneDNN primitive called directly",
                      Matmul(64, threads, opts))
TESSEL_DISPATCH_BENCH(DenseBiasGelu, "dense_bias_gelu_128x3072x768",
                      "dense + bias + GELU dispatched with oneDNN post-ops, against oneDNN's "
                      "matmul then separate bias and GELU passes (default-schedule beside)",
                      DenseBiasGeluRow(threads, opts))
TESSEL_DISPATCH_BENCH(Conv2d, "conv2d_nchw_resnet50_stage2",
                      "ResNet-50 stage-2 conv2d dispatched to oneDNN on NCHW as it is, against "
                      "oneDNN in its own blocked layouts (default-schedule beside)",
                      Conv2dRow(threads, opts))
TESSEL_DISPATCH_BENCH(Softmax, "softmax_1536x128",
                      "softmax of BERT-base attention scores dispatched to oneDNN, against memcpy "
                      "of the same bytes (default-schedule beside)",
                      RowOpRow(false, threads, opts))
TESSEL_DISPATCH_BENCH(LayerNorm, "layer_norm_128x768",
                      "layer norm of BERT-base hidden states dispatched to oneDNN, against "
                      "memcpy of the same bytes (default-schedule beside)",
                      RowOpRow(true, threads, opts))

}  // namespace
}  // namespace tessel::bench
