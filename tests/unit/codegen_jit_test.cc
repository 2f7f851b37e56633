// JIT-compiled functions against the interpreter on random inputs with odd sizes:
// scalar and vector loops, parallel loops, Allocate, if/select, every dtype.
#include <gtest/gtest.h>

#include "absl/strings/str_replace.h"
#include "codegen/jit.h"
#include "tests/unit/codegen_test_util.h"

namespace tessel::codegen::testing {
namespace {

// Arithmetic, min/max and casts in every scalar dtype (T), plus integer division
// by a divisor that is never zero.
TEST(CodegenJit, ScalarLoopEveryDtype) {
  const std::string kInt = R"(
func @f(A: T[37], B: T[37], C: T[37], D: i32[37]) attrs {global_symbol = "f"} {
  for i in range(0, 37) {
    C[i] = max(A[i], B[i]) - min(A[i], B[i]) * A[i] + B[i] / (B[i] * B[i] + T(1)) - A[i] % (B[i] * B[i] + T(3)) + A[i] // (B[i] * B[i] + T(1)) - A[i] %% (B[i] * B[i] + T(2))
    D[i] = i32(A[i]) * 3 + i32(select(A[i] < B[i], T(1), T(0)))
  }
})";
  for (const char* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
    SCOPED_TRACE(t);
    EXPECT_OK(CheckAgainstInterpreter(absl::StrReplaceAll(kInt, {{"T", t}}), {.seed = 11}));
  }
  const std::string kFloat = R"(
func @f(A: T[37], B: T[37], C: T[37], D: i32[37]) attrs {global_symbol = "f"} {
  for i in range(0, 37) {
    C[i] = max(A[i], B[i]) - min(A[i], B[i]) * A[i] + B[i] / (B[i] * B[i] + T(1)) + A[i] // T(0.25f32) - A[i] %% T(0.375f32)
    D[i] = i32(A[i] * T(100)) + i32(A[i] >= B[i]) + i32(A[i] != B[i])
  }
})";
  for (const char* t : {"f16", "bf16", "f32", "f64"}) {
    SCOPED_TRACE(t);
    ir::CompareOptions tol{.rtol = 1e-5, .atol = 1e-5};
    if (std::string(t) == "f16" || std::string(t) == "bf16") tol = {.rtol = 1e-2, .atol = 1e-2};
    EXPECT_OK(CheckAgainstInterpreter(absl::StrReplaceAll(kFloat, {{"T", t}}), {.seed = 12, .compare = tol}));
  }
}

// Casts between every pair of kinds, bool buffers, logic.
TEST(CodegenJit, CastsAndBools) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @casts(A: f32[29], I: i16[29], U: u8[29], P: bool[29], F: f64[29], H: f16[29], G: bf16[29], J: i64[29]) attrs {global_symbol = "casts"} {
  for i in range(0, 29) {
    P[i] = A[i] < f32(I[i]) && !(U[i] == u8(3)) || P[i]
    J[i] = i64(A[i] * 1000.0f32) + i64(U[i]) + i64(I[i]) + i64(P[i])
    F[i] = f64(A[i]) + f64(I[i]) + f64(U[i]) + f64(H[i]) + f64(G[i])
    H[i] = f16(A[i]) + f16(I[i]) + f16(G[i])
    G[i] = bf16(F[i]) + bf16(H[i]) + bf16(U[i])
    U[i] = u8(A[i] * 300.0f32) + u8(I[i])
    I[i] = i16(A[i] * 40000.0f32)
  }
})", {.seed = 5, .compare = {.rtol = 1e-2, .atol = 1e-2}}));
}

// Saturating float -> int casts and NaN, as the interpreter defines them.
TEST(CodegenJit, SaturatingCasts) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @sat(A: f32[16], I: i8[16], U: u16[16], L: i64[16]) attrs {global_symbol = "sat"} {
  for i in range(0, 16) {
    I[i] = i8(A[i] * 1000.0f32)
    U[i] = u16(A[i] * 100000.0f32)
    L[i] = i64(A[i] * 1.0e30f32) + i64(A[i] * 0.0f32 / 0.0f32)
  }
})", {.seed = 9}));
}

// 16-lane vector loops with a scalar tail, FMA, gathers and broadcast indices.
TEST(CodegenJit, VectorLoops) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @vec(A: f32[1003], B: f32[1003], C: f32[1003], s: f32) attrs {global_symbol = "vec"} {
  for io in range(0, 62) {
    C[ramp(io * 16, 1, 16)] = A[ramp(io * 16, 1, 16)] * B[ramp(io * 16, 1, 16)] + broadcast(s, 16)
  }
  for i in range(992, 11) {
    C[i] = A[i] * B[i] + s
  }
})", {.seed = 2, .compare = {.rtol = 1e-5, .atol = 1e-6}}));
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @gather(A: i32[200], B: i32[40], C: i32[64], K: i32[8]) attrs {global_symbol = "gather"} {
  for j in range(0, 8) {
    C[ramp(j * 8, 1, 8)] = A[ramp(j * 3, 7, 8)] + B[broadcast(j * 5, 8)] * broadcast(2, 8) + select(A[ramp(j, 1, 8)] < B[ramp(j, 1, 8)], broadcast(1, 8), broadcast(-1, 8))
    K[ramp(0, 1, 8)] = max(K[ramp(0, 1, 8)], C[ramp(j * 8, 1, 8)]) // broadcast(3, 8)
  }
  B[ramp(1, 5, 8)] = C[ramp(0, 1, 8)]
})", {.seed = 3}));
}

const char kParallel[] = R"(
func @par(A: f32[1003], B: f32[1003], C: f32[1003], n: i32) attrs {global_symbol = "par"} {
  for io in parallel(0, 62) {
    C[ramp(io * 16, 1, 16)] = A[ramp(io * 16, 1, 16)] + B[ramp(io * 16, 1, 16)]
  }
  let k = n * 2
  for i in parallel(992, 11) {
    C[i] = A[i] + B[i] * f32(k)
  }
})";

TEST(CodegenJit, ParallelLoopsSerialRuntime) {
  EXPECT_OK(CheckAgainstInterpreter(kParallel, {.seed = 4}));
}

TEST(CodegenJit, ParallelLoopsOnThreads) {
  int64_t before = ThreadedChunksRun();
  EXPECT_OK(CheckAgainstInterpreter(kParallel, {.seed = 4, .threads = true}));
  EXPECT_GT(ThreadedChunksRun(), before);
}

// Without a test override, tessel_parallel_for comes from libtessel_runtime (its
// thread pool), found in the process.
TEST(CodegenJit, ParallelLoopsOnTheRuntimeThreadPool) {
  ASSERT_GE(tessel_get_num_threads(), 1);
  absl::StatusOr<ir::IRModule> mod = Parse(kParallel);
  ASSERT_TRUE(mod.ok()) << mod.status().message();
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), JitOptions());
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  const ir::PrimFunc& f = (*mod)->functions[0].second;
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(f, 13);
  ASSERT_TRUE(args.ok());
  std::vector<ir::Arg> expected = ir::CloneArgs(*args);
  ASSERT_OK(ir::Run(f, expected));
  ASSERT_OK(CallJit(**jit, "par", f, *args));
  EXPECT_OK(ir::CompareArgs(expected, *args, f));
}

// A parallel loop inside a parallel loop, each with its own local buffer.
TEST(CodegenJit, NestedParallelWithLocals) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @nested(A: f32[35], B: f32[35], m: i64) attrs {global_symbol = "nested"} {
  for i in parallel(0, 5) {
    allocate T: f32[7] scope "local"
    for j in parallel(0, 7) {
      T[j] = A[i * 7 + j] * f32(m)
    }
    for j in range(0, 7) {
      B[i * 7 + j] = T[j] + T[6 - j]
    }
  }
})", {.seed = 6, .threads = true}));
}

// Vector values captured by a parallel loop travel one lane per closure slot.
TEST(CodegenJit, ParallelCapturesVectors) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @veclet(A: f32[64], B: f32[64], s: f32) attrs {global_symbol = "veclet"} {
  let v: f32x16 = broadcast(s, 16) * A[ramp(0, 1, 16)]
  let m: boolx16 = A[ramp(16, 1, 16)] < broadcast(s, 16)
  for i in parallel(0, 4) {
    B[ramp(i * 16, 1, 16)] = select(m, A[ramp(i * 16, 1, 16)] + v, v)
  }
})", {.seed = 10, .threads = true}));
}

// A stack buffer inside a loop, a heap buffer (too big for the stack) and a
// DeclBuffer view with an element offset.
TEST(CodegenJit, AllocateAndViews) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @alloc(A: f32[41], B: f32[41]) attrs {global_symbol = "alloc"} {
  allocate Big: f32[100000]
  for i in range(0, 41) {
    allocate T: f32[2] scope "local"
    T[0] = A[i] * 2.0f32
    T[1] = T[0] + 1.0f32
    Big[i * 2000] = T[1]
  }
  decl_buffer V: f32[40] offset 1 = A
  for i in range(0, 40) {
    B[i] = Big[i * 2000] + V[i]
  }
  B[40] = 0.0f32
})", {.seed = 7}));
}

TEST(CodegenJit, IfThenElseAndSelect) {
  EXPECT_OK(CheckAgainstInterpreter(R"(
func @cond(A: i32[23], B: i32[23], t: i32) attrs {global_symbol = "cond"} {
  for i in range(0, 23) {
    if A[i] < t {
      B[i] = A[i] * 2
    } else if A[i] == t {
      B[i] = 100
    } else {
      B[i] = select(i %% 2 == 0, A[i], 0 - A[i])
    }
    if i > 20 {
      B[i] = B[i] + 1
    }
  }
})", {.seed = 8}));
}

TEST(CodegenJit, CompilesTwiceOnlyOnce) {
  const std::string text = R"(
func @once(A: f32[5]) attrs {global_symbol = "once"} {
  for i in range(0, 5) {
    A[i] = A[i] + 1.0f32
  }
})";
  absl::StatusOr<ir::IRModule> a = Parse(text), b = Parse(text);
  ASSERT_TRUE(a.ok() && b.ok());
  Target host;
  absl::StatusOr<std::shared_ptr<JitModule>> first = JitCompile(*a, host, TestJitOptions());
  ASSERT_TRUE(first.ok()) << first.status().message();
  int64_t count = JitCompileCount();
  // The same module, and a structurally equal one parsed again: cache hits.
  absl::StatusOr<std::shared_ptr<JitModule>> again = JitCompile(*a, host, TestJitOptions());
  absl::StatusOr<std::shared_ptr<JitModule>> reparsed = JitCompile(*b, host, TestJitOptions());
  ASSERT_TRUE(again.ok() && reparsed.ok());
  EXPECT_EQ(again->get(), first->get());
  EXPECT_EQ(reparsed->get(), first->get());
  EXPECT_EQ(JitCompileCount(), count);
  // Another target string compiles again.
  absl::StatusOr<std::shared_ptr<JitModule>> other =
      JitCompile(*a, *Target::Parse("llvm -num-threads=1"), TestJitOptions());
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get(), first->get());
  EXPECT_EQ(JitCompileCount(), count + 1);
  EXPECT_EQ((*other)->target().num_threads, 1);
}

TEST(CodegenJit, LookupByNameOrSymbolAndUnknownName) {
  absl::StatusOr<ir::IRModule> mod = Parse(R"(
func @main(A: f32[1]) attrs {global_symbol = "entry"} {
  A[0] = 1.0f32
})");
  ASSERT_TRUE(mod.ok());
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), TestJitOptions());
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  EXPECT_TRUE((*jit)->Lookup("main").ok());
  EXPECT_TRUE((*jit)->Lookup("entry").ok());
  absl::StatusOr<TesselPackedFunc> missing = (*jit)->Lookup("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "JIT module has no function 'nope' (functions: main)");
  EXPECT_EQ((*jit)->FunctionNames(), std::vector<std::string>{"main"});
}

TEST(CodegenJit, UnloweredInputIsAClearError) {
  absl::StatusOr<ir::IRModule> mod = Parse(R"(
func @blocked(A: f32[16]) {
  for i in range(0, 16) {
    block B(vi: spatial[0, 16] = i) {
      reads()
      writes(A[vi])
      A[vi] = 1.0f32
    }
  }
})");
  ASSERT_TRUE(mod.ok()) << mod.status().message();
  int64_t count = JitCompileCount();
  absl::StatusOr<std::shared_ptr<JitModule>> jit = JitCompile(*mod, Target(), TestJitOptions());
  ASSERT_FALSE(jit.ok());
  EXPECT_NE(jit.status().message().find("block 'B' is still present; codegen takes lowered IR: run "
                                        "the 'lower' pipeline first"),
            std::string::npos)
      << jit.status().message();
  // A failed compile is not cached: trying again fails the same way.
  EXPECT_FALSE(JitCompile(*mod, Target(), TestJitOptions()).ok());
  EXPECT_EQ(JitCompileCount(), count + 2);
}

}  // namespace
}  // namespace tessel::codegen::testing
