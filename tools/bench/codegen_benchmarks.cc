// Compiled code against the libraries it should match, measured side by side in
// one run (the machines are shared and noisy: compare the ratios, not the figures
// of different runs).
//
//   tessel-bench --filter=codegen/
//   {"name": "codegen/matmul_1024_f32", "threads": 1, "tessel_gflops": 88.1,
//    "openblas_gflops": 93.0, "onednn_gflops": 95.0, "ratio": 0.95, ...}
//
// - codegen/matmul_1024_f32_{1,2}t: a hand-written schedule (MatmulSchedule below)
//   through `lower` and the JIT, against OpenBLAS cblas_sgemm on the same thread
//   count (oneDNN's sgemm beside it); results compared before timing.
// - codegen/matmul_1024_f32_tensorized_{1,2}t: the same schedule with the tile's k
//   step tensorized to the built-in f32_fma_4x16 intrinsic (docs/codegen.md).
// - codegen/jit_compile_matmul_1024: lowering plus JIT of that matmul, uncached.
// - codegen/add_64mi_f32_{1,2}t: C = A + B over 64 Mi floats (12 bytes per element
//   moved) against memcpy of the same bytes (the bandwidth the machine gives).
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "codegen/runtime/ndarray.h"
#include "ir/schedule/schedule.h"
#include "ir/te/workloads.h"
#include "ir/parser.h"
#include "ir/status_macros.h"
#include "tools/bench/benchmark.h"
#include "tools/bench/kernel_timing.h"
#include "tools/bench/onednn_reference.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace tessel::bench {
namespace {

namespace sch = ir::schedule;

constexpr int64_t kN = 1024;

// The last loops of `block`, innermost last.
absl::StatusOr<std::vector<sch::LoopRV>> InnerLoops(sch::Schedule& s, sch::BlockRV block, size_t n) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(block));
  if (l.size() < n) return absl::InternalError("the schedule expected more loops");
  return std::vector<sch::LoopRV>(l.end() - n, l.end());
}

// How the k step of a register tile is computed.
enum class MicroKernel {
  kVectorized,  // i_1 unrolled, j_1 vectorized (32 lanes, two 16-lane registers)
  kTensorized,  // 2 x 2 tiles of the built-in f32_fma_4x16 (ir/schedule/intrin/cpu_fma.h)
};

// Register tiles of 8 rows x 32 columns (two 16-lane vectors per row) accumulate
// in a local buffer that LLVM keeps in registers across the k loop; each k step
// loads one row slice of a packed B panel and broadcasts eight A values. The
// panel (B's 32 columns of this tile column, all k, contiguous) is copied once per
// column of tiles and stays in L2 while the rows of tiles pass over it. Columns of
// tiles run in parallel.
//
//   for j_0 in parallel(0, 32):
//     B_pack[k, c] = B[k, j_0 * 32 + c]              (1024 x 32, vectorized)
//     for i_0 in range(0, 128):
//       C_local[r, c] = 0                             (unrolled x vectorized)
//       for k: for i_1 (unrolled 8): for j_1 (vector 32):
//         C_local[i_1, j_1] += A[i_0 * 8 + i_1, k] * B_pack[k, j_1]
//       C[i_0 * 8 + r, j_0 * 32 + c] = C_local[r, c]
//
// Tensorized, the k step is the intrinsic's vector code instead, one 16-lane
// fma per row of each 4 x 16 quarter of the tile:
//
//       for k: for i_1_0 (unrolled 2): for j_1_0 (unrolled 2):
//         block C_o [tensorized f32_fma_4x16]: for r in unrolled(0, 4):
//           C_local[i_1_0 * 4 + r, ramp(j_1_0 * 16, 1, 16)] = fma(broadcast(A[.., k], 16),
//               B_pack[k, ramp(j_1_0 * 16, 1, 16)], C_local[i_1_0 * 4 + r, ramp(j_1_0 * 16, 1, 16)])
absl::StatusOr<ir::IRModule> MatmulSchedule(const ir::IRModule& mod,
                                            MicroKernel kernel = MicroKernel::kVectorized) {
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock("C"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(c));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> i, s.Split(l[0], {std::nullopt, 8}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> j, s.Split(l[1], {std::nullopt, 32}));
  TESSEL_RETURN_IF_ERROR(s.Reorder({j[0], i[0], l[2], i[1], j[1]}));
  TESSEL_RETURN_IF_ERROR(s.Parallel(j[0]));
  // The packed B panel, per column of tiles.
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV pack, s.CacheRead(c, 1, "global"));
  TESSEL_RETURN_IF_ERROR(s.ComputeAt(pack, j[0]));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> p, InnerLoops(s, pack, 1));
  TESSEL_RETURN_IF_ERROR(s.Vectorize(p[0]));
  // The accumulator tile and its write-back, per tile.
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV out, s.CacheWrite(c, 0, "local"));
  TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(out, i[0]));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> o, InnerLoops(s, out, 2));
  TESSEL_RETURN_IF_ERROR(s.Unroll(o[0]));
  TESSEL_RETURN_IF_ERROR(s.Vectorize(o[1]));
  // The zeroing of the tile before the k loop.
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV init, s.DecomposeReduction(c, l[2]));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> z, InnerLoops(s, init, 2));
  TESSEL_RETURN_IF_ERROR(s.Unroll(z[0]));
  TESSEL_RETURN_IF_ERROR(s.Vectorize(z[1]));
  if (kernel == MicroKernel::kVectorized) {
    TESSEL_RETURN_IF_ERROR(s.Unroll(i[1]));
    TESSEL_RETURN_IF_ERROR(s.Vectorize(j[1]));
    return s.mod();
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> ii, s.Split(i[1], {2, 4}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> jj, s.Split(j[1], {2, 16}));
  TESSEL_RETURN_IF_ERROR(s.Reorder({ii[0], jj[0], ii[1], jj[1]}));
  TESSEL_RETURN_IF_ERROR(s.Tensorize(ii[1], "f32_fma_4x16"));
  TESSEL_RETURN_IF_ERROR(s.Unroll(ii[0]));
  TESSEL_RETURN_IF_ERROR(s.Unroll(jj[0]));
  return s.mod();
}


absl::StatusOr<BenchResult> MatmulCase(int threads, const BenchOptions& opts,
                                       MicroKernel kernel = MicroKernel::kVectorized) {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::te::BuildWorkload("matmul_1024x1024x1024_f32"));
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule scheduled, MatmulSchedule(mod, kernel));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, codegen::Build(scheduled, codegen::Target::Host()));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, Random({kN, kN}, 1));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray b, Random({kN, kN}, 2));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray c, runtime::NDArray::Zeros({kN, kN}, ir::DataType::Float(32)));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray ref, runtime::NDArray::Zeros({kN, kN}, ir::DataType::Float(32)));
  const std::string name = m.FunctionNames().front();

  tessel_set_num_threads(threads);
  openblas_set_num_threads(threads);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f,
                static_cast<const float*>(a.data()), kN, static_cast<const float*>(b.data()), kN,
                0.0f, static_cast<float*>(ref.data()), kN);
  };
  TESSEL_RETURN_IF_ERROR(m.Call(name, {a, b, c}));
  blas();
  double max_err = 0;
  const float* got = static_cast<const float*>(c.data());
  const float* want = static_cast<const float*>(ref.data());
  for (int64_t k = 0; k < kN * kN; ++k) {
    max_err = std::max(max_err, static_cast<double>(std::fabs(got[k] - want[k])));
  }
  if (max_err > 1e-3) {
    return absl::InternalError(absl::StrCat("tessel's matmul differs from OpenBLAS by ", max_err));
  }

  const int repeat = std::max(3, std::min(opts.repeats, 15));
  const runtime::Module::Function* f = m.Find(name);
  DLTensor* args[] = {a.dltensor(), b.dltensor(), c.dltensor()};
  TESSEL_ASSIGN_OR_RETURN(const double ours_s, KernelSeconds(*f, args, repeat));
  const double blas_s = TimeCalls(repeat, blas).median_us * 1e-6;
  SetOneDnnThreads(threads);
  auto dnnl = [&] {
    (void)OneDnnSgemm(false, false, kN, kN, kN, static_cast<const float*>(a.data()),
                      static_cast<const float*>(b.data()), static_cast<float*>(ref.data()));
  };
  dnnl();
  const double dnnl_s = TimeCalls(repeat, dnnl).median_us * 1e-6;
  const double flops = 2.0 * kN * kN * kN;
  const double ours_gflops = flops / ours_s * 1e-9;
  const double blas_gflops = flops / blas_s * 1e-9;
  tessel_set_num_threads(0);

  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add("tessel_gflops", ours_gflops);
  r.Add("openblas_gflops", blas_gflops);
  r.Add("onednn_gflops", flops / dnnl_s * 1e-9);
  r.Add("ratio", ours_gflops / blas_gflops);
  r.Add("max_abs_diff", max_err);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

TESSEL_BENCHMARK(Matmul1T, "codegen/matmul_1024_f32_1t",
                 "f32 matmul 1024^3, hand-scheduled, 1 thread, against OpenBLAS sgemm") {
  return MatmulCase(1, opts);
}

TESSEL_BENCHMARK(Matmul2T, "codegen/matmul_1024_f32_2t",
                 "f32 matmul 1024^3, hand-scheduled, 2 threads, against OpenBLAS sgemm") {
  return MatmulCase(2, opts);
}

TESSEL_BENCHMARK(TensorizedMatmul1T, "codegen/matmul_1024_f32_tensorized_1t",
                 "f32 matmul 1024^3, k step tensorized to f32_fma_4x16, 1 thread, against "
                 "OpenBLAS sgemm") {
  return MatmulCase(1, opts, MicroKernel::kTensorized);
}

TESSEL_BENCHMARK(TensorizedMatmul2T, "codegen/matmul_1024_f32_tensorized_2t",
                 "f32 matmul 1024^3, k step tensorized to f32_fma_4x16, 2 threads, against "
                 "OpenBLAS sgemm") {
  return MatmulCase(2, opts, MicroKernel::kTensorized);
}

TESSEL_BENCHMARK(JitCompileMatmul, "codegen/jit_compile_matmul_1024",
                 "lower + JIT (uncached) of the hand-scheduled 1024^3 matmul") {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::te::BuildWorkload("matmul_1024x1024x1024_f32"));
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule scheduled, MatmulSchedule(mod));
  codegen::BuildOptions options;
  options.jit.use_cache = false;
  absl::Status failed;
  BenchResult r;
  r.AddTiming(TimeCalls(std::max(3, std::min(opts.repeats, 10)), [&] {
    absl::StatusOr<runtime::Module> m = codegen::Build(scheduled, codegen::Target::Host(), options);
    if (!m.ok()) failed = m.status();
  }));
  if (!failed.ok()) return failed;
  return r;
}

constexpr int64_t kAddN = int64_t{64} << 20;

absl::StatusOr<BenchResult> AddCase(int threads, const BenchOptions& opts) {
  const std::string text = absl::StrCat(
      "func @add(A: f32[", kAddN, "], B: f32[", kAddN, "], C: f32[", kAddN, "]) {\n",
      "  for i in range(0, ", kAddN, ") {\n",
      "    block C(vi: spatial[0, ", kAddN, "] = i) {\n",
      "      reads(A[vi], B[vi])\n      writes(C[vi])\n      C[vi] = A[vi] + B[vi]\n    }\n  }\n}\n");
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::ParseModule(text, "add.tsl"));
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock("C"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(c));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> t, s.Split(l[0], {256, std::nullopt, 16}));
  TESSEL_RETURN_IF_ERROR(s.Parallel(t[0]));
  TESSEL_RETURN_IF_ERROR(s.Vectorize(t[2]));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, codegen::Build(s.mod(), codegen::Target::Host()));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, Random({kAddN}, 3));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray b, Random({kAddN}, 4));
  TESSEL_ASSIGN_OR_RETURN(runtime::NDArray out, runtime::NDArray::Zeros({kAddN}, ir::DataType::Float(32)));
  tessel_set_num_threads(threads);
  TESSEL_RETURN_IF_ERROR(m.Call("add", {a, b, out}));
  const float* pa = static_cast<const float*>(a.data());
  const float* pb = static_cast<const float*>(b.data());
  float* po = static_cast<float*>(out.data());
  for (int64_t k = 0; k < kAddN; k += 4099) {
    if (po[k] != pa[k] + pb[k]) return absl::InternalError(absl::StrCat("wrong sum at ", k));
  }
  const int repeat = std::max(3, std::min(opts.repeats, 15));
  const runtime::Module::Function* f = m.Find("add");
  DLTensor* args[] = {a.dltensor(), b.dltensor(), out.dltensor()};
  TESSEL_ASSIGN_OR_RETURN(const double ours_s, KernelSeconds(*f, args, repeat));
  tessel_set_num_threads(0);

  // memcpy of 8 bytes per element (A -> C), split over the same number of threads.
  auto copy = [&] {
    std::vector<std::thread> workers;
    const int64_t chunk = kAddN / threads;
    for (int t = 1; t < threads; ++t) {
      workers.emplace_back([&, t] { std::memcpy(po + t * chunk, pa + t * chunk, chunk * 4); });
    }
    std::memcpy(po, pa, chunk * 4);
    for (std::thread& w : workers) w.join();
  };
  const double copy_s = TimeCalls(repeat, copy).median_us * 1e-6;
  const double ours_gbs = 12.0 * kAddN / ours_s * 1e-9;
  const double copy_gbs = 8.0 * kAddN / copy_s * 1e-9;
  BenchResult r;
  r.Add("threads", static_cast<int64_t>(threads));
  r.Add("tessel_gbs", ours_gbs);
  r.Add("memcpy_gbs", copy_gbs);
  r.Add("ratio", ours_gbs / copy_gbs);
  r.Add("repeats", static_cast<int64_t>(repeat));
  return r;
}

TESSEL_BENCHMARK(Add1T, "codegen/add_64mi_f32_1t",
                 "C = A + B over 64 Mi floats, 1 thread, against memcpy bandwidth") {
  return AddCase(1, opts);
}

TESSEL_BENCHMARK(Add2T, "codegen/add_64mi_f32_2t",
                 "C = A + B over 64 Mi floats, 2 threads, against memcpy bandwidth") {
  return AddCase(2, opts);
}

}  // namespace
}  // namespace tessel::bench
