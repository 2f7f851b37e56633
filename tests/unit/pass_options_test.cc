// Typed pass options: defaults, conversion from pipeline literals, every error
// message, and printing back in the order options were set.
#include "passes/pass_options.h"

#include "gtest/gtest.h"
#include "passes/did_you_mean.h"

namespace tessel::passes {
namespace {

std::vector<OptionSpec> Specs() {
  return {IntOption("factor", 1, "Unroll factor"), ListOption("names", {"x"}, "Functions"),
          BoolOption("verbose", false, "Say more"), StringOption("label", "none", "A label")};
}

TEST(PassOptions, DefaultsUntilSet) {
  PassOptions o(Specs(), "my-pass");
  EXPECT_EQ(o.GetInt("factor"), 1);
  EXPECT_EQ(o.GetList("names"), std::vector<std::string>{"x"});
  EXPECT_FALSE(o.GetBool("verbose"));
  EXPECT_EQ(o.GetString("label"), "none");
  EXPECT_FALSE(o.IsSet("factor"));
  EXPECT_EQ(o.ToString(), "");
}

TEST(PassOptions, SetFromLiteralsOfEveryType) {
  PassOptions o(Specs(), "my-pass");
  ASSERT_TRUE(o.Set("names", OptionLiteral::List({"a", "b c"})).ok());
  ASSERT_TRUE(o.Set("factor", OptionLiteral::Scalar("-4")).ok());
  ASSERT_TRUE(o.Set("verbose", OptionLiteral::Scalar("true")).ok());
  ASSERT_TRUE(o.Set("label", OptionLiteral::Scalar("")).ok());
  EXPECT_EQ(o.GetInt("factor"), -4);
  EXPECT_EQ(o.GetList("names"), (std::vector<std::string>{"a", "b c"}));
  EXPECT_TRUE(o.GetBool("verbose"));
  EXPECT_EQ(o.GetString("label"), "");
  EXPECT_TRUE(o.IsSet("names"));
  // In the order set, not declared; values that are not plain words are quoted.
  EXPECT_EQ(o.ToString(), "names=[a,\"b c\"],factor=-4,verbose=true,label=\"\"");
}

TEST(PassOptions, UnknownOptionListsValidOnesWithTypes) {
  PassOptions o(Specs(), "my-pass");
  absl::Status s = o.Set("fator", OptionLiteral::Scalar("4"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "pass 'my-pass' has no option 'fator' (did you mean 'factor'?); valid options: "
            "factor (int), names (list), verbose (bool), label (string)");
  s = o.Set("zzzzzz", OptionLiteral::Scalar("4"));
  EXPECT_EQ(s.message(),
            "pass 'my-pass' has no option 'zzzzzz'; valid options: factor (int), names (list), "
            "verbose (bool), label (string)");
  PassOptions none({}, "simplify");
  EXPECT_EQ(none.Set("level", OptionLiteral::Scalar("3")).message(),
            "pass 'simplify' takes no options (got 'level')");
}

TEST(PassOptions, ValuesAreCheckedAgainstTheirType) {
  PassOptions o(Specs(), "my-pass");
  EXPECT_EQ(o.Set("factor", OptionLiteral::Scalar("four")).message(),
            "option 'factor' of pass 'my-pass' expects an int, got four");
  EXPECT_EQ(o.Set("factor", OptionLiteral::Scalar("99999999999999999999")).message(),
            "option 'factor' of pass 'my-pass' expects an int, got 99999999999999999999");
  EXPECT_EQ(o.Set("factor", OptionLiteral::Scalar(" 4")).message(),
            "option 'factor' of pass 'my-pass' expects an int, got \" 4\"");
  EXPECT_EQ(o.Set("factor", OptionLiteral::List({"4"})).message(),
            "option 'factor' of pass 'my-pass' expects an int, got a list");
  EXPECT_EQ(o.Set("verbose", OptionLiteral::Scalar("1")).message(),
            "option 'verbose' of pass 'my-pass' expects a bool (true or false), got 1");
  EXPECT_EQ(o.Set("names", OptionLiteral::Scalar("a")).message(),
            "option 'names' of pass 'my-pass' expects a list like [a,b], got a");
  EXPECT_EQ(o.Set("label", OptionLiteral::List({})).message(),
            "option 'label' of pass 'my-pass' expects a string, got a list");
  // Failed sets leave the defaults in place and count as not set.
  EXPECT_EQ(o.GetInt("factor"), 1);
  EXPECT_FALSE(o.IsSet("factor"));
}

TEST(PassOptions, GivenTwiceIsAnError) {
  PassOptions o(Specs(), "my-pass");
  ASSERT_TRUE(o.Set("factor", OptionLiteral::Scalar("2")).ok());
  EXPECT_EQ(o.Set("factor", OptionLiteral::Scalar("3")).message(),
            "option 'factor' of pass 'my-pass' is given twice");
  EXPECT_EQ(o.SetValue("factor", int64_t{3}).message(),
            "option 'factor' of pass 'my-pass' is given twice");
  EXPECT_EQ(o.GetInt("factor"), 2);
}

TEST(PassOptions, TypedSetValueForCxxCallers) {
  PassOptions o(Specs(), "my-pass");
  ASSERT_TRUE(o.SetValue("verbose", true).ok());
  EXPECT_TRUE(o.GetBool("verbose"));
  EXPECT_EQ(o.SetValue("factor", std::string("4")).message(),
            "option 'factor' of pass 'my-pass' is an int, not a string");
  EXPECT_NE(o.SetValue("nope", int64_t{1}).message().find("has no option 'nope'"),
            std::string::npos);
}

TEST(PassOptions, FormattingQuotesOnlyWhenNeeded) {
  EXPECT_EQ(FormatOptionScalar("abc-1.5/x:y@z*"), "abc-1.5/x:y@z*");
  EXPECT_EQ(FormatOptionScalar(""), "\"\"");
  EXPECT_EQ(FormatOptionScalar("a b"), "\"a b\"");
  EXPECT_EQ(FormatOptionScalar("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(FormatOptionScalar("a,b"), "\"a,b\"");
  EXPECT_EQ(FormatOptionValue(OptionValue(int64_t{-7})), "-7");
  EXPECT_EQ(FormatOptionValue(OptionValue(false)), "false");
  EXPECT_EQ(FormatOptionValue(OptionValue(std::vector<std::string>{})), "[]");
  EXPECT_EQ(FormatOptionValue(OptionValue(std::vector<std::string>{"a", "}"})), "[a,\"}\"]");
}

TEST(PassOptions, DescribeOptionIsOneLine) {
  EXPECT_EQ(DescribeOption(IntOption("factor", 1, "Unroll factor")),
            "factor: int = 1 -- Unroll factor");
  EXPECT_EQ(DescribeOption(ListOption("names", {"a", "b"}, "Names")),
            "names: list = [a,b] -- Names");
}

TEST(PassOptionsDeathTest, ReadingAnUndeclaredOptionIsAProgrammingError) {
  PassOptions o(Specs(), "my-pass");
  EXPECT_DEATH(o.GetInt("nope"), "pass 'my-pass' reads undeclared int option 'nope'");
  EXPECT_DEATH(o.GetBool("factor"), "reads undeclared bool option 'factor'");
}

TEST(DidYouMean, SuggestsOnlyCloseNames) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(SuggestClosest("simplfy", {"simplify", "remove-no-op"}), "simplify");
  EXPECT_EQ(SuggestClosest("remove-noop", {"simplify", "remove-no-op"}), "remove-no-op");
  EXPECT_EQ(SuggestClosest("xyz", {"simplify"}), "");
  EXPECT_EQ(DidYouMean("ab", {"simplify"}), "");
  EXPECT_EQ(DidYouMean("simplif", {"simplify"}), "; did you mean 'simplify'?");
}

}  // namespace
}  // namespace tessel::passes
