// CallArgs (see call_args.h).
#include "python/src/call_args.h"

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
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/time_evaluator.h"
#include "codegen/target.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

using runtime::FunctionSignature;
using runtime::NDArray;
using runtime::ParamSignature;

namespace {

std::string Where(const FunctionSignature& sig, size_t i) {
  return absl::StrCat(runtime::DescribeSignature(sig), ": argument ", i, " (", sig.params[i].name,
                      ")");
}

std::string TypeName(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

}  // namespace

CallArgs::CallArgs(const FunctionSignature& sig, py::sequence args) {
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

void CallArgs::CopyBack() {
  for (auto& [target, staged] : copy_back_) target[py::ellipsis()] = NumpyViewOf(staged);
}

void CallArgs::Add(const FunctionSignature& sig, size_t i, py::handle h) {
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

void CallArgs::UseNDArray(size_t i, NDArray a) {
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

runtime::ByteRange CallArgs::NumpyRange(const py::array& a) {
  intptr_t low = reinterpret_cast<intptr_t>(a.data()), high = low + a.itemsize();
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    if (a.shape(d) == 0) return {};
    const intptr_t step = static_cast<intptr_t>(a.shape(d) - 1) * a.strides(d);
    (step < 0 ? low : high) += step;
  }
  return {static_cast<uintptr_t>(low), static_cast<uintptr_t>(high)};
}

void CallArgs::AddNumpy(const FunctionSignature& sig, size_t i, py::array a) {
  py::object np_dtype = a.attr("dtype");
  if (!np_dtype.attr("isnative").cast<bool>()) {
    Throw(ErrorKind::kArgument, absl::StrCat(Where(sig, i),
                                             ": the array's byte order is not the machine's; use "
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
    Throw(ErrorKind::kArgument, absl::StrCat(Where(sig, i),
                                             ": the function writes this buffer but the array is "
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

void CallArgs::AddScalar(const FunctionSignature& sig, size_t i, py::handle h) {
  const ParamSignature& p = sig.params[i];
  const ir::DataType t = Unwrap(runtime::ToIRDataType(p.dtype), ErrorKind::kArgument);
  py::module_ np = py::module_::import("numpy");
  const bool is_bool = py::isinstance<py::bool_>(h) || py::isinstance(h, np.attr("bool_"));
  const bool is_int =
      !is_bool && (py::isinstance<py::int_>(h) || py::isinstance(h, np.attr("integer")));
  const bool is_float = py::isinstance<py::float_>(h) || py::isinstance(h, np.attr("floating"));
  auto refuse = [&](const std::string& why) {
    Throw(ErrorKind::kArgument,
          absl::StrCat(Where(sig, i), ": ", why, " for ", runtime::DescribeParam(p), ", given ",
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
      const int64_t lo =
          bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
      const int64_t hi =
          bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
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

}  // namespace tessel::python
