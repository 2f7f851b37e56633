// The `.tsl` parser's top level: modules, functions, parameters, buffer
// definitions and attributes (grammar: docs/tsl.md). For example
//
//   module_attrs {target = "llvm"}
//   func @scale[n](A: f32[n], s: f32) attrs {global_symbol = "scale"} {
//     for i in range(0, n) {
//       A[i] = A[i] * s
//     }
//   }
//
// parses to an IRModule with one PrimFunc whose buffer A has the symbolic extent n.
// Expressions are in parser_expr.cc, statements in parser_stmt.cc.
#include "ir/parser.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/parser_internal.h"
#include "ir/read_file.h"

namespace tessel::ir {
namespace tsl {

bool Parser::Accept(absl::string_view punct) {
  if (!Peek().Is(punct)) return false;
  Next();
  return true;
}

absl::Status Parser::Expect(absl::string_view punct) {
  if (Accept(punct)) return absl::OkStatus();
  return ErrorAt(Peek(), absl::StrCat("expected '", punct, "' but found ", Describe(Peek())));
}

absl::Status Parser::ErrorAt(const Token& at, absl::string_view message) const {
  return absl::InvalidArgumentError(FormatSourceError(filename_, text_, at.line, at.col, message));
}

std::string Parser::Describe(const Token& t) {
  if (t.kind == TokKind::kEof) return "the end of the input";
  if (t.kind == TokKind::kString) return absl::StrCat("string ", t.text);
  return absl::StrCat("'", t.text, "'");
}

absl::Status Parser::TooDeep(const Token& at) const {
  return ErrorAt(at, absl::StrCat("nesting is deeper than ", kMaxDepth, " levels"));
}

const Parser::Binding* Parser::Lookup(absl::string_view name) const {
  auto it = visible_.find(name);
  if (it == visible_.end() || it->second.empty()) return nullptr;
  return &scope_[it->second.back()];
}

void Parser::Push(Binding b) {
  visible_[b.name].push_back(scope_.size());
  scope_.push_back(std::move(b));
}

void Parser::PopScope(size_t mark) {
  while (scope_.size() > mark) {
    auto it = visible_.find(scope_.back().name);
    it->second.pop_back();
    if (it->second.empty()) visible_.erase(it);
    scope_.pop_back();
  }
}

absl::StatusOr<std::string> Parser::BindingName(const char* what) {
  const Token& t = Peek();
  if (t.kind != TokKind::kIdent) {
    return ErrorAt(t, absl::StrCat("expected ", what, " but found ", Describe(t)));
  }
  if (IsReservedWord(t.text)) {
    return ErrorAt(t, absl::StrCat("'", t.text, "' is a reserved word and cannot name ", what));
  }
  Next();
  return std::string(t.text);
}

absl::StatusOr<std::string> Parser::ParseSymbolName(const char* what) {
  const Token& t = Peek();
  if (t.kind == TokKind::kIdent) {
    Next();
    return std::string(t.text);
  }
  if (t.kind == TokKind::kString) {
    Next();
    if (t.value.empty()) return ErrorAt(t, absl::StrCat(what, " is empty"));
    return t.value;
  }
  return ErrorAt(t, absl::StrCat("expected ", what, " but found ", Describe(t)));
}

absl::StatusOr<DataType> Parser::ParseDType() {
  const Token& t = Peek();
  if (t.kind != TokKind::kIdent) return ErrorAt(t, absl::StrCat("expected a type but found ", Describe(t)));
  absl::StatusOr<DataType> dt = DataType::Parse(t.text);
  if (!dt.ok()) return ErrorAt(t, dt.status());
  Next();
  return *dt;
}

// `{key = value, ...}`; keys are identifiers or strings.
absl::StatusOr<Attrs> Parser::ParseAttrDict() {
  const Token& open = Peek();
  DepthGuard guard(this);
  if (guard.too_deep()) return TooDeep(open);
  TESSEL_RETURN_IF_ERROR(Expect("{"));
  Attrs attrs;
  if (Accept("}")) return attrs;
  while (true) {
    const Token& key_tok = Peek();
    TESSEL_ASSIGN_OR_RETURN(std::string key, ParseSymbolName("an attribute name"));
    if (attrs.contains(key)) return ErrorAt(key_tok, absl::StrCat("duplicate attribute '", key, "'"));
    TESSEL_RETURN_IF_ERROR(Expect("="));
    TESSEL_ASSIGN_OR_RETURN(AttrValue value, ParseAttrValue());
    attrs.emplace(std::move(key), std::move(value));
    if (Accept("}")) return attrs;
    if (!Peek().Is(",")) {
      return ErrorAt(Peek(), absl::StrCat("expected ',' or '}' in attributes but found ", Describe(Peek())));
    }
    Next();
  }
}

// A number (7, -2, 1.5, inf, nan), true/false, a string, a list [..] or expr(e).
absl::StatusOr<AttrValue> Parser::ParseAttrValue(int nesting) {
  const Token& t = Peek();
  if (t.kind == TokKind::kString) {
    Next();
    return AttrValue(t.value);
  }
  if (t.Is("true") || t.Is("false")) {
    Next();
    return AttrValue(t.Is("true"));
  }
  if (t.Is("[")) {
    if (nesting >= kMaxAttrNesting) {
      return ErrorAt(t, absl::StrCat("attribute lists nest at most ", kMaxAttrNesting, " deep"));
    }
    Next();
    AttrValue::List list;
    if (Accept("]")) return AttrValue(std::move(list));
    while (true) {
      TESSEL_ASSIGN_OR_RETURN(AttrValue v, ParseAttrValue(nesting + 1));
      list.push_back(std::move(v));
      if (Accept("]")) return AttrValue(std::move(list));
      if (!Peek().Is(",")) {
        return ErrorAt(Peek(), absl::StrCat("expected ',' or ']' in a list but found ", Describe(Peek())));
      }
      Next();
    }
  }
  if (t.Is("expr") && Peek(1).Is("(")) {
    Next();
    Next();
    TESSEL_ASSIGN_OR_RETURN(Expr e, ParseExpr());
    TESSEL_RETURN_IF_ERROR(Expect(")"));
    return AttrValue(std::move(e));
  }
  bool negative = Accept("-");
  const Token& n = Peek();
  if (n.kind == TokKind::kInt) {
    uint64_t mag = 0;
    if (!ParseDecimalU64(n.text, &mag)) {
      if (n.text.find_first_not_of("0123456789") != absl::string_view::npos) {
        return ErrorAt(n, absl::StrCat("attribute numbers take no type suffix; write expr(", n.text,
                                       ") for a typed constant"));
      }
      return ErrorAt(n, absl::StrCat("integer '", n.text, "' is too large"));
    }
    constexpr uint64_t kMinMag = uint64_t{1} << 63;
    if (mag > kMinMag || (mag == kMinMag && !negative)) {
      return ErrorAt(n, absl::StrCat("integer '", n.text, "' does not fit in 64 bits"));
    }
    Next();
    int64_t v = mag == kMinMag ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(mag);
    return AttrValue(negative ? (mag == kMinMag ? v : -v) : v);
  }
  if (n.kind == TokKind::kFloat) {
    double v = 0;
    std::from_chars_result r = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    if (r.ptr != n.text.data() + n.text.size()) {
      return ErrorAt(n, absl::StrCat("attribute numbers take no type suffix; write expr(", n.text,
                                     ") for a typed constant"));
    }
    if (r.ec != std::errc()) return ErrorAt(n, absl::StrCat("number '", n.text, "' is out of range"));
    Next();
    return AttrValue(negative ? -v : v);
  }
  if (n.Is("inf") || n.Is("nan")) {
    Next();
    uint64_t bits = n.Is("inf") ? 0x7ff0000000000000ull : 0x7ff8000000000000ull;
    if (n.Is("nan") && Accept("(")) {
      TESSEL_ASSIGN_OR_RETURN(bits, ParseNaNBits());
    }
    if (negative) bits ^= uint64_t{1} << 63;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return AttrValue(d);
  }
  return ErrorAt(n, absl::StrCat("expected an attribute value (a number, true, false, a string, a [list] "
                                 "or expr(...)) but found ", Describe(n)));
}

// Buffer definitions: `A: f32[128, n]` plus optional `strides [..]`, `offset e`,
// `scope "s"`, `align n`, each at most once.
absl::StatusOr<Buffer> Parser::ParseBufferDef() {
  const Token& name_tok = Peek();
  TESSEL_ASSIGN_OR_RETURN(std::string name, BindingName("a buffer"));
  TESSEL_RETURN_IF_ERROR(Expect(":"));
  TESSEL_ASSIGN_OR_RETURN(DataType dtype, ParseDType());
  if (!Peek().Is("[")) {
    return ErrorAt(Peek(), absl::StrCat("expected '[' and the shape of buffer '", name, "' but found ",
                                        Describe(Peek())));
  }
  Next();
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> shape, ParseExprList("]"));
  std::vector<Expr> strides;
  Expr offset;
  std::string scope = "global";
  int align = kDefaultBufferAlignment;
  absl::flat_hash_set<std::string> seen;
  while (Peek().kind == TokKind::kIdent) {
    const Token& opt = Peek();
    if (!(opt.text == "strides" || opt.text == "offset" || opt.text == "scope" || opt.text == "align")) break;
    if (!seen.insert(std::string(opt.text)).second) {
      return ErrorAt(opt, absl::StrCat("'", opt.text, "' is given twice for buffer '", name, "'"));
    }
    Next();
    if (opt.text == "strides") {
      TESSEL_RETURN_IF_ERROR(Expect("["));
      TESSEL_ASSIGN_OR_RETURN(strides, ParseExprList("]"));
    } else if (opt.text == "offset") {
      TESSEL_ASSIGN_OR_RETURN(offset, ParseExpr());
    } else if (opt.text == "scope") {
      const Token& s = Peek();
      if (s.kind != TokKind::kString) return ErrorAt(s, "expected a scope string such as \"local\"");
      Next();
      scope = s.value;
    } else {
      const Token& a = Peek();
      uint64_t v = 0;
      if (a.kind != TokKind::kInt || !ParseDecimalU64(a.text, &v) || v > (1u << 30)) {
        return ErrorAt(a, "expected an alignment in bytes (a power of two)");
      }
      Next();
      align = static_cast<int>(v);
    }
  }
  absl::StatusOr<Buffer> b = MakeBufferChecked(std::move(name), dtype, std::move(shape), std::move(strides),
                                               std::move(offset), std::move(scope), align);
  if (!b.ok()) return ErrorAt(name_tok, b.status());
  return *b;
}

// Scalar parameters may appear in the shapes of buffer parameters listed before
// them, so they are declared before the list is parsed: a scan finds every
// `name: type` followed by ',' or ')' at the top level of the list.
absl::Status Parser::DeclareScalarParams(std::vector<Var>* vars, std::vector<std::string>* names) {
  int depth = 0;
  for (size_t i = pos_; i < tokens_.size(); ++i) {
    const Token& t = tokens_[i];
    if (t.Is("(") || t.Is("[") || t.Is("{")) ++depth;
    if (t.Is(")") || t.Is("]") || t.Is("}")) --depth;
    if (depth <= 0 || t.kind == TokKind::kEof) break;
    if (depth != 1 || t.kind != TokKind::kIdent || i + 3 >= tokens_.size()) continue;
    if (!(tokens_[i - 1].Is("(") || tokens_[i - 1].Is(","))) continue;
    if (!tokens_[i + 1].Is(":") || tokens_[i + 2].kind != TokKind::kIdent) continue;
    if (!(tokens_[i + 3].Is(",") || tokens_[i + 3].Is(")"))) continue;
    absl::StatusOr<DataType> dt = DataType::Parse(tokens_[i + 2].text);
    if (!dt.ok() || IsReservedWord(t.text)) continue;  // The in-order parse reports it.
    if (Lookup(t.text) != nullptr) return ErrorAt(t, absl::StrCat("duplicate parameter '", t.text, "'"));
    Var v = MakeVar(std::string(t.text), *dt);
    Bind(std::string(t.text), v);
    vars->push_back(v);
    names->emplace_back(t.text);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseShapeVars() {
  if (!Accept("[")) return absl::OkStatus();
  while (true) {
    const Token& t = Peek();
    TESSEL_ASSIGN_OR_RETURN(std::string sym, BindingName("a shape variable"));
    DataType dt = DataType::Int(32);
    if (Accept(":")) {
      TESSEL_ASSIGN_OR_RETURN(dt, ParseDType());
    }
    if (Lookup(sym) != nullptr)
      return ErrorAt(t, absl::StrCat("duplicate shape variable '", sym, "'"));
    Bind(sym, MakeVar(sym, dt));
    if (Accept("]")) return absl::OkStatus();
    TESSEL_RETURN_IF_ERROR(Expect(","));
  }
}

absl::StatusOr<PrimFunc> Parser::ParseFunction(std::string* name) {
  const Token& func_tok = Next();  // `func`
  TESSEL_RETURN_IF_ERROR(Expect("@"));
  TESSEL_ASSIGN_OR_RETURN(*name, ParseSymbolName("a function name"));
  size_t mark = ScopeMark();
  TESSEL_RETURN_IF_ERROR(ParseShapeVars());
  if (!Peek().Is("(")) return ErrorAt(Peek(), absl::StrCat("expected '(' and the parameters but found ", Describe(Peek())));
  std::vector<Var> scalars;
  std::vector<std::string> scalar_names;
  TESSEL_RETURN_IF_ERROR(DeclareScalarParams(&scalars, &scalar_names));
  absl::flat_hash_map<std::string, Var> scalar_by_name;
  for (size_t i = 0; i < scalars.size(); ++i) scalar_by_name.emplace(scalar_names[i], scalars[i]);
  Next();  // `(`
  std::vector<Param> params;
  absl::flat_hash_set<std::string> param_names;
  while (!Peek().Is(")")) {
    if (!params.empty()) TESSEL_RETURN_IF_ERROR(Expect(","));
    const Token& pt = Peek();
    if (pt.kind == TokKind::kIdent && Peek(1).Is(":") && Peek(2).kind == TokKind::kIdent && !Peek(3).Is("[")) {
      TESSEL_ASSIGN_OR_RETURN(std::string pname, BindingName("a parameter"));
      Next();  // `:`
      TESSEL_ASSIGN_OR_RETURN(DataType dt, ParseDType());
      if (!Peek().Is(",") && !Peek().Is(")")) {
        return ErrorAt(Peek(), absl::StrCat("expected ',' or ')' after parameter '", pname, "' but found ",
                                            Describe(Peek())));
      }
      if (!param_names.insert(pname).second) return ErrorAt(pt, absl::StrCat("duplicate parameter '", pname, "'"));
      auto found = scalar_by_name.find(pname);
      Var v = found == scalar_by_name.end() ? Var() : found->second;
      if (!v) return ErrorAt(pt, absl::StrCat("parameter '", pname, "' could not be declared"));
      if (v->dtype != dt) return ErrorAt(pt, absl::StrCat("parameter '", pname, "' has two types"));
      params.push_back(Param::OfVar(v));
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(Buffer b, ParseBufferDef());
    if (!param_names.insert(b->name).second || Lookup(b->name) != nullptr) {
      return ErrorAt(pt, absl::StrCat("duplicate parameter '", b->name, "'"));
    }
    Bind(b->name, b);
    params.push_back(Param::OfBuffer(b));
  }
  Next();  // `)`
  Attrs attrs;
  if (Accept("attrs")) {
    TESSEL_ASSIGN_OR_RETURN(attrs, ParseAttrDict());
  }
  if (!Peek().Is("{")) {
    return ErrorAt(Peek(), absl::StrCat("expected '{' and the body of function '", *name, "' but found ",
                                        Describe(Peek())));
  }
  TESSEL_ASSIGN_OR_RETURN(Stmt body, ParseBraced());
  PopScope(mark);
  absl::StatusOr<PrimFunc> f = MakePrimFuncChecked(std::move(params), std::move(body), std::move(attrs));
  if (!f.ok()) return ErrorAt(func_tok, f.status());
  return *f;
}

absl::StatusOr<IRModule> Parser::ParseModule() {
  LexResult lexed = Lex(text_);
  if (!lexed.error.empty()) {
    return absl::InvalidArgumentError(
        FormatSourceError(filename_, text_, lexed.error_line, lexed.error_col, lexed.error));
  }
  tokens_ = std::move(lexed.tokens);
  pos_ = 0;
  Attrs attrs;
  bool have_attrs = false;
  std::vector<std::pair<std::string, PrimFunc>> functions;
  std::vector<std::pair<std::string, GraphFunc>> graphs;
  std::vector<std::pair<std::string, HostBuffer>> constants;
  absl::flat_hash_set<std::string> names;
  while (Peek().kind != TokKind::kEof) {
    const Token& t = Peek();
    if (t.Is("module_attrs")) {
      if (have_attrs) return ErrorAt(t, "module_attrs is given twice");
      if (!functions.empty() || !graphs.empty())
        return ErrorAt(t, "module_attrs must come before the functions");
      Next();
      have_attrs = true;
      TESSEL_ASSIGN_OR_RETURN(attrs, ParseAttrDict());
      continue;
    }
    if (!t.Is("func") && !t.Is("graph") && !t.Is("const")) {
      return ErrorAt(t, absl::StrCat("expected 'func', 'graph', 'const' or 'module_attrs' at the "
                                     "top level but found ",
                                     Describe(t)));
    }
    const Token& name_tok = Peek(2);
    std::string name;
    if (t.Is("const")) {
      TESSEL_ASSIGN_OR_RETURN(auto c, ParseConstant());
      if (!names.insert(c.first).second)
        return ErrorAt(name_tok, absl::StrCat("'", c.first, "' is defined twice"));
      constants.push_back(std::move(c));
      continue;
    }
    if (t.Is("graph")) {
      TESSEL_ASSIGN_OR_RETURN(GraphFunc g, ParseGraphFunction(&name));
      if (!names.insert(name).second)
        return ErrorAt(name_tok, absl::StrCat("function '", name, "' is defined twice"));
      graphs.emplace_back(std::move(name), std::move(g));
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(PrimFunc f, ParseFunction(&name));
    if (!names.insert(name).second) return ErrorAt(name_tok, absl::StrCat("function '", name, "' is defined twice"));
    functions.emplace_back(std::move(name), std::move(f));
  }
  absl::StatusOr<IRModule> m = MakeIRModuleChecked(std::move(functions), std::move(graphs),
                                                   std::move(constants), std::move(attrs));
  if (!m.ok()) return ErrorAt(Peek(), m.status());
  return *m;
}

}  // namespace tsl

absl::StatusOr<IRModule> ParseModule(absl::string_view text, absl::string_view filename) {
  tsl::Parser p(text, filename);
  return p.ParseModule();
}

absl::StatusOr<IRModule> LoadModule(const std::string& path) {
  TESSEL_ASSIGN_OR_RETURN(std::string text, ReadFileBounded(path, kMaxSourceBytes));
  return ParseModule(text, path);
}

std::vector<std::string> SplitInputFile(absl::string_view text) {
  std::vector<std::string> chunks;
  std::string current;
  int line = 0;        // 0-based index of the line being read.
  int chunk_start = 0;  // Line where the current chunk begins.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t next = nl == absl::string_view::npos ? text.size() : nl + 1;
    absl::string_view l = text.substr(pos, (nl == absl::string_view::npos ? text.size() : nl) - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l == "// -----") {
      chunks.push_back(std::string(chunk_start, '\n') + current);
      current.clear();
      chunk_start = line + 1;
    } else {
      current.append(text.data() + pos, next - pos);
    }
    ++line;
    pos = next;
  }
  chunks.push_back(std::string(chunk_start, '\n') + current);
  return chunks;
}

}  // namespace tessel::ir
