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
#include "passes/graph/bind_params.h"
#include "python/src/common.h"
#include "python/src/host_arrays.h"

namespace tessel::python {
namespace {

using Binding = std::tuple<std::vector<ir::Buffer>, std::string, std::string,
                           std::vector<ir::Buffer>, py::object>;

ir::GraphBinding BindingFromPy(const Binding& b) {
  const auto& [outputs, kind, callee, args, attrs] = b;
  ir::GraphCall::Kind k;
  if (kind == "op") {
    k = ir::GraphCall::Kind::kOp;
  } else if (kind == "call_tir") {
    k = ir::GraphCall::Kind::kCallTir;
  } else if (kind == "const") {
    k = ir::GraphCall::Kind::kConstant;
  } else {
    Throw(ErrorKind::kArgument,
          absl::StrCat("a binding's kind is 'op', 'call_tir' or 'const', got '", kind, "'"));
  }
  ir::GraphCall call{k, callee, args, AttrsFromPy(attrs)};
  return ir::GraphBinding{outputs, std::move(call)};
}

py::tuple BindingToPy(const ir::GraphBinding& b) {
  return py::make_tuple(b.outputs, ir::GraphCallKindName(b.call.kind), b.call.callee, b.call.args,
                        AttrsToPy(b.call.attrs));
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
          "(outputs, 'op', 'call_tir' or 'const', callee, args, attrs) per binding, in order.")
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
      "bind_params",
      [](const ir::IRModule& mod, const std::string& graph, const py::dict& values) {
        std::vector<std::pair<std::string, ir::HostBuffer>> bound;
        for (auto [k, v] : values) {
          const std::string name = CastArg<std::string>(k, "bind_params: a parameter name");
          bound.emplace_back(name, HostBufferFromArray(v, absl::StrCat("params['", name, "']")));
        }
        return Unwrap(passes::BindParams(mod, graph, bound), ErrorKind::kArgument);
      },
      py::arg("mod"), py::arg("graph"), py::arg("values"),
      "`mod` with the named parameters of graph function `graph` as module constants.");
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
        for (size_t i = 0; i < inputs.size(); ++i)
          in.push_back(HostBufferFromArray(inputs[i], absl::StrCat("input ", i)));
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
