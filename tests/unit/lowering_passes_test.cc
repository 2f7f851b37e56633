// Units of the lowering passes for what lit cannot express: symbolic shapes
// against the interpreter, strided parameters, the lowered-form check on IR
// that is not lowered, errors that leave the module as it was, and the `lower`
// alias.
//
//   func @sym(A: f32[n, m], ...)  --flatten-buffer-->  decl_buffer A_1d: f32[m * n] = A
//   run with n = 3, m = 5 before and after: the same results
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "passes/lowering/lowered_form.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using ::testing::HasSubstr;
using testing::ParseOrDie;

ir::IRModule Lower(const std::string& pipeline, const ir::IRModule& mod) {
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline(pipeline, mod, ctx);
  if (!out.ok()) ADD_FAILURE() << out.status();
  return out.ok() ? *out : mod;
}

// Runs both functions on the same random inputs, with n and m given.
absl::Status SameResultsWith(const ir::PrimFunc& a, const ir::PrimFunc& b,
                             const std::vector<std::pair<std::string, int64_t>>& sym) {
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(a, 3, sym);
  if (!args.ok()) return args.status();
  std::vector<ir::Arg> other = ir::CloneArgs(*args);
  if (absl::Status s = ir::Run(a, *args); !s.ok()) return s;
  if (absl::Status s = ir::Run(b, other); !s.ok()) return s;
  return ir::CompareArgs(*args, other, a);
}

TEST(FlattenBuffer, SymbolicShapesFlattenToProducts) {
  ir::IRModule mod = ParseOrDie(R"(
func @sym[n, m](A: f32[n, m], B: f32[n, m]) {
  for i in range(0, n) {
    for j in range(0, m) {
      B[i, j] = A[i, j] + 1.0f32
    }
  }
})");
  ir::IRModule out = Lower("lower", mod);
  std::string text = ir::PrintModule(out);
  // In i64: n * m and i * m + j pass INT32_MAX for i32 n, m of 65536 x 32769.
  EXPECT_THAT(text, HasSubstr("decl_buffer A_1d: f32[i64(m) * i64(n)] = A"));
  EXPECT_THAT(text, HasSubstr("B_1d[i64(i) * i64(m) + i64(j)] = A_1d[i64(i) * i64(m) + i64(j)] + 1.0f32"));
  EXPECT_TRUE(lowering::CheckLoweredForm(out->functions[0].second, "sym").ok());
  for (auto [n, m] : {std::pair{3, 5}, std::pair{1, 7}, std::pair{4, 1}}) {
    absl::Status s = SameResultsWith(mod->functions[0].second, out->functions[0].second,
                                     {{"n", n}, {"m", m}});
    EXPECT_TRUE(s.ok()) << "n=" << n << " m=" << m << ": " << s;
  }
}

TEST(FlattenBuffer, StridedParametersUseTheirStrides) {
  ir::IRModule mod = ParseOrDie(R"(
func @strided(A: f32[3, 4] strides [8, 2], B: f32[3, 4]) {
  for i in range(0, 3) {
    for j in range(0, 4) {
      B[i, j] = A[i, j] * 2.0f32
    }
  }
})");
  ir::IRModule out = Lower("flatten-buffer", mod);
  std::string text = ir::PrintModule(out);
  // The last element sits at 2 * 8 + 3 * 2 = 22: the view holds 23.
  EXPECT_THAT(text, HasSubstr("decl_buffer A_1d: f32[23] = A"));
  EXPECT_THAT(text, HasSubstr("A_1d[i * 8 + j * 2]"));
}

TEST(FlattenBuffer, NonConstantStrideIsAClearErrorAndNothingChanges) {
  ir::IRModule mod = ParseOrDie(R"(
func @f(A: f32[3, 4] strides [s, 1], B: f32[3, 4], s: i32) {
  B[0, 0] = A[0, 0]
})");
  std::string before = ir::PrintModule(mod);
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline("flatten-buffer", mod, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("parameter 'A': buffer 'A' has a stride that is not a non-negative constant"));
  EXPECT_EQ(ir::PrintModule(mod), before);
}

TEST(FlattenBuffer, RampDownASymbolicShapeStridesByTheRowLength) {
  ir::IRModule mod = ParseOrDie(R"(
func @col[n, m](A: f32[n, m], B: f32[n, m]) {
  for j in range(0, m) {
    B[ramp(0, 1, 4), j] = A[ramp(0, 1, 4), j] * broadcast(2.0f32, 4)
  }
})");
  ir::IRModule out = Lower("lower", mod);
  std::string text = ir::PrintModule(out);
  // A symbolic row length multiplies: the flat index is i64 (no i32 wrap).
  EXPECT_THAT(text, HasSubstr("B_1d[ramp(i64(j), i64(m), 4)] = A_1d[ramp(i64(j), i64(m), 4)] * "
                              "broadcast(2.0f32, 4)"));
  EXPECT_TRUE(lowering::CheckLoweredForm(out->functions[0].second, "col").ok());
  for (auto [n, m] : {std::pair{4, 3}, std::pair{6, 1}, std::pair{5, 7}}) {
    absl::Status s = SameResultsWith(mod->functions[0].second, out->functions[0].second,
                                     {{"n", n}, {"m", m}});
    EXPECT_TRUE(s.ok()) << "n=" << n << " m=" << m << ": " << s;
  }
}

TEST(FlattenBuffer, GatherIndexIsAClearErrorAndNothingChanges) {
  // Ramps and broadcasts flatten (flatten-buffer.tsl); an index loaded per lane
  // has no flat ramp form.
  ir::IRModule mod = ParseOrDie(R"(
func @gather(A: f32[4, 8], I: i32[4], B: f32[4]) {
  B[ramp(0, 1, 4)] = A[1, I[ramp(0, 1, 4)]]
})");
  std::string before = ir::PrintModule(mod);
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline("lower", mod, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("pass 'flatten-buffer' failed: function 'gather': buffer 'A': index 1 "
                        "(I[ramp(0, 1, 4)]) is a vector that is neither a ramp nor a broadcast; a "
                        "gather has no flat ramp form"));
  EXPECT_EQ(ir::PrintModule(mod), before);
}

TEST(FlattenBuffer, BroadcastIndexLoadOnA1DBufferIsAScalarLoadBroadcast) {
  // A 1-D compact buffer keeps its indices, but a broadcast index is not a
  // ramp: the lowered form wants the scalar load under a Broadcast.
  ir::IRModule mod = ParseOrDie(R"(
func @oned(A: f32[16], B: f32[8]) {
  B[ramp(0, 1, 8)] = A[broadcast(3, 8)] + A[ramp(8, 1, 8)]
})");
  ir::IRModule out = Lower("lower", mod);
  std::string text = ir::PrintModule(out);
  EXPECT_THAT(text, HasSubstr("B[ramp(0, 1, 8)] = broadcast(A[3], 8) + A[ramp(8, 1, 8)]")) << text;
  absl::Status form = lowering::CheckLoweredForm(out->functions[0].second, "oned");
  EXPECT_TRUE(form.ok()) << form;
  absl::Status same = SameResultsWith(mod->functions[0].second, out->functions[0].second, {});
  EXPECT_TRUE(same.ok()) << same;
}

TEST(FlattenBuffer, StoreOfAllLanesToOneElementIsAClearErrorAndNothingChanges) {
  // N-D (the index flattens to a broadcast) and 1-D alike: a store's vector
  // index in lowered code is a ramp.
  for (const char* text : {R"(
func @bstore(A: f32[4, 8], B: f32[4, 8]) {
  for i in range(0, 4) {
    B[i, broadcast(3, 8)] = A[i, ramp(0, 1, 8)]
  }
})",
                           R"(
func @bstore(A: f32[16], B: f32[8]) {
  B[broadcast(3, 8)] = A[ramp(0, 1, 8)]
})"}) {
    ir::IRModule mod = ParseOrDie(text);
    std::string before = ir::PrintModule(mod);
    PassContext ctx;
    absl::StatusOr<ir::IRModule> out = RunPipeline("lower", mod, ctx);
    ASSERT_FALSE(out.ok()) << text;
    EXPECT_THAT(out.status().message(),
                HasSubstr("pass 'flatten-buffer' failed: function 'bstore': buffer 'B': a vector "
                          "store whose lanes all write one element (at ["));
    EXPECT_THAT(out.status().message(), HasSubstr("broadcast(3, 8)]) has no lowered form"));
    EXPECT_EQ(ir::PrintModule(mod), before);
  }
}

TEST(LoweredForm, NamesWhatIsNotLowered) {
  ir::IRModule blocks = ParseOrDie(R"(
func @f(A: f32[4]) {
  for i in range(0, 4) {
    block A(vi: spatial[0, 4] = i) {
      reads()
      writes(A[vi])
      A[vi] = 1.0f32
    }
  }
})");
  EXPECT_THAT(lowering::CheckLoweredForm(blocks->functions[0].second, "f").message(),
              HasSubstr("lowered form: function 'f': block 'A' is left (run remove-blocks)"));
  ir::IRModule nd = ParseOrDie("func @g(A: f32[2, 2]) { A[1, 1] = 1.0f32 }");
  EXPECT_THAT(lowering::CheckLoweredForm(nd->functions[0].second, "g").message(),
              HasSubstr("uses an N-D parameter directly"));
  ir::IRModule vec = ParseOrDie(R"(
func @h(A: f32[8]) {
  for i in vectorized(0, 8) {
    A[i] = sigmoid(A[i])
  }
})");
  EXPECT_THAT(lowering::CheckLoweredForm(vec->functions[0].second, "h").message(),
              HasSubstr("loop 'i' is still vectorized"));
  ir::IRModule lowered = Lower("lower", vec);
  EXPECT_TRUE(lowering::CheckLoweredForm(lowered->functions[0].second, "h").ok())
      << ir::PrintModule(lowered);
}

TEST(VectorizeLoop, BadOptionIsAClearError) {
  ir::IRModule mod = ParseOrDie("func @f(A: f32[8]) { for i in vectorized(0, 8) { A[i] = 1.0f32 } }");
  PassContext ctx;
  absl::StatusOr<ir::IRModule> out = RunPipeline("vectorize-loop{max-lanes=1}", mod, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("option 'max-lanes' must be at least 2, got 1"));
}

TEST(LowerAlias, IsRegisteredAndRunsThePassesInOrder) {
  const RegistryEntry* e = PassRegistry::Global().Lookup("lower");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, RegistryEntry::Kind::kAlias);
  ir::IRModule mod = ParseOrDie("func @f(A: f32[2, 8]) { for i in range(0, 2) { for j in vectorized(0, 8) { A[i, j] = 1.0f32 } } }");
  PassContext ctx;
  ASSERT_TRUE(RunPipeline("lower", mod, ctx).ok());
  std::vector<std::string> ran;
  for (const PassLogEntry& l : ctx.log().entries()) {
    if (l.kind == PassLogEntry::Kind::kRan) ran.push_back(l.pass);
  }
  EXPECT_THAT(ran, ::testing::ElementsAre("lower-init-block", "remove-blocks",
                                          "compact-buffer-allocation", "flatten-buffer",
                                          "vectorize-loop", "unroll-loop", "storage-rewrite",
                                          "lower-intrinsics", "remove-no-op"));
}

}  // namespace
}  // namespace tessel::passes
