// The host/device split of a lowered GPU function: which statements run as kernels,
// with what launch extents and arguments. Codegen (codegen/gpu_codegen.h) makes one
// PTX kernel per launch; the runtime launches them in order.
//
//   func @add(A: f32[1024], B: f32[1024]) {
//     for bx in thread_binding(0, 8, "blockIdx.x") {
//       for tx in thread_binding(0, 128, "threadIdx.x") {
//         B[bx * 128 + tx] = A[bx * 128 + tx] + 1.0f32
//       }
//     }
//   }
// splits into one launch {name "add_kernel0", grid (8, 1, 1), block (128, 1, 1),
// buffers [A, B], scalars []}.
//
// Every top-level statement of the body (under the decl_buffer views of parameters
// and the global allocations of intermediates that lowering adds) must be a kernel
// or a library call that a dispatch rule for the target left (`evaluate
// @tessel_cublas_gemm(..., address_of(A_1d[0]), ...): packed`), which becomes a
// library step {callee, arguments: constants, or storage at an element offset} that
// the runtime runs on the device between the kernels. Other host code between
// launches is not supported yet. The split is also the GPU
// verifier: one thread axis has one extent in a kernel, extents are constants, a
// block holds at most the target's threads, shared memory fits, and "vthread" is
// refused; each error names the loop or buffer. Grid (blockIdx) extents may be
// expressions of the host's shape variables and scalar parameters; block extents
// are constants.
#ifndef TESSEL_PASSES_GPU_KERNEL_LAUNCH_H_
#define TESSEL_PASSES_GPU_KERNEL_LAUNCH_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

// The limits of one thread block that the split checks (a cuda target's).
struct GpuLimits {
  int max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 48 * 1024;
};

// An argument of a library step: the address of storage `storage` plus `value`
// elements, or (storage -1) the 64-bit slot `value` (an integer; a float by its bits).
struct LibraryArg {
  int storage = -1;
  int64_t value = 0;
};

struct KernelLaunch {
  std::string name;  // "<function>_kernel<k>"; a library step: the callee
  // Set for a library step instead of a kernel: the packed function's name and its
  // arguments (then only `buffer_args` below is also filled).
  std::string library;
  std::vector<LibraryArg> library_args;
  ir::Stmt body;                             // The kernel's statement, thread-bound loops included.
  std::array<int64_t, 3> grid = {1, 1, 1};   // blockIdx.x/y/z extents (0: symbolic)
  // An axis whose extent is an expression of shape variables and scalar parameters
  // ((n + 255) // 256), evaluated by the runtime per call; null for a constant one.
  std::array<ir::Expr, 3> grid_exprs;
  std::array<int64_t, 3> block = {1, 1, 1};  // threadIdx.x/y/z extents
  int64_t shared_bytes = 0;                  // Static shared memory of the kernel.
  // The kernel's arguments in order: the storage it touches, by id (parameter i is
  // storage i; workspace j is storage num_params + j), then the scalar parameters and
  // shape variables it reads.
  std::vector<int> buffer_args;
  std::vector<ir::Var> scalars;
  // Host-level buffers the kernel reads or writes that are not the storage's own
  // buffer: views (`decl_buffer A_1d: f32[4096] = A`, as lowering flattens
  // parameters) and workspaces, each with its storage id.
  std::vector<std::pair<ir::Buffer, int>> views;
};

// The host's part of a split function: its kernels in order and the device buffers
// it allocates for them -- intermediates between kernels, which lowering leaves as
// global `allocate`s around the kernels (sized by constants, shape variables and
// scalar parameters).
struct KernelSplit {
  std::vector<KernelLaunch> launches;
  std::vector<ir::Buffer> workspaces;
};

// True when `func` has a loop bound to a GPU thread axis.
bool HasThreadBinding(const ir::PrimFunc& func);
// True when `func` calls a packed (library) function.
bool CallsLibrary(const ir::PrimFunc& func);

// Splits lowered `func` into its kernel launches; `name` names it in messages.
absl::StatusOr<KernelSplit> SplitKernels(const std::string& name, const ir::PrimFunc& func,
                                         const GpuLimits& limits);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GPU_KERNEL_LAUNCH_H_
