// tessel.build for Python: compiles a lowered IRModule in this process (codegen's JIT)
// into a runtime Module, and emits its object code for export_library.
//
//   >>> ex = tessel.build(mod, target="llvm")           # lowers, then compiles here
//   >>> ex["matmul"](a, b, c)
//   >>> tessel.build(mod, target="llvm -mcpu=nehalem2")
//   tessel.BuildError: unknown CPU 'nehalem2' ...
//
// The lowering pipeline runs in Python (tessel/runtime.py) so that it sees the
// PassContext; this file takes the lowered module. Compiling runs without the GIL.
// codegen::Build gives the JIT the runtime's C functions (tessel_parallel_for, ...)
// by address: Python opened this extension, and with it libtessel_runtime,
// privately (RTLD_LOCAL), so a lookup in the process would not find them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/build.h"
#include "codegen/cpu_feature_resolver.h"
#include "codegen/emit.h"
#include "codegen/jit.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/tessel_runtime.h"
#include "codegen/target.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

codegen::Target ParseTarget(const std::string& text) {
  return Unwrap(codegen::Target::Parse(text), ErrorKind::kBuild);
}

}  // namespace

void BindBuild(py::module_& m) {
  codegen::InstallCpuFeatureResolver();  // default-schedule{target="llvm -mcpu=..."}
  m.def(
      "parse_target",
      [](const std::string& text) {
        const codegen::Target target = ParseTarget(text);
        return py::make_tuple(target.ToString(), target.num_threads);
      },
      py::arg("target"));
  m.def(
      "features_missing_on_host",
      [](const std::string& text) { return ParseTarget(text).FeaturesMissingOnHost(); },
      py::arg("target"),
      "The CPU features `target` enables that this machine lacks (calls are refused then).");
  m.def("clear_jit_cache", [] {
    py::gil_scoped_release release;  // Freeing code may take a while.
    codegen::ClearJitCache();
  });
  m.def(
      "set_jit_cache_limit",
      [](int64_t limit) {
        if (limit < 0) Throw(ErrorKind::kArgument, "set_jit_cache_limit: the limit is >= 0");
        py::gil_scoped_release release;
        codegen::SetJitCacheLimit(limit);
      },
      py::arg("limit"));
  m.def("jit_cache_info", [] {
    return py::make_tuple(codegen::JitCacheSize(), codegen::JitCacheLimit(),
                          codegen::JitCompileCount());
  });
  m.def(
      "build",
      [](ir::IRModule mod, const std::string& target_text) {
        const codegen::Target target = ParseTarget(target_text);
        absl::StatusOr<runtime::Module> module;
        {
          py::gil_scoped_release release;
          codegen::BuildOptions options;
          options.lower = false;  // tessel.build ran the pipeline, under the PassContext.
          module = codegen::Build(mod, target, options);
        }
        return Unwrap(std::move(module), ErrorKind::kBuild);
      },
      py::arg("mod"), py::arg("target"));
  m.def(
      "emit_object",
      [](ir::IRModule mod, const std::string& target_text) {
        const codegen::Target target = ParseTarget(target_text);
        absl::StatusOr<std::string> code;
        {
          py::gil_scoped_release release;
          code = codegen::EmitObject(mod, target);
        }
        return py::bytes(Unwrap(std::move(code), ErrorKind::kBuild));
      },
      py::arg("mod"), py::arg("target"));
  m.def(
      "emit",
      [](ir::IRModule mod, const std::string& target_text, const std::string& stage) {
        if (stage != "mlir" && stage != "mlir-llvm" && stage != "llvm" && stage != "asm") {
          Throw(ErrorKind::kArgument,
                "emit: unknown stage '" + stage + "' (mlir, mlir-llvm, llvm, asm)");
        }
        const codegen::Target target = ParseTarget(target_text);
        absl::StatusOr<std::string> text;
        {
          py::gil_scoped_release release;
          if (stage == "llvm") {
            text = codegen::EmitLLVMIR(mod, target);
          } else if (stage == "asm") {
            text = codegen::EmitAssembly(mod, target);
          } else {
            text = codegen::EmitMLIR(mod, target, /*llvm_dialect=*/stage == "mlir-llvm");
          }
        }
        return Unwrap(std::move(text), ErrorKind::kBuild);
      },
      py::arg("mod"), py::arg("target"), py::arg("stage"));
}

}  // namespace tessel::python
