// OpenBLAS behind the packed convention (dispatch_runtime.h): gemm (batched by a
// loop over cblas calls; a zero batch stride broadcasts) and gemv.
//
//   A with strides (row 64, column 1)  -> CblasNoTrans, lda 64
//   A with strides (row 1, column 64)  -> CblasTrans, lda 64 (A is stored transposed)
#include <atomic>
#include <string>

#include "cblas.h"
#include "codegen/runtime/gemm_operand.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/shim_args.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace tessel::dispatch::shim {
namespace {

struct Operand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

// How a rows x cols matrix with these strides is handed to BLAS (AsGemmOperand);
// false when it is neither row-major nor transposed with leading dimensions BLAS
// accepts.
bool AsBlas(int64_t rows, int64_t cols, int64_t rs, int64_t cs, Operand* out) {
  const std::optional<runtime::GemmOperand> g = runtime::AsGemmOperand(rows, cols, rs, cs);
  if (!g) return false;
  *out = {g->transposed ? CblasTrans : CblasNoTrans, g->ld};
  return true;
}

std::string Strides(const char* what, int64_t rs, int64_t cs) {
  return std::string(what) + " strides (" + std::to_string(rs) + ", " + std::to_string(cs) + ")";
}

// OpenBLAS keeps one process-wide count; set it only when the caller's changes.
void UseThreads() {
  static std::atomic<int> current{0};
  int want = tessel_get_num_threads();
  if (current.exchange(want) != want) openblas_set_num_threads(want);
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry points below.

extern "C" int32_t tessel_blas_gemm(const int64_t* a, int32_t n) {
  if (std::string p = CountProblem("tessel_blas_gemm", n, 16); !p.empty()) return Fail(p);
  const int64_t bits = a[0], batch = a[1], m = a[2], nn = a[3], k = a[4];
  if (bits != 32 && bits != 64) return Fail("tessel_blas_gemm: dtype bits must be 32 or 64");
  if (batch < 1 || m < 1 || nn < 1 || k < 1) {
    return Fail("tessel_blas_gemm: batch, M, N, K must be positive, got " + std::to_string(batch) +
                ", " + std::to_string(m) + ", " + std::to_string(nn) + ", " + std::to_string(k));
  }
  Operand oa, ob;
  if (!AsBlas(m, k, a[7], a[8], &oa)) return Fail("tessel_blas_gemm: " + Strides("A", a[7], a[8]));
  if (!AsBlas(k, nn, a[11], a[12], &ob))
    return Fail("tessel_blas_gemm: " + Strides("B", a[11], a[12]));
  if (a[15] < nn) return Fail("tessel_blas_gemm: C row stride " + std::to_string(a[15]) + " < N");
  if (a[5] == 0 || a[9] == 0 || a[13] == 0) return Fail("tessel_blas_gemm: a null buffer");
  UseThreads();
  const int64_t esize = bits / 8;
  for (int64_t b = 0; b < batch; ++b) {
    const char* pa = Ptr<const char>(a[5]) + b * a[6] * esize;
    const char* pb = Ptr<const char>(a[9]) + b * a[10] * esize;
    char* pc = Ptr<char>(a[13]) + b * a[14] * esize;
    if (bits == 32) {
      cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, m, nn, k, 1.0f,
                  reinterpret_cast<const float*>(pa), oa.ld, reinterpret_cast<const float*>(pb),
                  ob.ld, 0.0f, reinterpret_cast<float*>(pc), a[15]);
    } else {
      cblas_dgemm(CblasRowMajor, oa.trans, ob.trans, m, nn, k, 1.0,
                  reinterpret_cast<const double*>(pa), oa.ld, reinterpret_cast<const double*>(pb),
                  ob.ld, 0.0, reinterpret_cast<double*>(pc), a[15]);
    }
  }
  return 0;
}

extern "C" int32_t tessel_blas_gemv(const int64_t* a, int32_t n) {
  if (std::string p = CountProblem("tessel_blas_gemv", n, 10); !p.empty()) return Fail(p);
  const int64_t bits = a[0], m = a[1], k = a[2];
  if (bits != 32 && bits != 64) return Fail("tessel_blas_gemv: dtype bits must be 32 or 64");
  if (m < 1 || k < 1) return Fail("tessel_blas_gemv: M and K must be positive");
  Operand oa;
  if (!AsBlas(m, k, a[4], a[5], &oa)) return Fail("tessel_blas_gemv: " + Strides("A", a[4], a[5]));
  if (a[3] == 0 || a[6] == 0 || a[8] == 0) return Fail("tessel_blas_gemv: a null buffer");
  UseThreads();
  // Row-major gemv of the stored matrix: NoTrans stores m x k, Trans stores k x m.
  const int64_t rows = oa.trans == CblasNoTrans ? m : k, cols = oa.trans == CblasNoTrans ? k : m;
  if (bits == 32) {
    cblas_sgemv(CblasRowMajor, oa.trans, rows, cols, 1.0f, Ptr<const float>(a[3]), oa.ld,
                Ptr<const float>(a[6]), a[7], 0.0f, Ptr<float>(a[8]), a[9]);
  } else {
    cblas_dgemv(CblasRowMajor, oa.trans, rows, cols, 1.0, Ptr<const double>(a[3]), oa.ld,
                Ptr<const double>(a[6]), a[7], 0.0, Ptr<double>(a[8]), a[9]);
  }
  return 0;
}
