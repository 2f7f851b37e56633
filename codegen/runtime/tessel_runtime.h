/* tessel's C ABI: what compiled code exports, what it calls back into, and the
 * runtime API a plain C program uses to load an exported library and call it.
 *
 *   TesselModule* m = tessel_module_load("./kernels.so");
 *   if (!m) { fprintf(stderr, "%s\n", tessel_last_error()); return 1; }
 *   DLTensor* args[3] = {&a, &b, &c};
 *   if (tessel_module_call(m, "matmul", args, 3) != 0)
 *     fprintf(stderr, "%s\n", tessel_last_error());
 *   tessel_module_free(m);
 *
 * The runtime library (libtessel_runtime) implements this header with the C++
 * standard library only: no LLVM, MLIR or Abseil, so an exported kernel library
 * needs nothing else at run time.
 *
 * Stable ABI, version 2 (version 1 passed buffers as bare data pointers). Changing a signature here
 * means bumping TESSEL_ABI_VERSION and the version recorded in every compiled module.
 */
#ifndef TESSEL_CODEGEN_RUNTIME_TESSEL_RUNTIME_H_
#define TESSEL_CODEGEN_RUNTIME_TESSEL_RUNTIME_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_ABI_VERSION 2

/* ---- What compiled code exports ---------------------------------------------------
 * For every PrimFunc whose global symbol is NAME, codegen emits
 *
 *   int32_t tessel_packed_NAME(void* const* args, int32_t num_args);
 *
 * args[i] is, in parameter order, a `DLTensor*` for a buffer parameter, or a pointer
 * to the value of a scalar parameter (int64_t for integer vars, the var's own C type
 * otherwise). A kernel reads a tensor's data + byte_offset (64-byte aligned, dense
 * row-major) and, for a symbolic extent no scalar parameter passes (`func @f[n](A:
 * f32[n])`), its shape: the first tensor dimension that names the variable binds it.
 * The kernel trusts its arguments: the runtime checks count, dtype, shape, strides,
 * alignment and device before calling. It returns 0, or non-zero after an error it
 * reported with tessel_set_last_error. */
typedef int32_t (*TesselPackedFunc)(void* const* args, int32_t num_args);

/* What a hand-written kernel reads from a buffer argument args[i]. */
static inline void* tessel_arg_data(void* arg) {
  const DLTensor* t = (const DLTensor*)arg;
  return (char*)t->data + t->byte_offset;
}
static inline int64_t tessel_arg_extent(void* arg, int32_t dim) {
  return ((const DLTensor*)arg)->shape[dim];
}

/* ---- What compiled code calls back into --------------------------------------------
 * A parallel loop `for i in parallel(0, extent)` is outlined by codegen into a body
 * that runs iterations [begin, end) with its captured values in `closure`; the
 * runtime splits [0, extent) over its worker threads (the calling thread included)
 * and returns when every chunk has finished. A parallel loop reached from inside a
 * worker runs serially on that worker. Returns the first non-zero body result. */
typedef int32_t (*TesselParallelBody)(int64_t begin, int64_t end, void* closure);
int32_t tessel_parallel_for(int64_t extent, TesselParallelBody body, void* closure);

/* Records a message for the caller of the current call; returns -1. */
int32_t tessel_set_last_error(const char* message);

/* ---- Threads -------------------------------------------------------------------------
 * The process-wide count; the default is TESSEL_NUM_THREADS when set, else the number
 * of online cores. tessel_get_num_threads says what the calling thread's parallel
 * loops use now: inside a call of a module built with -num-threads=N, N. */
void tessel_set_num_threads(int32_t num_threads);
int32_t tessel_get_num_threads(void);

/* ---- Loading and calling an exported library ---------------------------------------- */
typedef struct TesselModule TesselModule;

/* Loads a library written by export_library. NULL on failure (see tessel_last_error). */
TesselModule* tessel_module_load(const char* path);
void tessel_module_free(TesselModule* module);
/* Number of functions and the name of the i-th, for listing (-1 / NULL on a NULL
 * module or an index out of range, with tessel_last_error set). */
int32_t tessel_module_num_functions(const TesselModule* module);
const char* tessel_module_function_name(const TesselModule* module, int32_t index);
/* Checks every argument against the function's signature (count, dtype, shape,
 * strides, alignment, device) and calls it. 0 on success; otherwise non-zero, the
 * tensors untouched, and tessel_last_error() says which argument and why.
 * A buffer parameter takes a CPU DLTensor of its dtype and shape, strides NULL or
 * compact row-major, data + byte_offset 64-byte aligned; a scalar parameter takes a
 * 0-d DLTensor of its dtype holding the value. Extents named alike (a symbolic
 * dimension, a scalar of that name) must agree. */
int32_t tessel_module_call(TesselModule* module, const char* function, DLTensor* const* args,
                           int32_t num_args);

/* Runs graph function `graph` of the library (a whole model, exported from a module
 * with graph functions): `inputs` in the function's parameter order, `outputs` one
 * per result, allocated by the caller with the result's dtype and shape (destination
 * passing; shapes follow from the inputs' extents). Everything is checked before
 * anything runs, as for tessel_module_call; the intermediates live in storage the
 * module allocates on the first call and keeps. 0 on success; otherwise non-zero and
 * tessel_last_error() says why (naming the argument, or the kernel that failed).
 * Calls of one graph are serialized. */
int32_t tessel_graph_run(TesselModule* module, const char* graph, DLTensor* const* inputs,
                         int32_t num_inputs, DLTensor* const* outputs, int32_t num_outputs);
/* Number of graph functions and the name of the i-th (as for functions above). */
int32_t tessel_module_num_graphs(const TesselModule* module);
const char* tessel_module_graph_name(const TesselModule* module, int32_t index);
/* The message of the last failure on this thread ("" when none yet; a success does
 * not clear it). */
const char* tessel_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_CODEGEN_RUNTIME_TESSEL_RUNTIME_H_ */
