// NDArray: a tensor handle over DLPack, in CPU memory or on a CUDA device. Arrays
// tessel allocates are dense, row-major and 64-byte aligned (what compiled kernels
// require); arrays imported from DLPack share the producer's memory without copying.
//
//   absl::StatusOr<NDArray> a = NDArray::Zeros({128, 64}, DLDataType{kDLFloat, 32, 1});
//   static_cast<float*>(a->data())[0] = 1.0f;
//   DLManagedTensor* t = a->ToDLPack();   // zero-copy; `a` may go away now
//   ... consumer calls t->deleter(t) when done; the memory is freed after both are gone.
//   absl::StatusOr<NDArray> b = NDArray::FromDLPack(other_framework_tensor);
//
// Copies of an NDArray share the storage (like a tensor handle in Python). A CUDA
// array (Zeros with DLDevice{kDLCUDA, 0}) lives in device memory that
// tessel_cuda.h allocates: a GPU function called with it reads and writes it in
// place, CopyFromBytes / CopyToBytes move its elements, and data() is a device
// address, never to be dereferenced on the host.
//
//   absl::StatusOr<NDArray> d = NDArray::Zeros({1024}, f32, DLDevice{kDLCUDA, 0});
//   d->CopyFromBytes(host_bytes);   // without a driver, Zeros already failed with why
#ifndef TESSEL_CODEGEN_RUNTIME_NDARRAY_H_
#define TESSEL_CODEGEN_RUNTIME_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/dtype.h"
#include "ir/host_buffer.h"

namespace tessel::runtime {

class NDArray {
 public:
  NDArray() = default;  // Undefined: defined() is false.

  // A zero-filled, dense, 64-byte-aligned array. Fails on a negative extent, an
  // overflowing size or a dtype outside i8..i64, u8..u64, f16, bf16, f32, f64, bool.
  static absl::StatusOr<NDArray> Zeros(std::vector<int64_t> shape, DLDataType dtype);
  static absl::StatusOr<NDArray> Zeros(std::vector<int64_t> shape, ir::DataType dtype);
  // The same on `device`: the CPU, or CUDA device 0 (the device tessel's CUDA runtime
  // drives; another id is refused). Fails with the runtime's message where there is
  // no CUDA driver or device.
  static absl::StatusOr<NDArray> Zeros(std::vector<int64_t> shape, DLDataType dtype,
                                       DLDevice device);

  // Takes ownership of `managed` without copying; its deleter runs once, when the last
  // NDArray (or export) referencing it is gone. Fails, leaving ownership with the
  // caller, on a NULL tensor, a device other than the CPU or CUDA, a malformed shape
  // or an unsupported dtype. Strides and alignment are kept as given: a call checks
  // them.
  static absl::StatusOr<NDArray> FromDLPack(DLManagedTensor* managed);
  // A DLManagedTensor viewing this array's memory, keeping it alive until the consumer
  // calls its deleter (exactly once). Null for an undefined array.
  DLManagedTensor* ToDLPack() const;

  // A dense, aligned copy of any CPU tensor (strided, offset, unaligned): how arrays
  // from elsewhere (numpy) become arguments a call accepts. Fails like FromDLPack.
  static absl::StatusOr<NDArray> CopyOf(const DLTensor& tensor);

  // Copies between host buffers of the interpreter and NDArrays (same dtype and shape).
  static absl::StatusOr<NDArray> FromHostBuffer(const ir::HostBuffer& buffer);
  absl::StatusOr<ir::HostBuffer> ToHostBuffer() const;

  bool defined() const { return state_ != nullptr; }
  // The DLTensor to pass in a call; valid while this array (or a copy) lives.
  DLTensor* dltensor() const;
  void* data() const;  // data + byte_offset.
  DLDataType dtype() const;
  DLDevice device() const;
  bool on_cpu() const { return device().device_type == kDLCPU; }
  std::vector<int64_t> shape() const;
  int ndim() const;
  int64_t numel() const;
  int64_t nbytes() const;
  // Dense row-major (NULL strides, or strides equal to those, extent-1 dims free).
  bool IsContiguous() const;
  bool IsAligned(int64_t alignment = 64) const;
  // Whether the array owns memory tessel allocated (false for DLPack imports).
  bool owns_memory() const;

  // Copies `bytes` (host memory, exactly nbytes() of them) in / out, to and from the
  // device for a CUDA array; the array must be contiguous.
  absl::Status CopyFromBytes(absl::Span<const uint8_t> bytes);
  absl::Status CopyToBytes(absl::Span<uint8_t> bytes) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_NDARRAY_H_
