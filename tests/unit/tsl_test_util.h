// Shared helpers of the `.tsl` printer/parser units: the round-trip check, the
// message of a parse that must fail, and float bit access.
//
//   ExpectRoundTrip(One(func));     // print, parse, structurally equal, print again
//   EXPECT_THAT(ErrorOf(text), HasSubstr("t.tsl:2:3: undefined buffer 'A'"));
#ifndef TESSEL_TESTS_UNIT_TSL_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_TSL_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tessel::ir::testing {

inline const DataType kI32 = DataType::Int(32);
inline const DataType kI64 = DataType::Int(64);
inline const DataType kF32 = DataType::Float(32);
inline const DataType kF16 = DataType::Float(16);
inline const DataType kBF16 = DataType::BFloat(16);
inline const DataType kF64 = DataType::Float(64);

// print -> parse -> structurally equal, and the reparsed module prints the same text.
inline void ExpectRoundTrip(const IRModule& m) {
  std::string text = PrintModule(m);
  absl::StatusOr<IRModule> back = ParseModule(text, "rt.tsl");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n--- text:\n" << text;
  absl::Status eq = AssertStructuralEqual(m, *back);
  EXPECT_TRUE(eq.ok()) << eq.message() << "\n--- text:\n" << text;
  EXPECT_EQ(PrintModule(*back), text);
}

inline IRModule One(PrimFunc f, const std::string& name = "main") { return MakeIRModule({{name, std::move(f)}}); }

// The message of a parse that must fail.
inline std::string ErrorOf(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text, "t.tsl");
  EXPECT_FALSE(m.ok()) << "parsed but should not have:\n" << text;
  return m.ok() ? "" : std::string(m.status().message());
}

inline uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline double FromBits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace tessel::ir::testing

#endif  // TESSEL_TESTS_UNIT_TSL_TEST_UTIL_H_
