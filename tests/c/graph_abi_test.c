/* A whole model from plain C: model.tsl (a graph function with a symbolic batch)
 * fused, scheduled, planned, lowered and exported by tessel (see CMakeLists.txt),
 * run through the generated model.h / tessel_graph_run at three batch sizes (its
 * bias a constant the library carries) and
 * checked against the same model computed here; bad inputs and outputs are refused
 * with a message naming them, before anything runs.
 *
 *   c_graph_test path/to/model.so
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"
#include "model.h"
#include "tessel_runtime.h"

static DLTensor Tensor(float* data, int32_t ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static float Uniform(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* y = sigmoid(exp(relu(x w + b))) w2 and h = x w, as model.tsl says. */
static void Reference(int n, const float* x, const float* w, const float* b, const float* w2,
                      float* y, float* h) {
  for (int i = 0; i < n; ++i) {
    float s[16];
    for (int j = 0; j < 16; ++j) {
      float acc = 0;
      for (int k = 0; k < 8; ++k) acc += x[i * 8 + k] * w[k * 16 + j];
      h[i * 16 + j] = acc;
      float r = acc + b[j] > 0 ? acc + b[j] : 0;
      s[j] = 1.0f / (1.0f + expf(-expf(r)));
    }
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
      for (int k = 0; k < 16; ++k) acc += s[k] * w2[k * 4 + j];
      y[i * 4 + j] = acc;
    }
  }
}

static int Run(TesselModule* m, int n) {
  unsigned seed = 7u + (unsigned)n;
  float *x = AllocFloats(n * 8), *w = AllocFloats(128), *b = AllocFloats(16), *w2 = AllocFloats(64);
  float *y = AllocFloats(n * 4), *h = AllocFloats(n * 16);
  float *want_y = AllocFloats(n * 4), *want_h = AllocFloats(n * 16);
  for (int i = 0; i < n * 8; ++i) x[i] = Uniform(&seed);
  for (int i = 0; i < 128; ++i) w[i] = Uniform(&seed);
  for (int i = 0; i < 16; ++i) b[i] = (float)i * 0.0625f - 0.5f; /* The constant @b. */
  for (int i = 0; i < 64; ++i) w2[i] = Uniform(&seed);
  int64_t sx[2] = {n, 8}, sw[2] = {8, 16}, sw2[2] = {16, 4};
  int64_t sy[2] = {n, 4}, sh[2] = {n, 16};
  DLTensor tx = Tensor(x, 2, sx), tw = Tensor(w, 2, sw);
  DLTensor tw2 = Tensor(w2, 2, sw2), ty = Tensor(y, 2, sy), th = Tensor(h, 2, sh);
  int32_t rc = model_mlp(m, &tx, &tw, &tw2, &ty, &th);
  if (rc != 0) fprintf(stderr, "batch %d: %s\n", n, tessel_last_error());
  CHECK(rc == 0);
  Reference(n, x, w, b, w2, want_y, want_h);
  float err = 0;
  for (int i = 0; i < n * 4; ++i) err = fmaxf(err, fabsf(y[i] - want_y[i]));
  for (int i = 0; i < n * 16; ++i) err = fmaxf(err, fabsf(h[i] - want_h[i]));
  printf("batch %-3d max error %g\n", n, err);
  CHECK(err < 1e-4f);

  if (n == 5) {
    /* A weight of the wrong shape, an output of the wrong batch: refused, y untouched. */
    int64_t bad_w[2] = {8, 15}, bad_y[2] = {n + 1, 4};
    DLTensor tbad = Tensor(w, 2, bad_w), tbad_y = Tensor(y, 2, bad_y);
    y[0] = 123.0f;
    ExpectError(model_mlp(m, &tx, &tbad, &tw2, &ty, &th), "argument 1 (w)", "wrong weight");
    ExpectError(model_mlp(m, &tx, &tw, &tw2, &tbad_y, &th), "argument 3 (y)", "wrong output");
    CHECK(y[0] == 123.0f);
    DLTensor* ins[2] = {&tx, &tw};
    DLTensor* outs[2] = {&ty, &th};
    ExpectError(tessel_graph_run(m, "mlp", ins, 2, outs, 2), "expected 3 inputs and 2 outputs",
                "too few inputs");
    ExpectError(tessel_graph_run(m, "nope", ins, 2, outs, 2), "no graph function 'nope'",
                "unknown graph");
  }
  free(x), free(w), free(b), free(w2), free(y), free(h), free(want_y), free(want_h);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_graph_test model.so\n");
    return 2;
  }
  TesselModule* m = tessel_module_load(argv[1]);
  if (m == NULL) {
    fprintf(stderr, "%s\n", tessel_last_error());
    return 1;
  }
  CHECK(tessel_module_num_graphs(m) == 1);
  CHECK(strcmp(tessel_module_graph_name(m, 0), "mlp") == 0);
  Run(m, 5);
  Run(m, 17); /* grows the storage */
  Run(m, 3);
  tessel_module_free(m);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("OK\n");
  return 0;
}
