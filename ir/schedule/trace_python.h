// Reading a trace back from the Python that `Trace::AsPython` (and so
// `print(sch.trace)`) writes. The text is parsed, never run: each line is one
// call of a known instruction with literal arguments, optionally naming its
// results.
//
//   absl::StatusOr<Trace> t = ParseTracePython(
//       "b0 = sch.get_block(name=\"C\")\n"
//       "l1, l2, l3 = sch.get_loops(block=b0)\n"
//       "l4, l5 = sch.split(loop=l1, factors=[None, 16])  # 16-wide rows\n"
//       "sch.reorder(l4, l2, l5)\n",
//       "mm_tile.py");
//   t->AsPython()   // the same four lines, without the comment
//
//   ParseTracePython("b0 = sch.get_block(name=\"C\")\n"
//                    "l1, = sch.get_loops(block=b0 + 1)\n", "t.py")
//     -> t.py:2:30: expected ',' or ')' after an argument, found '+'; an argument
//        is a literal, a handle or a list of those, never an expression
//
// What a line may hold (a subset of Python):
//   - `sch.<kind>(<args>)`, optionally preceded by `h0 = ` or `h0, h1 = `
//     (`h0, = ` for a one-element tuple); results are handles b<n>, l<n>, v<n>,
//     each defined once and before any use;
//   - arguments are literals -- ints (also negative), floats (and the
//     `float("nan")`, `float("inf")`, `float("-inf")` the printer writes),
//     True, False, None, strings in ' or " with \\ \" \' \n \r \t \uXXXX
//     escapes, and lists of those -- or handles; never expressions or calls;
//   - `#` comments, blank lines, indentation (ignored, so that a script can sit
//     in comment lines of another file), and calls continued across lines
//     inside their brackets, as in Python.
//
// How arguments map onto an Instruction, through the instruction table
// (instruction.h): positional arguments fill the kind's '*' input as a list
// (`sch.reorder(l1, l2)`); keywords naming the kind's inputs are inputs, in
// the kind's order whatever the order written, the others attrs; a parameter
// that may be either (annotate's `ann_val`) is an input when it is a handle
// (`ann_val=v3`) and an attr when it is a literal (`ann_val=16`), as the
// parameter's codec traces it (param_codec.h); `decision=` of a sampling kind
// is its decision. Errors name the line and column.
#ifndef TESSEL_IR_SCHEDULE_TRACE_PYTHON_H_
#define TESSEL_IR_SCHEDULE_TRACE_PYTHON_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/schedule/trace.h"

namespace tessel::ir::schedule {

// The longest trace text read: a schedule is tens of lines, so a longer text
// is a wrong file, refused before it costs memory.
inline constexpr size_t kMaxTracePythonBytes = size_t{8} << 20;

// `what` names the text in messages ("mm_tile.py").
absl::StatusOr<Trace> ParseTracePython(absl::string_view text, absl::string_view what = "trace");

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_TRACE_PYTHON_H_
