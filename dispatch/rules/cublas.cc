// cublas: f32 and f16 matmul, batch matmul and dense on a cuda target through
// cuBLAS's strided-batched gemms (sgemm; f16 with f32 accumulation), no epilogue (what follows the
// matmul stays tessel code, which default-schedule then schedules for the GPU). The call keeps the
// host BLAS shim's argument layout, so the reference interpreter runs it on the host
// (shim_registration.cc: the BLAS shim for f32, a reference loop for f16) and `check-semantics`
// compares it with the matmul it replaced; on the device the runtime calls cuBLAS between the
// function's kernels (codegen/runtime/cuda_libraries.h).
//
//   for i, j, k: C[i, j] += A[i, k] * W[j, k]   (target "cuda -arch=sm_90")  ->
//     @tessel_cublas_gemm(32, 1, M, N, K, address_of(A[0, 0]), 0, K, 1,
//                         address_of(W[0, 0]), 0, 1, K, address_of(C[0, 0]), 0, N): packed
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "codegen/runtime/gemm_operand.h"
#include "dispatch/matmul_rewrite.h"

namespace tessel::dispatch {
namespace {

std::string Check(const Contraction& c) {
  if (c.dtype != ir::DataType::Float(32) && c.dtype != ir::DataType::Float(16)) {
    return absl::StrCat("dtype ", c.dtype.ToString(), " (the cublas rule takes f32 and f16)");
  }
  return "";
}

// Row-major or transposed with a leading dimension cuBLAS accepts (what the
// runtime's step takes: runtime::AsGemmOperand), within cuBLAS's int arguments.
bool CublasLayout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return rs <= INT32_MAX && cs <= INT32_MAX && runtime::AsGemmOperand(rows, cols, rs, cs);
}

std::variant<ir::Stmt, std::string> Build(const MatmulSite& s) {
  const Contraction& c = s.c;
  if (c.m > INT32_MAX || c.n > INT32_MAX || c.k > INT32_MAX || c.batch > INT32_MAX) {
    return std::string("an extent over cuBLAS's int range");
  }
  if (s.out.col_stride != 1 || s.out.row_stride < c.n || s.out.row_stride > INT32_MAX) {
    return std::string("C is not row-major with N last");
  }
  if (!CublasLayout(c.m, c.k, c.a.row_stride, c.a.col_stride)) {
    return std::string("A is neither row-major nor transposed");
  }
  if (!CublasLayout(c.k, c.n, c.b.row_stride, c.b.col_stride)) {
    return std::string("B is neither row-major nor transposed");
  }
  return PackedCallStmt("tessel_cublas_gemm", GemmCallArgs(s));
}

absl::StatusOr<DispatchResult> Match(const ir::PrimFunc& func, const std::string&) {
  return RewriteMatmuls(func,
                        {.library = "cublas", .max_epilogue = 0, .check = Check, .build = Build});
}

const DispatchRuleRegistrar kCublas(DispatchRule("cublas", {"cuda"}, 20, Match));

}  // namespace
}  // namespace tessel::dispatch
