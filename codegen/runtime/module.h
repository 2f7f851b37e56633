// Module: compiled functions looked up by name and called with DLPack tensors or
// NDArrays, every argument checked first (arg_check.h). Backed by a library loaded
// from disk (export_library's output) or by functions compiled in this process (the
// JIT hands over their entry points and an owner that keeps the code alive).
//
//   absl::StatusOr<Module> m = Module::LoadLibrary("./kernels.so");
//   absl::Status s = m->Call("add", {a, b, c});            // NDArrays
//   // s: "add(A: f32[n], B: f32[n], C: f32[n]): argument 1 (B): expected dtype f32, given i32"
//
// Copies of a Module share the loaded code; it stays loaded while any copy lives.
#ifndef TESSEL_CODEGEN_RUNTIME_MODULE_H_
#define TESSEL_CODEGEN_RUNTIME_MODULE_H_

#include <dlpack/dlpack.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/runtime/graph_runner.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"
#include "ir/function.h"

namespace tessel::runtime {

class Module {
 public:
  struct Function {
    FunctionSignature signature;
    TesselPackedFunc packed = nullptr;
    // Threads of the function's parallel loops in each call (a target's
    // -num-threads); 0: the process-wide setting (tessel_set_num_threads).
    int32_t num_threads = 0;
    // Non-empty: why this process may not call the function (code built for a CPU
    // feature the host lacks, which would stop the process with SIGILL). Calls then
    // fail with FailedPrecondition and this text.
    std::string cannot_run;
  };

  Module() = default;  // Holds no functions.

  // Opens a library written by ExportLibrary (dlopen; see library_module.h).
  static absl::StatusOr<Module> LoadLibrary(const std::string& path);
  // Functions compiled in this process; `owner` (may be null) is kept alive as long as
  // the module, e.g. the JIT engine that holds their code. Fails on an invalid
  // signature, a null entry point or a repeated name.
  static absl::StatusOr<Module> FromFunctions(std::vector<Function> functions,
                                              std::shared_ptr<const void> owner);

  // The functions of `mod` compiled in this process: signatures from the PrimFuncs
  // (SignaturesOf), entry points from `lookup`, which gets each function's name in
  // `mod` (e.g. a JIT module's Lookup). Fails when a signature cannot be made or a
  // lookup fails. Every call runs its parallel loops on `num_threads` threads (0: the
  // process-wide setting); a non-empty `cannot_run` refuses every call (see Function).
  using Lookup = std::function<absl::StatusOr<TesselPackedFunc>(const std::string& name)>;
  static absl::StatusOr<Module> FromCompiled(const ir::IRModule& mod, const Lookup& lookup,
                                             std::shared_ptr<const void> owner,
                                             int32_t num_threads = 0,
                                             const std::string& cannot_run = "");

  // In the order the library or the JIT listed them.
  std::vector<std::string> FunctionNames() const;
  // Null when absent; valid while this module (or a copy) lives.
  const Function* Find(std::string_view name) const;
  absl::StatusOr<const Function*> GetFunction(std::string_view name) const;
  // "" unless loaded from a file.
  const std::string& library_path() const;
  // The graph functions a loaded library carries (graph_program.h); none for
  // in-process code, whose graphs GraphExecutor builds from the IRModule.
  std::vector<std::string> GraphNames() const;
  const GraphRunner* FindGraph(std::string_view name) const;

  // Checks the arguments against the function's signature, then calls it. Errors:
  // NotFound for an unknown name, InvalidArgument for a bad argument (nothing ran),
  // Internal when the kernel itself reported a failure.
  absl::Status Call(std::string_view name, absl::Span<DLTensor* const> args) const;
  absl::Status Call(std::string_view name, absl::Span<const NDArray> args) const;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

// Checks and calls one function (what Module::Call does once it found it), with its
// thread count for this call only.
absl::Status CallFunction(const Module::Function& function, absl::Span<DLTensor* const> args);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_MODULE_H_
