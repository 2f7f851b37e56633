// Graph functions of built modules for Python: `ex["main"](x, w)` runs a whole
// model on its compiled kernels (codegen/runtime/graph_executor.h) and returns
// its results as numpy arrays.
//
//   >>> ex = tessel.build(planned_module)
//   >>> y = ex["main"](x, w1, b1, w2)
//   >>> ex["main"](x[:, :5], w1, b1, w2)
//   tessel.ArgumentError: main(x: f32[128, 768], ...): argument 0 (x): expected shape ...
//
// Inputs are taken as function arguments are (call_args.h), read-only; each call
// returns new arrays that share nothing with the executor's storage. A library
// exported from such a module carries its graphs: load_library(path)["main"] runs them.
#include "codegen/runtime/graph_executor.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "python/src/call_args.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

using runtime::GraphExecutor;

py::list Run(const GraphExecutor& ex, py::sequence args, std::vector<double>* kernel_seconds) {
  CallArgs call(ex.signature(), args);
  absl::StatusOr<std::vector<runtime::NDArray>> results;
  {
    py::gil_scoped_release release;
    results = ex.Run(call.tensors(), kernel_seconds);
  }
  if (!results.ok()) {
    ThrowStatus(
        absl::IsInvalidArgument(results.status()) ? ErrorKind::kArgument : ErrorKind::kRuntime,
        results.status());
  }
  py::list out;
  for (runtime::NDArray& r : *results) {
    // A GPU program's results are on the device: copied back.
    const bool on_device = r.dltensor()->device.device_type != kDLCPU;
    py::object array = py::cast(std::move(r));
    out.append(on_device ? array.attr("numpy")() : NumpyViewOf(array));
  }
  return out;
}

}  // namespace

void BindGraphExecutor(py::module_& m) {
  py::class_<GraphExecutor>(m, "GraphExecutor")
      .def_property_readonly(
          "signature",
          [](const GraphExecutor& ex) { return runtime::DescribeSignature(ex.signature()); })
      .def_property_readonly("result_names", &GraphExecutor::result_names)
      .def_property_readonly("param_names",
                             [](const GraphExecutor& ex) {
                               std::vector<std::string> names;
                               for (const auto& p : ex.signature().params) names.push_back(p.name);
                               return names;
                             })
      .def(
          "run", [](const GraphExecutor& ex, py::sequence args) { return Run(ex, args, nullptr); },
          py::arg("args"))
      .def(
          "run_profiled",
          [](const GraphExecutor& ex, py::sequence args) {
            std::vector<double> seconds;
            py::list results = Run(ex, args, &seconds);
            return py::make_tuple(results, seconds);
          },
          py::arg("args"), "run, and each kernel's wall time in seconds, in launch order")
      .def_property_readonly("kernel_names",
                             [](const GraphExecutor& ex) {
                               std::vector<std::string> names;
                               for (const auto& k : ex.program().kernels)
                                 names.push_back(k.function);
                               return names;
                             })
      // These wait while another thread runs the graph: without the GIL.
      .def("describe", &GraphExecutor::Describe, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("planned_bytes",
                             [](const GraphExecutor& ex) {
                               py::gil_scoped_release release;
                               return ex.planned_bytes();
                             })
      .def_property_readonly("unplanned_bytes", [](const GraphExecutor& ex) {
        py::gil_scoped_release release;
        return ex.unplanned_bytes();
      });
  m.def(
      "graph_executor",
      [](ir::IRModule mod, const std::string& name, const runtime::Module& kernels) {
        return Unwrap(GraphExecutor::Create(mod, name, kernels), ErrorKind::kBuild);
      },
      py::arg("mod"), py::arg("name"), py::arg("kernels"));
  m.def(
      "library_graph_executor",
      [](const runtime::Module& library, const std::string& name) {
        return Unwrap(GraphExecutor::FromLibrary(library, name), ErrorKind::kArgument);
      },
      py::arg("library"), py::arg("name"));
}

}  // namespace tessel::python
