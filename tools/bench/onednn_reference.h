// oneDNN as the bench's reference: its sgemm and a direct 2-D convolution, on
// the caller's arrays, with the thread count of the row being measured.
//
//   SetOneDnnThreads(2);
//   OneDnnSgemm(false, true, m, n, k, A, B, C);          // C = A Bᵀ, row-major
//   auto conv = *OneDnnConv2dNchw({1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, x, w, y);
//   conv();                                              // the primitive alone, timed
//   auto dw = *OneDnnDepthwiseNhwc({1, 112, 112, 32}, 3, 1, 1, x, w, y);
//
// Debian's libdnnl runs on OpenMP: the thread count is OpenMP's.
#ifndef TESSEL_TOOLS_BENCH_ONEDNN_REFERENCE_H_
#define TESSEL_TOOLS_BENCH_ONEDNN_REFERENCE_H_

#include <array>
#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"

namespace tessel::bench {

void SetOneDnnThreads(int threads);

// Row-major C = op(A) op(B) with op the transpose where asked.
absl::Status OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                         const float* a, const float* b, float* c);

// A row-major f32 matmul C = A B as a oneDNN matmul primitive created once; the
// returned call executes it (what a library user calling oneDNN directly pays).
absl::StatusOr<std::function<void()>> OneDnnMatmul(int64_t m, int64_t n, int64_t k,
                                                   const float* a, const float* b, float* c);

// A forward convolution, NCHW data and OIHW weights in the caller's layout;
// oneDNN picks its own (blocked) layouts, and the returned call runs the
// convolution alone on arrays reordered once, then reorders the result back.
absl::StatusOr<std::function<void()>> OneDnnConv2dNchw(std::array<int64_t, 4> data,
                                                       std::array<int64_t, 4> weights,
                                                       int64_t stride, int64_t pad,
                                                       const float* x, const float* w, float* y);

// A depthwise convolution (groups = channels, one filter each), NHWC data
// [n, h, w, c] and HWIO weights [k, k, 1, c] as tessel's op library lays them out;
// the returned call runs it on the caller's data and result arrays (oneDNN's
// depthwise kernel takes NHWC as it is) and weights reordered once to its layout.
absl::StatusOr<std::function<void()>> OneDnnDepthwiseNhwc(std::array<int64_t, 4> data, int64_t k,
                                                          int64_t stride, int64_t pad,
                                                          const float* x, const float* w, float* y);

}  // namespace tessel::bench

#endif  // TESSEL_TOOLS_BENCH_ONEDNN_REFERENCE_H_
