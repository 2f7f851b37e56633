// The `tessel._core` extension module: defines the module, turns C++ failures
// into tessel's Python exceptions, and keeps Python exceptions raised inside
// callbacks that C++ ran.
//
//   >>> import tessel
//   >>> tessel.parse("func @f(")
//   tessel.ParseError: <input>:1:9: expected ...
//   >>> # a Python pass that raises inside a pipeline:
//   tessel.PassError: pass 'my-pass' failed: python pass 'my-pass' raised:
//   Traceback (most recent call last): ...      (the original is its __cause__)
//
// The exception classes are defined in Python (tessel/errors.py) so that they
// can have docstrings, several bases and properties; this file looks them up by
// name when it raises one.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/stmt.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

const char* ErrorClassName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBase:
      return "TesselError";
    case ErrorKind::kIR:
      return "IRError";
    case ErrorKind::kParse:
      return "ParseError";
    case ErrorKind::kSchedule:
      return "ScheduleError";
    case ErrorKind::kPass:
      return "PassError";
    case ErrorKind::kBuild:
      return "BuildError";
    case ErrorKind::kRuntime:
      return "RuntimeError";
    case ErrorKind::kArgument:
      return "ArgumentError";
    case ErrorKind::kMismatch:
      return "StructuralEqualError";
  }
  return "TesselError";
}

// The exception stashed by PythonErrorStatus on this thread (owned references),
// kept until the binding that called into C++ raises.
struct Stash {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* trace = nullptr;
};
thread_local Stash stash;

void ClearStash() {
  Py_CLEAR(stash.type);
  Py_CLEAR(stash.value);
  Py_CLEAR(stash.trace);
}

void StashException(py::error_already_set& e) {
  ClearStash();
  stash.type = e.type().inc_ref().ptr();
  stash.value = e.value().inc_ref().ptr();
  stash.trace = e.trace() ? e.trace().inc_ref().ptr() : nullptr;
}

}  // namespace

void RaisePythonError(const Error& e) {
  // KeyboardInterrupt and SystemExit raised inside a callback (a Python pass, an
  // instrument) are not failures of the callback: they propagate as themselves.
  if (stash.value != nullptr && PyObject_IsInstance(stash.value, PyExc_Exception) == 0) {
    PyErr_Restore(stash.type, stash.value, stash.trace);  // Steals all three.
    stash = Stash{};
    return;
  }
  try {
    py::object errors = py::module_::import("tessel.errors");
    py::object cls = errors.attr(ErrorClassName(e.kind));
    py::object exc = cls(e.message);
    if (stash.value != nullptr) {
      if (stash.trace != nullptr) PyException_SetTraceback(stash.value, stash.trace);
      PyException_SetCause(exc.ptr(), stash.value);  // Steals the reference.
      stash.value = nullptr;
    }
    ClearStash();
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (py::error_already_set& failure) {
    failure.restore();  // tessel.errors itself failed to load: raise that instead.
  }
}

void Throw(ErrorKind kind, std::string message) { throw Error{kind, std::move(message)}; }

void ThrowStatus(ErrorKind kind, const absl::Status& status) {
  throw Error{kind, std::string(status.message())};
}

absl::Status PythonErrorStatus(py::error_already_set& e, const std::string& context) {
  std::string text;
  try {
    py::object format = py::module_::import("traceback").attr("format_exception");
    // An exception raised by the call itself (wrong arguments) has no traceback.
    py::object trace = e.trace() ? e.trace() : py::none();
    py::list lines = format(e.type(), e.value(), trace);
    for (py::handle line : lines) text += line.cast<std::string>();
  } catch (const std::exception&) {
    text = e.what();  // Formatting failed; pybind11's own summary still names the error.
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  StashException(e);
  return absl::InternalError(context + ":\n" + text);
}

bool PythonInterrupted() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  py::error_already_set e;  // Takes the exception a handler raised (KeyboardInterrupt).
  StashException(e);
  return true;
}

void ClearStashedPythonError() { ClearStash(); }

void RethrowStashedPythonError() {
  if (stash.value == nullptr) return;
  PyErr_Restore(stash.type, stash.value, stash.trace);  // Steals all three.
  stash = Stash{};
  throw py::error_already_set();
}

PyRef::PyRef(py::object o) : obj_(o.release().ptr()) {}

PyRef::PyRef(const PyRef& o) : obj_(o.obj_) {
  if (obj_ != nullptr) {
    py::gil_scoped_acquire gil;
    Py_INCREF(obj_);
  }
}

PyRef& PyRef::operator=(const PyRef& o) {
  if (this != &o) {
    PyRef copy(o);
    std::swap(obj_, copy.obj_);
  }
  return *this;
}

PyRef::~PyRef() {
  // After interpreter shutdown there is nothing left to release.
  if (obj_ != nullptr && Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    Py_DECREF(obj_);
  }
}

// ---- Conversions shared by the binding files ------------------------------------

namespace {

// numpy's names for the dtypes tessel spells "f32", "i64", ...
struct NumpyName {
  const char* numpy;
  ir::DataType dtype;
};
constexpr NumpyName kNumpyNames[] = {
    {"bool", ir::DataType::Bool()},         {"int8", ir::DataType::Int(8)},
    {"int16", ir::DataType::Int(16)},       {"int32", ir::DataType::Int(32)},
    {"int64", ir::DataType::Int(64)},       {"uint8", ir::DataType::UInt(8)},
    {"uint16", ir::DataType::UInt(16)},     {"uint32", ir::DataType::UInt(32)},
    {"uint64", ir::DataType::UInt(64)},     {"float16", ir::DataType::Float(16)},
    {"float32", ir::DataType::Float(32)},   {"float64", ir::DataType::Float(64)},
    {"bfloat16", ir::DataType::BFloat(16)},
};

ir::DataType DtypeFromName(const std::string& name) {
  for (const NumpyName& n : kNumpyNames) {
    if (name == n.numpy) return n.dtype;
  }
  absl::StatusOr<ir::DataType> t = ir::DataType::Parse(name);
  if (!t.ok()) {
    Throw(ErrorKind::kArgument,
          absl::StrCat("unknown dtype '", name,
                       "': write it as tessel does (f32, i64, u8, bool, bf16, i32x4) or as "
                       "numpy does (float32, int64, ...)"));
  }
  return *t;
}

// A plain number as a constant of `t`, or an IRError saying why it cannot be one.
ir::Expr NumberAs(py::handle h, ir::DataType t) {
  const bool is_bool = py::isinstance<py::bool_>(h);
  const bool is_int = !is_bool && py::isinstance<py::int_>(h);
  const std::string text = py::repr(h).cast<std::string>();
  if (t.is_bool()) {
    if (!is_bool) {
      Throw(ErrorKind::kIR,
            absl::StrCat("cannot use ", text, " as a bool expression; write True or False"));
    }
    return ir::Bool(h.cast<bool>());
  }
  if (is_bool) {
    Throw(ErrorKind::kIR, absl::StrCat("cannot combine ", text, " with an expression of type ",
                                       t.ToString(), "; bools combine only with bools"));
  }
  if (t.is_float()) return Unwrap(ir::MakeFloatImm(t, h.cast<double>()), ErrorKind::kIR);
  if (!is_int) {
    Throw(ErrorKind::kIR, absl::StrCat("cannot combine the float ", text,
                                       " with an expression of type ", t.ToString(),
                                       "; cast one side first (.astype)"));
  }
  int64_t v = 0;
  try {
    v = t.is_uint() && t.bits() == 64 ? static_cast<int64_t>(h.cast<uint64_t>()) : h.cast<int64_t>();
  } catch (const py::cast_error&) {
    Throw(ErrorKind::kIR, absl::StrCat("the integer ", text, " does not fit in ", t.ToString()));
  }
  return Unwrap(ir::MakeIntImm(t, v), ErrorKind::kIR);
}

}  // namespace

ir::DataType DtypeFromPy(py::handle h) {
  if (py::isinstance<py::str>(h)) return DtypeFromName(h.cast<std::string>());
  if (h.is_none()) Throw(ErrorKind::kArgument, "a dtype is required, got None");
  py::object np_dtype;
  try {
    np_dtype = py::module_::import("numpy").attr("dtype")(h);
  } catch (py::error_already_set&) {
    Throw(ErrorKind::kArgument,
          absl::StrCat("not a dtype: ", py::repr(h).cast<std::string>()));
  }
  return DtypeFromName(np_dtype.attr("name").cast<std::string>());
}

py::object NumpyDtype(ir::DataType t) {
  py::object dtype = py::module_::import("numpy").attr("dtype");
  if (t.is_scalar()) {
    for (const NumpyName& n : kNumpyNames) {
      if (n.dtype != t) continue;
      try {
        return dtype(n.numpy);
      } catch (py::error_already_set&) {
        Throw(ErrorKind::kArgument,
              absl::StrCat("numpy has no ", n.numpy, " dtype for ", t.ToString(),
                           " (install ml_dtypes, which registers numpy's bfloat16)"));
      }
    }
  }
  Throw(ErrorKind::kArgument, absl::StrCat("no numpy dtype for ", t.ToString()));
}

ir::Expr ExprFromPy(py::handle h, ir::DataType hint) {
  if (py::isinstance<ir::ExprNode>(h)) return h.cast<ir::Expr>();
  if (py::isinstance<ir::IterVar>(h)) return h.cast<const ir::IterVar&>().var;
  if (py::isinstance<py::bool_>(h)) return NumberAs(h, hint.is_void() ? ir::DataType::Bool() : hint.element_of());
  if (py::isinstance<py::int_>(h)) {
    if (!hint.is_void()) return NumberAs(h, hint.element_of());
    // Untyped integers are i32 when they fit, else i64.
    try {
      int64_t v = h.cast<int64_t>();
      if (v >= INT32_MIN && v <= INT32_MAX) return ir::IntImm32(v);
      return ir::IntImm(ir::DataType::Int(64), v);
    } catch (const py::cast_error&) {
      Throw(ErrorKind::kIR, absl::StrCat("the integer ", py::repr(h).cast<std::string>(),
                                         " does not fit in i64"));
    }
  }
  if (py::isinstance<py::float_>(h)) {
    return NumberAs(h, hint.is_void() ? ir::DataType::Float(32) : hint.element_of());
  }
  // numpy scalars carry their dtype.
  if (py::isinstance(h, py::module_::import("numpy").attr("generic"))) {
    ir::DataType t = DtypeFromPy(h.attr("dtype"));
    return NumberAs(h.attr("item")(), t);
  }
  Throw(ErrorKind::kArgument, absl::StrCat("expected an expression or a number, got ",
                                           py::repr(h).cast<std::string>()));
}

ir::AttrValue AttrFromPy(py::handle h, int nesting) {
  if (py::isinstance<py::bool_>(h)) return ir::AttrValue(h.cast<bool>());
  if (py::isinstance<py::int_>(h)) return ir::AttrValue(h.cast<int64_t>());
  if (py::isinstance<py::float_>(h)) return ir::AttrValue(h.cast<double>());
  if (py::isinstance<py::str>(h)) return ir::AttrValue(h.cast<std::string>());
  if (py::isinstance<ir::ExprNode>(h)) return ir::AttrValue(h.cast<ir::Expr>());
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    if (nesting >= ir::kMaxAttrNesting) {  // A list holding itself ends here too.
      Throw(ErrorKind::kArgument, absl::StrCat("attribute lists nest at most ",
                                               ir::kMaxAttrNesting, " deep"));
    }
    ir::AttrValue::List items;
    for (py::handle item : h) items.push_back(AttrFromPy(item, nesting + 1));
    return ir::AttrValue(std::move(items));
  }
  Throw(ErrorKind::kArgument,
        absl::StrCat("an attribute is an int, float, bool, str, Expr or a list of them; got ",
                     py::repr(h).cast<std::string>()));
}

py::object AttrToPy(const ir::AttrValue& v) {
  if (const int64_t* i = v.get_if<int64_t>()) return py::int_(*i);
  if (const double* d = v.get_if<double>()) return py::float_(*d);
  if (const bool* b = v.get_if<bool>()) return py::bool_(*b);
  if (const std::string* s = v.get_if<std::string>()) return py::str(*s);
  if (const ir::Expr* e = v.get_if<ir::Expr>()) return py::cast(*e);
  py::list out;
  for (const ir::AttrValue& item : v.as<ir::AttrValue::List>()) out.append(AttrToPy(item));
  return out;
}

ir::Attrs AttrsFromPy(py::handle dict) {
  ir::Attrs attrs;
  if (dict.is_none()) return attrs;
  if (!py::isinstance<py::dict>(dict)) {
    Throw(ErrorKind::kArgument, absl::StrCat("attrs are a dict of str to values, got ",
                                             py::repr(dict).cast<std::string>()));
  }
  for (auto [k, v] : dict.cast<py::dict>()) {
    if (!py::isinstance<py::str>(k)) {
      Throw(ErrorKind::kArgument, absl::StrCat("attribute names are str, got ",
                                               py::repr(k).cast<std::string>()));
    }
    attrs[k.cast<std::string>()] = AttrFromPy(v);
  }
  return attrs;
}

py::dict AttrsToPy(const ir::Attrs& attrs) {
  py::dict out;
  for (const auto& [k, v] : attrs) out[py::str(k)] = AttrToPy(v);
  return out;
}

void BindErrors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      RaisePythonError(e);
    } catch (const py::cast_error& e) {
      // A Python value of the wrong type reached C++ where no check named it.
      RaisePythonError(Error(ErrorKind::kArgument, e.what()));
    }
  });
}

}  // namespace tessel::python

PYBIND11_MODULE(_core, m) {
  namespace tp = tessel::python;
  m.doc() = "The C++ core of tessel. Use the `tessel` package; this module is private.";
  tp::BindErrors(m);
  tp::BindIR(m);
  tp::BindIRNodes(m);
  tp::BindTE(m);
  tp::BindOps(m);
  tp::BindPasses(m);
  tp::BindDispatch(m);
  tp::BindInterpreter(m);
  tp::BindGraph(m);
  tp::BindSchedule(m);
  tp::BindMetaschedule(m);
  tp::BindTuningDatabase(m);
  tp::BindTune(m);
  tp::BindSearchStrategies(m);
  tp::BindRuntime(m);
  tp::BindRuntimeModule(m);
  tp::BindBuild(m);
  tp::BindCudaModule(m);
  tp::BindGraphExecutor(m);
  tp::NameArgumentErrors(m);  // Last: it guards every function bound above.
}
