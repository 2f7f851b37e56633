// Math intrinsics (vectorised polynomial approximations for f32, libm for f64),
// their accuracy against libm, extern C calls, and the JIT time of a matmul.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "codegen/emit.h"
#include "codegen/jit.h"
#include "ir/host_buffer.h"
#include "tests/unit/codegen_test_util.h"

extern "C" float tessel_test_twice_plus(float x, int32_t k) { return 2.0f * x + static_cast<float>(k); }

namespace tessel::codegen::testing {
namespace {

TEST(CodegenMath, IntrinsicsMatchTheInterpreter) {
  const std::string kText = R"(
func @math(A: T[45], B: T[45], C: T[45], D: T[45]) attrs {global_symbol = "math"} {
  for io in range(0, 2) {
    C[ramp(io * 16, 1, 16)] = exp(A[ramp(io * 16, 1, 16)]) + log(fabs(B[ramp(io * 16, 1, 16)]) + broadcast(T(0.5f32), 16)) + tanh(A[ramp(io * 16, 1, 16)] * broadcast(T(3), 16)) + erf(B[ramp(io * 16, 1, 16)]) + sigmoid(A[ramp(io * 16, 1, 16)] * broadcast(T(5), 16))
    D[ramp(io * 16, 1, 16)] = sqrt(fabs(A[ramp(io * 16, 1, 16)])) + rsqrt(fabs(B[ramp(io * 16, 1, 16)]) + broadcast(T(1), 16)) + floor(A[ramp(io * 16, 1, 16)] * broadcast(T(4), 16)) + ceil(B[ramp(io * 16, 1, 16)] * broadcast(T(4), 16)) + pow(fabs(A[ramp(io * 16, 1, 16)]), B[ramp(io * 16, 1, 16)]) + fma(A[ramp(io * 16, 1, 16)], B[ramp(io * 16, 1, 16)], A[ramp(io * 16, 1, 16)])
  }
  for i in range(32, 13) {
    C[i] = exp(A[i]) + log(fabs(B[i]) + T(0.5f32)) + tanh(A[i] * T(3)) + erf(B[i]) + sigmoid(A[i] * T(5))
    D[i] = sqrt(fabs(A[i])) + rsqrt(fabs(B[i]) + T(1)) + floor(A[i] * T(4)) + ceil(B[i] * T(4)) + pow(fabs(A[i]), B[i]) + fma(A[i], B[i], A[i])
  }
})";
  for (const char* t : {"f32", "f64", "f16", "bf16"}) {
    SCOPED_TRACE(t);
    ir::CompareOptions tol = {.rtol = 2e-6, .atol = 2e-6};
    if (std::string(t) == "f64") tol = {.rtol = 1e-13, .atol = 1e-13};
    if (std::string(t) == "f16" || std::string(t) == "bf16") tol = {.rtol = 2e-2, .atol = 2e-2};
    EXPECT_OK(CheckAgainstInterpreter(absl::StrReplaceAll(kText, {{"T", t}}), {.seed = 21, .compare = tol}));
  }
  // Integer fabs is an absolute value.
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @iabs(A: i32[9], B: i32[9]) attrs {global_symbol = "iabs"} {
  for i in range(0, 9) {
    B[i] = fabs(A[i])
  }
})"));
}

// Distance in units in the last place between two floats.
int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : INT64_MAX;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;  // Map to a monotonic integer line.
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

// The f32 approximations against libm in double, over a grid of each function's
// useful range (docs/codegen.md quotes these figures).
TEST(CodegenMath, F32ApproximationAccuracy) {
  struct Case {
    const char* name;
    double lo, hi;
    double (*ref)(double);
    int64_t max_ulp;
  };
  const Case cases[] = {
      {"exp", -87.0, 88.0, [](double x) { return std::exp(x); }, 2},
      {"log", 1e-30, 1e30, [](double x) { return std::log(x); }, 2},
      {"tanh", -10.0, 10.0, [](double x) { return std::tanh(x); }, 6},
      {"erf", -4.0, 4.0, [](double x) { return std::erf(x); }, 6},
      {"sigmoid", -20.0, 20.0, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 4},
  };
  constexpr int64_t kN = 1 << 16;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string text = absl::StrCat(R"(
func @f(A: f32[65536], B: f32[65536]) attrs {global_symbol = "f"} {
  for io in range(0, 4096) {
    B[ramp(io * 16, 1, 16)] = )", c.name, R"((A[ramp(io * 16, 1, 16)])
  }
})");
    absl::StatusOr<ir::IRModule> mod = Parse(text);
    ASSERT_TRUE(mod.ok()) << mod.status().message();
    absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), TestJitOptions());
    ASSERT_TRUE(jit.ok()) << jit.status().message();
    ir::HostBuffer a = ir::HostBuffer::Zeros(ir::DataType::Float(32), {kN});
    ir::HostBuffer b = ir::HostBuffer::Zeros(ir::DataType::Float(32), {kN});
    bool log_scale = std::string(c.name) == "log";
    for (int64_t i = 0; i < kN; ++i) {
      double f = static_cast<double>(i) / (kN - 1);
      double x = log_scale ? std::exp(std::log(c.lo) + f * (std::log(c.hi) - std::log(c.lo)))
                           : c.lo + f * (c.hi - c.lo);
      a.SetFloat(i, static_cast<float>(x));
    }
    ASSERT_OK(CallJit(**jit, "f", (*mod)->functions[0].second, {a, b}));
    int64_t worst = 0;
    double worst_rel = 0;
    for (int64_t i = 0; i < kN; ++i) {
      double x = a.GetFloat(i);
      float want = static_cast<float>(c.ref(x));
      float got = static_cast<float>(b.GetFloat(i));
      worst = std::max(worst, UlpDistance(got, want));
      if (want != 0) worst_rel = std::max(worst_rel, std::fabs((got - want) / static_cast<double>(want)));
    }
    std::cout << "[accuracy] f32 " << c.name << " on [" << c.lo << ", " << c.hi
              << "]: max ulp " << worst << ", max rel " << worst_rel << "\n";
    EXPECT_LE(worst, c.max_ulp);
  }
}

// Extern calls resolve from JitOptions::symbols, a named shared library and the process.
TEST(CodegenMath, ExternCalls) {
  absl::StatusOr<ir::IRModule> mod = Parse(R"(
func @ext(A: f32[19], B: f32[19], C: f64[19], k: i32) attrs {global_symbol = "ext"} {
  for i in range(0, 19) {
    B[i] = @tessel_test_twice_plus(A[i], k): f32 + @hypotf(A[i], 2.0f32): f32
    C[i] = @cbrt(f64(A[i])): f64
  }
})");
  ASSERT_TRUE(mod.ok()) << mod.status().message();
  JitOptions opts = TestJitOptions();
  opts.symbols.push_back({"tessel_test_twice_plus", reinterpret_cast<void*>(&tessel_test_twice_plus)});
  opts.shared_libraries.push_back("libm.so.6");
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), opts);
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  const ir::PrimFunc& f = (*mod)->functions[0].second;
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(f, 31, {{"k", 5}});
  ASSERT_TRUE(args.ok());
  (*args)[3] = int64_t{5};
  ASSERT_OK(CallJit(**jit, "ext", f, *args));
  const auto& a = std::get<ir::HostBuffer>((*args)[0]);
  const auto& b = std::get<ir::HostBuffer>((*args)[1]);
  const auto& c = std::get<ir::HostBuffer>((*args)[2]);
  for (int64_t i = 0; i < 19; ++i) {
    float x = static_cast<float>(a.GetFloat(i));
    EXPECT_FLOAT_EQ(b.GetFloat(i), 2.0f * x + 5.0f + std::hypot(x, 2.0f)) << i;
    EXPECT_DOUBLE_EQ(c.GetFloat(i), std::cbrt(static_cast<double>(x))) << i;
  }
}

TEST(CodegenMath, UnresolvedExternSymbolAndMissingLibrary) {
  absl::StatusOr<ir::IRModule> mod = Parse(R"(
func @ext(A: f32[3]) attrs {global_symbol = "ext"} {
  A[0] = @tessel_no_such_symbol(A[1]): f32
})");
  ASSERT_TRUE(mod.ok());
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), TestJitOptions());
  ASSERT_FALSE(jit.ok());
  EXPECT_NE(jit.status().message().find("tessel_no_such_symbol"), std::string::npos) << jit.status().message();
  EXPECT_NE(jit.status().message().find("function 'ext'"), std::string::npos) << jit.status().message();
  JitOptions opts = TestJitOptions();
  opts.shared_libraries.push_back("/nonexistent/libnothing.so");
  jit = JitCompile(*mod, Target(), opts);
  ASSERT_FALSE(jit.ok());
  EXPECT_NE(jit.status().message().find("cannot load shared library '/nonexistent/libnothing.so'"),
            std::string::npos)
      << jit.status().message();
}

// A register-blocked, 16-lane matmul as `lower` would produce it from a tiled,
// vectorised schedule (M x N x K, N a multiple of 16): correct on odd M and K,
// and its JIT time at 1024^3 (printed; timing is measured in tessel-bench).
std::string Matmul(int m, int n, int k) {
  return absl::StrReplaceAll(R"(
func @matmul(A: f32[MK], B: f32[KN], C: f32[MN]) attrs {global_symbol = "matmul"} {
  for i in parallel(0, M) {
    for jo in range(0, NO) {
      allocate acc: f32[16] scope "local"
      acc[ramp(0, 1, 16)] = broadcast(0.0f32, 16)
      for kk in range(0, K) {
        acc[ramp(0, 1, 16)] = broadcast(A[i * K + kk], 16) * B[ramp(kk * N + jo * 16, 1, 16)] + acc[ramp(0, 1, 16)]
      }
      C[ramp(i * N + jo * 16, 1, 16)] = acc[ramp(0, 1, 16)]
    }
  }
})",
                             {{"MK", std::to_string(m * k)},
                              {"KN", std::to_string(k * n)},
                              {"MN", std::to_string(m * n)},
                              {"NO", std::to_string(n / 16)},
                              {"M", std::to_string(m)},
                              {"K", std::to_string(k)},
                              {"N", std::to_string(n)}});
}

TEST(CodegenMath, MatmulCorrectAndJitTime) {
  EXPECT_OK(CheckAgainstInterpreter(Matmul(37, 48, 29), {.seed = 41, .compare = {.rtol = 1e-4, .atol = 1e-5}, .threads = true}));
  absl::StatusOr<ir::IRModule> mod = Parse(Matmul(1024, 1024, 1024));
  ASSERT_TRUE(mod.ok()) << mod.status().message();
  JitOptions opts = TestJitOptions();
  opts.use_cache = false;
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), opts);
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  std::cout << "[jit] matmul 1024^3 compiled in " << (*jit)->compile_ms() << " ms\n";
  EXPECT_GT((*jit)->compile_ms(), 0);
}

}  // namespace
}  // namespace tessel::codegen::testing
