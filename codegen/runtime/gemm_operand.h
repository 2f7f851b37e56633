// How one operand of a gemm reaches a BLAS-style library: the one rule the host BLAS
// shim, the cuBLAS step, and the dispatch rules that emit their calls all apply.
// Plain C++, header only (no Abseil).
//
//   A[m, k] with element strides (row 64, column 1)  -> {transposed false, ld 64}
//   A[m, k] with strides (row 1, column 64)           -> {transposed true, ld 64}
//   a single row A[1, k] with strides (any, 1)        -> {transposed false, ld max(1, k)}
#ifndef TESSEL_CODEGEN_RUNTIME_GEMM_OPERAND_H_
#define TESSEL_CODEGEN_RUNTIME_GEMM_OPERAND_H_

#include <algorithm>
#include <cstdint>
#include <optional>

namespace tessel::runtime {

struct GemmOperand {
  bool transposed = false;  // Stored column-major (the library's "T" of row-major storage).
  int64_t ld = 0;           // The leading dimension, in elements.
};

// A rows x cols matrix indexed row-major with element strides (rs, cs) as a library
// takes it: row-major, stored transposed, or a single row with any row stride;
// nullopt when it is none of these with a leading dimension a BLAS accepts.
inline std::optional<GemmOperand> AsGemmOperand(int64_t rows, int64_t cols, int64_t rs,
                                                int64_t cs) {
  if (cs == 1 && rs >= std::max<int64_t>(1, cols)) return GemmOperand{false, rs};
  if (rs == 1 && cs >= std::max<int64_t>(1, rows)) return GemmOperand{true, cs};
  if (rows == 1 && cs == 1) return GemmOperand{false, std::max<int64_t>(1, cols)};
  return std::nullopt;
}

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_GEMM_OPERAND_H_
