// Device library functions of GPU programs (see cuda_libraries.h): cuBLAS, loaded
// at run time.
#include "codegen/runtime/cuda_libraries.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>

#include "codegen/runtime/gemm_operand.h"
#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {
namespace {

// cuBLAS's types, as its C API declares them (cublas_api.h).
using Handle = void*;
using Status = int;
constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t
constexpr int kR16F = 2;           // cudaDataType CUDA_R_16F
constexpr int kCompute32F = 68;    // cublasComputeType_t CUBLAS_COMPUTE_32F
constexpr int kGemmDefault = -1;   // cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT

struct Cublas {
  Status (*create)(Handle*) = nullptr;
  Status (*set_stream)(Handle, void*) = nullptr;
  Status (*sgemm_strided_batched)(Handle, int, int, int, int, int, const float*, const float*, int,
                                  long long, const float*, int, long long, const float*, float*,
                                  int, long long, int) = nullptr;
  Status (*gemm_strided_batched_ex)(Handle, int, int, int, int, int, const void*, const void*, int,
                                    int, long long, const void*, int, int, long long, const void*,
                                    void*, int, int, long long, int, int, int) = nullptr;
  const char* (*status_string)(Status) = nullptr;
  Handle handle = nullptr;
};

std::mutex cublas_mutex;
Cublas* cublas = nullptr;
std::string cublas_error;  // Why cuBLAS is not there, once tried.

int32_t Fail(const std::string& message) { return tessel_set_last_error(message.c_str()); }

// Loads cuBLAS and creates its handle the first time; the loaded library, or null
// with the reason in cublas_error.
Cublas* LoadCublas() {
  std::lock_guard<std::mutex> lock(cublas_mutex);
  if (cublas != nullptr || !cublas_error.empty()) return cublas;
  void* lib = nullptr;
  std::string tried;
  // $TESSEL_CUBLAS first: a cuBLAS outside the loader's path (a Python wheel's).
  const char* chosen = std::getenv("TESSEL_CUBLAS");
  for (const char* name : {chosen != nullptr && *chosen != '\0' ? chosen : "libcublas.so.13",
                           "libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  if (lib == nullptr) {
    cublas_error = "no cuBLAS: cannot load libcublas.so (" + tried + ")";
    return nullptr;
  }
  static Cublas c;
  c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
  c.set_stream = reinterpret_cast<decltype(c.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
  c.sgemm_strided_batched =
      reinterpret_cast<decltype(c.sgemm_strided_batched)>(dlsym(lib, "cublasSgemmStridedBatched"));
  c.gemm_strided_batched_ex = reinterpret_cast<decltype(c.gemm_strided_batched_ex)>(
      dlsym(lib, "cublasGemmStridedBatchedEx"));
  c.status_string =
      reinterpret_cast<decltype(c.status_string)>(dlsym(lib, "cublasGetStatusString"));
  if (c.create == nullptr || c.set_stream == nullptr || c.sgemm_strided_batched == nullptr ||
      c.gemm_strided_batched_ex == nullptr) {
    cublas_error =
        "no cuBLAS: libcublas lacks cublasCreate_v2, cublasSetStream_v2, "
        "cublasSgemmStridedBatched or cublasGemmStridedBatchedEx";
    return nullptr;
  }
  // The handle binds to the context current on this thread: the program's, which
  // CudaProgram made current before its first step.
  if (Status s = c.create(&c.handle); s != 0) {
    cublas_error = "cublasCreate_v2 failed: " +
                   std::string(c.status_string ? c.status_string(s) : std::to_string(s).c_str());
    return nullptr;
  }
  cublas = &c;
  return cublas;
}

int32_t Check(Status s, const char* call) {
  if (s == 0) return 0;
  const char* text = cublas->status_string ? cublas->status_string(s) : nullptr;
  return Fail(std::string(call) + ": " + (text ? text : "cuBLAS status " + std::to_string(s)));
}

// How a rows x cols row-major-indexed operand with strides (rs, cs) reaches cuBLAS,
// as the host's BLAS shim reads it (AsGemmOperand): row-major is op N of its
// column-major transpose, stored transposed op T; false when it is neither.
bool AsColumnMajor(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int* op, int64_t* ld) {
  const std::optional<GemmOperand> g = AsGemmOperand(rows, cols, rs, cs);
  if (!g) return false;
  *op = g->transposed ? kOpT : kOpN, *ld = g->ld;
  return true;
}

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

int32_t CublasGemm(const int64_t* a, int32_t n, void* stream) {
  if (n != 16) return Fail("tessel_cublas_gemm: expected 16 arguments, given " + std::to_string(n));
  const int64_t bits = a[0], batch = a[1], m = a[2], nn = a[3], k = a[4];
  if (bits != 32 && bits != 16) {
    return Fail("tessel_cublas_gemm: f32 or f16 (dtype bits 32 or 16), given " +
                std::to_string(bits));
  }
  if (batch < 1 || m < 1 || nn < 1 || k < 1 || !FitsInt(batch) || !FitsInt(m) || !FitsInt(nn) ||
      !FitsInt(k)) {
    return Fail("tessel_cublas_gemm: batch, M, N, K must be positive and fit in int");
  }
  int op_a = 0, op_b = 0;
  int64_t ld_a = 0, ld_b = 0;
  if (!AsColumnMajor(m, k, a[7], a[8], &op_a, &ld_a) || !FitsInt(ld_a)) {
    return Fail("tessel_cublas_gemm: A is neither row-major nor transposed");
  }
  if (!AsColumnMajor(k, nn, a[11], a[12], &op_b, &ld_b) || !FitsInt(ld_b)) {
    return Fail("tessel_cublas_gemm: B is neither row-major nor transposed");
  }
  if (a[15] < nn || !FitsInt(a[15])) return Fail("tessel_cublas_gemm: C's row stride < N");
  if (a[5] == 0 || a[9] == 0 || a[13] == 0) return Fail("tessel_cublas_gemm: a null buffer");
  if (LoadCublas() == nullptr) return Fail(cublas_error);
  if (int32_t rc = Check(cublas->set_stream(cublas->handle, stream), "cublasSetStream_v2")) {
    return rc;
  }
  const float one = 1.0f, zero = 0.0f;
  auto ptr = [](int64_t v) { return reinterpret_cast<float*>(static_cast<uintptr_t>(v)); };
  // Cᵀ (N x M, column-major, leading dimension C's row stride) = Bᵀ Aᵀ.
  if (bits == 16) {  // f16 operands and result, accumulated in f32 (tensor cores).
    return Check(
        cublas->gemm_strided_batched_ex(
            cublas->handle, op_b, op_a, static_cast<int>(nn), static_cast<int>(m),
            static_cast<int>(k), &one, ptr(a[9]), kR16F, static_cast<int>(ld_b), a[10], ptr(a[5]),
            kR16F, static_cast<int>(ld_a), a[6], &zero, ptr(a[13]), kR16F, static_cast<int>(a[15]),
            a[14], static_cast<int>(batch), kCompute32F, kGemmDefault),
        "cublasGemmStridedBatchedEx");
  }
  return Check(cublas->sgemm_strided_batched(
                   cublas->handle, op_b, op_a, static_cast<int>(nn), static_cast<int>(m),
                   static_cast<int>(k), &one, ptr(a[9]), static_cast<int>(ld_b), a[10], ptr(a[5]),
                   static_cast<int>(ld_a), a[6], &zero, ptr(a[13]), static_cast<int>(a[15]), a[14],
                   static_cast<int>(batch)),
               "cublasSgemmStridedBatched");
}

}  // namespace

CudaLibraryFunction FindCudaLibraryFunction(std::string_view name) {
  if (name == "tessel_cublas_gemm") return &CublasGemm;
  return nullptr;
}

}  // namespace tessel::runtime
