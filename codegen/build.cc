// codegen::Build (see build.h).
#include "codegen/build.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/runtime/dispatch_runtime.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::codegen {

JitOptions WithRuntimeSymbols(JitOptions options) {
  options.symbols.insert(
      options.symbols.begin(),
      {{"tessel_parallel_for", reinterpret_cast<void*>(&tessel_parallel_for)},
       {"tessel_set_last_error", reinterpret_cast<void*>(&tessel_set_last_error)},
       {"tessel_get_num_threads", reinterpret_cast<void*>(&tessel_get_num_threads)}});
  // The library shims dispatched functions call (dispatch/runtime/).
  for (const TesselShim* s = tessel_dispatch_shims(); s->name != nullptr; ++s) {
    options.symbols.push_back({s->name, reinterpret_cast<void*>(s->fn)});
  }
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
  // Compiling for another CPU is fine (the object can be exported); running its code
  // here is not, where it uses what this CPU lacks.
  std::string cannot_run;
  if (std::vector<std::string> missing = target.FeaturesMissingOnHost(); !missing.empty()) {
    cannot_run = absl::StrCat(
        "compiled for '", target.ToString(), "', which uses CPU features this machine lacks (",
        absl::StrJoin(missing, ", "),
        "), so it cannot run here; build for 'llvm' to run here, or export the library and run "
        "it on such a CPU");
  }
  return runtime::Module::FromCompiled(
      lowered, [&](const std::string& name) { return owner->Lookup(name); }, owner,
      target.num_threads, cannot_run);
}

}  // namespace tessel::codegen
