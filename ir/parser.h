// The `.tsl` parser: reads what ir/printer.h writes (grammar in docs/tsl.md).
//
//   absl::StatusOr<IRModule> m = ParseModule(text, "matmul.tsl");
//   // on error: "matmul.tsl:3:17: expected ']' ...\n  <the line>\n  <caret>"
//
// Every node is built through the checked Make* factories, so a type error in the
// text is a parse error at the position of the offending construct. No input
// crashes or hangs the parser: nesting depth is bounded and every loop consumes
// input.
#ifndef TESSEL_IR_PARSER_H_
#define TESSEL_IR_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/function.h"

namespace tessel::ir {

// Parses a whole module. `filename` only appears in messages.
absl::StatusOr<IRModule> ParseModule(absl::string_view text, absl::string_view filename = "<input>");

// Reads and parses a file.
absl::StatusOr<IRModule> LoadModule(const std::string& path);

// Splits text on lines consisting of `// -----` (for --split-input-file), keeping
// line numbers: each chunk is padded with blank lines so positions stay true.
std::vector<std::string> SplitInputFile(absl::string_view text);

}  // namespace tessel::ir

#endif  // TESSEL_IR_PARSER_H_
