// Shared pieces of the `tessel._core` extension: how IR nodes cross into Python,
// how C++ errors become tessel's Python exceptions, and conversions used by
// every binding file.
//
//   ir::Expr e = ...;
//   py::object o = py::cast(e);        // a tessel.Expr (a tessel.Var if e is a Var)
//   ir::Expr back = o.cast<ir::Expr>();  // the same node, no copy
//   Unwrap(ir::ParseModule(text), ErrorKind::kParse);  // raises tessel.ParseError
//
// IR nodes are immutable and intrusively reference-counted (ir/node.h). Python
// objects hold them through `ir::Ref<T>`, pybind11's holder for every node
// class; functions take and return the `ir::Ref<const T>` the C++ API speaks,
// and the caster below converts between the two. Because the count lives in the
// node, a Ref can be made from a raw pointer at any time, and pybind11 hands
// back the existing Python object for a node that already has one.
#ifndef TESSEL_PYTHON_SRC_COMMON_H_
#define TESSEL_PYTHON_SRC_COMMON_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/dtype.h"
#include "ir/expr.h"
#include "ir/function.h"
#include "ir/node.h"

namespace pybind11::detail {

// `ir::Ref<T>` is the holder of every bound node class.
template <typename T>
struct always_construct_holder<tessel::ir::Ref<T>> : always_construct_holder<void, true> {};
template <typename T>
class type_caster<tessel::ir::Ref<T>>
    : public copyable_holder_caster<T, tessel::ir::Ref<T>> {};

// The C++ API passes `Ref<const T>`; nodes are never mutated after creation, so
// the holder may drop the const. A null Ref converts to None, but None never
// converts to a null Ref: a binding that takes an optional node takes a
// py::object and checks is_none(), so no body ever sees a null node it did not
// ask for (argument_errors.cc then names the parameter that refused None).
template <typename T>
class type_caster<tessel::ir::Ref<const T>> {
  using Holder = tessel::ir::Ref<T>;
  using Inner = copyable_holder_caster<T, Holder>;

 public:
  static constexpr auto name = type_caster_base<T>::name;

  bool load(handle src, bool convert) {
    if (src.is_none()) return false;
    Inner inner;
    if (!inner.load(src, convert)) return false;
    value = tessel::ir::Ref<const T>(static_cast<Holder&>(inner));
    return true;
  }

  static handle cast(const tessel::ir::Ref<const T>& src, return_value_policy, handle) {
    if (!src) return none().release();
    Holder holder(const_cast<T*>(src.get()));
    return Inner::cast(holder, return_value_policy::take_ownership, handle());
  }

  operator tessel::ir::Ref<const T>&() { return value; }  // NOLINT
  template <typename U>
  using cast_op_type = tessel::ir::Ref<const T>&;

 private:
  tessel::ir::Ref<const T> value;
};

}  // namespace pybind11::detail

namespace tessel::ir::schedule {
class Schedule;
}  // namespace tessel::ir::schedule

namespace tessel::python {

namespace py = pybind11;

// Which tessel exception a failure becomes (tessel/errors.py lists them).
enum class ErrorKind {
  kBase,      // TesselError
  kIR,        // IRError: invalid IR, a refused te op or compute, a failed verify
  kParse,     // ParseError
  kSchedule,  // ScheduleError
  kPass,      // PassError
  kBuild,     // BuildError
  kRuntime,   // RuntimeError: the interpreter (and later compiled code) failed
  kArgument,  // ArgumentError: wrong arguments (types, dtypes, shapes, options)
  kMismatch,  // StructuralEqualError: assert_structural_equal failed
};

// Thrown by binding code, translated to the Python exception of `kind`.
struct Error : std::exception {
  Error(ErrorKind k, std::string m) : kind(k), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  ErrorKind kind;
  std::string message;
};

[[noreturn]] void Throw(ErrorKind kind, std::string message);
// Sets the Python exception for `e` (what the translator of Error does), chaining
// a stashed Python exception as its cause. For code that returns to Python
// without unwinding through pybind11.
void RaisePythonError(const Error& e);
// Raises the Python exception for a failed `status`. If a Python exception was
// stashed while the failing C++ call ran (StashPythonError), it becomes the
// raised exception's __cause__.
[[noreturn]] void ThrowStatus(ErrorKind kind, const absl::Status& status);
inline void Check(const absl::Status& status, ErrorKind kind) {
  if (!status.ok()) ThrowStatus(kind, status);
}
template <typename T>
T Unwrap(absl::StatusOr<T> v, ErrorKind kind) {
  if (!v.ok()) ThrowStatus(kind, v.status());
  return *std::move(v);
}

// `h` as a T, or an ArgumentError "<what> ..., got <repr>" instead of pybind11's
// generic cast error.
template <typename T>
T CastArg(py::handle h, const std::string& what) {
  try {
    return h.cast<T>();
  } catch (const py::cast_error&) {
    Throw(ErrorKind::kArgument, what + ", got " + py::repr(h).cast<std::string>());
  }
}

// Python callbacks run from C++ (passes, instruments, compute bodies) must not
// let a Python exception unwind through C++ code that expects Status. The
// callback catches it, returns PythonErrorStatus(...) -- a Status holding the
// formatted traceback -- and keeps the exception object so the binding that
// raises afterwards can chain it (or, for compute bodies, re-raise it as is).
// Call with the GIL held.
absl::Status PythonErrorStatus(py::error_already_set& e, const std::string& context);
// Forgets any stashed exception (at the start of a call that may stash one).
void ClearStashedPythonError();
// Re-raises the stashed exception unchanged if there is one.
void RethrowStashedPythonError();
// The poll of long native calls that run without the GIL (interpret,
// check_same_results, time_evaluator): takes the GIL and runs Python's signal
// handlers. True when one raised (Ctrl-C: KeyboardInterrupt); the exception is
// stashed, and the binding re-raises it as itself with RethrowStashedPythonError.
bool PythonInterrupted();

// Holds a Python object from C++ objects whose lifetime Python does not
// control (passes inside a pipeline, instruments): copying and destroying take
// the GIL, so they are safe from threads that released it.
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(py::object o);
  PyRef(const PyRef& o);
  PyRef& operator=(const PyRef& o);
  ~PyRef();
  // Call with the GIL held.
  py::object get() const { return py::reinterpret_borrow<py::object>(obj_); }

 private:
  PyObject* obj_ = nullptr;
};

// dtypes: "f32", "float32", numpy dtypes and scalar types all name a DataType.
ir::DataType DtypeFromPy(py::handle h);
// The numpy dtype of a scalar DataType; raises ArgumentError for bf16 when
// numpy has no bfloat16 (ml_dtypes provides one) and for handle/void.
py::object NumpyDtype(ir::DataType t);

// A Python value as an expression: an Expr, a te IterVar (its variable), or a
// number. Plain numbers take `hint`'s dtype when it is given (the other
// operand's), else int -> i32, float -> f32, bool -> bool.
ir::Expr ExprFromPy(py::handle h, ir::DataType hint = ir::DataType::Void());

// Attribute values (ir/attrs.h) to and from int, float, bool, str, Expr, list.
// `nesting`: the lists around `h` (at most ir::kMaxAttrNesting).
ir::AttrValue AttrFromPy(py::handle h, int nesting = 0);
py::object AttrToPy(const ir::AttrValue& v);
ir::Attrs AttrsFromPy(py::handle dict);
py::dict AttrsToPy(const ir::Attrs& attrs);

// The binding files, one per area.
void BindErrors(py::module_& m);
void BindIR(py::module_& m);
// The IRModule class (ir_module.cc); BindIR calls it once the Node classes exist.
void BindIRModule(py::module_& m);
// .tsl text to a module; raises ParseError naming `filename` and the place (ir.cc).
ir::IRModule ParseText(const std::string& text, const std::string& filename);
// Node classes with their fields, visit, transform, substitute (ir_nodes.cc).
void BindIRNodes(py::module_& m);
// Dispatch rules written in Python (dispatch.cc).
void BindDispatch(py::module_& m);
void BindTE(py::module_& m);
void BindOps(py::module_& m);
void BindPasses(py::module_& m);
void BindInterpreter(py::module_& m);
void BindGraph(py::module_& m);  // graph.cc
void BindSchedule(py::module_& m);
void BindMetaschedule(py::module_& m);
void BindTuningDatabase(py::module_& m);  // tuning_db.cc
void BindTune(py::module_& m);            // tune.cc
void BindSearchStrategies(py::module_& m);  // search_strategy.cc
// The primitives, one Schedule method per instruction kind (schedule_primitives.cc).
void BindSchedulePrimitives(py::class_<ir::schedule::Schedule>& cls, py::module_& m);
// Call after every Bind*: arguments that fit no overload of a bound function
// raise ArgumentError naming the parameter (argument_errors.cc).
void NameArgumentErrors(py::module_& m);

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_COMMON_H_
