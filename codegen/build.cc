// codegen::Build (see build.h).
#include "codegen/build.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::codegen {

JitOptions WithRuntimeSymbols(JitOptions options) {
  options.symbols.insert(
      options.symbols.begin(),
      {{"tessel_parallel_for", reinterpret_cast<void*>(&tessel_parallel_for)},
       {"tessel_set_last_error", reinterpret_cast<void*>(&tessel_set_last_error)},
       {"tessel_get_num_threads", reinterpret_cast<void*>(&tessel_get_num_threads)}});
  return options;
}

absl::StatusOr<runtime::Module> Build(const ir::IRModule& mod, const Target& target,
                                      const BuildOptions& options) {
  ir::IRModule lowered = mod;
  if (options.lower) {
    absl::StatusOr<ir::IRModule> out =
        passes::RunPipeline("lower", mod, passes::PassContext::Current());
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("build: lowering failed: ", out.status().message()));
    }
    lowered = *std::move(out);
  }
  absl::StatusOr<std::shared_ptr<JitModule>> jit =
      JitCompile(lowered, target, WithRuntimeSymbols(options.jit));
  if (!jit.ok()) return jit.status();
  std::shared_ptr<JitModule> owner = *jit;
  return runtime::Module::FromCompiled(
      lowered, [&](const std::string& name) { return owner->Lookup(name); }, owner);
}

}  // namespace tessel::codegen
