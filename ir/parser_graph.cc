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
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/parser_internal.h"

namespace tessel::ir::tsl {

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

absl::StatusOr<GraphBinding> Parser::ParseGraphBinding() {
  GraphBinding b;
  std::vector<const Token*> out_tokens;
  do {
    out_tokens.push_back(&Peek());
    TESSEL_ASSIGN_OR_RETURN(Buffer v, ParseBufferDef());
    b.outputs.push_back(std::move(v));
  } while (Accept(","));
  TESSEL_RETURN_IF_ERROR(Expect("="));
  if (Accept("call_tir")) {
    b.call.kind = GraphCall::Kind::kCallTir;
    TESSEL_RETURN_IF_ERROR(Expect("@"));
    TESSEL_ASSIGN_OR_RETURN(b.call.callee, ParseSymbolName("the name of a PrimFunc"));
  } else {
    b.call.kind = GraphCall::Kind::kOp;
    TESSEL_ASSIGN_OR_RETURN(b.call.callee, ParseSymbolName("an operator name or call_tir"));
  }
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

}  // namespace tessel::ir::tsl
