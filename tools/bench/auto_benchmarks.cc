// Workloads nobody scheduled, through `default-schedule` and codegen, beside the
// reference that sets the bar, measured in the same run.
//
//   tessel-bench --filter=auto/
//   {"name": "auto/matmul_1024x1024x1024_f32_1t", "threads": 1, "tessel_gflops": 95.2,
//    "reference": "onednn", "reference_gflops": 101.0, "unscheduled_gflops": 0.57,
//    "ratio": 0.94, "openblas_gflops": 97.0, ...}
//
// - matmul, gemv: oneDNN's sgemm (results compared), OpenBLAS beside it, on the same
//   thread count.
// - bert_ffn: its two matmuls as oneDNN (and OpenBLAS) sgemm calls; tessel's time
//   includes the bias and GELU epilogues the references leave out.
// - conv2d: oneDNN's direct convolution in the layouts it picks (its reorders are
//   outside the timing but the one of the result back to NCHW).
// - conv2d_nhwc_mobilenet_depthwise: oneDNN's depthwise convolution on the same NHWC arrays.
// - attention: per head, Q Kᵀ and (that) V as oneDNN (and OpenBLAS) sgemm calls; tessel's
//   time includes the scaling and softmax between them.
// - softmax, layernorm, rms_norm, bias_gelu: memcpy of the bytes the function must move
//   (its inputs once, its output once) on the same thread count, one chunk per thread of
//   tessel's own pool; ratio = achieved / memcpy bandwidth.
#include <cblas.h>

#include <algorithm>
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
#include "ir/te/workloads.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "tools/bench/benchmark.h"
#include "tools/bench/kernel_timing.h"
#include "tools/bench/onednn_reference.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace tessel::bench {
namespace {

// The target tuned/ cases find their records under (tessel-tune --target=...).
std::string TunedTarget(int threads) {
  return absl::StrCat("llvm -num-cores=", threads, " -num-threads=", threads);
}

// The workload through default-schedule (or, for tuned/ cases, apply-best first)
// and codegen, with random arguments.
struct Compiled {
  runtime::Module module;
  std::vector<runtime::NDArray> args;
  std::string name;
  int64_t tuned_record = -1;  // The record apply-best applied, if it did.
};

// `scheduled` false: the function as written (the "unscheduled" column); `db`
// non-empty: its best record for this thread count first.
absl::StatusOr<Compiled> Compile(const std::string& workload, int threads, bool scheduled = true,
                                 const std::string& db = "") {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::te::BuildWorkload(workload));
  if (scheduled) {
    std::string pipeline =
        absl::StrCat("default-schedule{target=\"llvm -num-cores=", threads, "\"}");
    if (!db.empty()) {
      pipeline = absl::StrCat("apply-best{db=\"", db, "\",target=\"", TunedTarget(threads), "\"},",
                              pipeline);
    }
    TESSEL_ASSIGN_OR_RETURN(passes::PassPtr pass, passes::ParsePipeline(pipeline));
    TESSEL_ASSIGN_OR_RETURN(mod, passes::RunPipeline(*pass, mod));
  }
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, codegen::Build(mod, codegen::Target::Host()));
  Compiled c{std::move(m), {}, mod->functions.front().first};
  auto record = mod->functions.front().second->attrs.find("tuned_record");
  if (record != mod->functions.front().second->attrs.end() && record->second.is<int64_t>()) {
    c.tuned_record = record->second.as<int64_t>();
  }
  uint32_t seed = 1;
  for (const ir::Param& p : mod->functions.front().second->params) {
    std::vector<int64_t> shape;
    for (const ir::Expr& d : p.buffer->shape) shape.push_back(*ir::arith::AsConstInt(d));
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, Random(shape, seed++));
    c.args.push_back(std::move(a));
  }
  return c;
}

// Compile for a case: tuned/ cases apply their database's records.
absl::StatusOr<Compiled> CompileFor(const std::string& workload, int threads,
                                    const BenchOptions& opts) {
  return Compile(workload, threads, true, opts.tuned ? opts.tuning_db : "");
}

absl::StatusOr<double> TimeOurs(const Compiled& c, int threads, int repeat, bool warm_up = true) {
  std::vector<DLTensor*> args;
  for (const runtime::NDArray& a : c.args) args.push_back(const_cast<runtime::NDArray&>(a).dltensor());
  tessel_set_num_threads(threads);
  if (warm_up) TESSEL_RETURN_IF_ERROR(runtime::CallFunction(*c.module.Find(c.name), args));
  absl::StatusOr<double> s = KernelSeconds(*c.module.Find(c.name), args, repeat);
  tessel_set_num_threads(0);
  return s;
}

// Seconds of one call of the workload as written (no schedule): slow, so timed once.
absl::StatusOr<double> UnscheduledSeconds(const std::string& workload, int threads) {
  TESSEL_ASSIGN_OR_RETURN(Compiled c, Compile(workload, threads, /*scheduled=*/false));
  return TimeOurs(c, threads, 1, /*warm_up=*/false);
}

const float* F(const runtime::NDArray& a) { return static_cast<const float*>(a.data()); }
float* F(runtime::NDArray& a) { return static_cast<float*>(a.data()); }

absl::Status Compare(const runtime::NDArray& got, const runtime::NDArray& want, int64_t n,
                     double tolerance, const std::string& what) {
  double err = 0;
  for (int64_t k = 0; k < n; ++k) err = std::max(err, double(std::fabs(F(got)[k] - F(want)[k])));
  if (err > tolerance) {
    return absl::InternalError(absl::StrCat(what, ": tessel differs from the reference by ", err));
  }
  return absl::OkStatus();
}

int Repeats(const BenchOptions& opts) { return std::max(3, std::min(opts.repeats, 15)); }

BenchResult Row(int threads, const std::string& unit, double ours, const std::string& reference,
                double theirs, double unscheduled, int repeat) {
  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add(absl::StrCat("tessel_", unit), ours);
  r.Add("reference", reference);
  r.Add(absl::StrCat("reference_", unit), theirs);
  r.Add(absl::StrCat("unscheduled_", unit), unscheduled);
  r.Add("ratio", ours / theirs);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

// A compute-bound row: ours against oneDNN (the reference) and OpenBLAS where it
// has the operation, GFLOP/s from `flops` per call.
absl::StatusOr<BenchResult> FlopsRow(const Compiled& c, int threads, const BenchOptions& opts,
                                     double flops, const std::function<void()>& onednn,
                                     const std::function<void()>& openblas) {
  const int repeat = Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double ours, TimeOurs(c, threads, repeat));
  SetOneDnnThreads(threads);
  onednn();
  const double dnnl = TimeCalls(repeat, onednn).median_us * 1e-6;
  TESSEL_ASSIGN_OR_RETURN(double before, UnscheduledSeconds(c.name, threads));
  BenchResult r = Row(threads, "gflops", flops / ours * 1e-9, "onednn", flops / dnnl * 1e-9,
                      flops / before * 1e-9, repeat);
  if (opts.tuned) {  // What tuning added over the heuristic, measured now too.
    TESSEL_ASSIGN_OR_RETURN(Compiled heuristic, Compile(c.name, threads));
    TESSEL_ASSIGN_OR_RETURN(double d, TimeOurs(heuristic, threads, repeat));
    r.Add("default_schedule_gflops", flops / d * 1e-9);
    r.Add("tuned_over_default", d / ours);
    r.Add("tuned_record", c.tuned_record);
  }
  if (openblas) {
    openblas_set_num_threads(threads);
    r.Add("openblas_gflops", flops / (TimeCalls(repeat, openblas).median_us * 1e-6) * 1e-9);
  }
  return r;
}

absl::StatusOr<BenchResult> Matmul(int threads, const BenchOptions& opts) {
  constexpr int64_t n = 1024;
  TESSEL_ASSIGN_OR_RETURN(Compiled c, CompileFor("matmul_1024x1024x1024_f32", threads, opts));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref,
                          runtime::NDArray::Zeros({n, n}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_RETURN_IF_ERROR(TimeOurs(c, threads, 1).status());
  TESSEL_RETURN_IF_ERROR(OneDnnSgemm(false, false, n, n, n, F(c.args[0]), F(c.args[1]), F(ref)));
  TESSEL_RETURN_IF_ERROR(Compare(c.args[2], ref, n * n, 1e-3, "matmul"));
  return FlopsRow(
      c, threads, opts, 2.0 * n * n * n,
      [&] { (void)OneDnnSgemm(false, false, n, n, n, F(c.args[0]), F(c.args[1]), F(ref)); },
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, F(c.args[0]), n,
                    F(c.args[1]), n, 0.0f, F(ref), n);
      });
}

absl::StatusOr<BenchResult> Gemv(int threads, const BenchOptions& opts) {
  constexpr int64_t n = 4096;
  TESSEL_ASSIGN_OR_RETURN(Compiled c, Compile("gemv_4096x4096", threads));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref, runtime::NDArray::Zeros({n}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_RETURN_IF_ERROR(TimeOurs(c, threads, 1).status());
  // y = A x as an n x 1 product.
  TESSEL_RETURN_IF_ERROR(OneDnnSgemm(false, false, n, 1, n, F(c.args[0]), F(c.args[1]), F(ref)));
  TESSEL_RETURN_IF_ERROR(Compare(c.args[2], ref, n, 1e-3, "gemv"));
  return FlopsRow(
      c, threads, opts, 2.0 * n * n,
      [&] { (void)OneDnnSgemm(false, false, n, 1, n, F(c.args[0]), F(c.args[1]), F(ref)); },
      [&] {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f, F(c.args[0]), n, F(c.args[1]), 1,
                    0.0f, F(ref), 1);
      });
}

absl::StatusOr<BenchResult> BertFfn(int threads, const BenchOptions& opts) {
  constexpr int64_t m = 128, h = 3072, d = 768;
  TESSEL_ASSIGN_OR_RETURN(Compiled c, CompileFor("bert_ffn_128x3072x768", threads, opts));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray up, runtime::NDArray::Zeros({m, h}, ir::DataType::Float(32)));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray down, runtime::NDArray::Zeros({m, d}, ir::DataType::Float(32)));
  // X W1ᵀ, then (that) W2ᵀ: the two matmuls alone, without the epilogues tessel computes.
  return FlopsRow(
      c, threads, opts, 2.0 * m * h * d * 2,
      [&] {
        (void)OneDnnSgemm(false, true, m, h, d, F(c.args[0]), F(c.args[1]), F(up));
        (void)OneDnnSgemm(false, true, m, d, h, F(up), F(c.args[3]), F(down));
      },
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, h, d, 1.0f, F(c.args[0]), d,
                    F(c.args[1]), d, 0.0f, F(up), h);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, d, h, 1.0f, F(up), h,
                    F(c.args[3]), h, 0.0f, F(down), d);
      });
}

absl::StatusOr<BenchResult> Conv2d(int threads, const BenchOptions& opts) {
  // ResNet-50 stage 2: 64 -> 64 channels, 3x3, stride 1, pad 1, on 56x56.
  TESSEL_ASSIGN_OR_RETURN(Compiled c, CompileFor("conv2d_nchw_resnet50_stage2", threads, opts));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref,
                          runtime::NDArray::Zeros({1, 64, 56, 56}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(std::function<void()> conv,
                          OneDnnConv2dNchw({1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, F(c.args[0]),
                                           F(c.args[1]), F(ref)));
  TESSEL_RETURN_IF_ERROR(TimeOurs(c, threads, 1).status());
  conv();
  TESSEL_RETURN_IF_ERROR(Compare(c.args[2], ref, 64 * 56 * 56, 1e-3, "conv2d"));
  return FlopsRow(c, threads, opts, 2.0 * 64 * 56 * 56 * 64 * 9, conv, nullptr);
}

absl::StatusOr<BenchResult> DepthwiseConv2d(int threads, const BenchOptions& opts) {
  // MobileNet's first depthwise layer: 32 channels, 3x3, stride 1, pad 1, on 112x112, NHWC.
  constexpr int64_t hw = 112, ch = 32;
  TESSEL_ASSIGN_OR_RETURN(Compiled c, Compile("conv2d_nhwc_mobilenet_depthwise", threads));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref,
                          runtime::NDArray::Zeros({1, hw, hw, ch}, ir::DataType::Float(32)));
  SetOneDnnThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(
      std::function<void()> conv,
      OneDnnDepthwiseNhwc({1, hw, hw, ch}, 3, 1, 1, F(c.args[0]), F(c.args[1]), F(ref)));
  TESSEL_RETURN_IF_ERROR(TimeOurs(c, threads, 1).status());
  conv();
  TESSEL_RETURN_IF_ERROR(Compare(c.args[2], ref, hw * hw * ch, 1e-3, "depthwise conv2d"));
  return FlopsRow(c, threads, opts, 2.0 * hw * hw * ch * 9, conv, nullptr);
}

absl::StatusOr<BenchResult> Attention(int threads, const BenchOptions& opts) {
  constexpr int64_t heads = 12, s = 128, d = 64;
  TESSEL_ASSIGN_OR_RETURN(Compiled c, Compile("attention_1x12x128x64", threads));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray scores,
                          runtime::NDArray::Zeros({s, s}, ir::DataType::Float(32)));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray out,
                          runtime::NDArray::Zeros({heads, s, d}, ir::DataType::Float(32)));
  // Per head Q Kᵀ then (that) V: the two matmuls alone, without the scaling and
  // softmax between them that tessel computes.
  auto per_head = [&](auto&& gemm) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t at = h * s * d;
      gemm(false, true, s, s, d, F(c.args[0]) + at, F(c.args[1]) + at, F(scores));
      gemm(false, false, s, d, s, F(scores), F(c.args[2]) + at, F(out) + at);
    }
  };
  return FlopsRow(
      c, threads, opts, 4.0 * heads * s * s * d,
      [&] {
        per_head([](bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
                    const float* b, float* y) { (void)OneDnnSgemm(ta, tb, m, n, k, a, b, y); });
      },
      [&] {
        per_head([](bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
                    const float* b, float* y) {
          cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                      m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n, 0.0f, y, n);
        });
      });
}

// Bytes the function must move (every parameter once) against memcpy of as many bytes.
absl::StatusOr<BenchResult> Bandwidth(const std::string& workload, int threads,
                                      const BenchOptions& opts) {
  TESSEL_ASSIGN_OR_RETURN(Compiled c, Compile(workload, threads));
  int64_t bytes = 0;
  for (const runtime::NDArray& a : c.args) bytes += a.nbytes();
  const int repeat = Repeats(opts);
  TESSEL_ASSIGN_OR_RETURN(double ours, TimeOurs(c, threads, repeat));
  std::vector<char> src(static_cast<size_t>(bytes / 2) + 1), dst(src.size());
  // Reads bytes/2 and writes bytes/2: `bytes` moved, in one chunk per thread of
  // the pool tessel's own parallel loops run on (no thread started per call).
  struct Copy {
    char* dst;
    const char* src;
    size_t chunk;
  } job{dst.data(), src.data(), src.size() / static_cast<size_t>(threads)};
  auto copy = [&] {
    tessel_set_num_threads(threads);
    tessel_parallel_for(
        threads,
        [](int64_t begin, int64_t end, void* closure) {
          const Copy* c = static_cast<const Copy*>(closure);
          for (int64_t t = begin; t < end; ++t) {
            std::memcpy(c->dst + t * c->chunk, c->src + t * c->chunk, c->chunk);
          }
          return 0;
        },
        &job);
    tessel_set_num_threads(0);
  };
  const double theirs = TimeCalls(repeat, copy).median_us * 1e-6;
  TESSEL_ASSIGN_OR_RETURN(double before, UnscheduledSeconds(workload, threads));
  return Row(threads, "gbs", double(bytes) / ours * 1e-9, "memcpy", double(bytes) / theirs * 1e-9,
             double(bytes) / before * 1e-9, repeat);
}

#define TESSEL_AUTO_BENCH(id, name, doc, call)                   \
  TESSEL_BENCHMARK(id##1T, "auto/" name "_1t", doc ", 1 thread") { \
    const int threads = 1;                                       \
    return call;                                                 \
  }                                                              \
  TESSEL_BENCHMARK(id##2T, "auto/" name "_2t", doc ", 2 threads") { \
    const int threads = 2;                                       \
    return call;                                                 \
  }

// tuned/: the workload scheduled by its best record in --tuning-db (tessel-tune
// with --target="llvm -num-cores=T -num-threads=T"), beside oneDNN and the
// default-schedule result measured in the same run.
absl::StatusOr<BenchResult> Tuned(
    const BenchOptions& opts,
    const std::function<absl::StatusOr<BenchResult>(const BenchOptions&)>& row) {
  if (opts.tuning_db.empty()) {
    BenchResult r;
    r.Add("skipped", std::string("needs --tuning-db=FILE (records from tessel-tune)"));
    return r;
  }
  BenchOptions tuned = opts;
  tuned.tuned = true;
  return row(tuned);
}

#define TESSEL_TUNED_BENCH(id, name, doc, fn)                               \
  TESSEL_BENCHMARK(Tuned##id##1T, "tuned/" name "_1t", doc ", 1 thread") {  \
    return Tuned(opts, [](const BenchOptions& o) { return fn(1, o); });     \
  }                                                                         \
  TESSEL_BENCHMARK(Tuned##id##2T, "tuned/" name "_2t", doc ", 2 threads") { \
    return Tuned(opts, [](const BenchOptions& o) { return fn(2, o); });     \
  }

TESSEL_TUNED_BENCH(Matmul, "matmul_1024x1024x1024_f32",
                   "tuned f32 matmul 1024^3 against oneDNN sgemm and default-schedule", Matmul)
TESSEL_TUNED_BENCH(BertFfn, "bert_ffn_128x3072x768",
                   "tuned BERT FFN against its two oneDNN matmuls and default-schedule", BertFfn)
TESSEL_TUNED_BENCH(Conv2d, "conv2d_nchw_resnet50_stage2",
                   "tuned ResNet-50 stage-2 conv2d against oneDNN and default-schedule", Conv2d)

TESSEL_AUTO_BENCH(Matmul, "matmul_1024x1024x1024_f32",
                  "default-schedule'd f32 matmul 1024^3 against oneDNN (and OpenBLAS) sgemm",
                  Matmul(threads, opts))
TESSEL_AUTO_BENCH(Gemv, "gemv_4096x4096",
                  "default-schedule'd f32 GEMV 4096^2 against oneDNN sgemm (and OpenBLAS sgemv)",
                  Gemv(threads, opts))
TESSEL_AUTO_BENCH(BertFfn, "bert_ffn_128x3072x768",
                  "default-schedule'd BERT FFN against its two matmuls in oneDNN (and OpenBLAS)",
                  BertFfn(threads, opts))
TESSEL_AUTO_BENCH(Conv2d, "conv2d_nchw_resnet50_stage2",
                  "default-schedule'd ResNet-50 stage-2 3x3 conv2d against oneDNN",
                  Conv2d(threads, opts))
TESSEL_AUTO_BENCH(Softmax, "softmax_4096x4096",
                  "default-schedule'd softmax 4096^2 against memcpy bandwidth",
                  Bandwidth("softmax_4096x4096", threads, opts))
TESSEL_AUTO_BENCH(LayerNorm, "layernorm_4096x768",
                  "default-schedule'd layer norm 4096x768 against memcpy bandwidth",
                  Bandwidth("layernorm_4096x768", threads, opts))
TESSEL_AUTO_BENCH(RmsNorm, "rms_norm_4096x768",
                  "default-schedule'd RMS norm 4096x768 against memcpy bandwidth",
                  Bandwidth("rms_norm_4096x768", threads, opts))
TESSEL_AUTO_BENCH(BiasGelu, "bias_gelu_4096x3072",
                  "default-schedule'd bias add + tanh GELU 4096x3072 against memcpy bandwidth",
                  Bandwidth("bias_gelu_4096x3072", threads, opts))
TESSEL_AUTO_BENCH(DepthwiseConv2d, "conv2d_nhwc_mobilenet_depthwise",
                  "default-schedule'd MobileNet 3x3 depthwise conv2d (NHWC) against oneDNN",
                  DepthwiseConv2d(threads, opts))
TESSEL_AUTO_BENCH(Attention, "attention_1x12x128x64",
                  "default-schedule'd attention (12 heads, 128 x 64) against its matmuls in "
                  "oneDNN (and OpenBLAS)",
                  Attention(threads, opts))

}  // namespace
}  // namespace tessel::bench
