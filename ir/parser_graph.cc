// The `.tsl` parser's graph functions (ir/graph_function.h):
//
//   graph @mlp(x: f32[8, 16], w: f32[16, 4]) {
//     h: f32[8, 4] = matmul(x, w) {transpose_b = false}
//     y: f32[8, 4] = call_tir @relu(h)
//     return y
//   }
//
// A value is defined once and used only after its binding; the parser refuses
// the rest with the position, and the verifier checks types against callees.
// A constant of the module is its type and its bytes in hex (little-endian):
//
//   const @w: f32[2] = "0000803f00000040"      // [1.0, 2.0]
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/parser_internal.h"

namespace tessel::ir::tsl {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<Buffer> Parser::ParseValueUse(const char* what) {
  const Token& t = Peek();
  if (t.kind != TokKind::kIdent)
    return ErrorAt(t, absl::StrCat("expected ", what, " but found ", Describe(t)));
  const Binding* b = Lookup(t.text);
  if (b == nullptr || !b->buffer) {
    return ErrorAt(t, absl::StrCat("'", t.text, "' is not a value defined before this point"));
  }
  Next();
  return b->buffer;
}

// The arguments and attributes of an operator or call_tir, from its `(`.
absl::Status Parser::ParseGraphCallRest(GraphBinding* binding) {
  GraphBinding& b = *binding;
  TESSEL_RETURN_IF_ERROR(Expect("("));
  while (!Peek().Is(")")) {
    if (!b.call.args.empty()) TESSEL_RETURN_IF_ERROR(Expect(","));
    TESSEL_ASSIGN_OR_RETURN(Buffer arg, ParseValueUse("an argument"));
    b.call.args.push_back(std::move(arg));
  }
  Next();  // `)`
  if (Peek().Is("{")) {
    const Token& at = Peek();
    TESSEL_ASSIGN_OR_RETURN(b.call.attrs, ParseAttrDict());
    if (b.call.kind == GraphCall::Kind::kCallTir) {
      return ErrorAt(at, "call_tir takes no attributes; only operators do");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<GraphBinding> Parser::ParseGraphBinding() {
  GraphBinding b;
  std::vector<const Token*> out_tokens;
  do {
    out_tokens.push_back(&Peek());
    TESSEL_ASSIGN_OR_RETURN(Buffer v, ParseBufferDef());
    b.outputs.push_back(std::move(v));
  } while (Accept(","));
  TESSEL_RETURN_IF_ERROR(Expect("="));
  if (Accept("const")) {
    b.call.kind = GraphCall::Kind::kConstant;
    TESSEL_RETURN_IF_ERROR(Expect("@"));
    TESSEL_ASSIGN_OR_RETURN(b.call.callee, ParseSymbolName("the name of a constant"));
    if (b.outputs.size() != 1) return ErrorAt(*out_tokens[1], "const defines one value");
  } else if (Accept("call_tir")) {
    b.call.kind = GraphCall::Kind::kCallTir;
    TESSEL_RETURN_IF_ERROR(Expect("@"));
    TESSEL_ASSIGN_OR_RETURN(b.call.callee, ParseSymbolName("the name of a PrimFunc"));
  } else {
    b.call.kind = GraphCall::Kind::kOp;
    TESSEL_ASSIGN_OR_RETURN(b.call.callee, ParseSymbolName("an operator name, call_tir or const"));
  }
  if (b.call.kind != GraphCall::Kind::kConstant) TESSEL_RETURN_IF_ERROR(ParseGraphCallRest(&b));
  // Outputs come into scope after the call, so that a binding cannot use them.
  for (size_t i = 0; i < b.outputs.size(); ++i) {
    if (Lookup(b.outputs[i]->name) != nullptr) {
      return ErrorAt(*out_tokens[i],
                     absl::StrCat("value '", b.outputs[i]->name, "' is defined twice"));
    }
    Bind(b.outputs[i]->name, b.outputs[i]);
  }
  return b;
}

absl::StatusOr<GraphFunc> Parser::ParseGraphFunction(std::string* name) {
  const Token& graph_tok = Next();  // `graph`
  TESSEL_RETURN_IF_ERROR(Expect("@"));
  TESSEL_ASSIGN_OR_RETURN(*name, ParseSymbolName("a function name"));
  size_t mark = ScopeMark();
  const Token& syms_tok = Peek();
  TESSEL_RETURN_IF_ERROR(ParseShapeVars());
  const size_t syms_end = ScopeMark();
  TESSEL_RETURN_IF_ERROR(Expect("("));
  std::vector<Buffer> params;
  while (!Peek().Is(")")) {
    if (!params.empty()) TESSEL_RETURN_IF_ERROR(Expect(","));
    const Token& pt = Peek();
    TESSEL_ASSIGN_OR_RETURN(Buffer b, ParseBufferDef());
    if (Lookup(b->name) != nullptr)
      return ErrorAt(pt, absl::StrCat("duplicate parameter '", b->name, "'"));
    Bind(b->name, b);
    params.push_back(std::move(b));
  }
  Next();  // `)`
  // A call reads each shape variable off its inputs: each must be a whole
  // dimension of a parameter (the printer lists exactly those).
  for (size_t i = mark; i < syms_end; ++i) {
    const Var& v = scope_[i].var;
    bool found = false;
    for (const Buffer& p : params) {
      for (const Expr& d : p->shape) found |= d.same_as(v);
    }
    if (!found) {
      return ErrorAt(syms_tok, absl::StrCat("shape variable '", v->name,
                                            "' is not a whole dimension of any parameter"));
    }
  }
  Attrs attrs;
  if (Accept("attrs")) {
    TESSEL_ASSIGN_OR_RETURN(attrs, ParseAttrDict());
  }
  const Token& open = Peek();
  TESSEL_RETURN_IF_ERROR(Expect("{"));
  std::vector<GraphBinding> bindings;
  while (!Peek().Is("return")) {
    if (Peek().kind == TokKind::kEof || Peek().Is("}")) {
      return ErrorAt(Peek(), absl::StrCat("graph function '", *name, "' (opened at line ",
                                          open.line, ") has no 'return'"));
    }
    TESSEL_ASSIGN_OR_RETURN(GraphBinding b, ParseGraphBinding());
    bindings.push_back(std::move(b));
  }
  Next();  // `return`
  std::vector<Buffer> results;
  do {
    TESSEL_ASSIGN_OR_RETURN(Buffer r, ParseValueUse("a value to return"));
    results.push_back(std::move(r));
  } while (Accept(","));
  TESSEL_RETURN_IF_ERROR(Expect("}"));
  PopScope(mark);
  absl::StatusOr<GraphFunc> g = MakeGraphFuncChecked(std::move(params), std::move(bindings),
                                                     std::move(results), std::move(attrs));
  if (!g.ok()) return ErrorAt(graph_tok, g.status());
  return *g;
}

absl::StatusOr<std::pair<std::string, HostBuffer>> Parser::ParseConstant() {
  Next();  // `const`
  TESSEL_RETURN_IF_ERROR(Expect("@"));
  TESSEL_ASSIGN_OR_RETURN(std::string name, ParseSymbolName("a constant name"));
  TESSEL_RETURN_IF_ERROR(Expect(":"));
  const Token& type_tok = Peek();
  TESSEL_ASSIGN_OR_RETURN(DataType dtype, ParseDType());
  TESSEL_RETURN_IF_ERROR(Expect("["));
  std::vector<int64_t> shape;
  while (!Peek().Is("]")) {
    if (!shape.empty()) TESSEL_RETURN_IF_ERROR(Expect(","));
    const Token& d = Peek();
    uint64_t v = 0;
    if (d.kind != TokKind::kInt || !ParseDecimalU64(d.text, &v) || v > (uint64_t{1} << 40)) {
      return ErrorAt(d, absl::StrCat("constant '", name,
                                     "': expected a constant dimension but found ", Describe(d)));
    }
    Next();
    shape.push_back(static_cast<int64_t>(v));
  }
  Next();  // `]`
  TESSEL_RETURN_IF_ERROR(Expect("="));
  const Token& data = Peek();
  if (data.kind != TokKind::kString) {
    return ErrorAt(
        data, absl::StrCat("constant '", name, "': expected its bytes as a hex string but found ",
                           Describe(data)));
  }
  // The text holds the bytes, so its length is checked before anything is
  // allocated: a shape of terabytes with a short string is refused, not attempted.
  int64_t bytes = dtype.bytes();
  bool too_large = false;
  for (int64_t d : shape) too_large = too_large || __builtin_mul_overflow(bytes, d, &bytes);
  too_large = too_large || bytes > (int64_t{1} << 40);
  if (too_large || static_cast<int64_t>(data.value.size()) != 2 * bytes) {
    return ErrorAt(
        data, absl::StrCat("constant '", name, "' is ", TensorTypeText(dtype, shape), ": it needs ",
                           too_large ? "more than 2^41" : absl::StrCat(2 * bytes),
                           " hex digits, not ", data.value.size()));
  }
  absl::StatusOr<HostBuffer> value = HostBuffer::ZerosChecked(dtype, shape);
  if (!value.ok()) {
    return ErrorAt(type_tok, absl::StrCat("constant '", name, "': ", value.status().message()));
  }
  auto* out = static_cast<uint8_t*>(value->data());
  for (int64_t i = 0; i < bytes; ++i) {
    int hi = HexDigit(data.value[2 * i]), lo = HexDigit(data.value[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return ErrorAt(data, absl::StrCat("constant '", name, "': '", data.value.substr(2 * i, 2),
                                        "' at byte ", i, " is not two hex digits"));
    }
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  Next();
  return std::make_pair(std::move(name), *std::move(value));
}

}  // namespace tessel::ir::tsl
