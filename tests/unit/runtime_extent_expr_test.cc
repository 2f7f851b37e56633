// ExtentExpr: a manifest's launch extents of shape variables, parsed as tessel's
// printer writes them and evaluated per call with floor semantics; every malformed
// text and every failing evaluation is a message, never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "codegen/runtime/extent_expr.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

// The value of `text` with `values`, or the message.
std::string Eval(const std::string& text, const std::map<std::string, int64_t>& values) {
  ExtentExpr e;
  if (std::string why = ExtentExpr::Parse(text, &e); !why.empty()) return why;
  auto lookup = [&](const std::string& name, int64_t* v) {
    auto it = values.find(name);
    if (it == values.end()) return false;
    *v = it->second;
    return true;
  };
  int64_t out = 0;
  std::string why;
  if (!e.Evaluate(lookup, &out, &why)) return why;
  return std::to_string(out);
}

TEST(ExtentExpr, EvaluatesThePrintersExtents) {
  EXPECT_EQ(Eval("(n + 255) // 256", {{"n", 1000}}), "4");
  EXPECT_EQ(Eval("(n + 255) // 256", {{"n", 1024}}), "4");
  EXPECT_EQ(Eval("(n + 255) // 256", {{"n", 0}}), "0");
  EXPECT_EQ(Eval("(n * m + 255i64) // 256i64", {{"n", 10}, {"m", 100}}), "4");
  EXPECT_EQ(Eval("n - 7 %% 4 * 2", {{"n", 10}}), "4");
  EXPECT_EQ(Eval("min(n, 8) + max(n, 8)", {{"n", 3}}), "11");
  EXPECT_EQ(Eval("(i64(n) * 33i64)", {{"n", 16}}), "528");  // A flattened workspace's size.
  EXPECT_EQ(Eval("(0 - n) // 4", {{"n", 5}}), "-2");  // Floor, not truncation.
  EXPECT_EQ(Eval("(0 - n) %% 4", {{"n", 5}}), "3");
  ExtentExpr e;
  ASSERT_EQ(ExtentExpr::Parse("n * n + m", &e), "");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"n", "m"}));
}

TEST(ExtentExpr, RefusesMalformedTextAndFailedEvaluations) {
  EXPECT_THAT(Eval("", {}), HasSubstr("an operand is missing"));
  EXPECT_THAT(Eval("(n + 1", {{"n", 1}}), HasSubstr("')' expected"));
  EXPECT_THAT(Eval("n ^ 2", {{"n", 1}}), HasSubstr("unexpected '^'"));
  EXPECT_THAT(Eval("min(n)", {{"n", 1}}), HasSubstr("',' expected"));
  EXPECT_THAT(Eval("99999999999999999999", {}), HasSubstr("overflows int64"));
  EXPECT_THAT(Eval("n // m", {{"n", 1}, {"m", 0}}), HasSubstr("division by zero"));
  EXPECT_THAT(Eval("n * n", {{"n", int64_t{1} << 40}}), HasSubstr("overflows int64"));
  EXPECT_THAT(Eval("n + k", {{"n", 1}}), HasSubstr("no value for 'k'"));
}

}  // namespace
}  // namespace tessel::runtime
