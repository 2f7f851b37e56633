// GPU codegen: lowered thread-bound functions to PTX through MLIR's gpu and nvvm
// dialects, and the launch manifest by which tessel-gpu-run and the CUDA runtime
// (codegen/runtime/tessel_cuda.h) run them.
//
//   func @add(A: f32[1024], B: f32[1024]) {
//     for bx in thread_binding(0, 8, "blockIdx.x") {
//       for tx in thread_binding(0, 128, "threadIdx.x") {
//         B[bx * 128 + tx] = A[bx * 128 + tx] + 1.0f32
//       }
//     }
//   }
// with target "cuda -arch=sm_90" becomes
//
//   gpu.module @tessel_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
//     gpu.func @add_kernel0(%A: !llvm.ptr, %B: !llvm.ptr) kernel
//         attributes {known_block_size = array<i32: 128, 1, 1>} {
//       %bx = gpu.block_id x   %tx = gpu.thread_id x   (the loop variables)
//       ... B[bx * 128 + tx] = A[...] + 1 ...
//     }
//   }
//
// then convert-gpu-to-nvvm and gpu-module-to-binary{format=isa} give the PTX, with
// libdevice linked from the CUDA toolkit ($CUDA_HOME, else /usr/local/cuda) for math
// functions. Kernels take each buffer as a pointer and each scalar by value, in the
// order KernelLaunch lists them (passes/gpu/kernel_launch.h).
#ifndef TESSEL_CODEGEN_GPU_CODEGEN_H_
#define TESSEL_CODEGEN_GPU_CODEGEN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/target.h"
#include "ir/function.h"
#include "passes/gpu/kernel_launch.h"

namespace tessel::codegen {

struct GpuFunction {
  std::string name;  // The IRModule's name of the function.
  ir::PrimFunc func;
  std::vector<passes::KernelLaunch> launches;  // In launch order.
  std::vector<ir::Buffer> workspaces;          // Device buffers the host allocates for them.
};

struct GpuProgram {
  std::string ptx;
  std::vector<GpuFunction> functions;
};

// The gpu.module as translated (before the NVVM lowering), for --emit=mlir.
absl::StatusOr<std::string> EmitGpuMLIR(const ir::IRModule& mod, const Target& target);

// PTX for every kernel of every function of `mod`, and their launches. `target` must
// be a cuda target; `mod` lowered, each function's work in thread-bound loops.
absl::StatusOr<GpuProgram> BuildGpuProgram(const ir::IRModule& mod, const Target& target);

// The launch manifest of `program` as JSON: for each function its parameters (name,
// dtype, shape, whether a kernel writes it), workspaces (name, dtype, elements) and kernels (name,
// grid, block, shared bytes, arguments: storage ids -- parameter i is i, workspace j is num_params
// + j -- then scalars; a grid extent of shape variables as its expression, "(n + 255) //
// 256"), in order with the library steps among them ({name, library: the
// packed function, args: [{storage, offset} | {value}]}).
std::string LaunchManifest(const GpuProgram& program);

// The CUDA toolkit directory: $CUDA_HOME if set, else /usr/local/cuda.
std::string CudaToolkitPath();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GPU_CODEGEN_H_
