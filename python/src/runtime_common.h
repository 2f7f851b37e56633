// Pieces shared by the runtime bindings (runtime.cc: tessel.nd; runtime_module.cc:
// compiled modules and calls; build.cc: tessel.build).
#ifndef TESSEL_PYTHON_SRC_RUNTIME_COMMON_H_
#define TESSEL_PYTHON_SRC_RUNTIME_COMMON_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "codegen/runtime/module.h"
#include "codegen/runtime/ndarray.h"

namespace tessel::python {

namespace py = pybind11;

// A zero-copy numpy view of the NDArray held by the Python object `ndarray`, which
// becomes the view's base (so it outlives the view).
py::array NumpyViewOf(py::handle ndarray);

// Imports a DLPack producer (an object with __dlpack__, or a 'dltensor' capsule)
// without copying; raises ArgumentError for anything else or a refused tensor.
runtime::NDArray FromDLPackObject(py::handle obj);

// The Python handle of a compiled module (tessel.runtime.Module wraps it).
py::object WrapModule(runtime::Module module);

void BindRuntime(py::module_& m);        // tessel.nd, threads
void BindRuntimeModule(py::module_& m);  // modules, calls, timing, load/export
void BindBuild(py::module_& m);          // tessel.build (codegen)
void BindCudaModule(py::module_& m);     // tessel.build(target="cuda ...")
void BindGraphExecutor(py::module_& m);  // graph functions of built modules

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_RUNTIME_COMMON_H_
