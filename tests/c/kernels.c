/* kernels.tsl written by hand against the packed ABI of tessel_runtime.h: what codegen
 * emits for it, in C. The parallel loops go through tessel_parallel_for with an
 * outlined body and a closure, as compiled code does. */
#include <stdint.h>

#include "tessel_runtime.h"

typedef struct {
  const float* a;
  const float* b;
  float* c;
} VectorAddClosure;

static int32_t VectorAddBody(int64_t begin, int64_t end, void* closure) {
  VectorAddClosure* k = (VectorAddClosure*)closure;
  for (int64_t i = begin; i < end; ++i) k->c[i] = k->a[i] + k->b[i];
  return 0;
}

/* vector_add(A: f32[n], B: f32[n], C: f32[n], n: i32): buffers arrive as DLTensor*, n
 * widened to int64_t. */
int32_t tessel_packed_vector_add(void* const* args, int32_t num_args) {
  if (num_args != 4) return tessel_set_last_error("vector_add: expected 4 arguments");
  VectorAddClosure k = {(const float*)tessel_arg_data(args[0]),
                        (const float*)tessel_arg_data(args[1]), (float*)tessel_arg_data(args[2])};
  int64_t n = *(const int64_t*)args[3];
  return tessel_parallel_for(n, VectorAddBody, &k);
}

typedef struct {
  const float* x;
  float* y;
  float a;
} AxpyClosure;

static int32_t AxpyBody(int64_t begin, int64_t end, void* closure) {
  AxpyClosure* k = (AxpyClosure*)closure;
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = 0; j < 250; ++j)
      k->y[i * 250 + j] = k->a * k->x[i * 250 + j] + k->y[i * 250 + j];
  }
  return 0;
}

/* axpy(X: f32[4, 250], Y: f32[4, 250], a: f32). */
int32_t tessel_packed_axpy(void* const* args, int32_t num_args) {
  if (num_args != 3) return tessel_set_last_error("axpy: expected 3 arguments");
  AxpyClosure k = {(const float*)tessel_arg_data(args[0]), (float*)tessel_arg_data(args[1]),
                   *(const float*)args[2]};
  return tessel_parallel_for(4, AxpyBody, &k);
}
