/* The runtime shims library dispatch calls: oneDNN and OpenBLAS behind tessel's
 * packed convention (ir/expr.h), so codegen calls every one of them the same way:
 *
 *   int32_t shim(const int64_t* args, int32_t num_args);   0, or -1 and
 *                                                           tessel_last_error()
 *
 * Each argument is one int64 slot: integers as they are, pointers as addresses,
 * f32 values by their bits in the low 32. The layouts below are what the dispatch
 * rules (dispatch/rules/) emit; the shims check counts and extents and name the
 * problem instead of crashing. libtessel_dispatch_runtime needs libtessel_runtime
 * (errors, thread count), libdnnl and libopenblas; no MLIR, no Abseil, so exported
 * libraries link it as they link libtessel_runtime.
 */
#ifndef TESSEL_DISPATCH_RUNTIME_DISPATCH_RUNTIME_H_
#define TESSEL_DISPATCH_RUNTIME_DISPATCH_RUNTIME_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C[b] = op(A[b]) @ op(B[b]) through cblas_sgemm / cblas_dgemm, b < batch:
 *   0 dtype bits (32 | 64)  1 batch  2 M  3 N  4 K
 *   5 A  6 A batch stride  7 A row stride (M)  8 A column stride (K)
 *   9 B 10 B batch stride 11 B row stride (K) 12 B column stride (N)
 *  13 C 14 C batch stride 15 C row stride (M), its column stride is 1
 * Strides in elements; a matrix is either row-major (column stride 1) or its
 * transpose (row stride 1); a batch stride of 0 broadcasts. */
int32_t tessel_blas_gemm(const int64_t* args, int32_t num_args);

/* y = A @ x (or A^T @ x) through cblas_sgemv / cblas_dgemv:
 *   0 dtype bits  1 M (rows of y)  2 K
 *   3 A  4 A row stride (M)  5 A column stride (K)  6 x  7 x stride  8 y  9 y stride */
int32_t tessel_blas_gemv(const int64_t* args, int32_t num_args);

/* oneDNN matmul with post-ops, f32:
 *   0 batch  1 M  2 N  3 K
 *   4 A  5..7 A strides (batch, M, K)
 *   8 B  9..11 B strides (batch, K, N)
 *  12 C 13..15 C strides (batch, M, N)
 *  16 number of post-ops P (at most 8), then 7 slots per post-op:
 *     kind, alpha (f32 bits), beta (f32 bits), operand, operand strides (batch, M, N)
 * A stride of 0 broadcasts that dimension (batch broadcast, a bias over N, ...).
 * Post-op kinds (TesselPostOpKind) apply in order to the accumulator. */
int32_t tessel_onednn_matmul(const int64_t* args, int32_t num_args);

/* oneDNN 2-D convolution with post-ops, f32, any layouts by strides:
 *   0 N  1 C  2 H  3 W (the input, unpadded)  4 OC  5 KH  6 KW  7 OH  8 OW  9 groups
 *  10, 11 strides (H, W)  12, 13 dilations (H, W; 1 = dense)
 *  14, 15 padding before (H, W)  16, 17 padding after (H, W)
 *  18 src 19..22 src strides (n, c, h, w)
 *  23 weights 24..27 weight strides (o, i, kh, kw); i counts the channels of a group
 *  28 dst 29..32 dst strides (n, c, h, w)
 *  33 number of post-ops P (at most 8), then 8 slots per post-op:
 *     kind, alpha, beta, operand, operand strides (n, c, h, w) */
int32_t tessel_onednn_conv2d(const int64_t* args, int32_t num_args);

/* oneDNN softmax (softmax_accurate) or log-softmax (softmax_log) along one axis, f32:
 *   0 ndim (1..6)  1 axis  2 algorithm (0 softmax, 1 log-softmax)  3..8 extents (unused: 1)
 *   9 src  10..15 src strides  16 dst  17..22 dst strides (unused: 0) */
int32_t tessel_onednn_softmax(const int64_t* args, int32_t num_args);

/* oneDNN layer normalisation over the last axis, f32, source and destination in one
 * layout (forward inference):
 *   0 ndim (2..6)  1 flags (1 gamma, 2 beta)  2 eps (f32 bits)  3..8 extents (unused: 1)
 *   9 src  10..15 strides (unused: 0)  16 dst  17 gamma (or 0)  18 beta (or 0) */
int32_t tessel_onednn_layer_norm(const int64_t* args, int32_t num_args);

/* oneDNN 2-D pooling, f32, any plain layouts by strides:
 *   0 algorithm (0 max, 1 average with padding included, 2 average with padding excluded)
 *   1 N  2 C  3 H  4 W (the input)  5 OH  6 OW  7, 8 kernel (H, W)  9, 10 strides
 *  11, 12 dilations (1 = dense)  13, 14 padding before  15, 16 padding after
 *  17 src 18..21 src strides (n, c, h, w)  22 dst 23..26 dst strides */
int32_t tessel_onednn_pool2d(const int64_t* args, int32_t num_args);

enum TesselPostOpKind {
  kTesselPostRelu = 0,     /* max(x, 0) */
  kTesselPostGeluErf = 1,  /* 0.5 x (1 + erf(x / sqrt 2)) */
  kTesselPostGeluTanh = 2, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  kTesselPostSigmoid = 3,  /* 1 / (1 + exp(-x)) */
  kTesselPostSilu = 4,     /* x sigmoid(x) */
  kTesselPostLinear = 5,   /* alpha x + beta */
  kTesselPostTanh = 6,     /* tanh(x) */
  kTesselPostAdd = 10,     /* x + operand (bias, residual; broadcast by zero strides) */
  kTesselPostMul = 11      /* x * operand */
};

/* Every shim above by name, ending with {NULL, NULL, -1}: what the JIT resolves and
 * the interpreter registers, so a new shim is listed once, here. `output_slot` is the
 * argument slot of the one buffer a shim writes (C, y, dst): a function's signature
 * marks that buffer written and its other buffers read-only. */
typedef int32_t (*TesselShimFunc)(const int64_t* args, int32_t num_args);
typedef struct {
  const char* name;
  TesselShimFunc fn;
  int32_t output_slot;
} TesselShim;
const TesselShim* tessel_dispatch_shims(void);

/* Primitives created so far and calls served from the cache (for tests and benches). */
int64_t tessel_onednn_primitives_created(void);
int64_t tessel_onednn_cache_hits(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_DISPATCH_RUNTIME_DISPATCH_RUNTIME_H_ */
