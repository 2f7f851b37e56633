// Pipeline text -> a syntax tree of pass names, options and nested pipelines,
// and back. Building passes from the tree is passes/pipeline.h.
//
//   simplify,my-pass{factor=4,names=[a,b]},nested(pass-a,pass-b)
//
// Grammar (spaces between tokens are ignored):
//   pipeline := [ element { ',' element } ]
//   element  := name [ '{' [ option { ',' option } ] '}' ] [ '(' pipeline ')' ]
//   option   := name '=' value
//   value    := scalar | '[' [ scalar { ',' scalar } ] ']'
//   scalar   := word | '"' { char | '\"' | '\\' } '"'
//   name     := letter { letter | digit | '-' | '_' | '.' }
//   word     := { letter | digit | _ - . + / : @ * }+
//
// Errors give the column and what was expected:
//   pipeline:1:17: expected '=' after option name 'factor', found '}'
//     simplify,my-pass{factor}
//                           ^
#ifndef TESSEL_PASSES_PIPELINE_PARSER_H_
#define TESSEL_PASSES_PIPELINE_PARSER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/pass_options.h"

namespace tessel::passes {

struct PipelineOption {
  std::string key;
  OptionLiteral value;
  size_t offset = 0;  // Of the key in the text.
};

struct PipelineElement {
  std::string name;
  size_t offset = 0;  // Of the name in the text.
  std::vector<PipelineOption> options;
  bool has_children = false;  // `name(...)`, possibly with no children.
  std::vector<PipelineElement> children;
};

// Parses pipeline text. The empty text is the empty pipeline.
absl::StatusOr<std::vector<PipelineElement>> ParsePipelineText(absl::string_view text);

// Canonical text of a tree: no spaces, scalars bare where possible.
std::string PrintPipelineText(const std::vector<PipelineElement>& elements);

// Parses one option value on its own ("4", "[a,b]", "\"a b\""): for config values
// given on the command line.
absl::StatusOr<OptionLiteral> ParseOptionLiteralText(absl::string_view text);

// "pipeline:<line>:<column>: <message>" followed by the line of text and a caret
// under the column: the form of every error that points into pipeline text.
std::string PipelineErrorAt(absl::string_view text, size_t offset, absl::string_view message);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PIPELINE_PARSER_H_
