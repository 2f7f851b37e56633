// CudaProgram: a GPU program ready to run -- the PTX and the launch manifest that
// codegen's BuildGpuProgram and LaunchManifest make -- over the CUDA driver of
// tessel_cuda.h. Plain C++ (no Abseil), in libtessel_runtime: tessel-gpu-run and
// tessel.build(target="cuda") share it.
//
//   CudaProgram p;
//   std::string error = CudaProgram::Parse(ptx, manifest_json, &p);   // needs no driver
//   CallOutcome r = p.Call("matmul", args, 3);   // host tensors: to the device and back;
//                                                // device tensors: in place
//
// Parsing checks the manifest (every function's parameters as a signature, its
// workspaces and kernels, each kernel argument in range). The first launch
// initialises the driver and loads the PTX, once per program; without a driver,
// calls fail with the runtime's one message ("no CUDA driver: ..."). A call checks
// its arguments as a CPU call does (arg_check.h) before anything reaches the device.
#ifndef TESSEL_CODEGEN_RUNTIME_CUDA_PROGRAM_H_
#define TESSEL_CODEGEN_RUNTIME_CUDA_PROGRAM_H_

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/extent_expr.h"
#include "codegen/runtime/signature.h"

namespace tessel::runtime {

// One step of a function: a kernel launch, or (library set) a call of a device
// library function (cuda_libraries.h) on the function's storage.
struct CudaKernel {
  std::string name;
  std::string library;  // Empty for a kernel.
  struct LibraryArg {
    int storage = -1;   // >= 0: the address of that storage plus `value` elements.
    int64_t value = 0;  // Otherwise the slot's value.
  };
  std::vector<LibraryArg> library_args;
  std::array<int64_t, 3> grid = {1, 1, 1};
  // A grid extent given as an expression of shape variables and scalar parameters
  // (evaluated per call; `grid` holds 0 there).
  std::array<std::optional<ExtentExpr>, 3> grid_exprs;
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t shared_bytes = 0;  // Static, declared in the PTX: the launch adds none.
  // Storage ids: parameter i is i, workspace j is num_params + j.
  std::vector<int> buffer_args;
  // Then these values, by name: a scalar parameter or a shape variable.
  std::vector<std::string> scalar_names;
  std::vector<DLDataType> scalar_dtypes;
};

struct CudaFunction {
  FunctionSignature signature;
  struct Workspace {
    std::string name;
    DLDataType dtype;
    int64_t elements = 0;
    std::optional<ExtentExpr> elements_expr;  // Set: the count, evaluated per call.
  };
  std::vector<Workspace> workspaces;  // Device buffers between kernels.
  std::vector<CudaKernel> kernels;    // Kernels and library steps, in order.
};

class CudaProgram {
 public:
  // The program an exported library carries (ExportOptions::cuda_ptx): "" and
  // `out` filled, or why not (the library does not load, carries none, or its
  // manifest is refused). `carries`, when given, says whether it has one at all.
  static std::string FromLibrary(const std::string& library_path, CudaProgram* out,
                                 bool* carries = nullptr);
  // "" and `out` filled, or why `manifest` is not a program's manifest.
  static std::string Parse(std::string ptx, std::string_view manifest, CudaProgram* out);

  const std::string& ptx() const { return ptx_; }
  const std::string& manifest() const { return manifest_; }
  const std::vector<CudaFunction>& functions() const { return functions_; }
  const CudaFunction* Find(std::string_view name) const;

  // A whole call. On host (CPU) tensors: checks them, copies each buffer to the
  // device, allocates the workspaces, launches, waits, copies back every buffer the
  // function may write and frees what it allocated. On device tensors (kDLCUDA,
  // NDArray::Zeros on cuda:0): the kernels read and write them in place, nothing is
  // copied. A call's buffers are all on the host or all on the device; scalars are
  // host tensors. kBadArgument (nothing reached the device) or kKernelFailed with
  // the message, as a CPU call reports.
  CallOutcome Call(std::string_view name, DLTensor* const* args, int32_t num_args) const;
  // Enqueues the kernels of `name` on `stream` (tessel_cuda_stream_create; NULL: the
  // default stream) and returns without waiting for them. The buffers must be device
  // tensors (a host tensor would need the copies Call makes: kBadArgument), kept
  // alive and unchanged by the caller until the stream is synchronized; workspaces
  // are stream-ordered allocations freed after the kernels. A kernel's failure
  // surfaces at tessel_cuda_stream_synchronize.
  CallOutcome Enqueue(std::string_view name, DLTensor* const* args, int32_t num_args,
                      void* stream) const;
  // Times `name` on `args` (host tensors: on device copies of them): `warmup`
  // untimed runs, then the milliseconds of each of `repeat` runs of all its
  // kernels (CUDA events).
  CallOutcome Time(std::string_view name, DLTensor* const* args, int32_t num_args, int warmup,
                   int repeat, std::vector<double>* ms) const;

 private:
  // Launches every kernel of `f`, in order, on `stream` (NULL: the default one):
  // `storage` holds the device pointers of the parameters then the workspaces;
  // `args` and `packed` the checked arguments (PackArguments), which give the
  // scalar parameters and the shape variables. 0, else non-zero with
  // tessel_last_error set.
  int32_t Launch(const CudaFunction& f, const std::vector<void*>& storage,
                 const std::vector<DLTensor*>& args, const PackedArgs& packed, void* stream) const;

  // The function `name`, its checked arguments and whether its buffers are on the
  // device; "" or why not.
  std::string Check(std::string_view name, DLTensor* const* args, int32_t num_args,
                    const CudaFunction** f, PackedArgs* packed, bool* on_device) const;
  // Initialises the driver and loads the PTX, the first time; 0 or the last error.
  int32_t Load(void** module) const;
  struct Loaded;  // The driver module, loaded on first use.
  std::string ptx_, manifest_;
  std::vector<CudaFunction> functions_;
  std::shared_ptr<Loaded> loaded_;
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_CUDA_PROGRAM_H_
