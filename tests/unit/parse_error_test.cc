// Parse errors: `file:line:col: message`, the source line and a caret; scopes end
// where their bindings end; nesting too deep is an error, never a crash.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/tsl_test_util.h"

namespace tessel::ir {
namespace {

using namespace ::tessel::ir::testing;  // NOLINT: the shared test helpers.
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- Errors ---------------------------------------------------------------------------

TEST(ParseErrorTest, FormatIsFileLineColumnThenSourceLineAndCaret) {
  EXPECT_EQ(ErrorOf("func @f(A: f32[4]) {\n  A[0] = x\n}\n"),
            "t.tsl:2:10: undefined variable 'x'\n"
            "    A[0] = x\n"
            "           ^");
}

TEST(ParseErrorTest, MistakesArePointedAt) {
  const std::string head = "func @f(A: f32[4], n: i32) {\n";
  struct Case {
    std::string text;
    std::string where_and_message;
  } cases[] = {
      {head + "  A[0] = 1\n}", "t.tsl:2:8: BufferStore: storing i32 into buffer 'A' needs f32"},
      {head + "  A[0] = A[1] + 1\n}", "t.tsl:2:15: Add: operand types differ (f32 vs i32)"},
      {head + "  B[0] = 1.0f32\n}", "t.tsl:2:3: undefined buffer 'B'"},
      {head + "  A[0] = n[0]\n}", "t.tsl:2:10: 'n' is a variable, not a buffer"},
      {head + "  A[0] = A\n}", "t.tsl:2:10: 'A' is a buffer; load from it with A[...]"},
      {head + "  for i in range(0, 4) {\n    A[i] = 0.0f32\n  }\n", "t.tsl:5:1: missing '}': the '{' at line 1, column 28 is not closed before the end of the input"},
      {head + "  for i in range(0, 4) {\n}\nfunc @g() {}\n", "t.tsl:4:1: missing '}': the '{' at line 1, column 28 is not closed before 'func'"},
      {head + "  for i in range(0, 4)\n    A[i] = 0.0f32\n}", "t.tsl:3:5: expected '{' and the loop body but found 'A'"},
      {"func @f(A: f33[4]) {}", "t.tsl:1:12: unknown type 'f33'"},
      {"func @f(A: f32[4], A: f32[4]) {}", "t.tsl:1:20: duplicate parameter 'A'"},
      {"func @f(n: i32, A: f32[n], n: i64) {}", "t.tsl:1:28: duplicate parameter 'n'"},
      {head + "  A[0] = f32(300u8)\n}", "t.tsl:2:14: IntImm: value 300 does not fit in type u8"},
      {head + "  A[n] = f32(1.5i32)\n}", "t.tsl:2:14: '1.5' is not a whole number, as type i32 needs"},
      {head + "  A[99999999999999999999i64] = 0.0f32\n}", "t.tsl:2:5: integer literal '99999999999999999999i64' is too large"},
      {head + "  A[2147483648] = 0.0f32\n}", "t.tsl:2:5: IntImm: value 2147483648 does not fit in type i32"},
      {head + "  A[0] = 1e39f32\n}", "t.tsl:2:10: float literal '1e39f32' overflows f32"},
      {head + "  A[0] = 1.0e-50f32\n}", "t.tsl:2:10: float literal '1.0e-50f32' underflows to zero in f32"},
      {head + "  A[0] = 1.0e400f64\n}", "t.tsl:2:10: float literal '1.0e400f64' is out of range for f64"},
      {head + "  A[0] = 1.5\n}", "t.tsl:2:10: a float literal carries its type, e.g. 1.5f32"},
      {head + "  A[0] = 2q\n}", "t.tsl:2:10: bad literal suffix 'q'"},
      {head + "  A[0] = f32(-3u8)\n}", "t.tsl:2:15: negative literal of unsigned type u8"},
      {head + "  A[0] = f32(-n)\n}", "t.tsl:2:14: '-' applies only to number literals"},
      {head + "  if 1 < n < 3 {\n  }\n}", "t.tsl:2:12: comparisons do not chain"},
      {head + "  A[0] = @ext(n)\n}", "t.tsl:3:1: an extern call needs its result type, e.g. @ext(...): f32"},
      {head + "  A[0] = foo(1.0f32)\n}", "t.tsl:2:10: unknown function 'foo'"},
      {head + "  A[0] = min(1.0f32)\n}", "t.tsl:2:10: 'min' takes 2 arguments, not 1"},
      {head + "  A[0] = exp(n)\n}", "t.tsl:2:10: Call exp: operates on floats, not i32"},
      {head + "  for true in range(0, 4) {\n  }\n}", "t.tsl:2:7: 'true' is a reserved word and cannot name a loop variable"},
      {head + "  for i in forever(0, 4) {\n  }\n}", "t.tsl:2:12: expected range, parallel, vectorized, unrolled or thread_binding"},
      {head + "  for i in range(0, 4i64) {\n  }\n}", "t.tsl:2:3: For 'i': min and extent must have the loop variable's type i32"},
      {head + "  for i in thread_binding(0, 4) {\n  }\n}", "t.tsl:2:31: expected ',' but found ')'"},
      {head + "  A[0] = 1.0f32 $\n}", "t.tsl:2:17: unexpected character '$'"},
      // Columns count characters: "é" is two bytes, one column.
      {head + "  A[0] = é\n}", "t.tsl:2:10: unexpected character 'é' (U+00E9)"},
      {head + "  evaluate @\"é😀\"(n): i32 $\n}", "t.tsl:2:26: unexpected character '$'"},
      {head + "  A[0] = \xff\n}", "t.tsl:2:10: unexpected byte 0xff (not UTF-8 text)"},
      {head + "  evaluate @\"unterminated(n): i32\n}", "t.tsl:2:13: unterminated string"},
      {head + "  A[0] = f32(n // k)\n}", "t.tsl:2:19: undefined variable 'k'"},
      {head + "  let x: i64 = n\n}", "t.tsl:2:3: LetStmt 'x': variable has type i64 but value has type i32"},
      {head + "  n = 3\n}", "t.tsl:2:3: cannot assign to 'n'"},
      {head + "  block b(v: spatial[0, 4]) {\n  }\n}", "t.tsl:2:27: expected '=' and the value bound to iter var 'v'"},
      {head + "  block b(v: spatial[0, 4] = 0, v: spatial[0, 4] = 1) {\n  }\n}", "t.tsl:2:33: duplicate iter var 'v'"},
      {head + "  block b() {\n    reads(A[0, 1])\n  }\n}", "t.tsl:3:11: region of buffer 'A' has 2 ranges but the buffer has rank 1"},
      {head + "  block b() {\n    A[0] = 0.0f32\n    init {\n    }\n  }\n}", "t.tsl:4:5: 'init' belongs at the start of a block body"},
      {head + "  block b(v: spatial[0, 4] = 0) where v < 2 {\n  }\n}", "t.tsl:2:39: undefined variable 'v'"},
      {head + "  A[0] = nan_f32(0x1)\n}", "t.tsl:2:18: 0x1 is not the bit pattern of a NaN"},
      {"func @f() attrs {a = 1, a = 2} {}", "t.tsl:1:25: duplicate attribute 'a'"},
      {"func @f() attrs {a = 7i64} {}", "t.tsl:1:22: attribute numbers take no type suffix; write expr(7i64)"},
      {"module_attrs {}\nmodule_attrs {}", "t.tsl:2:1: module_attrs is given twice"},
      {"func @f() {}\nfunc @f() {}", "t.tsl:2:7: function 'f' is defined twice"},
      {"for i in range(0, 4) {}", "t.tsl:1:1: expected 'func', 'graph', 'const' or 'module_attrs' at the top level but found 'for'"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ErrorOf(c.text), StartsWith(c.where_and_message)) << c.text;
  }
}

TEST(ParseErrorTest, ScopesEndWhereTheirBindingsEnd) {
  const std::string head = "func @f(A: i32[4]) {\n";
  // A loop variable after its loop.
  EXPECT_THAT(ErrorOf(head + "  for i in range(0, 4) {\n  }\n  A[i] = 0\n}"), StartsWith("t.tsl:4:5: undefined variable 'i'"));
  // A let that scopes over the rest of a loop body ends with the body.
  EXPECT_THAT(ErrorOf(head + "  for i in range(0, 4) {\n    let x = i\n    A[x] = 0\n  }\n  A[x] = 1\n}"),
              StartsWith("t.tsl:6:5: undefined variable 'x'"));
  // A block's buffers and iter vars are not visible outside it.
  EXPECT_THAT(ErrorOf(head + "  block b(v: spatial[0, 4] = 0) {\n    alloc_buffer T: i32[4]\n    T[v] = 0\n  }\n  T[0] = 0\n}"),
              StartsWith("t.tsl:6:3: undefined buffer 'T'"));
  // An allocation is visible in its body only.
  EXPECT_THAT(ErrorOf(head + "  allocate T: i32[4] {\n    T[0] = 1\n  }\n  A[0] = T[0]\n}"),
              StartsWith("t.tsl:5:10: undefined buffer 'T'"));
  // Bindings (`= i`) and domains read the enclosing scope, not the block's own vars.
  EXPECT_THAT(ErrorOf(head + "  block b(v: spatial[0, 4] = 0, w: spatial[0, 4] = v) {\n  }\n}"),
              StartsWith("t.tsl:2:52: undefined variable 'v'"));
  // Shadowing in hand-written text is allowed; the innermost binding wins.
  absl::StatusOr<IRModule> m = ParseModule(head + "  for i in range(0, 4) {\n    for i in range(0, 2) {\n      A[i] = i\n    }\n  }\n}");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintModule(*m), HasSubstr("for i_1 in range(0, 2) {\n      A[i_1] = i_1\n"));
}

TEST(ParseErrorTest, DeepNestingIsAnErrorNotACrash) {
  const std::string head = "func @f(A: f32[4]) {\n  A[0] = ";
  std::string parens = head + std::string(100000, '(') + "1.0f32" + std::string(100000, ')') + "\n}";
  EXPECT_THAT(ErrorOf(parens), HasSubstr("nesting is deeper than 256 levels"));
  EXPECT_THAT(ErrorOf(head + std::string(100000, '!') + "true\n}"), HasSubstr("nesting is deeper than 256 levels"));
  std::string seqs = "func @f() {\n";
  for (int k = 0; k < 5000; ++k) seqs += "seq {\n";
  EXPECT_THAT(ErrorOf(seqs), HasSubstr("nesting is deeper than 256 levels"));
  std::string lists = "func @f() attrs {a = " + std::string(50000, '[') + "\n}";
  EXPECT_THAT(ErrorOf(lists), HasSubstr("attribute lists nest at most 32 deep"));
  std::string elifs = "func @f(n: i32) {\n  if n < 0 {\n  }";
  for (int k = 0; k < 3000; ++k) elifs += " else if n < 1 {\n  }";
  EXPECT_THAT(ErrorOf(elifs + "\n}"), HasSubstr("nesting is deeper than 256 levels"));
  // Chains cost no recursion but build deep trees, so their depth is bounded too.
  std::string sum = "func @f(x: i32, A: i32[1]) {\n  A[0] = x";
  for (int k = 0; k < 10000; ++k) sum += " + x";
  EXPECT_THAT(ErrorOf(sum + "\n}"), HasSubstr("expression is deeper than 10000 levels"));
  std::string lets = "func @f(A: i32[1]) {\n";
  for (int k = 0; k < 10001; ++k) lets += "  let t = 1\n";
  EXPECT_THAT(ErrorOf(lets + "}"), HasSubstr("more than 10000 let/allocate/decl_buffer scopes are open here"));
  // Within the limits, deep nesting parses.
  std::string ok = head + std::string(100, '(') + "1.0f32" + std::string(100, ')') + "\n}";
  EXPECT_TRUE(ParseModule(ok).ok());
}

}  // namespace
}  // namespace tessel::ir
