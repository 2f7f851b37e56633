// Library functions a GPU program runs on the device between its kernels: the steps
// a dispatch rule for a cuda target leaves (dispatch/rules/cublas.cc), which the
// launch manifest lists among the kernels and CudaProgram calls in order. Each
// takes the packed convention of dispatch/runtime -- one 64-bit slot per argument,
// integers as they are, device addresses as integers -- and the stream to run on.
//
//   tessel_cublas_gemm (16 slots, the layout of the host's tessel_blas_gemm):
//     bits (32 or 16), batch, M, N, K, A, A's batch/row/col strides, B, its three strides,
//     C, C's batch and row strides -- strides in elements, row-major C[M, N] = A B,
//     A and B each row-major or transposed
//   -> cublasSgemmStridedBatched (f32), or cublasGemmStridedBatchedEx with f16
//      operands and result and f32 accumulation (f16), on C's transpose (cuBLAS is
//      column-major): Cᵀ = Bᵀ Aᵀ, so B is cuBLAS's first operand and A its second.
//
// cuBLAS is loaded with dlopen ($TESSEL_CUBLAS if set, e.g. the libcublas.so.12 of a
// Python wheel; then libcublas.so.13, .12, libcublas.so) on first use, never linked; without it a
// step fails with one message ("no cuBLAS:
// ..."). The handle is created once, on the device tessel_cuda_init chose.
#ifndef TESSEL_CODEGEN_RUNTIME_CUDA_LIBRARIES_H_
#define TESSEL_CODEGEN_RUNTIME_CUDA_LIBRARIES_H_

#include <cstdint>
#include <string_view>

namespace tessel::runtime {

// 0, or non-zero with tessel_last_error set.
using CudaLibraryFunction = int32_t (*)(const int64_t* args, int32_t num_args, void* stream);

// The device library function called `name`, or null when the runtime has none.
CudaLibraryFunction FindCudaLibraryFunction(std::string_view name);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_CUDA_LIBRARIES_H_
