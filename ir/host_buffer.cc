// HostBuffer: the dense row-major host arrays the interpreter runs on.
//
//   HostBuffer a = HostBuffer::Zeros(DataType::Float(16), {2, 3});
//   a.SetFloat(4, 0.1);            // stored as the f16 nearest 0.1
//   a.GetFloat(4);                 // 0.0999755859375, exactly
//   HostBuffer b = a;              // shares storage with `a`
//   HostBuffer c = a.Clone();      // its own copy
//
// Elements are stored as compiled code stores them (f16 as IEEE binary16 bits,
// bf16 as the top half of an f32, bool as one byte 0/1), so the same buffer can
// later be handed to generated code. Get/Set convert like an IR Cast
// (ir/scalar_value.h): SetInt(300) on a u8 stores 44, GetInt on 2.7f gives 2.
//
// Misuse from C++ (a void dtype, a negative extent, an index outside the buffer)
// is a programming error and aborts with a message, like the short IR builders.
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/expr.h"
#include "ir/host_buffer.h"
#include "ir/scalar_value.h"

namespace tessel::ir {
namespace {

void CheckIndex(const HostBuffer& b, int64_t flat_index) {
  if (flat_index < 0 || flat_index >= b.size()) {
    DieWithStatus(absl::OutOfRangeError(absl::StrCat("HostBuffer: flat index ", flat_index,
                                                     " is outside [0, ", b.size(), ")")));
  }
}

uint8_t* At(const HostBuffer& b, int64_t flat_index) {
  CheckIndex(b, flat_index);
  return static_cast<uint8_t*>(b.data()) + flat_index * b.dtype().bytes();
}

}  // namespace

absl::StatusOr<HostBuffer> HostBuffer::ZerosChecked(DataType dtype, std::vector<int64_t> shape) {
  if (!dtype.is_scalar() || dtype.is_handle() || dtype.is_void()) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type ", dtype.ToString(), " is not a scalar value type"));
  }
  int64_t bytes = dtype.bytes();
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && bytes > (int64_t{1} << 40) / d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(shape, ", "), "] is negative or too large"));
    }
    bytes *= d;
  }
  HostBuffer b;
  b.dtype_ = dtype;
  b.shape_ = std::move(shape);
  b.data_ = std::make_shared<HostStorage>(static_cast<size_t>(bytes), 0);
  return b;
}

HostBuffer HostBuffer::Zeros(DataType dtype, std::vector<int64_t> shape) {
  absl::StatusOr<HostBuffer> b = ZerosChecked(dtype, std::move(shape));
  if (!b.ok()) {
    DieWithStatus(
        absl::InvalidArgumentError(absl::StrCat("HostBuffer::Zeros: ", b.status().message())));
  }
  return *std::move(b);
}

int64_t HostBuffer::size() const {
  if (dtype_.is_void()) return 0;
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

HostBuffer HostBuffer::Clone() const {
  HostBuffer b = *this;
  if (data_) b.data_ = std::make_shared<HostStorage>(*data_);
  return b;
}

double HostBuffer::GetFloat(int64_t flat_index) const {
  Lane v = ReadElement(At(*this, flat_index), dtype_);
  return CastLane(v, dtype_, DataType::Float(64)).f;
}

void HostBuffer::SetFloat(int64_t flat_index, double v) {
  WriteElement(At(*this, flat_index), dtype_, CastLane(FloatLane(v), DataType::Float(64), dtype_));
}

int64_t HostBuffer::GetInt(int64_t flat_index) const {
  Lane v = ReadElement(At(*this, flat_index), dtype_);
  if (dtype_.is_integer() || dtype_.is_bool()) return v.i;  // u64 by its bit pattern.
  return CastLane(v, dtype_, DataType::Int(64)).i;
}

void HostBuffer::SetInt(int64_t flat_index, int64_t v) {
  WriteElement(At(*this, flat_index), dtype_, CastLane(IntLane(v), DataType::Int(64), dtype_));
}

}  // namespace tessel::ir
