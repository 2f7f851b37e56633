// Element types of expressions and buffers: a code, a bit width and a lane count.
//
//   DataType::Float(32)        prints "f32"
//   DataType::Int(32, 16)      prints "i32x16"   (a 16-lane vector)
//   DataType::Bool()           prints "bool"
//   DataType::Parse("bf16")    -> DataType::BFloat(16)
//
// Supported scalars: i8 i16 i32 i64, u8 u16 u32 u64, f16 bf16 f32 f64, bool, and
// `handle` (an opaque pointer, the type of a buffer parameter).
#ifndef TESSEL_IR_DTYPE_H_
#define TESSEL_IR_DTYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::ir {

class DataType {
 public:
  enum class Code : uint8_t { kInt, kUInt, kFloat, kBFloat, kBool, kHandle };

  constexpr DataType() : code_(Code::kHandle), bits_(0), lanes_(0) {}  // "void"
  constexpr DataType(Code code, int bits, int lanes)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {Code::kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {Code::kUInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {Code::kFloat, bits, lanes}; }
  static constexpr DataType BFloat(int bits = 16, int lanes = 1) {
    return {Code::kBFloat, bits, lanes};
  }
  static constexpr DataType Bool(int lanes = 1) { return {Code::kBool, 1, lanes}; }
  static constexpr DataType Handle() { return {Code::kHandle, 64, 1}; }
  static constexpr DataType Void() { return DataType(); }

  // Parses "f32", "i64x4", "bool", "bf16", "handle", "void".
  static absl::StatusOr<DataType> Parse(absl::string_view text);

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  int bytes() const { return (bits_ + 7) / 8; }

  bool is_int() const { return code_ == Code::kInt; }
  bool is_uint() const { return code_ == Code::kUInt; }
  bool is_integer() const { return is_int() || is_uint(); }  // Not bool.
  bool is_float() const { return code_ == Code::kFloat || code_ == Code::kBFloat; }
  bool is_bfloat() const { return code_ == Code::kBFloat; }
  bool is_bool() const { return code_ == Code::kBool; }
  bool is_handle() const { return code_ == Code::kHandle && lanes_ != 0; }
  bool is_void() const { return code_ == Code::kHandle && lanes_ == 0; }
  bool is_scalar() const { return lanes_ == 1; }
  bool is_vector() const { return lanes_ > 1; }

  DataType element_of() const { return with_lanes(1); }
  DataType with_lanes(int lanes) const { return DataType(code_, bits_, lanes); }
  DataType with_bits(int bits) const { return DataType(code_, bits, lanes_); }

  // "f32", "i32x4", ...
  std::string ToString() const;

  friend bool operator==(DataType a, DataType b) {
    return a.code_ == b.code_ && a.bits_ == b.bits_ && a.lanes_ == b.lanes_;
  }
  friend bool operator!=(DataType a, DataType b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, DataType t) {
    return H::combine(std::move(h), t.code_, t.bits_, t.lanes_);
  }

 private:
  Code code_;
  uint8_t bits_;
  uint16_t lanes_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_DTYPE_H_
