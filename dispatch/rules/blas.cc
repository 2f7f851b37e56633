// blas: OpenBLAS sgemm/dgemm (batched by a loop of calls) and sgemv/dgemv, no
// epilogue (what follows the matmul stays tessel code over its output), through
// tessel_blas_gemm / tessel_blas_gemv (dispatch/runtime/blas_shims.cc).
//
//   for i, k: y[i] += A[i, k] * x[k]      ->  @tessel_blas_gemv(32, 4096, 4096,
//                                               address_of(A[0, 0]), 4096, 1,
//                                               address_of(x[0]), 1, address_of(y[0]), 1): packed
#include "absl/strings/str_cat.h"
#include "codegen/runtime/gemm_operand.h"
#include "dispatch/matmul_rewrite.h"

namespace tessel::dispatch {
namespace {

std::string Check(const Contraction& c) {
  if (c.dtype != ir::DataType::Float(32) && c.dtype != ir::DataType::Float(64)) {
    return absl::StrCat("dtype ", c.dtype.ToString(), " (BLAS takes f32 and f64)");
  }
  return "";
}

// Row-major or transposed with a leading dimension BLAS accepts: what the shim
// takes (runtime::AsGemmOperand).
bool BlasLayout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  return runtime::AsGemmOperand(rows, cols, rs, cs).has_value();
}

std::variant<ir::Stmt, std::string> Gemv(const MatmulSite& s, bool matrix_is_a) {
  const Contraction& c = s.c;
  const int64_t bits = c.dtype.bits();
  // y = M x with M rows x K: A itself, or B^T when the vector is A (a 1 x K row).
  const MatrixView& mat = matrix_is_a ? c.a : c.b;
  const MatrixView& vec = matrix_is_a ? c.b : c.a;
  const int64_t rows = matrix_is_a ? c.m : c.n;
  const int64_t rs = matrix_is_a ? mat.row_stride : mat.col_stride;
  const int64_t cs = matrix_is_a ? mat.col_stride : mat.row_stride;
  const int64_t vs = matrix_is_a ? vec.row_stride : vec.col_stride;
  const int64_t ys = matrix_is_a ? s.out.row_stride : s.out.col_stride;
  if (!BlasLayout(rows, c.k, rs, cs))
    return std::string("the matrix is neither row-major nor transposed");
  return PackedCallStmt("tessel_blas_gemv",
                        {I64(bits), I64(rows), I64(c.k), ir::AddressOf(mat.buffer), I64(rs),
                         I64(cs), ir::AddressOf(vec.buffer), I64(vs == 0 ? 1 : vs),
                         ir::AddressOf(s.out.buffer), I64(ys == 0 ? 1 : ys)});
}

std::variant<ir::Stmt, std::string> Build(const MatmulSite& s) {
  const Contraction& c = s.c;
  if (c.batch == 1 && c.n == 1) return Gemv(s, true);
  if (c.batch == 1 && c.m == 1) return Gemv(s, false);
  if (s.out.col_stride != 1 || s.out.row_stride < c.n) {
    return std::string("C is not row-major with N last (BLAS writes row-major C)");
  }
  if (!BlasLayout(c.m, c.k, c.a.row_stride, c.a.col_stride)) {
    return std::string("A is neither row-major nor transposed");
  }
  if (!BlasLayout(c.k, c.n, c.b.row_stride, c.b.col_stride)) {
    return std::string("B is neither row-major nor transposed");
  }
  return PackedCallStmt("tessel_blas_gemm", GemmCallArgs(s));
}

absl::StatusOr<DispatchResult> Match(const ir::PrimFunc& func, const std::string&) {
  return RewriteMatmuls(func,
                        {.library = "blas", .max_epilogue = 0, .check = Check, .build = Build});
}

const DispatchRuleRegistrar kBlas(DispatchRule("blas", {"llvm"}, 10, Match));

}  // namespace
}  // namespace tessel::dispatch
