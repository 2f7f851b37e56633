// The table of every shim (dispatch_runtime.h), read by the JIT's symbol list
// (codegen/build.cc) and the interpreter's registry (dispatch/shim_registration.cc).
#include "dispatch/runtime/dispatch_runtime.h"

extern "C" const TesselShim* tessel_dispatch_shims(void) {
  static const TesselShim kShims[] = {{"tessel_blas_gemm", tessel_blas_gemm, 13},
                                      {"tessel_blas_gemv", tessel_blas_gemv, 8},
                                      {"tessel_onednn_matmul", tessel_onednn_matmul, 12},
                                      {"tessel_onednn_conv2d", tessel_onednn_conv2d, 28},
                                      {"tessel_onednn_softmax", tessel_onednn_softmax, 16},
                                      {"tessel_onednn_layer_norm", tessel_onednn_layer_norm, 16},
                                      {"tessel_onednn_pool2d", tessel_onednn_pool2d, 22},
                                      {nullptr, nullptr, -1}};
  return kShims;
}
