// Tensorized code end to end: a te matmul whose tile is tensorized to a built-in
// CPU intrinsic (ir/schedule/intrin/cpu_fma.h) lowers -- flatten-buffer turns
// the intrinsic's ramp indices on the N-D buffers into contiguous ramps on the
// 1-D views --, compiles through codegen::Build, and computes what the
// interpreter computes on the unscheduled function, on random inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codegen/build.h"
#include "codegen/runtime/ndarray.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/status_macros.h"
#include "ir/te/ops/matmul.h"
#include "passes/lowering/lowered_form.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "tests/unit/codegen_test_util.h"

namespace tessel::codegen::testing {
namespace {

namespace sch = ir::schedule;
using ::testing::HasSubstr;

// C = A @ B (m x k times k x n), block "C", function "mm".
ir::IRModule Matmul(int64_t m, int64_t n, int64_t k) {
  ir::DataType f32 = ir::DataType::Float(32);
  ir::te::Tensor a = *ir::te::Placeholder({m, k}, f32, "A");
  ir::te::Tensor b = *ir::te::Placeholder({k, n}, f32, "B");
  ir::te::Tensor c = *ir::te::ops::Matmul(a, b, {.name = "C"});
  return *ir::te::CreateModule({a, b, c}, "mm");
}

// i_0, j_0, k, i_1 [rows], j_1 [16], the tile tensorized at i_1.
absl::StatusOr<ir::IRModule> TensorizeTile(const ir::IRModule& mod, int64_t rows,
                                           const std::string& intrin) {
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock("C"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(c));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> i, s.Split(l[0], {std::nullopt, rows}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> j, s.Split(l[1], {std::nullopt, 16}));
  TESSEL_RETURN_IF_ERROR(s.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  TESSEL_RETURN_IF_ERROR(s.Tensorize(i[1], intrin));
  return s.mod();
}

// A register-tiled kernel around the intrinsic (the bench's schedule, small):
// a packed B panel per parallel column of tiles, a local 8 x 32 accumulator
// tile zeroed before the k loop and written back after it, and the tile's k
// step as 2 x 2 tensorized 4 x 16 kernels. The local tile and the panel are
// allocations that compact-buffer-allocation shrinks, shifting ramp indices.
absl::StatusOr<ir::IRModule> RegisterTiled(const ir::IRModule& mod) {
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock("C"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(c));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> i, s.Split(l[0], {std::nullopt, 2, 4}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> j, s.Split(l[1], {std::nullopt, 2, 16}));
  TESSEL_RETURN_IF_ERROR(s.Reorder({j[0], i[0], l[2], i[1], j[1], i[2], j[2]}));
  TESSEL_RETURN_IF_ERROR(s.Parallel(j[0]));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV pack, s.CacheRead(c, 1, "global"));
  TESSEL_RETURN_IF_ERROR(s.ComputeAt(pack, j[0]));
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV out, s.CacheWrite(c, 0, "local"));
  TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(out, i[0]));
  TESSEL_RETURN_IF_ERROR(s.DecomposeReduction(c, l[2]).status());
  TESSEL_RETURN_IF_ERROR(s.Tensorize(i[2], "f32_fma_4x16"));
  TESSEL_RETURN_IF_ERROR(s.Unroll(i[1]));
  TESSEL_RETURN_IF_ERROR(s.Unroll(j[1]));
  return s.mod();
}

// Builds `scheduled` (lower + JIT) and compares it with the interpreter running
// `original` on the same random inputs.
void ExpectCompiledMatchesInterpreter(const ir::IRModule& original, const ir::IRModule& scheduled) {
  absl::StatusOr<runtime::Module> m = Build(scheduled, Target::Host());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const auto& [name, func] = original->functions[0];
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(func, 5);
  ASSERT_TRUE(args.ok()) << args.status().message();
  std::vector<ir::Arg> expected = ir::CloneArgs(*args);
  ASSERT_OK(ir::Run(func, expected, {}, name));
  std::vector<runtime::NDArray> arrays;
  for (const ir::Arg& a : *args) {
    absl::StatusOr<runtime::NDArray> nd = runtime::NDArray::FromHostBuffer(std::get<ir::HostBuffer>(a));
    ASSERT_TRUE(nd.ok()) << nd.status().message();
    arrays.push_back(*nd);
  }
  ASSERT_OK(m->Call(name, arrays));
  std::vector<ir::Arg> got;
  for (const runtime::NDArray& nd : arrays) {
    absl::StatusOr<ir::HostBuffer> h = nd.ToHostBuffer();
    ASSERT_TRUE(h.ok()) << h.status().message();
    got.push_back(*h);
  }
  // fma rounds once where the interpreter's multiply-add of the original rounds twice.
  EXPECT_OK(ir::CompareArgs(expected, got, func, {.rtol = 1e-4, .atol = 1e-5}));
}

std::string Lowered(const ir::IRModule& mod) {
  passes::PassContext ctx;
  absl::StatusOr<ir::IRModule> out = passes::RunPipeline("lower", mod, ctx);
  if (!out.ok()) return std::string(out.status().message());
  absl::Status form = passes::lowering::CheckLoweredForm((*out)->functions[0].second, "mm");
  if (!form.ok()) return std::string(form.message());
  return ir::PrintModule(*out);
}

TEST(CodegenTensorize, VectorIndicesOnNdBuffersCompile) {
  // flatten-buffer's vector-index rule (flatten-buffer.tsl, which also covers
  // strided parameters; calls take compact arrays only): contiguous ramps, ramps
  // down a column and every other element (strided: gathers and scatters in
  // codegen), a broadcast load.
  ir::IRModule mod = *Parse(R"(
func @vec(A: f32[4, 32], B: f32[32, 4], C: f32[4, 32], T: f32[3, 2]) {
  for i in range(0, 4) {
    for j in range(0, 2) {
      C[i, ramp(j * 16, 1, 16)] = A[i, ramp(j * 16, 1, 16)] + broadcast(A[i, 0], 16)
    }
    B[ramp(i * 8, 1, 8), 3] = C[i, ramp(0, 2, 8)] + A[i, broadcast(5, 8)]
  }
  for a in range(0, 2) {
    T[ramp(0, 1, 3), a] = C[ramp(0, 1, 3), a]
  }
})");
  ExpectCompiledMatchesInterpreter(mod, mod);
}

TEST(CodegenTensorize, FmaTileLowersToContiguousVectorAccessesAndRuns) {
  ir::IRModule mod = Matmul(8, 32, 5);
  absl::StatusOr<ir::IRModule> t = TensorizeTile(mod, 4, "f32_fma_4x16");
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string text = Lowered(*t);
  // One row of the 4 x 16 tile per statement: a contiguous ramp into C's and
  // B's 1-D views (row stride 32), A's element broadcast.
  EXPECT_THAT(text, HasSubstr("C_1d[ramp(i_0 * 128 + j_0 * 16, 1, 16)] = fma(broadcast(A_1d[i_0 * 20 + k], 16), "
                              "B_1d[ramp(k * 32 + j_0 * 16, 1, 16)], C_1d[ramp(i_0 * 128 + j_0 * 16, 1, 16)])"))
      << text;
  ExpectCompiledMatchesInterpreter(mod, *t);
}

TEST(CodegenTensorize, OneRowKernelRuns) {
  ir::IRModule mod = Matmul(3, 48, 7);
  absl::StatusOr<ir::IRModule> t = TensorizeTile(mod, 1, "f32_fma_1x16");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ExpectCompiledMatchesInterpreter(mod, *t);
}

TEST(CodegenTensorize, RegisterTiledKernelWithLocalTileAndPackedPanelRuns) {
  ir::IRModule mod = Matmul(24, 64, 13);
  absl::StatusOr<ir::IRModule> t = RegisterTiled(mod);
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string text = Lowered(*t);
  // The accumulator tile shrank to 8 x 32 and its rows are ramps at constant
  // offsets (what LLVM keeps in vector registers across the k loop).
  EXPECT_THAT(text, HasSubstr("allocate C_local: f32[256]")) << text;
  EXPECT_THAT(text, HasSubstr("C_local[ramp(48, 1, 16)] = fma(")) << text;
  ExpectCompiledMatchesInterpreter(mod, *t);
}

}  // namespace
}  // namespace tessel::codegen::testing
