// The CUDA driver API loaded at run time (tessel_cuda.h). The few driver types and
// entry points used are declared here, as the driver's ABI fixes them, so that
// tessel needs neither CUDA's headers nor its libraries to build.
#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT: the driver's type.
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;

constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrCapabilityMajor = 75;
constexpr int kAttrCapabilityMinor = 76;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  // Stream-ordered allocation (CUDA 11.2 on); null in an older driver.
  CUresult (*cuMemAllocAsync)(CUdeviceptr*, size_t, CUstream) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

std::mutex init_mutex;
Driver* driver = nullptr;  // Set once the library loaded with every symbol.
std::string load_error;
CUcontext context = nullptr;

// The first of `names` the library exports (versioned names first: the plain
// symbol keeps an older ABI).
template <typename F>
bool Resolve(void* lib, F* out, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (void* p = dlsym(lib, n)) {
      *out = reinterpret_cast<F>(p);
      return true;
    }
  }
  load_error = std::string("libcuda.so.1 lacks ") + *names.begin() +
               " (a CUDA driver older than tessel supports)";
  return false;
}

bool LoadDriver() {
  if (driver != nullptr) return true;
  if (!load_error.empty()) return false;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    load_error = std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                 (why ? why : "unknown reason") + "); GPU code needs an NVIDIA driver";
    return false;
  }
  static Driver d;
  bool ok = Resolve(lib, &d.cuInit, {"cuInit"}) &&
            Resolve(lib, &d.cuDeviceGetCount, {"cuDeviceGetCount"}) &&
            Resolve(lib, &d.cuDeviceGet, {"cuDeviceGet"}) &&
            Resolve(lib, &d.cuDeviceGetName, {"cuDeviceGetName"}) &&
            Resolve(lib, &d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
            Resolve(lib, &d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
            Resolve(lib, &d.cuCtxSetCurrent, {"cuCtxSetCurrent"}) &&
            Resolve(lib, &d.cuCtxSynchronize, {"cuCtxSynchronize"}) &&
            Resolve(lib, &d.cuMemAlloc, {"cuMemAlloc_v2"}) &&
            Resolve(lib, &d.cuMemFree, {"cuMemFree_v2"}) &&
            Resolve(lib, &d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}) &&
            Resolve(lib, &d.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}) &&
            Resolve(lib, &d.cuMemcpyDtoD, {"cuMemcpyDtoD_v2"}) &&
            Resolve(lib, &d.cuMemsetD8, {"cuMemsetD8_v2"}) &&
            Resolve(lib, &d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}) &&
            Resolve(lib, &d.cuModuleUnload, {"cuModuleUnload"}) &&
            Resolve(lib, &d.cuModuleGetFunction, {"cuModuleGetFunction"}) &&
            Resolve(lib, &d.cuLaunchKernel, {"cuLaunchKernel"}) &&
            Resolve(lib, &d.cuEventCreate, {"cuEventCreate"}) &&
            Resolve(lib, &d.cuEventDestroy, {"cuEventDestroy_v2"}) &&
            Resolve(lib, &d.cuEventRecord, {"cuEventRecord"}) &&
            Resolve(lib, &d.cuEventSynchronize, {"cuEventSynchronize"}) &&
            Resolve(lib, &d.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}) &&
            Resolve(lib, &d.cuStreamCreate, {"cuStreamCreate"}) &&
            Resolve(lib, &d.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"}) &&
            Resolve(lib, &d.cuStreamSynchronize, {"cuStreamSynchronize"}) &&
            Resolve(lib, &d.cuGetErrorName, {"cuGetErrorName"}) &&
            Resolve(lib, &d.cuGetErrorString, {"cuGetErrorString"});
  if (!ok) return false;
  d.cuMemAllocAsync = reinterpret_cast<decltype(d.cuMemAllocAsync)>(dlsym(lib, "cuMemAllocAsync"));
  d.cuMemFreeAsync = reinterpret_cast<decltype(d.cuMemFreeAsync)>(dlsym(lib, "cuMemFreeAsync"));
  driver = &d;
  return true;
}

// 0 when `r` is CUDA_SUCCESS; otherwise records "<call>: <NAME>: <text>" and returns -1.
int32_t Check(CUresult r, const char* call) {
  if (r == 0) return 0;
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* text = "unknown error";
  driver->cuGetErrorName(r, &name);
  driver->cuGetErrorString(r, &text);
  std::string message = std::string(call) + ": " + name + ": " + text;
  return tessel_set_last_error(message.c_str());
}

// The driver is loaded and a context current on this thread, else an error.
int32_t Ready(const char* call) {
  if (driver == nullptr || context == nullptr) {
    std::string message = std::string(call) + ": CUDA is not initialised: call tessel_cuda_init";
    if (!load_error.empty()) message += " (" + load_error + ")";
    return tessel_set_last_error(message.c_str());
  }
  return Check(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

CUdeviceptr Ptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

}  // namespace

extern "C" {

int32_t tessel_cuda_init(int32_t device) {
  std::lock_guard<std::mutex> lock(init_mutex);
  if (!LoadDriver()) return tessel_set_last_error(load_error.c_str());
  if (context != nullptr) return Check(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent");
  if (int32_t rc = Check(driver->cuInit(0), "cuInit")) return rc;
  int count = 0;
  if (int32_t rc = Check(driver->cuDeviceGetCount(&count), "cuDeviceGetCount")) return rc;
  if (device < 0 || device >= count) {
    std::string message = "tessel_cuda_init: no CUDA device " + std::to_string(device) +
                          " (the driver sees " + std::to_string(count) + ")";
    return tessel_set_last_error(message.c_str());
  }
  CUdevice dev = 0;
  if (int32_t rc = Check(driver->cuDeviceGet(&dev, device), "cuDeviceGet")) return rc;
  CUcontext ctx = nullptr;
  if (int32_t rc = Check(driver->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")) {
    return rc;
  }
  context = ctx;
  return Check(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

int32_t tessel_cuda_device_info(char* name, size_t name_size, int32_t* major, int32_t* minor,
                                int32_t* multiprocessors) {
  if (int32_t rc = Ready("tessel_cuda_device_info")) return rc;
  CUdevice dev = 0;
  if (int32_t rc = Check(driver->cuDeviceGet(&dev, 0), "cuDeviceGet")) return rc;
  if (name != nullptr && name_size > 0) {
    if (int32_t rc = Check(driver->cuDeviceGetName(name, static_cast<int>(name_size), dev),
                           "cuDeviceGetName")) {
      return rc;
    }
  }
  int v = 0;
  if (major != nullptr) {
    if (int32_t rc = Check(driver->cuDeviceGetAttribute(&v, kAttrCapabilityMajor, dev),
                           "cuDeviceGetAttribute")) {
      return rc;
    }
    *major = v;
  }
  if (minor != nullptr) {
    if (int32_t rc = Check(driver->cuDeviceGetAttribute(&v, kAttrCapabilityMinor, dev),
                           "cuDeviceGetAttribute")) {
      return rc;
    }
    *minor = v;
  }
  if (multiprocessors != nullptr) {
    if (int32_t rc = Check(driver->cuDeviceGetAttribute(&v, kAttrMultiprocessors, dev),
                           "cuDeviceGetAttribute")) {
      return rc;
    }
    *multiprocessors = v;
  }
  return 0;
}

int32_t tessel_cuda_alloc(size_t bytes, void** device_ptr) {
  if (int32_t rc = Ready("tessel_cuda_alloc")) return rc;
  CUdeviceptr p = 0;
  // The driver refuses 0 bytes; a 1-byte allocation keeps empty tensors valid.
  if (int32_t rc = Check(driver->cuMemAlloc(&p, bytes == 0 ? 1 : bytes), "cuMemAlloc")) return rc;
  *device_ptr = reinterpret_cast<void*>(p);
  return 0;
}

int32_t tessel_cuda_free(void* device_ptr) {
  if (device_ptr == nullptr) return 0;
  if (int32_t rc = Ready("tessel_cuda_free")) return rc;
  return Check(driver->cuMemFree(Ptr(device_ptr)), "cuMemFree");
}

int32_t tessel_cuda_copy_to_device(void* device_dst, const void* host_src, size_t bytes) {
  if (int32_t rc = Ready("tessel_cuda_copy_to_device")) return rc;
  return Check(driver->cuMemcpyHtoD(Ptr(device_dst), host_src, bytes), "cuMemcpyHtoD");
}

int32_t tessel_cuda_copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
  if (int32_t rc = Ready("tessel_cuda_copy_to_host")) return rc;
  return Check(driver->cuMemcpyDtoH(host_dst, Ptr(device_src), bytes), "cuMemcpyDtoH");
}

int32_t tessel_cuda_copy_on_device(void* device_dst, const void* device_src, size_t bytes) {
  if (int32_t rc = Ready("tessel_cuda_copy_on_device")) return rc;
  return Check(driver->cuMemcpyDtoD(Ptr(device_dst), Ptr(device_src), bytes), "cuMemcpyDtoD");
}

int32_t tessel_cuda_memset(void* device_dst, uint8_t value, size_t bytes) {
  if (int32_t rc = Ready("tessel_cuda_memset")) return rc;
  return Check(driver->cuMemsetD8(Ptr(device_dst), value, bytes), "cuMemsetD8");
}

int32_t tessel_cuda_module_load(const char* ptx, void** module) {
  if (int32_t rc = Ready("tessel_cuda_module_load")) return rc;
  char log[8192] = {0};
  int options[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void* values[2] = {log, reinterpret_cast<void*>(sizeof(log) - 1)};
  CUmodule m = nullptr;
  CUresult r = driver->cuModuleLoadDataEx(&m, ptx, 2, options, values);
  if (r != 0) {
    Check(r, "cuModuleLoadDataEx");
    std::string message = std::string(tessel_last_error()) +
                          "; the PTX JIT said: " + (log[0] != '\0' ? log : "(nothing)");
    return tessel_set_last_error(message.c_str());
  }
  *module = m;
  return 0;
}

int32_t tessel_cuda_module_unload(void* module) {
  if (int32_t rc = Ready("tessel_cuda_module_unload")) return rc;
  return Check(driver->cuModuleUnload(module), "cuModuleUnload");
}

int32_t tessel_cuda_launch(void* module, const char* name, const int64_t grid[3],
                           const int64_t block[3], int64_t shared_bytes, void** args,
                           int32_t num_args, void* stream) {
  if (int32_t rc = Ready("tessel_cuda_launch")) return rc;
  CUfunction f = nullptr;
  if (driver->cuModuleGetFunction(&f, module, name) != 0) {
    std::string message =
        std::string("tessel_cuda_launch: the module has no kernel '") + name + "'";
    return tessel_set_last_error(message.c_str());
  }
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 1 || block[i] < 1 || grid[i] > 0x7fffffff || block[i] > 1024) {
      return tessel_set_last_error("tessel_cuda_launch: a grid or block extent out of range");
    }
  }
  (void)num_args;  // The kernel's signature fixes the count; the PTX was built with it.
  return Check(
      driver->cuLaunchKernel(f, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                             static_cast<unsigned>(grid[2]), static_cast<unsigned>(block[0]),
                             static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                             static_cast<unsigned>(shared_bytes), stream, args, nullptr),
      name);
}

int32_t tessel_cuda_synchronize(void) {
  if (int32_t rc = Ready("tessel_cuda_synchronize")) return rc;
  return Check(driver->cuCtxSynchronize(), "cuCtxSynchronize");
}

int32_t tessel_cuda_stream_create(void** stream) {
  if (int32_t rc = Ready("tessel_cuda_stream_create")) return rc;
  // Blocking (flags 0): ordered with the legacy default stream, on which device
  // arrays are zeroed and filled, so a kernel enqueued here never races them.
  return Check(driver->cuStreamCreate(stream, 0), "cuStreamCreate");
}

int32_t tessel_cuda_stream_destroy(void* stream) {
  if (stream == nullptr) return 0;
  if (int32_t rc = Ready("tessel_cuda_stream_destroy")) return rc;
  return Check(driver->cuStreamDestroy(stream), "cuStreamDestroy");
}

int32_t tessel_cuda_stream_synchronize(void* stream) {
  if (int32_t rc = Ready("tessel_cuda_stream_synchronize")) return rc;
  return Check(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

int32_t tessel_cuda_alloc_async(size_t bytes, void** device_ptr, void* stream) {
  if (int32_t rc = Ready("tessel_cuda_alloc_async")) return rc;
  if (driver->cuMemAllocAsync == nullptr) {
    return tessel_set_last_error(
        "tessel_cuda_alloc_async: this CUDA driver has no cuMemAllocAsync (CUDA 11.2 or later)");
  }
  CUdeviceptr p = 0;
  int32_t rc = Check(driver->cuMemAllocAsync(&p, bytes, stream), "cuMemAllocAsync");
  *device_ptr = rc == 0 ? reinterpret_cast<void*>(p) : nullptr;
  return rc;
}

int32_t tessel_cuda_free_async(void* device_ptr, void* stream) {
  if (device_ptr == nullptr) return 0;
  if (int32_t rc = Ready("tessel_cuda_free_async")) return rc;
  if (driver->cuMemFreeAsync == nullptr) {
    return tessel_set_last_error(
        "tessel_cuda_free_async: this CUDA driver has no cuMemFreeAsync (CUDA 11.2 or later)");
  }
  return Check(driver->cuMemFreeAsync(Ptr(device_ptr), stream), "cuMemFreeAsync");
}

int32_t tessel_cuda_event_create(void** event) {
  if (int32_t rc = Ready("tessel_cuda_event_create")) return rc;
  return Check(driver->cuEventCreate(event, 0), "cuEventCreate");
}

int32_t tessel_cuda_event_destroy(void* event) {
  if (int32_t rc = Ready("tessel_cuda_event_destroy")) return rc;
  return Check(driver->cuEventDestroy(event), "cuEventDestroy");
}

int32_t tessel_cuda_event_record(void* event, void* stream) {
  if (int32_t rc = Ready("tessel_cuda_event_record")) return rc;
  return Check(driver->cuEventRecord(event, stream), "cuEventRecord");
}

int32_t tessel_cuda_event_elapsed_ms(void* start, void* end, float* ms) {
  if (int32_t rc = Ready("tessel_cuda_event_elapsed_ms")) return rc;
  if (int32_t rc = Check(driver->cuEventSynchronize(end), "cuEventSynchronize")) return rc;
  return Check(driver->cuEventElapsedTime(ms, start, end), "cuEventElapsedTime");
}

}  // extern "C"
