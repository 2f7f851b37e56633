// tessel.nd for Python: the runtime's NDArray (64-byte aligned CPU tensors), numpy
// views and copies of it, and DLPack both ways; the thread count of compiled code.
//
//   >>> x = tessel.nd.empty((2, 3), "float32")      # zero-filled, aligned for kernels
//   >>> v = x.numpy(copy=False); v[0, 0] = 1         # a view: writes reach x
//   >>> y = np.from_dlpack(x)                        # zero-copy; x's memory lives on in y
//   >>> z = tessel.nd.from_dlpack(np.ones(4))        # zero-copy; the numpy array lives on
//
// Lifetimes: a numpy view made here holds the Python NDArray as its base; a DLPack
// export holds the runtime array's storage until the consumer runs the deleter; an
// import holds the producer's tensor (its deleter runs when the last NDArray referring
// to it is gone). So whichever side is dropped first, the memory stays valid.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

using runtime::NDArray;

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// Runs the DLPack deleter of a capsule nobody consumed (a consumer renames it).
void DeleteUnconsumedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

std::vector<int64_t> ShapeFromPy(py::handle shape) {
  if (py::isinstance<py::int_>(shape)) return {CastArg<int64_t>(shape, "a shape is ints")};
  if (!py::isinstance<py::sequence>(shape) || py::isinstance<py::str>(shape)) {
    Throw(ErrorKind::kArgument, absl::StrCat("a shape is a tuple of ints, got ",
                                             py::repr(shape).cast<std::string>()));
  }
  std::vector<int64_t> out;
  for (py::handle d : shape) {
    if (py::isinstance<py::bool_>(d) || !(py::isinstance<py::int_>(d) ||
                                         py::isinstance(d, py::module_::import("numpy").attr("integer")))) {
      Throw(ErrorKind::kArgument, absl::StrCat("a shape is a tuple of ints, got ",
                                               py::repr(shape).cast<std::string>()));
    }
    out.push_back(CastArg<int64_t>(d, "a shape's extents fit in int64"));
  }
  return out;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

// The numpy view of `self` (an NDArray held by a Python object): same memory and
// strides, with `self` as the view's base so that the memory outlives the view.
py::array NumpyView(py::object self) {
  const NDArray& a = self.cast<const NDArray&>();
  if (!a.on_cpu()) {
    Throw(ErrorKind::kArgument,
          absl::StrCat("the NDArray is on ", runtime::DescribeDevice(a.device()),
                       ": a numpy view needs CPU memory (numpy() copies it to the host)"));
  }
  ir::DataType t = Unwrap(runtime::ToIRDataType(a.dtype()), ErrorKind::kArgument);
  py::dtype dtype = py::reinterpret_borrow<py::dtype>(NumpyDtype(t));
  const DLTensor* dl = a.dltensor();
  std::vector<py::ssize_t> shape(dl->shape, dl->shape + dl->ndim);
  std::vector<py::ssize_t> strides(dl->ndim);
  const int64_t item = runtime::DTypeBytes(a.dtype());
  int64_t stride = item;
  for (int d = dl->ndim - 1; d >= 0; --d) {
    strides[d] = dl->strides != nullptr ? dl->strides[d] * item : stride;
    stride *= dl->shape[d];
  }
  if (a.numel() == 0) return py::array(dtype, shape, strides);  // Nothing to share.
  return py::array(dtype, shape, strides, a.data(), self);
}

// A new numpy array holding a copy of `a`'s elements (from the device for a device
// array).
py::array HostCopy(const NDArray& a) {
  ir::DataType t = Unwrap(runtime::ToIRDataType(a.dtype()), ErrorKind::kArgument);
  py::dtype dtype = py::reinterpret_borrow<py::dtype>(NumpyDtype(t));
  const std::vector<int64_t> shape = a.shape();
  py::array out(dtype, std::vector<py::ssize_t>(shape.begin(), shape.end()));
  absl::Status s;
  {
    py::gil_scoped_release release;
    s = a.CopyToBytes(absl::Span<uint8_t>(static_cast<uint8_t*>(out.mutable_data()),
                                          static_cast<size_t>(a.nbytes())));
  }
  Check(s, ErrorKind::kRuntime);
  return out;
}

void CopyFromHost(NDArray& a, py::array source) {
  if (!(source.flags() & py::array::c_style) ||
      source.nbytes() != static_cast<py::ssize_t>(a.nbytes()) ||
      std::vector<int64_t>(source.shape(), source.shape() + source.ndim()) != a.shape()) {
    Throw(ErrorKind::kArgument, "_copy_from_host: a C-contiguous array of the same shape");
  }
  absl::Status s;
  {
    py::gil_scoped_release release;
    s = a.CopyFromBytes(absl::Span<const uint8_t>(static_cast<const uint8_t*>(source.data()),
                                                  static_cast<size_t>(source.nbytes())));
  }
  Check(s, ErrorKind::kRuntime);
}

}  // namespace

py::array NumpyViewOf(py::handle ndarray) {
  return NumpyView(py::reinterpret_borrow<py::object>(ndarray));
}

NDArray FromDLPackObject(py::handle obj) {
  py::object capsule;
  if (PyCapsule_CheckExact(obj.ptr())) {
    capsule = py::reinterpret_borrow<py::object>(obj);
  } else if (py::hasattr(obj, "__dlpack__")) {
    try {
      capsule = obj.attr("__dlpack__")();
    } catch (py::error_already_set& e) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("from_dlpack: ", py::repr(py::type::of(obj)).cast<std::string>(),
                         ".__dlpack__() raised: ", e.what()));
    }
  } else {
    Throw(ErrorKind::kArgument,
          absl::StrCat("from_dlpack takes an object with __dlpack__ (a numpy array, a "
                       "tensor) or a 'dltensor' capsule, got ",
                       py::repr(py::type::of(obj)).cast<std::string>()));
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName)) {
    Throw(ErrorKind::kArgument,
          "from_dlpack: not an unconsumed 'dltensor' capsule (a DLPack capsule can be "
          "consumed once)");
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  NDArray out = Unwrap(NDArray::FromDLPack(managed), ErrorKind::kArgument);
  // The NDArray owns the tensor now: the capsule must not run its deleter.
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  PyCapsule_SetDestructor(capsule.ptr(), nullptr);
  return out;
}

void BindRuntime(py::module_& m) {
  py::class_<NDArray>(m, "NDArray", R"doc(
A tensor in CPU memory, as compiled tessel functions take it. Arrays tessel
allocates (tessel.nd.array, tessel.nd.empty) are dense, row-major and 64-byte
aligned; arrays imported with tessel.nd.from_dlpack share the producer's memory
as it is (a call checks layout and alignment). Copies of the handle share memory.)doc")
      .def_property_readonly(
          "shape", [](const NDArray& a) { return py::tuple(py::cast(a.shape())); },
          "The extents, as a tuple of ints.")
      .def_property_readonly(
          "dtype",
          [](const NDArray& a) {
            ir::DataType t = Unwrap(runtime::ToIRDataType(a.dtype()), ErrorKind::kArgument);
            return NumpyDtype(t).attr("name").cast<std::string>();
          },
          "The element type in numpy's spelling ('float32', 'int64', 'bool', ...).")
      .def_property_readonly("ndim", &NDArray::ndim, "The number of dimensions.")
      .def_property_readonly("size", &NDArray::numel, "The number of elements.")
      .def_property_readonly("nbytes", &NDArray::nbytes, "The size of the elements in bytes.")
      .def_property_readonly("is_contiguous", &NDArray::IsContiguous,
                             "True when dense row-major (what compiled functions take).")
      .def_property_readonly(
          "is_aligned", [](const NDArray& a) { return a.IsAligned(); },
          "True when the data starts on a 64-byte boundary (what compiled functions take).")
      .def_property_readonly("owns_memory", &NDArray::owns_memory,
                             "True for memory tessel allocated, False for a DLPack import.")
      .def_property_readonly(
          "data_ptr", [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); },
          "The address of the first element (data + byte_offset), for tests of sharing.")
      .def_property_readonly(
          "device", [](const NDArray& a) { return runtime::DescribeDevice(a.device()); },
          "Where the elements live: 'cpu:0', or 'cuda:0' for a device array.")
      .def(
          "numpy",
          [](py::object self, bool copy) {
            const NDArray& a = self.cast<const NDArray&>();
            if (!a.on_cpu() && copy) return HostCopy(a);
            py::array view = NumpyView(self);
            return copy ? py::array(view.attr("copy")()) : view;
          },
          py::arg("copy") = true, R"doc(
The elements as a numpy array. By default a copy, independent of this array.
With copy=False, a zero-copy view: writes through it change this array, and the
view keeps this array's memory alive (CPU arrays only: a device array's elements
are copied to the host).)doc")
      .def("_copy_from_host", &CopyFromHost, py::arg("source"),
           "Copies a C-contiguous numpy array of this shape and dtype into this array "
           "(to the device for a device array).")
      .def(
          "__array__",
          [](py::object self, py::object dtype) {
            const NDArray& a = self.cast<const NDArray&>();
            py::array view = a.on_cpu() ? NumpyView(self) : HostCopy(a);
            return dtype.is_none() ? py::object(view) : view.attr("astype")(dtype);
          },
          py::arg("dtype") = py::none())
      .def(
          "__dlpack__",
          [](const NDArray& a, py::args, py::kwargs) {
            DLManagedTensor* managed = a.ToDLPack();
            if (managed == nullptr) Throw(ErrorKind::kArgument, "the NDArray is undefined");
            return py::reinterpret_steal<py::object>(
                PyCapsule_New(managed, kCapsuleName, DeleteUnconsumedCapsule));
          },
          "A DLPack capsule sharing this array's memory (zero-copy); the memory stays "
          "alive until the consumer releases it.")
      .def(
          "__dlpack_device__",
          [](const NDArray& a) {
            const DLDevice d = a.dltensor()->device;
            return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
          },
          "(device type, device id) in DLPack's codes: (1, 0) is the CPU.")
      .def("__repr__", [](py::object self) {
        const NDArray& a = self.cast<const NDArray&>();
        return absl::StrCat(
            "tessel.nd.NDArray(shape=", ShapeText(a.shape()),
            ", dtype=", self.attr("dtype").cast<std::string>(),
            a.on_cpu() ? "" : ", device='" + runtime::DescribeDevice(a.device()) + "'", ")");
      });

  m.def(
      "nd_empty",
      [](py::handle shape, py::handle dtype, int device_type, int device_id) {
        std::vector<int64_t> dims = ShapeFromPy(shape);
        ir::DataType t = DtypeFromPy(dtype);
        if (!t.is_scalar()) {
          Throw(ErrorKind::kArgument,
                absl::StrCat("an NDArray holds scalars; ", t.ToString(), " is a vector type"));
        }
        const DLDataType dl = Unwrap(runtime::ToDLDataType(t), ErrorKind::kArgument);
        const DLDevice device{static_cast<DLDeviceType>(device_type), device_id};
        absl::StatusOr<NDArray> a = NDArray::Zeros(dims, dl, device);
        // No driver or device is the machine's state, not a bad argument.
        if (a.status().code() == absl::StatusCode::kUnavailable) {
          Throw(ErrorKind::kRuntime, std::string(a.status().message()));
        }
        return Unwrap(std::move(a), ErrorKind::kArgument);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("device_type") = static_cast<int>(kDLCPU),
      py::arg("device_id") = 0);
  m.def("nd_from_dlpack", &FromDLPackObject, py::arg("obj"));
  m.def(
      "set_num_threads",
      [](int64_t n) {
        if (n > 1024) {
          Throw(ErrorKind::kArgument,
                absl::StrCat("set_num_threads: at most 1024 threads, given ", n));
        }
        tessel_set_num_threads(static_cast<int32_t>(n < 0 ? 0 : n));
      },
      py::arg("n"));
  m.def("get_num_threads", [] { return tessel_get_num_threads(); });
}

}  // namespace tessel::python
