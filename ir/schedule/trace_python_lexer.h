// The tokens of a Python trace line (trace_python.h): names, numbers, strings,
// the punctuation a call uses, and line ends -- nothing that could make an
// expression, which the parser then refuses where it appears.
//
//   l4, l5 = sch.split(loop=l1, factors=[None, -16])  # tail
//   Name(l4) Punct(,) Name(l5) Punct(=) Name(sch) Punct(.) Name(split) Punct(()
//   Name(loop) Punct(=) Name(l1) Punct(,) ... Punct([) Name(None) Punct(,)
//   Punct(-) Int(16) Punct(]) Punct()) Newline End
//
// As in Python, a newline inside brackets continues the line and `#` starts a
// comment; strings take ' or " with \\ \" \' \n \r \t \uXXXX escapes.
#ifndef TESSEL_IR_SCHEDULE_TRACE_PYTHON_LEXER_H_
#define TESSEL_IR_SCHEDULE_TRACE_PYTHON_LEXER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::ir::schedule {

struct TraceToken {
  enum Kind { kName, kInt, kFloat, kString, kPunct, kOther, kNewline, kEnd };
  Kind kind = kEnd;
  std::string text;  // The name, the number's spelling, the decoded string, the character.
  int line = 1;
  int col = 1;
};

// "'+'", "the number 16", "the end of the line": the token as a message shows it.
std::string DescribeToken(const TraceToken& t);

// The tokens of `text`, ending with a Newline and End; errors (an unclosed
// string, a malformed number) name `what`, the line and the column.
absl::StatusOr<std::vector<TraceToken>> LexTracePython(absl::string_view text,
                                                       absl::string_view what);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_TRACE_PYTHON_LEXER_H_
