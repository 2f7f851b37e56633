// The JSON of traces as nlohmann::json reads and writes it: the spaced
// one-instruction-per-line layout, floats bit for bit, Unicode, and the hostile
// inputs a trace file can hold (repeated keys, deep nesting, integers out of
// range, invalid UTF-8) refused or replaced with a clear message, never a crash.
#include <cstring>
#include <limits>

#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kHead = "{\"format\": \"tessel-trace\", \"version\": 1, \"instructions\": [";

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<Trace> t = Trace::FromJson(text, "t.json");
  return t.ok() ? std::string("ok") : std::string(t.status().message());
}

TEST(TraceJson, WritesOneSpacedInstructionPerLine) {
  Schedule sch = MustSchedule(MatmulText(16, 16, 16));
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.SampleCategorical({4, 8}, {0.25, 0.75}, 1));
  Must(sch.GetLoops(c));
  EXPECT_EQ(Must(sch.trace().ToJson()),
            "{\"format\": \"tessel-trace\", \"version\": 1, \"instructions\": [\n"
            "  {\"kind\": \"get_block\", \"inputs\": [], \"attrs\": {\"name\": \"C\"}, "
            "\"outputs\": [\"b0\"]},\n"
            "  {\"kind\": \"sample_categorical\", \"inputs\": [], \"attrs\": {\"candidates\": "
            "[4, 8], \"probs\": [0.25, 0.75]}, \"outputs\": [\"v1\"], \"decision\": 1},\n"
            "  {\"kind\": \"get_loops\", \"inputs\": [\"b0\"], \"attrs\": {}, \"outputs\": "
            "[\"l2\", \"l3\", \"l4\"]}\n"
            "]}\n");
}

TEST(TraceJson, FloatsRoundTripBitForBit) {
  for (double d : {0.1, 1.0 / 3.0, 1e300, 5e-324, 123456789.0, 2.0, 0.5, 1e-5}) {
    Schedule sch = MustSchedule(MatmulText(8, 8, 8));
    Must(sch.SampleCategorical({1, 2}, {d, 1.0}, 0));
    Trace back = Must(Trace::FromJson(Must(sch.trace().ToJson())));
    const AttrValue* probs = back.instructions()[0].FindAttr("probs");
    ASSERT_NE(probs, nullptr);
    double got = probs->as<AttrValue::List>()[0].as<double>();
    EXPECT_EQ(std::memcmp(&d, &got, sizeof(d)), 0) << d;
  }
  // 2.0 stays a float: written with its '.0', read back as a float.
  EXPECT_THAT(ErrorOf(kHead + "{\"kind\": \"parallel\", \"inputs\": [2.0]}]}"),
              ::testing::HasSubstr("not float"));
}

TEST(TraceJson, HostileInputsAreRefusedWithTheReason) {
  EXPECT_THAT(ErrorOf(""), ::testing::HasSubstr("t.json: parse error at line 1, column 1"));
  EXPECT_THAT(ErrorOf("{\"format\": \"tessel-trace\", \"format\": \"x\"}"),
              ::testing::HasSubstr("t.json: duplicate key \"format\""));
  EXPECT_THAT(ErrorOf(kHead + "{\"kind\": \"get_block\", \"attrs\": {\"name\": \"C\", \"name\": "
                              "\"D\"}}]}"),
              ::testing::HasSubstr("duplicate key \"name\""));
  EXPECT_THAT(ErrorOf(std::string(300, '[')), ::testing::HasSubstr("nested deeper than 256"));
  EXPECT_THAT(ErrorOf(std::string(1 << 20, '[')), ::testing::HasSubstr("nested deeper than 256"));
  EXPECT_THAT(ErrorOf(kHead + "{\"kind\": \"parallel\", \"inputs\": [9223372036854775808]}]}"),
              ::testing::HasSubstr("the integer 9223372036854775808 is out of range"));
  EXPECT_THAT(ErrorOf(kHead + "{\"kind\": \"parallel\", \"inputs\": [1e999]}]}"),
              ::testing::HasSubstr("t.json"));
  EXPECT_THAT(ErrorOf("{\"format\": \"tessel-trace\", \"version\": 18446744073709551615}"),
              ::testing::HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("\"\xff\xfe\""), ::testing::HasSubstr("t.json: parse error"));
  EXPECT_EQ(ErrorOf(kHead + "]} trailing"), ErrorOf(kHead + "]} trailing"));
  EXPECT_THAT(ErrorOf(kHead + "]} trailing"), ::testing::HasSubstr("parse error"));
}

TEST(TraceJson, StringsKeepUnicodeAndInvalidUtf8IsReplacedNotThrown) {
  Trace t = Must(Trace::FromJson(kHead + "{\"kind\": \"get_block\", \"attrs\": {\"name\": "
                                         "\"\\u00e9\\ud83d\\ude00\"}, \"outputs\": [\"b0\"]}]}"));
  EXPECT_EQ(t.instructions()[0].FindAttr("name")->as<std::string>(), "\xc3\xa9\xf0\x9f\x98\x80");
  Instruction odd = t.instructions()[0];
  odd.attrs[0].second = AttrValue(std::string("C\xff"));
  absl::StatusOr<std::string> json = Trace({odd}).ToJson();
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, ::testing::HasSubstr("\"C\xef\xbf\xbd\""));  // U+FFFD
  EXPECT_THAT(odd.ToPython(), ::testing::HasSubstr("name=\"C\xef\xbf\xbd\""));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
