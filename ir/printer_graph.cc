// The `.tsl` printer's graph functions (ir/graph_function.h). Every value prints
// with its type where it is defined, so a reader never has to infer a shape:
//
//   graph @mlp[n](x: f32[n, 16], w: f32[16, 4]) {
//     h: f32[n, 4] = matmul(x, w) {transpose_b = false}
//     y: f32[n, 4] = call_tir @relu(h)
//     return y
//   }
//
// A constant of the module prints as its type and its bytes in hex:
//
//   const @w: f32[2] = "0000803f00000040"
#include "absl/strings/str_cat.h"
#include "ir/printer_internal.h"

namespace tessel::ir::tsl {

void Printer::PrintGraph(const GraphFunc& g, const std::string& name) {
  absl::StrAppend(&out_, "graph @", QuotedName(name));
  if (g == nullptr) {
    out_ += "() <null>\n";
    return;
  }
  size_t scope = ScopeMark();
  PrintShapeVars(SymbolicVars(g->params));
  out_ += "(";
  for (size_t i = 0; i < g->params.size(); ++i) {
    if (i) out_ += ", ";
    Activate(g->params[i].get(), PrintBufferDef(g->params[i]));
  }
  out_ += ")";
  if (!g->attrs.empty()) {
    out_ += " attrs ";
    PrintAttrs(g->attrs);
  }
  out_ += " {\n";
  ++indent_;
  for (const GraphBinding& b : g->bindings) {
    Line();
    std::vector<int> entities;
    for (size_t i = 0; i < b.outputs.size(); ++i) {
      if (i) out_ += ", ";
      entities.push_back(PrintBufferDef(b.outputs[i]));
    }
    out_ += " = ";
    if (b.call.kind == GraphCall::Kind::kConstant) {
      absl::StrAppend(&out_, "const @", QuotedName(b.call.callee), "\n");
      Activate(b.outputs[0].get(), entities[0]);
      continue;
    }
    if (b.call.kind == GraphCall::Kind::kCallTir) out_ += "call_tir @";
    absl::StrAppend(&out_, QuotedName(b.call.callee), "(");
    for (size_t i = 0; i < b.call.args.size(); ++i) {
      if (i) out_ += ", ";
      out_ += BufferName(b.call.args[i]);
    }
    out_ += ")";
    if (!b.call.attrs.empty()) {
      out_ += " ";
      PrintAttrs(b.call.attrs);
    }
    out_ += "\n";
    // Outputs come into scope after the call: a binding cannot read what it defines.
    for (size_t i = 0; i < b.outputs.size(); ++i) Activate(b.outputs[i].get(), entities[i]);
  }
  Line();
  out_ += "return ";
  for (size_t i = 0; i < g->results.size(); ++i) {
    if (i) out_ += ", ";
    out_ += BufferName(g->results[i]);
  }
  out_ += "\n";
  --indent_;
  out_ += "}\n";
  EndScope(scope);
}

}  // namespace tessel::ir::tsl

namespace tessel::ir {

std::string PrintConstant(const std::string& name, const HostBuffer& value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = absl::StrCat("const @", tsl::Printer::QuotedName(name), ": ",
                                 TensorTypeText(value.dtype(), value.shape()), " = \"");
  const auto* bytes = static_cast<const uint8_t*>(value.data());
  const int64_t n = value.byte_size();
  out.reserve(out.size() + 2 * n + 2);
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  out += "\"\n";
  return out;
}

}  // namespace tessel::ir
