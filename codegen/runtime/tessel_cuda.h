/* tessel's CUDA runtime: device memory, PTX modules and kernel launches over the CUDA
 * driver API, which libtessel_runtime loads with dlopen("libcuda.so.1") on first use.
 * Nothing links against CUDA, so tessel builds and runs on machines without it; there
 * every call here fails with one clear message.
 *
 *   if (tessel_cuda_init(0) != 0) { puts(tessel_last_error()); return; }
 *   void* mod;  tessel_cuda_module_load(ptx_text, &mod);   // the JIT log on failure
 *   void *a, *b;  tessel_cuda_alloc(4096, &a);  tessel_cuda_alloc(4096, &b);
 *   tessel_cuda_copy_to_device(a, host_a, 4096);
 *   void* args[] = {&a, &b};
 *   int64_t grid[3] = {8, 1, 1}, block[3] = {128, 1, 1};
 *   tessel_cuda_launch(mod, "add_kernel0", grid, block, 0, args, 2, NULL);
 *   tessel_cuda_copy_to_host(host_b, b, 4096);   // waits for the launch
 *
 * args[i] points at the i-th kernel argument's value (a device pointer, an int32_t,
 * a float, ...), as cuLaunchKernel takes them. Every function returns 0 on success,
 * else non-zero with tessel_last_error() saying which call failed and why (the
 * driver's error name and text). Calls act on the device tessel_cuda_init chose,
 * through its primary context, from any thread. */
#ifndef TESSEL_CODEGEN_RUNTIME_TESSEL_CUDA_H_
#define TESSEL_CODEGEN_RUNTIME_TESSEL_CUDA_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the driver, initialises it and makes `device`'s primary context current. */
int32_t tessel_cuda_init(int32_t device);
/* The device's name and compute capability (e.g. 9.0) and its multiprocessor count. */
int32_t tessel_cuda_device_info(char* name, size_t name_size, int32_t* major, int32_t* minor,
                                int32_t* multiprocessors);

int32_t tessel_cuda_alloc(size_t bytes, void** device_ptr);
int32_t tessel_cuda_free(void* device_ptr);
int32_t tessel_cuda_copy_to_device(void* device_dst, const void* host_src, size_t bytes);
int32_t tessel_cuda_copy_to_host(void* host_dst, const void* device_src, size_t bytes);
int32_t tessel_cuda_copy_on_device(void* device_dst, const void* device_src, size_t bytes);
int32_t tessel_cuda_memset(void* device_dst, uint8_t value, size_t bytes);

/* Loads PTX text (NUL-terminated) with the driver's JIT; on failure the error holds
 * the JIT's log. */
int32_t tessel_cuda_module_load(const char* ptx, void** module);
int32_t tessel_cuda_module_unload(void* module);

/* Launches kernel `name` of `module` on `stream` (NULL: the default stream) with
 * `shared_bytes` of dynamic shared memory (on top of the static shared memory its
 * PTX declares; tessel's kernels need none). */
int32_t tessel_cuda_launch(void* module, const char* name, const int64_t grid[3],
                           const int64_t block[3], int64_t shared_bytes, void** args,
                           int32_t num_args, void* stream);
int32_t tessel_cuda_synchronize(void);

/* Streams: work enqueued on one runs in order, asynchronously to the host and to
 * other streams, but after the default stream's earlier work (blocking streams: the
 * copies and memsets that make device arrays run there). Errors of enqueued kernels
 * surface at the next synchronize. */
int32_t tessel_cuda_stream_create(void** stream);
int32_t tessel_cuda_stream_destroy(void* stream);
int32_t tessel_cuda_stream_synchronize(void* stream);
/* Stream-ordered device memory (a driver of CUDA 11.2 or later): usable by work
 * enqueued on `stream` after the allocation, freed once the work before the free is done. */
int32_t tessel_cuda_alloc_async(size_t bytes, void** device_ptr, void* stream);
int32_t tessel_cuda_free_async(void* device_ptr, void* stream);

/* Events for timing on the device: record two on a stream, then read the
 * milliseconds between them (waits for the second). */
int32_t tessel_cuda_event_create(void** event);
int32_t tessel_cuda_event_destroy(void* event);
int32_t tessel_cuda_event_record(void* event, void* stream);
int32_t tessel_cuda_event_elapsed_ms(void* start, void* end, float* ms);

/* A GPU program an exported library carries (export_library of a module built for a
 * cuda target): its functions called with host tensors, each buffer copied to the
 * device and back, or with device tensors (kDLCUDA, device 0: memory from
 * tessel_cuda_alloc), used in place (codegen/runtime/cuda_program.h). The library's header wraps
 * each function: <prefix>_<function>(program, DLTensor* ...).
 *
 *   TesselCudaProgram* p = tessel_cuda_program_load("kernels.so");
 *   DLTensor* args[] = {&a, &b, &c};
 *   if (!p || tessel_cuda_program_call(p, "matmul", args, 3) != 0) puts(tessel_last_error());
 *   tessel_cuda_program_free(p);
 *
 * Loading needs no GPU; a call checks its arguments, then needs the driver. */
typedef struct TesselCudaProgram TesselCudaProgram;
/* NULL, with tessel_last_error() saying why, when the library does not load or
 * carries no GPU program. */
TesselCudaProgram* tessel_cuda_program_load(const char* library_path);
void tessel_cuda_program_free(TesselCudaProgram* program);
int32_t tessel_cuda_program_call(TesselCudaProgram* program, const char* name,
                                 DLTensor* const* args, int32_t num_args);
/* The function's kernels enqueued on `stream` (NULL: the default one), without
 * waiting: device tensors only, alive until tessel_cuda_stream_synchronize(stream),
 * where a kernel's failure surfaces (CudaProgram::Enqueue). */
int32_t tessel_cuda_program_enqueue(TesselCudaProgram* program, const char* name,
                                    DLTensor* const* args, int32_t num_args, void* stream);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_CODEGEN_RUNTIME_TESSEL_CUDA_H_ */
