// The launch manifest of a GPU program (codegen's LaunchManifest) read into
// checked functions: every parameter as a signature, every workspace, and every
// step -- a kernel with its grid (constants or ExtentExpr expressions), block,
// shared memory and arguments, or a library step with its arguments -- each
// storage id in range and each name known. Anything malformed is refused with a
// message naming the part; nothing throws.
//
//   std::vector<CudaFunction> fs;
//   ParseCudaManifest(R"({"version": 1, "functions": [...]})", &fs);   // "" or why
#ifndef TESSEL_CODEGEN_RUNTIME_CUDA_MANIFEST_H_
#define TESSEL_CODEGEN_RUNTIME_CUDA_MANIFEST_H_

#include <string>
#include <string_view>
#include <vector>

#include "codegen/runtime/cuda_program.h"

namespace tessel::runtime {

// "" and `out` filled, or why `manifest` is not a program's manifest.
std::string ParseCudaManifest(std::string_view manifest, std::vector<CudaFunction>* out);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_CUDA_MANIFEST_H_
