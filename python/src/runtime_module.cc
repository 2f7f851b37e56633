// Compiled modules for Python: calling their functions with numpy arrays, NDArrays,
// DLPack tensors and numbers; timing them; loading and exporting libraries.
//
//   >>> lib = tessel.load_library("kernels.so")
//   >>> lib["vector_add"](a, b, c, 1000)       # numpy arrays; c is written in place
//   >>> lib["vector_add"](a, b, c.astype("int32"), 1000)
//   tessel.ArgumentError: vector_add(A: f32[n], B: f32[n], C: f32[n], n: i32):
//       argument 2 (C): expected dtype f32, given i32
//
// How arguments reach the kernel (one rule, documented in tessel/runtime.py):
// - an NDArray (or any DLPack producer) is passed as it is: zero-copy; the call
//   checks its layout and refuses a strided or misaligned one;
// - a numpy array that is C-contiguous, 64-byte aligned and writeable is passed
//   zero-copy; any other numpy array (a slice, a transpose, numpy's usual 16-byte
//   alignment, a read-only input) is copied into an aligned NDArray, and after the
//   call copied back into the caller's array when the function writes it;
// - a read-only array (np.broadcast_to, a buffer from bytes) for a buffer the
//   function writes is refused, and so is an array that shares memory with
//   another argument where one of the two is written (`mm(A, B, A)`): the check
//   looks at the caller's arrays, before any staging copy hides the overlap;
// - a number for a scalar parameter, converted to the parameter's dtype (an int
//   that does not fit, a float for an integer or a non-bool for a bool raises).
// Every check happens before anything runs; the kernel runs without the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/time_evaluator.h"
#include "codegen/target.h"
#include "python/src/call_args.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

using runtime::FunctionSignature;
using runtime::Module;

const Module::Function& FindFunction(const Module& m, const std::string& name) {
  absl::StatusOr<const Module::Function*> f = m.GetFunction(name);
  if (!f.ok()) Throw(ErrorKind::kArgument, std::string(f.status().message()));
  return **f;
}

// InvalidArgument: a refused argument; anything else: the kernel failed.
[[noreturn]] void ThrowCallStatus(const absl::Status& s) {
  ThrowStatus(absl::IsInvalidArgument(s) ? ErrorKind::kArgument : ErrorKind::kRuntime, s);
}

void Call(const Module& m, const std::string& name, py::sequence args) {
  const Module::Function& f = FindFunction(m, name);
  CallArgs call(f.signature, args);
  absl::Status s;
  {
    py::gil_scoped_release release;
    s = runtime::CallFunction(f, call.tensors());
  }
  if (!s.ok()) ThrowCallStatus(s);
  call.CopyBack();
}

py::tuple Time(const Module& m, const std::string& name, py::sequence args, int64_t number,
               int64_t repeat, double min_repeat_ms, bool flush_cache, int64_t warmup) {
  const Module::Function& f = FindFunction(m, name);
  runtime::TimeOptions options{number,      repeat, min_repeat_ms, flush_cache,
                               warmup,      PythonInterrupted};
  CallArgs call(f.signature, args);
  absl::StatusOr<runtime::TimeResult> r;
  ClearStashedPythonError();
  {
    py::gil_scoped_release release;
    r = runtime::TimeFunction(f, call.tensors(), options);
  }
  RethrowStashedPythonError();
  if (!r.ok()) ThrowCallStatus(r.status());
  call.CopyBack();
  return py::make_tuple(r->seconds_per_call, r->number, r->total_calls);
}

}  // namespace

py::object WrapModule(Module module) { return py::cast(std::move(module)); }

void BindRuntimeModule(py::module_& m) {
  py::class_<Module>(m, "RuntimeModule")
      .def("function_names", &Module::FunctionNames)
      .def("signature",
           [](const Module& self, const std::string& name) {
             return runtime::DescribeSignature(FindFunction(self, name).signature);
           })
      .def_property_readonly("library_path", &Module::library_path)
      .def("graph_names", &Module::GraphNames)
      .def("call", &Call, py::arg("name"), py::arg("args"))
      .def("time", &Time, py::arg("name"), py::arg("args"), py::arg("number"), py::arg("repeat"),
           py::arg("min_repeat_ms"), py::arg("flush_cache"), py::arg("warmup"));

  m.def(
      "load_library",
      [](const std::string& path) {
        return Unwrap(Module::LoadLibrary(path), ErrorKind::kRuntime);
      },
      py::arg("path"));
  m.def(
      "export_object",
      [](ir::IRModule mod, py::bytes object_code, const std::string& path,
         const std::string& header_path, const std::string& target, bool bundle_runtime) {
        runtime::ExportOptions options;
        options.header_path = header_path;
        options.bundle_runtime = bundle_runtime;
        if (!target.empty()) {
          options.cpu_features =
              Unwrap(codegen::Target::Parse(target), ErrorKind::kBuild).IsaFeatures();
        }
        std::string code = object_code;
        absl::Status s;
        {
          py::gil_scoped_release release;
          s = runtime::ExportModule(mod, code, path, options);
        }
        Check(s, ErrorKind::kBuild);
      },
      py::arg("mod"), py::arg("object_code"), py::arg("path"), py::arg("header_path") = "",
      py::arg("target") = "", py::arg("bundle_runtime") = false);
}

}  // namespace tessel::python
