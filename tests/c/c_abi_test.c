/* A plain C program against an exported tessel library (kernels.tsl compiled by
 * tessel, see CMakeLists.txt): it includes only
 * tessel_runtime.h and the generated kernels.h, links only libtessel_runtime, builds
 * its own DLTensors, checks the kernels' results, and checks that bad arguments are
 * refused with a message (and leave the output untouched) instead of crashing.
 *
 *   c_abi_test path/to/kernels.so
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"
#include "kernels.h"
#include "tessel_runtime.h"

static DLTensor Tensor(void* data, DLDataType dtype, int32_t ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = 0;
  return t;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s kernels.so\n", argv[0]);
    return 2;
  }
  TesselModule* missing = tessel_module_load("/nonexistent/kernels.so");
  CHECK(missing == NULL);
  ExpectError(missing == NULL ? -1 : 0, "cannot load", "load a missing file");

  TesselModule* m = tessel_module_load(argv[1]);
  if (m == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], tessel_last_error());
    return 1;
  }
  CHECK(tessel_module_num_functions(m) == 4);
  CHECK(strcmp(tessel_module_function_name(m, 0), "vector_add") == 0);
  CHECK(strcmp(tessel_module_function_name(m, 1), "axpy") == 0);
  CHECK(strcmp(tessel_module_function_name(m, 2), "matmul_onednn") == 0);
  CHECK(strcmp(tessel_module_function_name(m, 3), "dense_rows") == 0);
  CHECK(tessel_module_function_name(m, 4) == NULL);

  enum { N = 1000 };
  DLDataType f32 = {kDLFloat, 32, 1};
  DLDataType i32 = {kDLInt, 32, 1};
  float* a = AllocFloats(N);
  float* b = AllocFloats(N);
  float* c = AllocFloats(N);
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
    c[i] = -1.0f;
  }
  int64_t shape[1] = {N};
  int32_t n = N;
  DLTensor ta = Tensor(a, f32, 1, shape), tb = Tensor(b, f32, 1, shape),
           tc = Tensor(c, f32, 1, shape);
  DLTensor tn = Tensor(&n, i32, 0, NULL);

  /* Correct calls, on 1 and on 3 threads. */
  for (int threads = 1; threads <= 3; threads += 2) {
    tessel_set_num_threads(threads);
    CHECK(tessel_get_num_threads() == threads);
    for (int i = 0; i < N; ++i) c[i] = -1.0f;
    int32_t rc = kernels_vector_add(m, &ta, &tb, &tc, &tn);
    if (rc != 0) fprintf(stderr, "vector_add: %s\n", tessel_last_error());
    CHECK(rc == 0);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += c[i] != 1.5f * (float)i;
    CHECK(wrong == 0);
  }

  float* x = AllocFloats(1000);
  float* y = AllocFloats(1000);
  for (int i = 0; i < 1000; ++i) {
    x[i] = (float)(i % 7);
    y[i] = 1.0f;
  }
  int64_t shape2[2] = {4, 250};
  float alpha = 2.0f;
  DLTensor tx = Tensor(x, f32, 2, shape2), ty = Tensor(y, f32, 2, shape2);
  DLTensor talpha = Tensor(&alpha, f32, 0, NULL);
  CHECK(kernels_axpy(m, &tx, &ty, &talpha) == 0);
  int wrong = 0;
  for (int i = 0; i < 1000; ++i) wrong += y[i] != 2.0f * (float)(i % 7) + 1.0f;
  CHECK(wrong == 0);

  /* A matmul dispatched to oneDNN, checked against a plain loop. */
  float* ma = AllocFloats(128);
  float* mb = AllocFloats(64);
  float* mc = AllocFloats(32);
  for (int i = 0; i < 128; ++i) ma[i] = (float)(i % 5) - 2.0f;
  for (int i = 0; i < 64; ++i) mb[i] = (float)(i % 3) * 0.5f;
  int64_t sa[2] = {8, 16}, sb[2] = {16, 4}, sc[2] = {8, 4};
  DLTensor tma = Tensor(ma, f32, 2, sa), tmb = Tensor(mb, f32, 2, sb), tmc = Tensor(mc, f32, 2, sc);
  int32_t mrc = kernels_matmul_onednn(m, &tma, &tmb, &tmc);
  if (mrc != 0) fprintf(stderr, "matmul_onednn: %s\n", tessel_last_error());
  CHECK(mrc == 0);
  wrong = 0;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) {
      float want = 0.0f;
      for (int k = 0; k < 16; ++k) want += ma[i * 16 + k] * mb[k * 4 + j];
      wrong += fabsf(mc[i * 4 + j] - want) > 1e-4f;
    }
  }
  CHECK(wrong == 0);

  /* dense_rows[m]: the same library call over a number of rows the kernel reads from
   * X's shape (no scalar parameter passes m). */
  for (int64_t rows = 1; rows <= 8; rows += 7) {
    int64_t sx[2] = {rows, 16}, sy[2] = {rows, 4};
    DLTensor tdx = Tensor(ma, f32, 2, sx), tdy = Tensor(mc, f32, 2, sy);
    for (int i = 0; i < 32; ++i) mc[i] = -7.0f;
    int32_t drc = kernels_dense_rows(m, &tdx, &tmb, &tdy);
    if (drc != 0) fprintf(stderr, "dense_rows: %s\n", tessel_last_error());
    CHECK(drc == 0);
    wrong = 0;
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 4; ++j) {
        float want = 0.0f;
        for (int k = 0; k < 16; ++k) want += ma[i * 16 + k] * mb[k * 4 + j];
        /* Rows past `rows` are not written. */
        wrong += i < rows ? fabsf(mc[i * 4 + j] - want) > 1e-4f : mc[i * 4 + j] != -7.0f;
      }
    }
    CHECK(wrong == 0);
  }

  /* Bad arguments: each refused with a message; C keeps its marker values. */
  for (int i = 0; i < N; ++i) c[i] = -1.0f;
  DLTensor bad = tb;
  bad.dtype = i32;
  ExpectError(kernels_vector_add(m, &ta, &bad, &tc, &tn),
              "argument 1 (B): expected dtype f32, given i32", "wrong dtype");
  int64_t short_shape[1] = {N - 1};
  bad = tb;
  bad.shape = short_shape;
  ExpectError(kernels_vector_add(m, &ta, &bad, &tc, &tn), "argument 1 (B): dimension 0 is n = 999",
              "wrong shape");
  int32_t other_n = 999;
  DLTensor bad_n = Tensor(&other_n, i32, 0, NULL);
  ExpectError(kernels_vector_add(m, &ta, &tb, &tc, &bad_n),
              "argument 0 (A): dimension 0 is n = 1000", "extent against scalar");
  bad = tc;
  bad.byte_offset = 4;
  ExpectError(kernels_vector_add(m, &ta, &tb, &bad, &tn), "aligned to 64 bytes", "misaligned");
  int64_t strides[1] = {2};
  bad = tb;
  bad.strides = strides;
  ExpectError(kernels_vector_add(m, &ta, &bad, &tc, &tn), "compact row-major strides [1]",
              "strided");
  bad = tb;
  bad.device.device_type = kDLCUDA;
  ExpectError(kernels_vector_add(m, &ta, &bad, &tc, &tn), "given one on cuda:0", "on a GPU");
  ExpectError(kernels_vector_add(m, &ta, NULL, &tc, &tn),
              "argument 1 (B): the DLTensor pointer is NULL", "NULL tensor");
  bad = tb;
  bad.ndim = 2;
  ExpectError(kernels_vector_add(m, &ta, &bad, &tc, &tn), "expected 1 dimension", "wrong rank");
  DLTensor* three[3] = {&ta, &tb, &tc};
  ExpectError(tessel_module_call(m, "vector_add", three, 3), "expected 4 arguments, given 3",
              "wrong argument count");
  ExpectError(tessel_module_call(m, "vector_sub", three, 3), "no function 'vector_sub'",
              "unknown function");
  ExpectError(kernels_axpy(m, &tx, &ty, &tx), "a scalar parameter takes a 0-d tensor",
              "tensor for scalar");
  int untouched = 0;
  for (int i = 0; i < N; ++i) untouched += c[i] == -1.0f;
  CHECK(untouched == N);

  tessel_module_free(m);
  free(a);
  free(b);
  free(c);
  free(x);
  free(y);
  free(ma);
  free(mb);
  free(mc);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_abi_test: all checks passed\n");
  return 0;
}
