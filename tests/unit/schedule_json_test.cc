// The trace files' JSON reader and writer (ir/schedule/json.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/schedule/json.h"

namespace tessel::ir::schedule {
namespace {

Json MustParse(const std::string& text) {
  absl::StatusOr<Json> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << j.status().message();
  return j.ok() ? *j : Json();
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<Json> j = ParseJson(text, "x.json");
  return j.ok() ? "ok" : std::string(j.status().message());
}

TEST(ScheduleJson, ValuesAndTypes) {
  Json j = MustParse(R"( {"i": -42, "d": 2.5, "e": 1e3, "t": true, "f": false, "n": null,
                         "s": "a\"b\\c\n", "a": [1, [2, []], {}]} )");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.Find("i")->as_int(), -42);
  EXPECT_TRUE(j.Find("d")->is_double());
  EXPECT_EQ(j.Find("d")->as_double(), 2.5);
  EXPECT_TRUE(j.Find("e")->is_double());  // An exponent makes a float.
  EXPECT_EQ(j.Find("e")->as_double(), 1000.0);
  EXPECT_TRUE(j.Find("t")->as_bool());
  EXPECT_FALSE(j.Find("f")->as_bool());
  EXPECT_TRUE(j.Find("n")->is_null());
  EXPECT_EQ(j.Find("s")->as_string(), "a\"b\\c\n");
  EXPECT_EQ(j.Find("a")->items().size(), 3u);
  EXPECT_EQ(j.Find("missing"), nullptr);
  EXPECT_EQ(j.Dump(), R"({"i": -42, "d": 2.5, "e": 1000.0, "t": true, "f": false, "n": null, )"
                      R"("s": "a\"b\\c\n", "a": [1, [2, []], {}]})");
  EXPECT_EQ(MustParse("9223372036854775807").as_int(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(MustParse("-9223372036854775808").as_int(), std::numeric_limits<int64_t>::min());
}

TEST(ScheduleJson, DoublesRoundTripBitExactly) {
  for (double d : {0.1, 1.0 / 3.0, 1e300, 5e-324, -0.0, 123456789.0, 2.0, 0.5}) {
    std::string text = JsonDouble(d);
    Json back = MustParse(text);
    ASSERT_TRUE(back.is_double()) << text;
    double got = back.as_double();
    EXPECT_EQ(std::memcmp(&d, &got, sizeof(d)), 0) << text;
  }
  EXPECT_EQ(JsonDouble(2.0), "2.0");
  EXPECT_EQ(Json::Double(std::nan("")).Dump(), "null");  // No JSON form.
}

TEST(ScheduleJson, StringsAndUnicode) {
  EXPECT_EQ(MustParse(R"("\u00e9\u4e2d\ud83d\ude00\/\b\f\t\r")").as_string(),
            "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80/\b\f\t\r");
  EXPECT_EQ(JsonQuote(std::string("a\x01z\"", 4)), "\"a\\u0001z\\\"\"");
  EXPECT_EQ(MustParse(JsonQuote("tab\there \xc3\xa9")).as_string(), "tab\there \xc3\xa9");
}

TEST(ScheduleJson, ErrorsSayWhere) {
  EXPECT_EQ(ErrorOf(""), "x.json:1:1: unexpected end of input, expected a value");
  EXPECT_EQ(ErrorOf("[1, 2"), "x.json:1:6: expected ',' or ']' in an array");
  EXPECT_EQ(ErrorOf("{\n  \"a\" 1}"), "x.json:2:7: expected ':' after a key");
  EXPECT_EQ(ErrorOf("{\"a\": 1, \"a\": 2}"), "x.json:1:13: duplicate key \"a\"");
  EXPECT_EQ(ErrorOf("{1: 2}"), "x.json:1:2: expected a string key");
  EXPECT_EQ(ErrorOf("[1] 2"), "x.json:1:5: unexpected text after the JSON value");
  EXPECT_EQ(ErrorOf("nul"), "x.json:1:1: unexpected character 'n'");
  EXPECT_EQ(ErrorOf("9223372036854775808"),
            "x.json:1:1: malformed or out-of-range integer '9223372036854775808'");
  EXPECT_EQ(ErrorOf("1.2.3"), "x.json:1:1: malformed number '1.2.3'");
  EXPECT_EQ(ErrorOf("\"abc"), "x.json:1:5: unterminated string");
  EXPECT_EQ(ErrorOf("\"a\nb\""),
            "x.json:1:3: control character in a string (write it as an escape)");
  EXPECT_EQ(ErrorOf("\"\\q\""), "x.json:1:2: unknown escape '\\q'");
  EXPECT_EQ(ErrorOf("\"\\ud800\""), "x.json:1:8: a high surrogate without its low half");
  EXPECT_EQ(ErrorOf("\"\\udc00\""), "x.json:1:8: a low surrogate without its high half");
  EXPECT_EQ(ErrorOf("\"\\u12\""), "x.json:1:4: truncated \\u escape");
  EXPECT_EQ(ErrorOf("\"\\u12zz\""), "x.json:1:7: malformed \\u escape");
  std::string deep(300, '[');
  EXPECT_THAT(ErrorOf(deep), ::testing::HasSubstr("JSON nested more than 256 levels"));
}

}  // namespace
}  // namespace tessel::ir::schedule
