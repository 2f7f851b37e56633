// numpy arrays as the reference interpreter's HostBuffers and back: the inputs and
// results of graph runs, and a module's constants.
//
//   ir::HostBuffer w = HostBufferFromArray(array, "params['w']");  // a copy
//   py::array back = ArrayFromHostBuffer(w);                       // a copy
#ifndef TESSEL_PYTHON_SRC_HOST_ARRAYS_H_
#define TESSEL_PYTHON_SRC_HOST_ARRAYS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "ir/host_buffer.h"

namespace tessel::python {

namespace py = pybind11;

// A copy of numpy array `h` (C-contiguous); ArgumentError naming `what` when `h`
// is not an array or its dtype has no tessel counterpart.
ir::HostBuffer HostBufferFromArray(py::handle h, const std::string& what);
py::array ArrayFromHostBuffer(const ir::HostBuffer& b);

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_HOST_ARRAYS_H_
