// AOT export: compiled objects + the functions' signatures -> a shared library that
// libtessel_runtime loads (tessel_module_load), plus a C header for C callers.
//
//   ExportLibrary({"matmul.o"}, sigs, "build/kernels.so");
//   // writes build/kernels.so: matmul.o + a generated C file defining
//   //   const char* tessel_module_metadata(void)   (SerializeSignatures(sigs))
//   // linked with `cc -shared ... -ltessel_runtime`, and build/kernels.h:
//   //   /* matmul(A: f32[128, 64], B: f32[64, 32], C: f32[128, 32]) ... */
//   //   static inline int32_t kernels_matmul(TesselModule* m, DLTensor* A, DLTensor* B,
//   //                                        DLTensor* C);
//
// The objects must be position-independent and define tessel_packed_<name> for every
// signature (what codegen's object emission writes). The library records a
// dependency on libtessel_runtime (and on libtessel_dispatch_runtime when its code
// calls a dispatch shim), so it also loads into a process that opened the runtime
// privately (e.g. Python). It finds them through its RUNPATH: `$ORIGIN` (a copy
// beside it) and the directory the running process loaded libtessel_runtime from
// (the install prefix's lib/ for an installed tessel); with `bundle_runtime`, copies
// of them are written beside the library and `$ORIGIN` is its only RUNPATH, so the
// directory can be moved or shipped as it is.
#ifndef TESSEL_CODEGEN_RUNTIME_EXPORT_LIBRARY_H_
#define TESSEL_CODEGEN_RUNTIME_EXPORT_LIBRARY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "codegen/runtime/graph_program.h"
#include "codegen/runtime/signature.h"
#include "ir/function.h"

namespace tessel::runtime {

struct ExportOptions {
  std::string compiler;                  // "" -> $TESSEL_CC, else "cc".
  std::string header_path;               // "" -> the library path with ".h" for its extension.
  std::string header_prefix;             // "" -> the library's file name stem, as an identifier.
  std::string runtime_library_dir;       // "" -> DefaultRuntimeLibraryDir().
  // The runtime libraries linked, by name ("tessel_runtime" -> -ltessel_runtime);
  // ExportModule adds "tessel_dispatch_runtime" for code that calls its shims.
  std::vector<std::string> runtime_libraries = {"tessel_runtime"};
  // Copy the runtime libraries beside the library and make `$ORIGIN` its only RUNPATH.
  bool bundle_runtime = false;
  std::vector<std::string> extra_flags;  // Appended to the link command.
  // The instruction-set features the objects were compiled for (codegen's
  // Target::IsaFeatures()): recorded in the metadata, so that a load on a CPU that
  // lacks one refuses calls instead of dying with SIGILL.
  std::vector<std::string> cpu_features;
  // Graph functions over the library's functions (graph_program.h), run from C with
  // tessel_graph_run; the header gets a <prefix>_<graph>(module, inputs..., outputs...).
  std::vector<GraphProgram> graphs;
  // A GPU program the library carries (cuda_program.h): its PTX and launch
  // manifest, whose functions tessel_cuda_program_load / LoadCudaProgram read back
  // and the header wraps (with tessel_cuda_program_call).
  std::string cuda_ptx, cuda_manifest;
};

// Writes the library and its header. Fails on an invalid or repeated signature, a
// missing object file, or a failing compiler (its output in the message).
absl::Status ExportLibrary(const std::vector<std::string>& object_files,
                           const std::vector<FunctionSignature>& signatures,
                           const std::string& library_path, const ExportOptions& options = {});

// Exports the functions of `mod` from the object code compiled for it (the bytes of
// an ELF object, e.g. codegen's EmitObject): signatures from the PrimFuncs
// (SignaturesOf), its graph functions as programs (GraphProgramOf: they must be
// legalized), the object written to a temporary file, then ExportLibrary.
absl::Status ExportModule(const ir::IRModule& mod, const std::string& object_code,
                          const std::string& library_path, const ExportOptions& options = {});

// The generated pieces, for inspection and tests.
// With `constants_file`, the library also carries that file's bytes (the graphs'
// constants, `constants_bytes` of them) and tessel_module_constants() returns them.
std::string MetadataSource(const std::vector<FunctionSignature>& signatures,
                           const std::vector<std::string>& cpu_features = {},
                           const std::vector<GraphProgram>& graphs = {},
                           const std::string& constants_file = "", int64_t constants_bytes = 0);
// The graphs' constants as one blob: each constant's bytes once (by address), at a
// 64-byte aligned offset, which `graphs` is updated to. An error names a constant
// without data.
absl::StatusOr<std::string> PackConstants(std::vector<GraphProgram>* graphs);
std::string HeaderSource(const std::vector<FunctionSignature>& signatures,
                         const std::string& prefix, const std::vector<GraphProgram>& graphs = {},
                         const std::vector<FunctionSignature>& cuda_functions = {});

// The directory of the libtessel_runtime.so this process runs (dladdr), where the
// runtime libraries are linked from; the build's lib/ if that cannot be found.
std::string DefaultRuntimeLibraryDir();

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_EXPORT_LIBRARY_H_
