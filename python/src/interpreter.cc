// The reference interpreter for Python: runs a PrimFunc on numpy arrays, which
// are written in place, and the differential check used to test transforms.
//
//   >>> a = np.random.rand(64, 64).astype("float32"); c = np.zeros((64, 64), "float32")
//   >>> tessel.interpret(mod["matmul"], a, b, c)        # c now holds a @ b
//   >>> tessel.interpret(f, a.astype("float64"), b, c)
//   tessel.ArgumentError: argument 0 ('A'): dtype float64 does not match the parameter's f32 ...
//
// Arguments are checked here (count, array-ness, dtype, rank, constant extents)
// and raise ArgumentError; what only a run can find (a symbolic extent that
// disagrees, an out-of-bounds access, division by zero) raises RuntimeError.
// The arrays are copied into the interpreter's aligned buffers, the run happens
// without the GIL, and buffers the run changed are copied back.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/host_buffer.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

struct Resolved {
  ir::PrimFunc func;
  std::string name;
};

Resolved ResolveFunc(py::handle target, py::handle name) {
  if (py::isinstance<ir::PrimFuncNode>(target)) {
    return {target.cast<ir::PrimFunc>(), name.is_none() ? "main" : name.cast<std::string>()};
  }
  if (!py::isinstance<ir::IRModuleNode>(target)) {
    Throw(ErrorKind::kArgument, absl::StrCat("interpret runs a PrimFunc or an IRModule, got ",
                                             py::repr(target).cast<std::string>()));
  }
  ir::IRModule mod = target.cast<ir::IRModule>();
  if (name.is_none()) {
    if (mod->functions.size() != 1) {
      std::vector<std::string> names;
      for (const auto& [n, f] : mod->functions) names.push_back(n);
      Throw(ErrorKind::kArgument, absl::StrCat("the module has ", names.size(),
                                               " functions (", absl::StrJoin(names, ", "),
                                               "): say which with name="));
    }
    return {mod->functions[0].second, mod->functions[0].first};
  }
  std::string n = name.cast<std::string>();
  ir::PrimFunc f = mod->Lookup(n);
  if (!f) Throw(ErrorKind::kArgument, absl::StrCat("no function '", n, "' in the module"));
  return {f, n};
}

std::string ArgName(size_t i, const ir::Param& p) {
  return absl::StrCat("argument ", i, " ('", p.name(), "')");
}

// One buffer argument: the caller's array, and the contiguous copy the run used.
struct ArrayArg {
  size_t index;
  py::array array;
  py::array contiguous;
  ir::HostBuffer buffer;
};

ArrayArg BufferArg(size_t i, const ir::Param& p, py::handle h) {
  const ir::Buffer& b = p.buffer;
  const std::string what = ArgName(i, p);
  if (!py::isinstance<py::array>(h)) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": expected a numpy array for buffer ",
                                             b->dtype.ToString(), "[...], got ",
                                             py::repr(py::type::of(h)).cast<std::string>()));
  }
  py::array a = py::reinterpret_borrow<py::array>(h);
  py::object np_dtype = a.attr("dtype");
  const std::string np_name = np_dtype.attr("name").cast<std::string>();
  if (!np_dtype.attr("isnative").cast<bool>()) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": the array's byte order is not the machine's; "
                                             "use arr.astype(arr.dtype.newbyteorder('='))"));
  }
  ir::DataType t;
  try {
    t = DtypeFromPy(np_dtype);
  } catch (const Error&) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": numpy dtype ", np_name,
                                             " has no tessel counterpart"));
  }
  if (t != b->dtype) {
    py::object expected;
    std::string hint;
    try {
      expected = NumpyDtype(b->dtype);
      hint = absl::StrCat(" (pass a numpy ", expected.attr("name").cast<std::string>(), " array)");
    } catch (const Error& e) {
      hint = absl::StrCat(" (", e.message, ")");
    }
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": dtype ", np_name, " does not match the parameter's ",
                                             b->dtype.ToString(), hint));
  }
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  std::vector<std::string> dims;
  for (const ir::Expr& d : b->shape) dims.push_back(ir::PrintExpr(d));
  const std::string param_shape = absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
  if (static_cast<int>(shape.size()) != b->ndim()) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, ": the array has ", shape.size(),
                                             " dimensions, the parameter ", b->ndim(), " ",
                                             param_shape));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto* imm = ir::dyn_cast<ir::IntImmNode>(b->shape[d]);
    if (imm != nullptr && imm->value != shape[d]) {
      Throw(ErrorKind::kArgument,
            absl::StrCat(what, ": shape [", absl::StrJoin(shape, ", "),
                         "] does not match the parameter's shape ", param_shape));
    }
  }
  ArrayArg arg{i, a, py::module_::import("numpy").attr("ascontiguousarray")(a),
               ir::HostBuffer::Zeros(t, shape)};
  if (arg.contiguous.nbytes() > 0) {
    std::memcpy(arg.buffer.data(), arg.contiguous.data(), arg.contiguous.nbytes());
  }
  return arg;
}

ir::Arg ScalarArg(size_t i, const ir::Param& p, py::handle h) {
  const ir::DataType t = p.var->dtype;
  const std::string what = ArgName(i, p);
  py::object numpy = py::module_::import("numpy");
  const bool is_bool = py::isinstance<py::bool_>(h) || py::isinstance(h, numpy.attr("bool_"));
  const bool is_int = !is_bool && (py::isinstance<py::int_>(h) || py::isinstance(h, numpy.attr("integer")));
  const bool is_float = py::isinstance<py::float_>(h) || py::isinstance(h, numpy.attr("floating"));
  if (t.is_bool() && is_bool) return int64_t{h.cast<bool>() ? 1 : 0};
  if (t.is_integer() && is_int) {
    try {
      return t.is_uint() && t.bits() == 64 ? static_cast<int64_t>(h.cast<uint64_t>())
                                           : h.cast<int64_t>();
    } catch (const py::cast_error&) {
      Throw(ErrorKind::kArgument, absl::StrCat(what, ": ", py::repr(h).cast<std::string>(),
                                               " does not fit in ", t.ToString()));
    }
  }
  if (t.is_float() && (is_float || is_int)) return h.cast<double>();
  Throw(ErrorKind::kArgument, absl::StrCat(what, ": expected a ", t.ToString(), " scalar, got ",
                                           py::repr(h).cast<std::string>()));
}

// A run's failure as a Python error: the KeyboardInterrupt that stopped it as
// itself, a spent budget with how to raise it.
void CheckRun(const absl::Status& status) {
  RethrowStashedPythonError();
  if (absl::IsResourceExhausted(status)) {
    Throw(ErrorKind::kRuntime,
          absl::StrCat(status.message(), " (the work budget: pass max_steps=N to raise it, or "
                                         "max_steps=0 for no limit)"));
  }
  Check(status, ErrorKind::kRuntime);
}

void Interpret(py::object target, py::list args, py::object name, int64_t max_steps) {
  Resolved r = ResolveFunc(target, name);
  const std::vector<ir::Param>& params = r.func->params;
  if (args.size() != params.size()) {
    std::vector<std::string> names;
    for (const ir::Param& p : params) names.push_back(p.name());
    Throw(ErrorKind::kArgument, absl::StrCat("function '", r.name, "' takes ", params.size(),
                                             " arguments (", absl::StrJoin(names, ", "), "), got ",
                                             args.size()));
  }
  if (max_steps < 0) Throw(ErrorKind::kArgument, "max_steps must be >= 0 (0: unlimited)");
  std::vector<ir::Arg> run_args;
  std::vector<ArrayArg> arrays;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].is_buffer()) {
      arrays.push_back(BufferArg(i, params[i], args[i]));
      run_args.emplace_back(arrays.back().buffer);
    } else {
      run_args.push_back(ScalarArg(i, params[i], args[i]));
    }
  }
  absl::Status status;
  ClearStashedPythonError();
  {
    py::gil_scoped_release release;
    status = ir::Run(r.func, run_args, {.max_steps = max_steps, .interrupted = PythonInterrupted},
                     r.name);
  }
  CheckRun(status);
  for (ArrayArg& a : arrays) {
    const size_t n = static_cast<size_t>(a.contiguous.nbytes());
    if (n == 0 || std::memcmp(a.buffer.data(), a.contiguous.data(), n) == 0) continue;
    if (!a.array.writeable()) {
      Throw(ErrorKind::kArgument,
            absl::StrCat(ArgName(a.index, params[a.index]),
                         ": the function writes this buffer but the array is read-only"));
    }
    std::vector<py::ssize_t> shape(a.array.shape(), a.array.shape() + a.array.ndim());
    // A view of the result (kept alive by this scope) assigned into the caller's array,
    // which may be strided.
    py::array result(a.array.dtype(), shape, a.buffer.data(), py::capsule(a.buffer.data(), [](void*) {}));
    a.array[py::ellipsis()] = result;
  }
}

}  // namespace

void BindInterpreter(py::module_& m) {
  m.def("interpret", &Interpret, py::arg("func"), py::arg("args"), py::arg("name") = py::none(),
        py::arg("max_steps") = 0);
  m.def(
      "check_same_results",
      [](const ir::PrimFunc& a, const ir::PrimFunc& b, uint64_t seed, double rtol, double atol,
         int64_t max_steps) {
        if (!a || !b) Throw(ErrorKind::kArgument, "check_same_results compares two PrimFuncs");
        if (max_steps < 0) Throw(ErrorKind::kArgument, "max_steps must be >= 0 (0: unlimited)");
        absl::Status s;
        ClearStashedPythonError();
        {
          py::gil_scoped_release release;
          s = ir::CheckSameResults(a, b, seed, {.rtol = rtol, .atol = atol},
                                   {.max_steps = max_steps, .interrupted = PythonInterrupted});
        }
        CheckRun(s);
      },
      py::arg("a"), py::arg("b"), py::arg("seed") = 1, py::arg("rtol") = 1e-5,
      py::arg("atol") = 1e-6, py::arg("max_steps") = 0);
}

}  // namespace tessel::python
