// CudaGraphMemory and CreateCudaGraphRunner (see cuda_graph.h).
#include "codegen/runtime/cuda_graph.h"

#include <utility>

#include "codegen/runtime/tessel_cuda.h"

namespace tessel::runtime {
namespace {

// The driver's message of the call that just failed.
std::string LastError() { return tessel_last_error(); }

}  // namespace

GraphMemory CudaGraphMemory() {
  GraphMemory m;
  m.device = DLDevice{kDLCUDA, 0};
  m.alloc = [](size_t bytes, std::string* error) -> void* {
    void* p = nullptr;
    // cuMemAlloc returns 256-byte aligned memory, more than the 64 a call checks.
    if (tessel_cuda_init(0) != 0 || tessel_cuda_alloc(bytes, &p) != 0) {
      *error = LastError();
      return nullptr;
    }
    return p;
  };
  m.free = [](void* p) { tessel_cuda_free(p); };
  m.upload = [](void* dst, const void* src, size_t bytes) -> std::string {
    return tessel_cuda_copy_to_device(dst, src, bytes) == 0 ? "" : LastError();
  };
  m.copy = [](void* dst, const void* src, size_t bytes) -> std::string {
    return tessel_cuda_copy_on_device(dst, src, bytes) == 0 ? "" : LastError();
  };
  return m;
}

std::string CreateCudaGraphRunner(const CudaProgram* program, GraphProgram graph,
                                  GraphRunner* out) {
  auto resolve = [program](const std::string& name, GraphRunner::Kernel* k) -> std::string {
    const CudaFunction* f = program->Find(name);
    if (f == nullptr) return "the GPU program has no function " + name;
    k->signature = &f->signature;
    k->call = [program, name](DLTensor* const* args, int32_t num_args) {
      return program->Call(name, args, num_args);
    };
    return "";
  };
  return GraphRunner::Create(std::move(graph), resolve, out, CudaGraphMemory());
}

}  // namespace tessel::runtime
