// Library dispatch: the shims refuse bad arguments with a clear message and
// never crash, reuse their primitives, the registry replaces and removes rules,
// every small workload dispatched by each rule still computes what it did (the
// interpreter runs the library through the same shims), and the IR keeps packed
// calls and address_of where they belong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "codegen/runtime/tessel_runtime.h"
#include "dispatch/dispatch_rule.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "ir/interpreter.h"
#include "ir/packed_functions.h"
#include "ir/parser.h"
#include "ir/te/workloads.h"
#include "ir/verifier.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"

namespace tessel::dispatch {
namespace {

using ::testing::HasSubstr;

int64_t Addr(const void* p) { return reinterpret_cast<int64_t>(p); }

int64_t F32Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

struct Matmul {
  std::vector<float> a = std::vector<float>(4 * 3, 1.0f), b = std::vector<float>(3 * 2, 2.0f),
                     c = std::vector<float>(4 * 2, -1.0f);
  std::vector<int64_t> Args() const {
    return {1, 4, 2, 3, Addr(a.data()), 0, 3, 1, Addr(b.data()), 0, 2, 1, Addr(c.data()),
            0, 2, 1, 0};
  }
};

std::string Error(int32_t rc) {
  EXPECT_NE(rc, 0);
  return tessel_last_error();
}

TEST(OneDnnShim, ComputesAndCachesItsPrimitive) {
  Matmul m;
  const int64_t created = tessel_onednn_primitives_created();
  const int64_t hits = tessel_onednn_cache_hits();
  std::vector<int64_t> args = m.Args();
  ASSERT_EQ(tessel_onednn_matmul(args.data(), static_cast<int32_t>(args.size())), 0)
      << tessel_last_error();
  for (float v : m.c) EXPECT_FLOAT_EQ(v, 6.0f);
  Matmul other;  // Other arrays, the same shapes: the cached primitive.
  args = other.Args();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(tessel_onednn_matmul(args.data(), static_cast<int32_t>(args.size())), 0);
  }
  EXPECT_EQ(tessel_onednn_primitives_created(), created + 1);
  EXPECT_EQ(tessel_onednn_cache_hits(), hits + 100);
}

// Resident memory in bytes (/proc/self/statm), for the leak check.
int64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<int64_t>(resident) * 4096;
}

// Repeated calls, successful and refused, keep no memory: 100,000 calls after a
// warm-up grow the resident set by less than 2 MiB (a leaked memory object or
// key, ~100 bytes per call, would be 10).
TEST(OneDnnShim, RepeatedCallsLeakNothing) {
  Matmul m;
  std::vector<int64_t> args = m.Args();
  std::vector<int64_t> bad = args;
  bad[3] = 0;
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(tessel_onednn_matmul(args.data(), 17), 0);
  const int64_t before = ResidentBytes();
  for (int i = 0; i < 50000; ++i) {
    ASSERT_EQ(tessel_onednn_matmul(args.data(), 17), 0);
    ASSERT_NE(tessel_onednn_matmul(bad.data(), 17), 0);
  }
  EXPECT_LT(ResidentBytes() - before, 2 << 20);
}

TEST(OneDnnShim, RefusesBadArguments) {
  Matmul m;
  std::vector<int64_t> args = m.Args();
  EXPECT_THAT(Error(tessel_onednn_matmul(args.data(), 5)),
              HasSubstr("tessel_onednn_matmul: takes 17 arguments, got 5"));
  std::vector<int64_t> bad = args;
  bad[3] = 0;
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 17)),
              HasSubstr("batch, M, N, K must be positive"));
  bad = args;
  bad[8] = 0;
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 17)), HasSubstr("a null buffer"));
  bad = args;
  bad[16] = 9;
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 17)), HasSubstr("9 post-ops (0 to 8)"));
  bad[16] = 1;
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 17)), HasSubstr("takes 24 arguments, got 17"));
  bad.insert(bad.end(), {77, 0, 0, 0, 0, 0, 0});
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 24)), HasSubstr("unknown post-op kind 77"));
  bad[17] = kTesselPostAdd;
  EXPECT_THAT(Error(tessel_onednn_matmul(bad.data(), 24)), HasSubstr("post-op 0: a null operand"));
  for (float v : m.c) EXPECT_EQ(v, -1.0f);  // Nothing written by any refused call.
}

TEST(OneDnnShim, PostOpsApplyInOrder) {
  Matmul m;
  std::vector<float> bias = {0.5f, -10.0f};
  std::vector<int64_t> args = m.Args();
  args[16] = 3;
  args.insert(args.end(), {kTesselPostAdd, 0, 0, Addr(bias.data()), 0, 0, 1});
  args.insert(args.end(), {kTesselPostRelu, 0, 0, 0, 0, 0, 0});
  args.insert(args.end(), {kTesselPostLinear, F32Bits(2.0f), F32Bits(1.0f), 0, 0, 0, 0});
  ASSERT_EQ(tessel_onednn_matmul(args.data(), static_cast<int32_t>(args.size())), 0)
      << tessel_last_error();
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(m.c[i * 2], 2.0f * 6.5f + 1.0f);
    EXPECT_FLOAT_EQ(m.c[i * 2 + 1], 1.0f);  // relu(6 - 10) = 0, then 2 * 0 + 1
  }
}

TEST(BlasShim, RefusesBadArguments) {
  Matmul m;
  std::vector<int64_t> g = {
      32, 1, 4, 2, 3, Addr(m.a.data()), 0, 3, 1, Addr(m.b.data()), 0, 2, 1, Addr(m.c.data()), 0, 2};
  ASSERT_EQ(tessel_blas_gemm(g.data(), 16), 0) << tessel_last_error();
  for (float v : m.c) EXPECT_FLOAT_EQ(v, 6.0f);
  EXPECT_THAT(Error(tessel_blas_gemm(g.data(), 3)), HasSubstr("takes 16 arguments, got 3"));
  std::vector<int64_t> bad = g;
  bad[0] = 16;
  EXPECT_THAT(Error(tessel_blas_gemm(bad.data(), 16)), HasSubstr("dtype bits must be 32 or 64"));
  bad = g;
  bad[7] = 2;  // A's rows overlap: neither row-major nor transposed.
  EXPECT_THAT(Error(tessel_blas_gemm(bad.data(), 16)), HasSubstr("A strides (2, 1)"));
  bad = g;
  bad[15] = 1;
  EXPECT_THAT(Error(tessel_blas_gemm(bad.data(), 16)), HasSubstr("C row stride 1 < N"));
  std::vector<int64_t> v = {32, 4, 3, Addr(m.a.data()), 3, 1, Addr(m.b.data()), 1, 0, 1};
  EXPECT_THAT(Error(tessel_blas_gemv(v.data(), 10)), HasSubstr("a null buffer"));
}

TEST(Registry, ReplacesAndRemoves) {
  auto never = [](const std::string& why) {
    return [why](const ir::PrimFunc&, const std::string&) -> absl::StatusOr<DispatchResult> {
      return NotApplicable{why};
    };
  };
  RegisterDispatchRule(DispatchRule("test-rule", {"llvm"}, 99, never("first")));
  RegisterDispatchRule(DispatchRule("test-rule", {"llvm"}, 99, never("second")));
  std::optional<DispatchRule> r = LookupDispatchRule("test-rule");
  ASSERT_TRUE(r.has_value());
  absl::StatusOr<DispatchResult> got = r->Match(ir::PrimFunc(), "llvm");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::get<NotApplicable>(*got).reason, "second");
  EXPECT_EQ(ListDispatchRules().front().name(), "test-rule");  // Highest priority first.
  EXPECT_TRUE(r->Serves("llvm -mcpu=znver4"));
  EXPECT_FALSE(r->Serves("cuda"));
  EXPECT_TRUE(UnregisterDispatchRule("test-rule"));
  EXPECT_FALSE(UnregisterDispatchRule("test-rule"));
}

// Every small workload, through each rule: whatever the rule takes, the
// function computes what it did (interpreter, seeded random inputs).
TEST(DispatchLibrary, EverySmallWorkloadStillComputesTheSame) {
  int dispatched = 0;
  for (const ir::te::Workload& w : ir::te::AllWorkloads()) {
    if (!w.small) continue;
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name;
    for (const char* rule : {"onednn", "blas"}) {
      absl::StatusOr<passes::PassPtr> pass =
          passes::ParsePipeline(absl::StrCat("dispatch-library{rules=[", rule, "]}"));
      ASSERT_TRUE(pass.ok());
      absl::StatusOr<ir::IRModule> out = passes::RunPipeline(**pass, *mod);
      ASSERT_TRUE(out.ok()) << w.name << " " << rule << ": " << out.status();
      const ir::PrimFunc& before = (*mod)->functions.front().second;
      const ir::PrimFunc& after = (*out)->functions.front().second;
      if (after.same_as(before)) continue;
      ++dispatched;
      ASSERT_TRUE(ir::VerifyFunction(after).ok()) << w.name << " " << rule;
      absl::Status same = ir::CheckSameResults(before, after, 7, {.rtol = 1e-4, .atol = 1e-5});
      EXPECT_TRUE(same.ok()) << w.name << " " << rule << ": " << same;
    }
  }
  EXPECT_GE(dispatched, 6);  // matmuls, gemv, bert_ffn and attention's products, by both rules
}

TEST(PackedCalls, StayWhereTheyBelong) {
  absl::StatusOr<ir::IRModule> in_expr = ir::ParseModule(R"(
func @f(A: f32[4], B: i32[1]) {
  B[0] = @tessel_blas_gemv(32i64, address_of(A[0])): packed + 1
}
)");
  ASSERT_TRUE(in_expr.ok()) << in_expr.status();
  EXPECT_THAT(ir::VerifyModule(*in_expr).message(),
              HasSubstr("the packed call @tessel_blas_gemv is a statement of its own"));
  absl::StatusOr<ir::IRModule> stray = ir::ParseModule(R"(
func @f(A: f32[4]) {
  evaluate @g(address_of(A[0]) ): i32
}
)");
  ASSERT_TRUE(stray.ok()) << stray.status();
  EXPECT_THAT(ir::VerifyModule(*stray).message(),
              HasSubstr("address_of(...) is only an argument of a packed call"));
  EXPECT_THAT(ir::ParseModule("func @f(A: f32[4]) {\n  evaluate @g(A[ramp(0, 1, 4)]): packed\n}\n")
                  .status()
                  .message(),
              HasSubstr("a packed call takes scalars and address_of(...), not f32x4"));
}

TEST(PackedCalls, TheInterpreterNamesWhatIsMissingOrFailed) {
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(R"(
func @f(A: f32[4]) {
  evaluate @no_such_shim(address_of(A[0]), 4i64): packed
}
func @g(A: f32[4]) {
  evaluate @tessel_blas_gemv(32i64, address_of(A[0])): packed
}
)");
  ASSERT_TRUE(mod.ok()) << mod.status();
  ir::HostBuffer a = ir::HostBuffer::Zeros(ir::DataType::Float(32), {4});
  EXPECT_THAT(ir::Run((*mod)->Lookup("f"), {ir::Arg(a)}).message(),
              HasSubstr("packed function 'no_such_shim' is not registered with the interpreter"));
  EXPECT_THAT(ir::Run((*mod)->Lookup("g"), {ir::Arg(a)}).message(),
              HasSubstr("@tessel_blas_gemv failed: tessel_blas_gemv: takes 10 arguments, got 2"));
  EXPECT_THAT(
      ir::RegisteredPackedFunctions(),
      ::testing::IsSupersetOf({"tessel_blas_gemm", "tessel_blas_gemv", "tessel_onednn_matmul"}));
}

}  // namespace
}  // namespace tessel::dispatch
