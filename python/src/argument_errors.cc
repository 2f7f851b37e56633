// Arguments that do not fit a binding become tessel.ArgumentError naming the
// parameter, for every function and method of `tessel._core`, instead of
// pybind11's "incompatible function arguments" TypeError (or, for `self`, a
// null object dereferenced in C++):
//
//   >>> tessel._core.build(None, "llvm")
//   tessel.ArgumentError: build: parameter 'mod' must be tessel._core.IRModule, got None
//   >>> tessel.IRModule.script(None)
//   tessel.ArgumentError: IRModule.script: self must be a tessel._core.IRModule, got None
//
// After every binding is registered, NameArgumentErrors puts a guard in front of
// pybind11's dispatcher of each bound function (its PyMethodDef): the guard
// refuses a `self` of the wrong type, calls the dispatcher, and when that found
// no overload whose arguments convert, reads the overloads' signatures to say
// which parameter refused which value. Node parameters never take None (the
// caster in common.h refuses it), so a binding body never sees a null node.
#include <pybind11/pybind11.h>

#include <Python.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

using pybind11::detail::function_record;

// pybind11's dispatcher, the same function for every bound callable.
PyCFunctionWithKeywords g_dispatcher = nullptr;

// A METH_VARARGS | METH_KEYWORDS function as PyMethodDef stores it.
PyCFunction AsMeth(PyCFunctionWithKeywords f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

struct Param {
  std::string name;
  std::string annotation;
  bool has_default = false;
};

// The parameters of a pybind11 signature "(a: int, b: str = 'x') -> None".
std::vector<Param> ParseSignature(const std::string& sig) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  char quote = 0;
  size_t i = sig.empty() || sig[0] != '(' ? 0 : 1;
  for (; i < sig.size(); ++i) {
    const char c = sig[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      cur += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;  // The end of the parameter list.
      --depth;
    }
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) parts.push_back(cur);
  std::vector<Param> params;
  for (std::string p : parts) {
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    if (p.empty() || p == "*" || p == "/" || absl::StartsWith(p, "*")) continue;
    Param param;
    const size_t colon = p.find(": ");
    param.name = p.substr(0, colon);
    if (colon != std::string::npos) {
      std::string rest = p.substr(colon + 2);
      const size_t eq = rest.find(" = ");
      param.has_default = eq != std::string::npos;
      param.annotation = rest.substr(0, eq);
    }
    params.push_back(std::move(param));
  }
  return params;
}

std::string Repr(py::handle h) {
  std::string r;
  try {
    r = py::repr(h).cast<std::string>();
  } catch (const py::error_already_set&) {
    r = "<unprintable>";
  }
  if (r.size() > 80) r = r.substr(0, 77) + "...";
  return r;
}

std::string Got(py::handle value) {
  if (value.is_none()) return "None";
  return absl::StrCat(Py_TYPE(value.ptr())->tp_name, " ", Repr(value));
}

// Why `value` cannot be a parameter annotated `annotation`, or nullopt when
// the annotation alone does not show that it cannot (the C++ side may still
// refuse it, e.g. an int out of a narrower range).
std::optional<std::string> Refusal(const std::string& annotation, py::handle value,
                                   py::handle core) {
  if (annotation.empty() || annotation == "object" || absl::StartsWith(annotation, "Optional[") ||
      absl::StrContains(annotation, "None")) {
    return std::nullopt;
  }
  if (value.is_none()) return absl::StrCat("must be ", annotation, ", got None");
  const std::string kCore = "tessel._core.";
  if (absl::StartsWith(annotation, kCore) && annotation.find('[') == std::string::npos) {
    const std::string cls_name = annotation.substr(kCore.size());
    if (!py::hasattr(core, cls_name.c_str())) return std::nullopt;
    py::object cls = core.attr(cls_name.c_str());
    if (!py::isinstance(value, cls)) return absl::StrCat("must be ", annotation, ", got ", Got(value));
    return std::nullopt;
  }
  if (annotation == "str" && !py::isinstance<py::str>(value) && !py::isinstance<py::bytes>(value)) {
    return absl::StrCat("must be str, got ", Got(value));
  }
  if (annotation == "bool" && !py::isinstance<py::bool_>(value) &&
      !absl::StartsWith(Py_TYPE(value.ptr())->tp_name, "numpy.bool")) {
    return absl::StrCat("must be bool, got ", Got(value));
  }
  if (annotation == "int") {
    if (py::isinstance<py::float_>(value) || !PyIndex_Check(value.ptr())) {
      return absl::StrCat("must be int, got ", Got(value));
    }
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())).ptr(),
                                 &overflow);
    if (PyErr_Occurred()) PyErr_Clear();
    if (overflow != 0) return absl::StrCat("must be an int that fits 64 bits, got ", Repr(value));
  }
  if (annotation == "float" && PyFloat_AsDouble(value.ptr()) == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return absl::StrCat("must be float, got ", Got(value));
  }
  return std::nullopt;
}

// What is wrong with calling the overload `rec` on `args` and `kwargs`.
std::string Diagnose(const function_record* rec, py::tuple args, py::handle kwargs,
                     py::handle core) {
  const std::vector<Param> params = ParseSignature(rec->signature != nullptr ? rec->signature : "");
  const size_t n = args.size();
  if (!rec->has_args && n > params.size()) {
    return absl::StrCat("takes ", params.size(), " positional arguments, got ", n);
  }
  for (size_t i = 0; i < n && i < params.size(); ++i) {
    if (auto why = Refusal(params[i].annotation, args[i], core)) {
      return absl::StrCat("parameter '", params[i].name, "' ", *why);
    }
  }
  py::dict kw = kwargs ? py::reinterpret_borrow<py::dict>(kwargs) : py::dict();
  for (auto item : kw) {
    const std::string key = py::str(item.first).cast<std::string>();
    const Param* param = nullptr;
    for (const Param& p : params) {
      if (p.name == key) param = &p;
    }
    if (param == nullptr) {
      if (!rec->has_kwargs) return absl::StrCat("has no parameter '", key, "'");
      continue;
    }
    if (auto why = Refusal(param->annotation, item.second, core)) {
      return absl::StrCat("parameter '", key, "' ", *why);
    }
  }
  for (size_t i = n; i < params.size(); ++i) {
    if (!params[i].has_default && !kw.contains(params[i].name.c_str())) {
      return absl::StrCat("missing parameter '", params[i].name, "'");
    }
  }
  std::vector<std::string> got;
  for (py::handle a : args) got.push_back(Got(a));
  return absl::StrCat("these arguments do not fit ", rec->signature, ": (",
                      absl::StrJoin(got, ", "), ")");
}

std::string QualifiedName(const function_record* rec) {
  std::string name = rec->name != nullptr ? rec->name : "?";
  if (rec->is_method && rec->scope && py::hasattr(rec->scope, "__name__")) {
    name = absl::StrCat(py::str(rec->scope.attr("__name__")).cast<std::string>(), ".", name);
  }
  return name;
}

void SetArgumentError(const std::string& message) {
  RaisePythonError(Error(ErrorKind::kArgument, message));
}

PyObject* GuardedDispatcher(PyObject* self, PyObject* args_in, PyObject* kwargs_in) {
  auto* rec = static_cast<function_record*>(
      PyCapsule_GetPointer(self, pybind11::detail::get_function_record_capsule_name()));
  if (rec == nullptr) return nullptr;
  // A method called through its class with a `self` of another type (None):
  // pybind11 would hand C++ a null object.
  if (rec->is_method && !rec->is_constructor && rec->scope && PyType_Check(rec->scope.ptr())) {
    auto* cls = reinterpret_cast<PyTypeObject*>(rec->scope.ptr());
    if (PyTuple_GET_SIZE(args_in) == 0 || !PyObject_TypeCheck(PyTuple_GET_ITEM(args_in, 0), cls)) {
      py::handle first = PyTuple_GET_SIZE(args_in) == 0 ? py::handle(Py_None) : py::handle(PyTuple_GET_ITEM(args_in, 0));
      SetArgumentError(absl::StrCat(QualifiedName(rec), ": self must be a ", cls->tp_name, ", got ",
                                    Got(first)));
      return nullptr;
    }
  }
  PyObject* result = g_dispatcher(self, args_in, kwargs_in);
  if (result != nullptr || !PyErr_Occurred()) return result;
  // pybind11 raises exactly TypeError (not a subclass) when no overload's
  // arguments convert; ArgumentError is itself a TypeError and passes through.
  PyObject* type = PyErr_Occurred();
  if (type != PyExc_TypeError) return nullptr;
  PyObject *etype = nullptr, *evalue = nullptr, *etrace = nullptr;
  PyErr_Fetch(&etype, &evalue, &etrace);
  PyErr_NormalizeException(&etype, &evalue, &etrace);
  std::string text;
  try {
    text = py::str(evalue).cast<std::string>();
  } catch (const py::error_already_set&) {
  }
  if (!absl::StrContains(text, "incompatible function arguments") &&
      !absl::StrContains(text, "incompatible constructor arguments")) {
    PyErr_Restore(etype, evalue, etrace);
    return nullptr;
  }
  Py_XDECREF(etype);
  Py_XDECREF(evalue);
  Py_XDECREF(etrace);
  try {
    py::tuple args = py::reinterpret_borrow<py::tuple>(args_in);
    // Constructors take the new instance first; their signatures name it self.
    py::handle core = py::module_::import("tessel._core");
    std::vector<std::string> reasons;
    for (const function_record* it = rec; it != nullptr; it = it->next) {
      reasons.push_back(Diagnose(it, args, kwargs_in, core));
    }
    std::string message = QualifiedName(rec) + ": ";
    if (reasons.size() == 1) {
      message += reasons[0];
    } else {
      message += "no form takes these arguments:";
      for (size_t i = 0; i < reasons.size(); ++i) {
        absl::StrAppend(&message, "\n  ", i + 1, ". ", reasons[i]);
      }
    }
    SetArgumentError(message);
  } catch (py::error_already_set& e) {
    e.restore();
  }
  return nullptr;
}

// Puts the guard in front of the pybind11 function `f` (a builtin whose self is
// pybind11's function-record capsule); anything else is left alone.
void Guard(py::handle f) {
  if (!f || !PyCFunction_Check(f.ptr())) return;
  PyObject* self = PyCFunction_GET_SELF(f.ptr());
  if (self == nullptr || !PyCapsule_CheckExact(self) ||
      !pybind11::detail::is_function_record_capsule(py::reinterpret_borrow<py::capsule>(self))) {
    return;
  }
  auto* def = reinterpret_cast<PyCFunctionObject*>(f.ptr())->m_ml;
  if (def->ml_meth == AsMeth(GuardedDispatcher)) return;
  if (g_dispatcher == nullptr) {
    g_dispatcher = reinterpret_cast<PyCFunctionWithKeywords>(
        reinterpret_cast<void (*)()>(def->ml_meth));
  }
  if (def->ml_meth != AsMeth(g_dispatcher)) return;
  def->ml_meth = AsMeth(GuardedDispatcher);
}

// The callables a class attribute holds: a function, an instance method, a
// static method, or a property's getter and setter.
void GuardAttribute(py::handle attr) {
  if (PyInstanceMethod_Check(attr.ptr())) {
    Guard(PyInstanceMethod_GET_FUNCTION(attr.ptr()));
  } else if (py::isinstance<py::staticmethod>(attr)) {
    Guard(attr.attr("__func__"));
  } else if (PyObject_TypeCheck(attr.ptr(), &PyProperty_Type)) {
    Guard(attr.attr("fget"));
    Guard(attr.attr("fset"));
  } else {
    Guard(attr);
  }
}

}  // namespace

void NameArgumentErrors(py::module_& m) {
  for (auto item : py::reinterpret_borrow<py::dict>(PyModule_GetDict(m.ptr()))) {
    py::handle value = item.second;
    if (PyType_Check(value.ptr())) {
      PyObject* dict = reinterpret_cast<PyTypeObject*>(value.ptr())->tp_dict;
      for (auto member : py::reinterpret_borrow<py::dict>(dict)) GuardAttribute(member.second);
    } else {
      GuardAttribute(value);
    }
  }
}

}  // namespace tessel::python
