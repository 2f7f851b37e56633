// A shared library written by export_library, opened with dlopen: its metadata
// (tessel_module_metadata(), see signature.h) and one tessel_packed_<name> per function.
//
//   std::string error;
//   std::unique_ptr<LibraryModule> lib = LibraryModule::Load("./kernels.so", &error);
//   if (!lib) ... error == "./kernels.so: not a tessel library (no tessel_module_metadata)"
//   const LibraryModule::Function* f = lib->Find("add");
//   CheckAndCall(f->signature, f->packed, args, 3);
//
// The library stays open while the object lives. It backs the C API's TesselModule
// and the C++ Module alike.
#ifndef TESSEL_CODEGEN_RUNTIME_LIBRARY_MODULE_H_
#define TESSEL_CODEGEN_RUNTIME_LIBRARY_MODULE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/runtime/graph_runner.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {

// The symbol holding a library's metadata text: const char* tessel_module_metadata(void).
inline constexpr const char* kMetadataSymbol = "tessel_module_metadata";
// The symbol returning the bytes of a library's graph constants:
// const void* tessel_module_constants(int64_t* size).
inline constexpr const char* kConstantsSymbol = "tessel_module_constants";
// The symbols returning a library's GPU program (cuda_program.h), when it carries
// one: const char* tessel_cuda_ptx(void) and const char* tessel_cuda_manifest(void).
inline constexpr const char* kCudaPtxSymbol = "tessel_cuda_ptx";
inline constexpr const char* kCudaManifestSymbol = "tessel_cuda_manifest";
// The prefix of a function's entry point: tessel_packed_<name>.
inline constexpr const char* kPackedPrefix = "tessel_packed_";

class LibraryModule {
 public:
  struct Function {
    FunctionSignature signature;
    TesselPackedFunc packed;
    // Non-empty when calls are refused, and why: the library was compiled for
    // instruction-set features this CPU lacks (its metadata's cpu-features).
    std::string cannot_run;
  };

  // Null with `*error` set when the file cannot be opened, has no or bad metadata,
  // or lacks an entry point the metadata lists.
  static std::unique_ptr<LibraryModule> Load(const std::string& path, std::string* error);
  ~LibraryModule();
  LibraryModule(const LibraryModule&) = delete;
  LibraryModule& operator=(const LibraryModule&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<Function>& functions() const { return functions_; }
  // Null when absent.
  const Function* Find(std::string_view name) const;
  // The library's graph functions (graph_program.h); null when absent.
  const std::vector<std::unique_ptr<GraphRunner>>& graphs() const { return graphs_; }
  const GraphRunner* FindGraph(std::string_view name) const;
  // "no function 'x' in <path> (it has: a, b)".
  std::string NotFoundMessage(std::string_view name) const;

 private:
  LibraryModule() = default;
  std::string path_;
  void* handle_ = nullptr;
  std::vector<Function> functions_;
  std::vector<std::unique_ptr<GraphRunner>> graphs_;
};

// The file this libtessel_runtime was loaded from, as the loader names it ("" when
// unknown): found from an address inside the library itself, so a caller's PLT stub
// of a runtime function never stands in for it.
std::string RuntimeLibraryFile();

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_LIBRARY_MODULE_H_
