// Graph functions for Python (ir/graph_function.h): the value and function
// types, operator type inference for the builder in tessel/graph.py, and the
// reference run on numpy arrays.
//
//   >>> x = _core.graph_value("x", [8, 16], "float32")
//   >>> y = _core.graph_infer_op("relu", [x], {}, "y")          # Buffer y: f32[8, 16]
//   >>> g = _core.make_graph_func([x], [([y], "op", "relu", [x], {})], [y], {})
//   >>> _core.run_graph(IRModule({"main": g}), "main", [np.ones((8, 16), "float32")])
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/interpreter.h"
#include "ir/graph/op_registry.h"
#include "ir/lexer.h"
#include "ir/printer.h"
#include "python/src/common.h"

namespace tessel::python {
namespace {

using Binding = std::tuple<std::vector<ir::Buffer>, std::string, std::string,
                           std::vector<ir::Buffer>, py::object>;

ir::GraphBinding BindingFromPy(const Binding& b) {
  const auto& [outputs, kind, callee, args, attrs] = b;
  if (kind != "op" && kind != "call_tir") {
    Throw(ErrorKind::kArgument,
          absl::StrCat("a binding's kind is 'op' or 'call_tir', got '", kind, "'"));
  }
  ir::GraphCall call{kind == "op" ? ir::GraphCall::Kind::kOp : ir::GraphCall::Kind::kCallTir,
                     callee, args, AttrsFromPy(attrs)};
  return ir::GraphBinding{outputs, std::move(call)};
}

py::tuple BindingToPy(const ir::GraphBinding& b) {
  return py::make_tuple(b.outputs, ir::GraphCallKindName(b.call.kind), b.call.callee, b.call.args,
                        AttrsToPy(b.call.attrs));
}

ir::HostBuffer HostBufferFromArray(py::handle h, size_t index) {
  const std::string what = absl::StrCat("input ", index);
  if (!py::isinstance<py::array>(h)) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": expected a numpy array, got ",
                                             py::repr(py::type::of(h)).cast<std::string>()));
  }
  // Not numpy.ascontiguousarray: it turns a 0-d array (a scalar weight) into 1-d.
  py::array a = py::array::ensure(h, py::array::c_style);
  if (!a)
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": the array cannot be made C-contiguous"));
  ir::DataType t;
  try {
    t = DtypeFromPy(a.attr("dtype"));
  } catch (const Error&) {
    Throw(ErrorKind::kArgument,
          absl::StrCat(what, ": numpy dtype ", a.attr("dtype").attr("name").cast<std::string>(),
                       " has no tessel counterpart"));
  }
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  ir::HostBuffer b = ir::HostBuffer::Zeros(t, shape);
  if (a.nbytes() > 0) std::memcpy(b.data(), a.data(), a.nbytes());
  return b;
}

py::array ArrayFromHostBuffer(const ir::HostBuffer& b) {
  std::vector<py::ssize_t> shape(b.shape().begin(), b.shape().end());
  py::array out(py::dtype::from_args(NumpyDtype(b.dtype())), shape);
  if (out.nbytes() > 0) std::memcpy(out.mutable_data(), b.data(), out.nbytes());
  return out;
}

}  // namespace

void BindGraph(py::module_& m) {
  py::class_<ir::GraphFuncNode, ir::Node, ir::Ref<ir::GraphFuncNode>>(
      m, "GraphFunc",
      "A whole model: bindings of operator calls and call_tir over tensor values. str() is .tsl.")
      .def_property_readonly(
          "params", [](const ir::GraphFuncNode& g) { return g.params; }, "The input values.")
      .def_property_readonly(
          "results", [](const ir::GraphFuncNode& g) { return g.results; }, "The returned values.")
      .def_property_readonly(
          "bindings",
          [](const ir::GraphFuncNode& g) {
            py::list out;
            for (const ir::GraphBinding& b : g.bindings) out.append(BindingToPy(b));
            return out;
          },
          "(outputs, 'op' or 'call_tir', callee, args, attrs) per binding, in order.")
      .def_property_readonly(
          "attrs", [](const ir::GraphFuncNode& g) { return AttrsToPy(g.attrs); },
          "A copy of the attributes as a dict.")
      .def(
          "script",
          [](const ir::GraphFunc& g, const std::string& name) {
            return ir::PrintGraphFunction(g, name);
          },
          py::arg("name") = "main", "The function as .tsl text, named `name`.")
      .def("__str__", [](const ir::GraphFunc& g) { return ir::PrintGraphFunction(g, "main"); })
      .def("__repr__", [](const ir::GraphFuncNode& g) {
        std::vector<std::string> names;
        for (const ir::Buffer& p : g.params) names.push_back(p->name);
        return absl::StrCat("<tessel.GraphFunc(", absl::StrJoin(names, ", "),
                            "): ", g.bindings.size(), " bindings>");
      });

  m.def(
      "graph_value",
      [](const std::string& name, const std::vector<py::object>& shape, py::object dtype) {
        std::vector<ir::Expr> dims;
        for (const py::object& d : shape) dims.push_back(ExprFromPy(d, ir::DataType::Int(32)));
        return Unwrap(ir::MakeBufferChecked(name, DtypeFromPy(dtype), std::move(dims)),
                      ErrorKind::kArgument);
      },
      py::arg("name"), py::arg("shape"), py::arg("dtype"), "A tensor value of a graph function.");
  m.def(
      "graph_infer_op",
      [](const std::string& op, const std::vector<ir::Buffer>& args, py::object attrs,
         const std::string& name) {
        ir::GraphCall call{ir::GraphCall::Kind::kOp, op, args, AttrsFromPy(attrs)};
        return Unwrap(ir::graph::InferGraphOp(call, name), ErrorKind::kIR).output;
      },
      py::arg("op"), py::arg("args"), py::arg("attrs"), py::arg("name"),
      "The value an operator call gives, named `name`.");
  m.def("graph_op_names", &ir::graph::GraphOpNames, "Every graph-level operator.");
  m.def(
      "is_reserved_word", [](const std::string& word) { return ir::IsReservedWord(word); },
      py::arg("word"), "Whether `word` is reserved in .tsl and cannot name a value.");
  m.def(
      "dtype_text", [](py::object dtype) { return DtypeFromPy(dtype).ToString(); },
      py::arg("dtype"), "A dtype as the IR spells it: 'float32' -> 'f32'.");
  m.def(
      "make_graph_func",
      [](std::vector<ir::Buffer> params, const std::vector<Binding>& bindings,
         std::vector<ir::Buffer> results, py::object attrs) {
        std::vector<ir::GraphBinding> bs;
        for (const Binding& b : bindings) bs.push_back(BindingFromPy(b));
        return Unwrap(ir::MakeGraphFuncChecked(std::move(params), std::move(bs), std::move(results),
                                               AttrsFromPy(attrs)),
                      ErrorKind::kIR);
      },
      py::arg("params"), py::arg("bindings"), py::arg("results"), py::arg("attrs") = py::none());
  m.def(
      "run_graph",
      [](const ir::IRModule& mod, const std::string& name, const py::list& inputs,
         int64_t max_steps) {
        ir::GraphFunc g = mod->LookupGraph(name);
        if (!g)
          Throw(ErrorKind::kArgument,
                absl::StrCat("the module has no graph function '", name, "'"));
        if (inputs.size() != g->params.size()) {
          Throw(ErrorKind::kArgument,
                absl::StrCat("graph function '", name, "' takes ", g->params.size(),
                             " inputs, got ", inputs.size()));
        }
        std::vector<ir::HostBuffer> in;
        for (size_t i = 0; i < inputs.size(); ++i) in.push_back(HostBufferFromArray(inputs[i], i));
        if (max_steps < 0) Throw(ErrorKind::kArgument, "max_steps must be >= 0 (0: unlimited)");
        absl::StatusOr<std::vector<ir::HostBuffer>> out;
        ClearStashedPythonError();
        {
          py::gil_scoped_release release;
          out = ir::graph::RunGraph(mod, name, in,
                                    {.max_steps = max_steps, .interrupted = PythonInterrupted});
        }
        RethrowStashedPythonError();
        if (!out.ok()) {
          // A wrong input is the caller's argument; anything else is the run's.
          bool input_error = absl::IsInvalidArgument(out.status()) &&
                             out.status().message().find(": input ") != std::string::npos;
          Throw(input_error ? ErrorKind::kArgument : ErrorKind::kRuntime,
                std::string(out.status().message()));
        }
        py::list results;
        for (const ir::HostBuffer& b : *out) results.append(ArrayFromHostBuffer(b));
        return results;
      },
      py::arg("mod"), py::arg("name"), py::arg("inputs"), py::arg("max_steps") = 0);
}

}  // namespace tessel::python
