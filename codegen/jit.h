// Compiling a lowered IRModule in memory and calling its functions.
//
//   absl::StatusOr<std::shared_ptr<JitModule>> m = JitCompile(mod, *Target::Parse("llvm"));
//   absl::StatusOr<TesselPackedFunc> f = (*m)->Lookup("vector_add");   // name or global symbol
//   void* args[3] = {a.data(), b.data(), c.data()};                     // 64-byte aligned
//   int32_t rc = (*f)(args, 3);
//
// Compiled modules are cached by structural hash of the IRModule plus the target
// string (and the JIT options): compiling an unchanged module again returns the
// same JitModule without recompiling, within the cache's bound (below). Calls to extern C symbols are resolved, at
// compile time, from `JitOptions::symbols`, then the shared libraries in
// `JitOptions::shared_libraries`, then the process (which must provide
// tessel_parallel_for when the module has parallel loops: libtessel_runtime).
#ifndef TESSEL_CODEGEN_JIT_H_
#define TESSEL_CODEGEN_JIT_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/runtime/tessel_runtime.h"
#include "codegen/target.h"
#include "ir/function.h"

namespace tessel::codegen {

struct JitOptions {
  // Shared libraries to resolve extern symbols from (loaded for the process).
  std::vector<std::string> shared_libraries;
  // Symbols defined by address, looked up before anything else.
  std::vector<std::pair<std::string, void*>> symbols;
  bool use_cache = true;
};

class JitModule {
 public:
  virtual ~JitModule() = default;
  // The packed function of IRModule function `name` (or of global symbol `name`).
  virtual absl::StatusOr<TesselPackedFunc> Lookup(const std::string& name) const = 0;
  // The IRModule's function names, in order.
  virtual std::vector<std::string> FunctionNames() const = 0;
  virtual const Target& target() const = 0;
  // Milliseconds spent compiling (translation, lowering, O3, machine code).
  virtual double compile_ms() const = 0;
};

absl::StatusOr<std::shared_ptr<JitModule>> JitCompile(const ir::IRModule& mod, const Target& target,
                                                      const JitOptions& options = {});

// Number of compilations done by JitCompile (cache hits excluded), for tests.
int64_t JitCompileCount();

// The cache: a module still held anywhere (a Module built from it, a Python object)
// is found again while it lives; besides, the cache itself keeps the `limit` most
// recently used alive (default kDefaultJitCacheLimit, or TESSEL_JIT_CACHE_SIZE).
// Compiled code held by nobody and not among those is freed.
inline constexpr int64_t kDefaultJitCacheLimit = 64;
// Lets go of every module the cache keeps alive and forgets the others.
void ClearJitCache();
// How many modules the cache keeps alive (0: none; negative counts as 0).
void SetJitCacheLimit(int64_t limit);
int64_t JitCacheLimit();
// How many it keeps alive now.
int64_t JitCacheSize();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_JIT_H_
