// The IRModule class for Python: an ordered map from names to PrimFuncs and
// graph functions, with module attributes; immutable, as in C++.
//
//   >>> mod = tessel.IRModule({"main": f, "model": graph_func}, attrs={"target": "llvm"})
//   >>> mod["main"], "model" in mod, mod.graph_functions
//   >>> mod2 = mod.with_function("other", g)        # mod is unchanged
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/function.h"
#include "ir/printer.h"
#include "python/src/common.h"
#include "python/src/host_arrays.h"

namespace tessel::python {

namespace {

ir::IRModule ModuleWithAttrs(const ir::IRModule& m, ir::Attrs attrs) {
  auto n = ir::MakeNode<ir::IRModuleNode>(*m);
  n->attrs = std::move(attrs);
  return ir::IRModule(std::move(n));
}

ir::IRModule ModuleFromPy(py::handle functions, py::handle attrs, py::handle constants) {
  std::vector<std::pair<std::string, ir::PrimFunc>> fns;
  std::vector<std::pair<std::string, ir::GraphFunc>> graphs;
  const char* what =
      "an IRModule is made from {name: PrimFunc or GraphFunc} or (name, function) pairs";
  auto add = [&](py::handle k, py::handle v) {
    const std::string name = CastArg<std::string>(k, what);
    if (v.is_none()) Throw(ErrorKind::kArgument, absl::StrCat("function '", name, "' is None"));
    if (py::isinstance<ir::GraphFuncNode>(v)) {
      graphs.emplace_back(name, v.cast<ir::GraphFunc>());
      return;
    }
    fns.emplace_back(name, CastArg<ir::PrimFunc>(v, what));
  };
  if (py::isinstance<py::dict>(functions)) {
    for (auto [k, v] : functions.cast<py::dict>()) add(k, v);
  } else if (!functions.is_none()) {
    if (!py::isinstance<py::iterable>(functions)) CastArg<py::list>(functions, what);
    for (py::handle item : functions) {
      auto [k, v] = CastArg<std::pair<py::object, py::object>>(item, what);
      add(k, v);
    }
  }
  std::vector<std::pair<std::string, ir::HostBuffer>> consts;
  if (!constants.is_none()) {
    if (!py::isinstance<py::dict>(constants)) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("constants is a dict of name -> numpy array, got ",
                         py::repr(py::type::of(constants)).cast<std::string>()));
    }
    for (auto [k, v] : constants.cast<py::dict>()) {
      const std::string name = CastArg<std::string>(k, "a constant's name");
      consts.emplace_back(name, HostBufferFromArray(v, absl::StrCat("constant '", name, "'")));
    }
  }
  return Unwrap(ir::MakeIRModuleChecked(std::move(fns), std::move(graphs), std::move(consts),
                                        AttrsFromPy(attrs)),
                ErrorKind::kIR);
}

// A function of either kind by name, as Python sees it; None when absent.
py::object LookupAny(const ir::IRModuleNode& mod, const std::string& name) {
  if (ir::PrimFunc f = mod.Lookup(name)) return py::cast(f);
  if (ir::GraphFunc g = mod.LookupGraph(name)) return py::cast(g);
  return py::none();
}

}  // namespace

void BindIRModule(py::module_& m) {
  py::class_<ir::IRModuleNode, ir::Node, ir::Ref<ir::IRModuleNode>>(
      m, "IRModule",
      "An ordered map from names to PrimFuncs, with module attributes. str() is .tsl.")
      .def(py::init([](py::object functions, py::object attrs, py::object constants) {
             ir::IRModule mod = ModuleFromPy(functions, attrs, constants);
             return ir::Ref<ir::IRModuleNode>(const_cast<ir::IRModuleNode*>(mod.get()));
           }),
           py::arg("functions") = py::none(), py::arg("attrs") = py::none(),
           py::arg("constants") = py::none(),
           "A module from {name: PrimFunc or GraphFunc} (or (name, function) pairs), optional "
           "attrs, and optional constants {name: numpy array} (copied).")
      .def_static(
          "from_func",
          [](const ir::PrimFunc& f, const std::string& name) {
            return Unwrap(ir::MakeIRModuleChecked({{name, f}}), ErrorKind::kIR);
          },
          py::arg("func"), py::arg("name") = "main", "A module holding just `func` as `name`.")
      .def("__getitem__",
           [](const ir::IRModuleNode& mod, const std::string& name) {
             py::object f = LookupAny(mod, name);
             if (f.is_none())
               throw py::key_error(absl::StrCat("no function '", name, "' in the module"));
             return f;
           })
      .def("__contains__", [](const ir::IRModuleNode& mod,
                              const std::string& name) { return !LookupAny(mod, name).is_none(); })
      .def_property_readonly(
          "graph_functions", [](const ir::IRModuleNode& mod) { return mod.graph_functions; },
          "(name, GraphFunc) pairs, in order. len(), iteration, keys() and items() are the "
          "PrimFuncs'.")
      .def("__len__", [](const ir::IRModuleNode& mod) { return mod.functions.size(); })
      .def("__iter__",
           [](const ir::IRModuleNode& mod) {
             py::list names;
             for (const auto& [name, f] : mod.functions) names.append(name);
             return py::iter(names);
           })
      .def(
          "keys",
          [](const ir::IRModuleNode& mod) {
            std::vector<std::string> names;
            for (const auto& [name, f] : mod.functions) names.push_back(name);
            return names;
          },
          "Function names, in order.")
      .def(
          "items", [](const ir::IRModuleNode& mod) { return mod.functions; },
          "(name, PrimFunc) pairs, in order.")
      .def(
          "get",
          [](const ir::IRModuleNode& mod, const std::string& name, py::object dflt) -> py::object {
            py::object f = LookupAny(mod, name);
            return f.is_none() ? dflt : f;
          },
          py::arg("name"), py::arg("default") = py::none(), "The function `name`, or `default`.")
      .def_property_readonly(
          "attrs", [](const ir::IRModuleNode& mod) { return AttrsToPy(mod.attrs); },
          "A copy of the module attributes as a dict.")
      .def_property_readonly(
          "constants",
          [](const ir::IRModuleNode& mod) {
            py::dict out;
            for (const auto& [name, c] : mod.constants) out[py::str(name)] = ArrayFromHostBuffer(c);
            return out;
          },
          "The constants graph functions read (`const @w`), as a dict of copies (numpy).")
      .def(
          "with_constant",
          [](const ir::IRModule& mod, const std::string& name, py::handle value) {
            return Unwrap(
                ir::WithConstant(mod, name,
                                 HostBufferFromArray(value, absl::StrCat("constant '", name, "'"))),
                ErrorKind::kArgument);
          },
          py::arg("name"), py::arg("value"),
          "A copy with constant `name` set to a copy of numpy array `value`.")
      .def(
          "with_function",
          [](const ir::IRModule& mod, const std::string& name, const ir::PrimFunc& f) {
            if (!f) Throw(ErrorKind::kArgument, "with_function needs a PrimFunc, got None");
            if (name.empty()) Throw(ErrorKind::kArgument, "a function name cannot be empty");
            return ir::WithFunction(mod, name, f);
          },
          py::arg("name"), py::arg("func"),
          "A copy with function `name` replaced by `func` (appended when absent).")
      .def(
          "without_function",
          [](const ir::IRModule& mod, const std::string& name) {
            if (!mod->Lookup(name)) throw py::key_error(absl::StrCat("no function '", name, "'"));
            auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
            std::erase_if(n->functions, [&](const auto& p) { return p.first == name; });
            return ir::IRModule(std::move(n));
          },
          py::arg("name"), "A copy without function `name`.")
      .def(
          "with_attr",
          [](const ir::IRModule& mod, const std::string& key, py::object value) {
            ir::Attrs attrs = mod->attrs;
            attrs[key] = AttrFromPy(value);
            return ModuleWithAttrs(mod, std::move(attrs));
          },
          py::arg("key"), py::arg("value"), "A copy with module attribute `key` set.")
      .def(
          "script", [](const ir::IRModule& mod) { return ir::PrintModule(mod); },
          "The module as .tsl text (what tessel.parse reads back).")
      .def("__str__", [](const ir::IRModule& mod) { return ir::PrintModule(mod); })
      .def("__repr__",
           [](const ir::IRModuleNode& mod) {
             std::vector<std::string> names;
             for (const auto& [name, g] : mod.graph_functions)
               names.push_back(absl::StrCat("graph ", name));
             for (const auto& [name, f] : mod.functions) names.push_back(name);
             return absl::StrCat("<tessel.IRModule: ", absl::StrJoin(names, ", "), ">");
           })
      .def(py::pickle([](const ir::IRModule& mod) { return ir::PrintModule(mod); },
                      [](const std::string& text) {
                        ir::IRModule mod = ParseText(text, "<pickle>");
                        return ir::Ref<ir::IRModuleNode>(const_cast<ir::IRModuleNode*>(mod.get()));
                      }));
}

}  // namespace tessel::python
