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

#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/export_library.h"
#include "codegen/target.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/time_evaluator.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

using runtime::FunctionSignature;
using runtime::Module;
using runtime::NDArray;
using runtime::ParamSignature;

std::string Where(const FunctionSignature& sig, size_t i) {
  return absl::StrCat(runtime::DescribeSignature(sig), ": argument ", i, " (",
                      sig.params[i].name, ")");
}

std::string TypeName(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

// The arguments of one call as DLTensors, with everything they point into.
class CallArgs {
 public:
  CallArgs(const FunctionSignature& sig, py::sequence args) {
    const size_t n = py::len(args);
    if (n != sig.params.size()) {
      Throw(ErrorKind::kArgument, absl::StrCat(runtime::DescribeSignature(sig), ": expected ",
                                               sig.params.size(), " arguments, given ", n));
    }
    tensors_.resize(n);
    scalars_.resize(n);
    ranges_.resize(n);
    for (size_t i = 0; i < n; ++i) Add(sig, i, args[i]);
    if (std::string e = runtime::CheckWrittenDisjoint(sig, ranges_); !e.empty()) {
      Throw(ErrorKind::kArgument, e);
    }
    for (DLTensor& t : tensors_) pointers_.push_back(&t);
  }

  absl::Span<DLTensor* const> tensors() const { return pointers_; }

  // Writes the staged copies back into the caller's numpy arrays (GIL held).
  void CopyBack() {
    for (auto& [target, staged] : copy_back_) target[py::ellipsis()] = NumpyViewOf(staged);
  }

 private:
  void Add(const FunctionSignature& sig, size_t i, py::handle h) {
    const ParamSignature& p = sig.params[i];
    if (py::isinstance<NDArray>(h)) {
      UseNDArray(i, h.cast<NDArray>());
    } else if (py::isinstance<py::array>(h)) {
      AddNumpy(sig, i, py::reinterpret_borrow<py::array>(h));
    } else if (!p.is_buffer) {
      AddScalar(sig, i, h);
    } else if (py::hasattr(h, "__dlpack__")) {
      UseNDArray(i, FromDLPackObject(h));
    } else {
      Throw(ErrorKind::kArgument,
            absl::StrCat(Where(sig, i), ": expected a numpy array or tessel.nd.NDArray for ",
                         runtime::DescribeParam(p), ", given ", TypeName(h)));
    }
  }

  void UseNDArray(size_t i, NDArray a) {
    tensors_[i] = *a.dltensor();
    const DLTensor& t = tensors_[i];
    if (t.data != nullptr && t.strides == nullptr && t.dtype.lanes == 1) {
      int64_t bytes = runtime::DTypeBytes(t.dtype);
      for (int d = 0; d < t.ndim && bytes > 0; ++d) {
        if (t.shape[d] <= 0 || __builtin_mul_overflow(bytes, t.shape[d], &bytes)) bytes = 0;
      }
      const auto begin = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
      ranges_[i] = runtime::ByteRange{begin, begin + static_cast<uintptr_t>(bytes)};
    }  // Anything else is refused by the call's own check, which has the ranges too.
    kept_.push_back(std::move(a));
  }

  // The bytes a numpy array spans, strides of either sign included.
  static runtime::ByteRange NumpyRange(const py::array& a) {
    intptr_t low = reinterpret_cast<intptr_t>(a.data()), high = low + a.itemsize();
    for (py::ssize_t d = 0; d < a.ndim(); ++d) {
      if (a.shape(d) == 0) return {};
      const intptr_t step = static_cast<intptr_t>(a.shape(d) - 1) * a.strides(d);
      (step < 0 ? low : high) += step;
    }
    return {static_cast<uintptr_t>(low), static_cast<uintptr_t>(high)};
  }

  void AddNumpy(const FunctionSignature& sig, size_t i, py::array a) {
    py::object np_dtype = a.attr("dtype");
    if (!np_dtype.attr("isnative").cast<bool>()) {
      Throw(ErrorKind::kArgument,
            absl::StrCat(Where(sig, i), ": the array's byte order is not the machine's; use "
                                        "arr.astype(arr.dtype.newbyteorder('='))"));
    }
    ir::DataType t;
    try {
      t = DtypeFromPy(np_dtype);
    } catch (const Error&) {
      Throw(ErrorKind::kArgument,
            absl::StrCat(Where(sig, i), ": numpy dtype ", py::str(np_dtype).cast<std::string>(),
                         " has no tessel counterpart (expected ",
                         runtime::DescribeParam(sig.params[i]), ")"));
    }
    const DLDataType dl = Unwrap(runtime::ToDLDataType(t), ErrorKind::kArgument);
    std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
    const bool contiguous = (a.flags() & py::array::c_style) != 0;
    const bool aligned = reinterpret_cast<uintptr_t>(a.data()) % runtime::kArgumentAlignment == 0;
    const bool writeable = a.writeable();
    if (!writeable && sig.params[i].written) {
      Throw(ErrorKind::kArgument,
            absl::StrCat(Where(sig, i), ": the function writes this buffer but the array is "
                                        "read-only (pass a writeable copy: arr.copy())"));
    }
    ranges_[i] = NumpyRange(a);
    if (contiguous && aligned && writeable) {
      shapes_.push_back(shape);
      DLTensor& d = tensors_[i];
      d = DLTensor{};
      d.data = a.mutable_data();
      d.device = DLDevice{kDLCPU, 0};
      d.ndim = static_cast<int32_t>(shape.size());
      d.dtype = dl;
      d.shape = shapes_.back().data();
      arrays_.push_back(a);
      return;
    }
    // Stage an aligned dense copy; it is written back after the call if it can be.
    NDArray staged = Unwrap(NDArray::Zeros(shape, dl), ErrorKind::kArgument);
    py::object handle = py::cast(staged);
    NumpyViewOf(handle)[py::ellipsis()] = a;
    if (sig.params[i].written) copy_back_.emplace_back(a, handle);
    UseNDArray(i, std::move(staged));
    ranges_[i] = NumpyRange(a);  // The caller's memory, not the staging copy's.
  }

  void AddScalar(const FunctionSignature& sig, size_t i, py::handle h) {
    const ParamSignature& p = sig.params[i];
    const ir::DataType t = Unwrap(runtime::ToIRDataType(p.dtype), ErrorKind::kArgument);
    py::module_ np = py::module_::import("numpy");
    const bool is_bool = py::isinstance<py::bool_>(h) || py::isinstance(h, np.attr("bool_"));
    const bool is_int = !is_bool && (py::isinstance<py::int_>(h) ||
                                     py::isinstance(h, np.attr("integer")));
    const bool is_float = py::isinstance<py::float_>(h) || py::isinstance(h, np.attr("floating"));
    auto refuse = [&](const std::string& why) {
      Throw(ErrorKind::kArgument, absl::StrCat(Where(sig, i), ": ", why, " for ",
                                               runtime::DescribeParam(p), ", given ",
                                               py::repr(h).cast<std::string>()));
    };
    uint64_t& slot = scalars_[i];
    slot = 0;
    if (t.is_bool()) {
      if (!is_bool) refuse("expected True or False");
      const uint8_t v = PyObject_IsTrue(h.ptr()) == 1 ? 1 : 0;
      std::memcpy(&slot, &v, 1);
    } else if (t.is_int() || t.is_uint()) {
      if (!is_int) refuse("expected an integer");
      py::int_ v(py::reinterpret_borrow<py::object>(h));
      const int bits = t.bits();
      if (t.is_int()) {
        int64_t x = 0;
        try {
          x = v.cast<int64_t>();
        } catch (const py::cast_error&) {
          refuse(absl::StrCat("the integer does not fit in ", t.ToString()));
        }
        const int64_t lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
        const int64_t hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
        if (x < lo || x > hi) refuse(absl::StrCat("the integer does not fit in ", t.ToString()));
        std::memcpy(&slot, &x, bits / 8);  // Little-endian: the low bytes.
      } else {
        uint64_t x = 0;
        try {
          if (v < py::int_(0)) throw py::cast_error();
          x = v.cast<uint64_t>();
        } catch (const py::cast_error&) {
          refuse(absl::StrCat("the integer does not fit in ", t.ToString()));
        }
        if (bits < 64 && x >> bits != 0) {
          refuse(absl::StrCat("the integer does not fit in ", t.ToString()));
        }
        std::memcpy(&slot, &x, bits / 8);
      }
    } else if (t.is_float() || t.is_bfloat()) {
      if (!is_int && !is_float) refuse("expected a number");
      const double x = py::float_(py::reinterpret_borrow<py::object>(h)).cast<double>();
      if (t.bits() == 64) {
        std::memcpy(&slot, &x, 8);
      } else if (t.bits() == 32) {
        const float f = static_cast<float>(x);
        std::memcpy(&slot, &f, 4);
      } else {
        // f16 / bf16: numpy (or ml_dtypes) does the rounding.
        py::object value = np.attr("array")(x, NumpyDtype(t));
        std::memcpy(&slot, py::array(value).data(), 2);
      }
    } else {
      refuse("unsupported scalar type");
    }
    DLTensor& d = tensors_[i];
    d = DLTensor{};
    d.data = &slot;
    d.device = DLDevice{kDLCPU, 0};
    d.ndim = 0;
    d.dtype = p.dtype;
  }

  std::vector<DLTensor> tensors_;
  std::vector<DLTensor*> pointers_;
  std::vector<uint64_t> scalars_;
  std::vector<runtime::ByteRange> ranges_;  // Of the caller's arrays, by parameter.
  std::deque<std::vector<int64_t>> shapes_;  // deque: elements never move.
  std::vector<NDArray> kept_;
  std::vector<py::array> arrays_;
  std::vector<std::pair<py::array, py::object>> copy_back_;
};

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
      .def("call", &Call, py::arg("name"), py::arg("args"))
      .def("time", &Time, py::arg("name"), py::arg("args"), py::arg("number"),
           py::arg("repeat"), py::arg("min_repeat_ms"), py::arg("flush_cache"),
           py::arg("warmup"));

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
