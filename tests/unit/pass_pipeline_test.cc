// Pipeline text: the syntax tree, printing back, error positions, building
// passes from the registry, and a seeded fuzz of the parser.
#include <random>

#include "gtest/gtest.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "passes/pipeline_parser.h"
#include "passes/sequential.h"

namespace tessel::passes {
namespace {

TEST(PipelineParser, BuildsTheTree) {
  absl::StatusOr<std::vector<PipelineElement>> p =
      ParsePipelineText("simplify,my-pass{factor=4,names=[a,\"b c\"]},nested(pass-a,pass-b)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[0].name, "simplify");
  EXPECT_EQ((*p)[0].offset, 0u);
  EXPECT_FALSE((*p)[0].has_children);
  const PipelineElement& my = (*p)[1];
  EXPECT_EQ(my.name, "my-pass");
  EXPECT_EQ(my.offset, 9u);
  ASSERT_EQ(my.options.size(), 2u);
  EXPECT_EQ(my.options[0].key, "factor");
  EXPECT_EQ(my.options[0].offset, 17u);
  EXPECT_FALSE(my.options[0].value.is_list);
  EXPECT_EQ(my.options[0].value.items, std::vector<std::string>{"4"});
  EXPECT_TRUE(my.options[1].value.is_list);
  EXPECT_EQ(my.options[1].value.items, (std::vector<std::string>{"a", "b c"}));
  const PipelineElement& nested = (*p)[2];
  EXPECT_TRUE(nested.has_children);
  ASSERT_EQ(nested.children.size(), 2u);
  EXPECT_EQ(nested.children[1].name, "pass-b");
}

TEST(PipelineParser, EmptyTextIsTheEmptyPipeline) {
  for (const char* text : {"", "   ", "\n"}) {
    absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText(text);
    ASSERT_TRUE(p.ok()) << text;
    EXPECT_TRUE(p->empty());
  }
  absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText("nested()");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)[0].has_children);
  EXPECT_TRUE((*p)[0].children.empty());
  EXPECT_EQ(PrintPipelineText(*p), "nested()");
}

TEST(PipelineParser, PrintsCanonicalTextBack) {
  const char* canonical[] = {
      "simplify",
      "simplify,my-pass{factor=4,names=[a,b]},nested(pass-a,pass-b)",
      "a{s=\"x y\",t=\"q\\\"uote\",l=[],m=[\"\"]}",
      "outer{n=-3}(inner{b=true}(leaf),leaf2)",
      "p{path=/tmp/x.tsl,v=1.5e+3}",
  };
  for (const char* text : canonical) {
    absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText(text);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status();
    EXPECT_EQ(PrintPipelineText(*p), text);
  }
  absl::StatusOr<std::vector<PipelineElement>> spaced =
      ParsePipelineText(" a { k = \"v\" , l = [ x , \"y\" ] } , b ( c ) ");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(PrintPipelineText(*spaced), "a{k=v,l=[x,y]},b(c)");
}

struct ErrorCase {
  const char* text;
  const char* message;
};

TEST(PipelineParser, ErrorsGiveTheColumnAndWhatWasExpected) {
  const ErrorCase cases[] = {
      {",a", "pipeline:1:1: expected a pass name, found ','"},
      {"a,", "pipeline:1:3: expected a pass name, found end of text"},
      {"a b", "pipeline:1:3: expected ',' or end of pipeline, found 'b'"},
      {"a{", "pipeline:1:3: expected an option name, found end of text"},
      {"a{k}", "pipeline:1:4: expected '=' after option name 'k', found '}'"},
      {"a{k=}", "pipeline:1:5: expected a value for option 'k', found '}'"},
      {"a{k=1;}", "pipeline:1:6: expected ',' or '}' after the value of option 'k', found ';'"},
      {"a{k=[1 2]}", "pipeline:1:8: expected ',' or ']' in a list, found '2'"},
      {"a{k=\"open}", "pipeline:1:5: unterminated quoted value"},
      {"a{k=\"\\n\"}",
       "pipeline:1:7: unknown escape in a quoted value (only \\\" and \\\\ are allowed)"},
      {"a(b", "pipeline:1:4: expected ',' or ')' closing the '(' at column 2, found end of text"},
      {"a(b))", "pipeline:1:5: expected ',' or end of pipeline, found ')'"},
      {"1a", "pipeline:1:1: expected a pass name, found '1'"},
  };
  for (const ErrorCase& c : cases) {
    absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    std::string msg(p.status().message());
    EXPECT_EQ(msg.substr(0, msg.find('\n')), c.message) << c.text;
  }
}

TEST(PipelineParser, ErrorShowsTheLineAndACaret) {
  absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText("simplify,\n  b{k}");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "pipeline:2:6: expected '=' after option name 'k', found '}'\n"
            "    b{k}\n"
            "       ^");
}

TEST(PipelineParser, DeepNestingIsAnErrorNotACrash) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "n(";
  absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText(text);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("pipeline nested too deeply"), std::string::npos);
}

TEST(PipelineParser, OptionLiteralsOnTheirOwn) {
  absl::StatusOr<OptionLiteral> l = ParseOptionLiteralText(" [a, \"b c\"] ");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->is_list);
  EXPECT_EQ(l->items, (std::vector<std::string>{"a", "b c"}));
  l = ParseOptionLiteralText("42");
  ASSERT_TRUE(l.ok());
  EXPECT_FALSE(l->is_list);
  EXPECT_EQ(l->items, std::vector<std::string>{"42"});
  l = ParseOptionLiteralText("a b");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("expected end of value, found 'b'"), std::string::npos);
}

// Whatever the input, the parser returns; what it accepts prints to text that
// parses to the same tree.
TEST(PipelineParser, SeededFuzzNeverCrashesAndRoundTrips) {
  const std::string alphabet = "ab-_.{}()[],=\" \\x1";
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    int n = static_cast<int>(rng() % 24);
    for (int j = 0; j < n; ++j) text.push_back(alphabet[rng() % alphabet.size()]);
    absl::StatusOr<std::vector<PipelineElement>> p = ParsePipelineText(text);
    if (!p.ok()) {
      EXPECT_EQ(p.status().message().substr(0, 9), "pipeline:") << text;
      continue;
    }
    ++accepted;
    std::string printed = PrintPipelineText(*p);
    absl::StatusOr<std::vector<PipelineElement>> again = ParsePipelineText(printed);
    ASSERT_TRUE(again.ok()) << text << " -> " << printed;
    EXPECT_EQ(PrintPipelineText(*again), printed);
  }
  EXPECT_GT(accepted, 50);  // The fuzz reaches past the first token.
}

TEST(ParsePipeline, BuildsRegisteredPassesAndPrintsTheTextBack) {
  const char* text =
      "simplify,nested(remove-no-op,canonicalize-names{renumber=true}),"
      "fixed-point{max-iterations=3}(simplify,remove-no-op)";
  absl::StatusOr<PassPtr> p = ParsePipeline(text);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->ToString(), text);
  EXPECT_TRUE((*p)->is_pipeline());
  const auto* seq = dynamic_cast<const Sequential*>(p->get());
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->form(), Sequential::Form::kTopLevel);
  ASSERT_EQ(seq->passes().size(), 3u);
  EXPECT_EQ(seq->passes()[0]->name(), "simplify");
  EXPECT_FALSE(seq->passes()[0]->is_pipeline());
  const auto* nested = dynamic_cast<const Sequential*>(seq->passes()[1].get());
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->form(), Sequential::Form::kCombinator);
  EXPECT_TRUE(nested->passes()[1]->options().GetBool("renumber"));
  EXPECT_EQ(seq->passes()[2]->options().GetInt("max-iterations"), 3);
}

TEST(ParsePipeline, NameErrorsPointAtTheName) {
  absl::StatusOr<PassPtr> p = ParsePipeline("simplify,remove-noop");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "pipeline:1:10: unknown pass 'remove-noop'; did you mean 'remove-no-op'? "
            "(--list-passes shows them all)\n"
            "  simplify,remove-noop\n"
            "           ^");
  p = ParsePipeline("nested(simplify{x=1})");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().substr(0, p.status().message().find('\n')),
            "pipeline:1:17: pass 'simplify' takes no options (got 'x')");
  p = ParsePipeline("simplify()");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("'simplify' is a pass, not a pipeline"), std::string::npos);
  p = ParsePipeline("nested");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("'nested' wraps nested passes: write nested(pass,...)"),
            std::string::npos);
}

TEST(CreatePass, ByNameWithDefaults) {
  absl::StatusOr<PassPtr> p = CreatePass("canonicalize-names");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->ToString(), "canonicalize-names");
  EXPECT_FALSE((*p)->options().GetBool("renumber"));
  p = CreatePass("fixed-point");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->ToString(), "fixed-point()");
  p = CreatePass("simplfy");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "unknown pass 'simplfy'; did you mean 'simplify'? (--list-passes shows them all)");
}

}  // namespace
}  // namespace tessel::passes
