#include "ir/dtype.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessel::ir {
namespace {

// Which bit widths each code allows; anything else is refused at parse time.
bool ValidBits(DataType::Code code, int bits) {
  switch (code) {
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      return bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case DataType::Code::kFloat:
      return bits == 16 || bits == 32 || bits == 64;
    case DataType::Code::kBFloat:
      return bits == 16;
    case DataType::Code::kBool:
      return bits == 1;
    case DataType::Code::kHandle:
      return bits == 64;
  }
  return false;
}

}  // namespace

std::string DataType::ToString() const {
  if (is_void()) return "void";
  std::string s;
  switch (code_) {
    case Code::kInt: s = absl::StrCat("i", bits_); break;
    case Code::kUInt: s = absl::StrCat("u", bits_); break;
    case Code::kFloat: s = absl::StrCat("f", bits_); break;
    case Code::kBFloat: s = absl::StrCat("bf", bits_); break;
    case Code::kBool: s = "bool"; break;
    case Code::kHandle: s = "handle"; break;
  }
  if (lanes_ != 1) absl::StrAppend(&s, "x", lanes_);
  return s;
}

absl::StatusOr<DataType> DataType::Parse(absl::string_view text) {
  if (text == "void") return DataType::Void();
  absl::string_view scalar = text;
  int lanes = 1;
  if (size_t x = text.rfind('x'); x != absl::string_view::npos) {
    scalar = text.substr(0, x);
    if (!absl::SimpleAtoi(text.substr(x + 1), &lanes) || lanes < 1 || lanes > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad lane count in type '", text, "': lanes must be 1..65535"));
    }
  }
  Code code;
  absl::string_view digits;
  if (scalar == "bool") return DataType::Bool(lanes);
  if (scalar == "handle") {
    if (lanes != 1) return absl::InvalidArgumentError("type 'handle' has no vector form");
    return DataType::Handle();
  }
  if (scalar.substr(0, 2) == "bf") {
    code = Code::kBFloat;
    digits = scalar.substr(2);
  } else if (!scalar.empty() && (scalar[0] == 'i' || scalar[0] == 'u' || scalar[0] == 'f')) {
    code = scalar[0] == 'i' ? Code::kInt : scalar[0] == 'u' ? Code::kUInt : Code::kFloat;
    digits = scalar.substr(1);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown type '", text, "' (expected i8..i64, u8..u64, f16, bf16, f32, f64, bool, handle)"));
  }
  int bits = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &bits) || !ValidBits(code, bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown type '", text, "' (expected i8..i64, u8..u64, f16, bf16, f32, f64, bool, handle)"));
  }
  return DataType(code, bits, lanes);
}

}  // namespace tessel::ir
