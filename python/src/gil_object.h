// A Python object kept by C++ code that may drop it without holding the GIL (a
// callback stored in a tuner running with the GIL released): the last owner
// releases it under the GIL.
//
//   std::shared_ptr<py::object> cb = HoldUnderGil(progress);   // copy freely
#ifndef TESSEL_PYTHON_SRC_GIL_OBJECT_H_
#define TESSEL_PYTHON_SRC_GIL_OBJECT_H_

#include <pybind11/pybind11.h>

#include <memory>

namespace tessel::python {

inline std::shared_ptr<pybind11::object> HoldUnderGil(pybind11::object o) {
  return std::shared_ptr<pybind11::object>(new pybind11::object(std::move(o)),
                                           [](pybind11::object* p) {
                                             pybind11::gil_scoped_acquire acquire;
                                             delete p;
                                           });
}

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_GIL_OBJECT_H_
