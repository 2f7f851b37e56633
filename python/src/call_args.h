// The arguments of one call of a compiled function, from Python objects, as
// the DLTensors the runtime checks and the kernel receives; how each kind of
// object becomes one is the rule at the top of runtime_module.cc. Shared by
// function calls (runtime_module.cc) and graph function calls (graph_executor.cc).
//
//   CallArgs call(f.signature, args);            // raises ArgumentError on a bad argument
//   runtime::CallFunction(f, call.tensors());    // without the GIL
//   call.CopyBack();                             // staged copies back into numpy arrays
#ifndef TESSEL_PYTHON_SRC_CALL_ARGS_H_
#define TESSEL_PYTHON_SRC_CALL_ARGS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/signature.h"

namespace tessel::python {

namespace py = pybind11;

class CallArgs {
 public:
  // Checks and converts `args`, one per parameter of `sig`; raises ArgumentError.
  CallArgs(const runtime::FunctionSignature& sig, py::sequence args);

  absl::Span<DLTensor* const> tensors() const { return pointers_; }

  // Writes the staged copies back into the caller's numpy arrays (GIL held).
  void CopyBack();

 private:
  void Add(const runtime::FunctionSignature& sig, size_t i, py::handle h);
  void UseNDArray(size_t i, runtime::NDArray a);
  // The bytes a numpy array spans, strides of either sign included.
  static runtime::ByteRange NumpyRange(const py::array& a);
  void AddNumpy(const runtime::FunctionSignature& sig, size_t i, py::array a);
  void AddScalar(const runtime::FunctionSignature& sig, size_t i, py::handle h);

  std::vector<DLTensor> tensors_;
  std::vector<DLTensor*> pointers_;
  std::vector<uint64_t> scalars_;
  std::vector<runtime::ByteRange> ranges_;   // Of the caller's arrays, by parameter.
  std::deque<std::vector<int64_t>> shapes_;  // deque: elements never move.
  std::vector<runtime::NDArray> kept_;
  std::vector<py::array> arrays_;
  std::vector<std::pair<py::array, py::object>> copy_back_;
};

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_CALL_ARGS_H_
