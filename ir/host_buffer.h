// The host arrays the reference interpreter runs on (implementation and a worked
// example in host_buffer.cc).
#ifndef TESSEL_IR_HOST_BUFFER_H_
#define TESSEL_IR_HOST_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/dtype.h"

namespace tessel::ir {

inline constexpr size_t kHostBufferAlignment = 64;

// An allocator handing out storage aligned to `Align` bytes.
template <typename T, size_t Align>
struct AlignedAllocator {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = AlignedAllocator<U, Align>;
  };
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U, Align>&) {}  // NOLINT: allocator rebinding.
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Align))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(Align)); }
  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
  friend bool operator!=(const AlignedAllocator&, const AlignedAllocator&) { return false; }
};

using HostStorage = std::vector<uint8_t, AlignedAllocator<uint8_t, kHostBufferAlignment>>;

// A dense, row-major host array of one scalar dtype, 64-byte aligned like the
// buffers generated code expects. Copies share storage (like a tensor handle);
// use Clone() for a deep copy.
class HostBuffer {
 public:
  HostBuffer() = default;
  static HostBuffer Zeros(DataType dtype, std::vector<int64_t> shape);
  // As Zeros, but a non-scalar dtype or a negative or too large shape is an error.
  static absl::StatusOr<HostBuffer> ZerosChecked(DataType dtype, std::vector<int64_t> shape);
  int64_t byte_size() const { return size() * dtype_.bytes(); }

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size() const;  // Number of elements.
  void* data() const { return data_ ? data_->data() : nullptr; }
  HostBuffer Clone() const;

  // Element access converting through double / int64 (bool as 0/1; f16 and bf16
  // converted exactly).
  double GetFloat(int64_t flat_index) const;
  void SetFloat(int64_t flat_index, double v);
  int64_t GetInt(int64_t flat_index) const;
  void SetInt(int64_t flat_index, int64_t v);

 private:
  DataType dtype_;
  std::vector<int64_t> shape_;
  std::shared_ptr<HostStorage> data_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_HOST_BUFFER_H_
