// The `.tsl` printer: every IR node, at every stage, as readable text that the
// parser (ir/parser.h) reads back exactly. The grammar is in docs/tsl.md.
//
//   std::string text = PrintModule(mod);
//   absl::StatusOr<IRModule> back = ParseModule(text);   // structurally equal to mod
//   std::string again = PrintModule(*back);              // == text
//
// Names: variables and buffers print under their own names; where two different
// objects share a name in one function, later ones get a `_1`, `_2`... suffix so
// the text stays unambiguous.
#ifndef TESSEL_IR_PRINTER_H_
#define TESSEL_IR_PRINTER_H_

#include <string>

#include "ir/function.h"

namespace tessel::ir {

std::string PrintModule(const IRModule& mod);
// A module constant's line: `const @w: f32[2] = "0000803f00000040"` (its bytes in hex).
std::string PrintConstant(const std::string& name, const HostBuffer& value);
// A function as it appears inside a module, under the name `name`.
std::string PrintFunction(const PrimFunc& func, const std::string& name = "main");
std::string PrintGraphFunction(const GraphFunc& func, const std::string& name = "main");
std::string PrintStmt(const Stmt& stmt);
std::string PrintExpr(const Expr& expr);

// A function with one statement marked: the lines of `marked` are prefixed with
// `>>` and followed by `note`, for error messages that show where (DESIGN.md
// decision 5). `marked` may be a Block, a For, or any statement of the body.
std::string PrintFunctionMarked(const PrimFunc& func, const std::string& name,
                                const Node* marked, const std::string& note);

// Exact, round-tripping spelling of a float constant of `dtype`, e.g. "1.5f32",
// "-0.0f32", "inf_f64", "nan_f32".
std::string FormatFloat(double value, DataType dtype);

}  // namespace tessel::ir

#endif  // TESSEL_IR_PRINTER_H_
