// numpy arrays <-> the interpreter's HostBuffers (see host_arrays.h).
#include "python/src/host_arrays.h"

#include <pybind11/numpy.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "python/src/common.h"

namespace tessel::python {

ir::HostBuffer HostBufferFromArray(py::handle h, const std::string& what) {
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

}  // namespace tessel::python
