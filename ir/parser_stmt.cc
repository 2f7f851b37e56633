// Statements of the `.tsl` parser. Between braces is a list of statements; one
// statement is itself, any other number is a SeqStmt (`seq { ... }` writes a
// SeqStmt of any size explicitly). A `let`, `allocate` or `decl_buffer` without
// braces scopes over the rest of its list:
//
//   let n2 = n * 2
//   A[0] = n2
//   A[1] = n2
//
// is LetStmt(n2, n * 2, SeqStmt[A[0] = n2, A[1] = n2]).
//
// The rest-of-list form is parsed iteratively (a stack of pending headers), so a
// long chain of lets costs no recursion depth.
#include "absl/strings/str_cat.h"
#include "ir/parser_internal.h"

namespace tessel::ir::tsl {
namespace {

Stmt EmptySeq() { return ValueOrDie(MakeSeqStmt({})); }

bool IsScopingWord(const Token& t) {
  return t.kind == TokKind::kIdent && (t.text == "let" || t.text == "allocate" || t.text == "decl_buffer");
}

}  // namespace

absl::StatusOr<Stmt> Parser::ListToStmt(std::vector<Stmt> list, const Token& at) {
  if (list.size() == 1) return list[0];
  absl::StatusOr<Stmt> s = MakeSeqStmt(std::move(list));
  if (!s.ok()) return ErrorAt(at, s.status());
  return *s;
}

absl::StatusOr<Stmt> Parser::ParseBraced() {
  const Token& open = Peek();
  DepthGuard guard(this);
  if (guard.too_deep()) return TooDeep(open);
  TESSEL_RETURN_IF_ERROR(Expect("{"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Stmt> list, ParseStmtList(open));
  Next();  // `}`, checked by ParseStmtList.
  return ListToStmt(std::move(list), open);
}

// Statements up to (not including) the `}` that closes `open`.
absl::StatusOr<std::vector<Stmt>> Parser::ParseStmtList(const Token& open) {
  struct Pending {
    const Token* at;
    Var var;
    Expr value;
    Buffer buffer, source;
    std::vector<Stmt> before;
    size_t mark;
  };
  std::vector<Pending> pending;
  std::vector<Stmt> cur;
  while (!Peek().Is("}")) {
    const Token& t = Peek();
    if (t.kind == TokKind::kEof || t.Is("func") || t.Is("module_attrs")) {
      return ErrorAt(t, absl::StrCat("missing '}': the '{' at line ", open.line, ", column ", open.col,
                                     " is not closed before ", Describe(t)));
    }
    if (!IsScopingWord(t)) {
      TESSEL_ASSIGN_OR_RETURN(Stmt s, ParseStmt());
      cur.push_back(std::move(s));
      continue;
    }
    // let / allocate / decl_buffer: the header, then a braced body or the rest.
    Next();
    Pending p{&t, nullptr, nullptr, nullptr, nullptr, {}, ScopeMark()};
    if (t.Is("let")) {
      TESSEL_ASSIGN_OR_RETURN(std::string name, BindingName("a variable"));
      bool annotated = false;
      DataType dt;
      if (Accept(":")) {
        TESSEL_ASSIGN_OR_RETURN(dt, ParseDType());
        annotated = true;
      }
      TESSEL_RETURN_IF_ERROR(Expect("="));
      TESSEL_ASSIGN_OR_RETURN(p.value, ParseExpr());
      p.var = MakeVar(name, annotated ? dt : p.value->dtype);
      if (absl::StatusOr<Stmt> check = MakeLetStmt(p.var, p.value, EmptySeq()); !check.ok()) {
        return ErrorAt(t, check.status());
      }
      Bind(name, p.var);
    } else {
      TESSEL_ASSIGN_OR_RETURN(p.buffer, ParseBufferDef());
      if (t.Is("decl_buffer")) {
        TESSEL_RETURN_IF_ERROR(Expect("="));
        const Token& src = Peek();
        if (src.kind != TokKind::kIdent) {
          return ErrorAt(src, absl::StrCat("expected the name of the source buffer but found ", Describe(src)));
        }
        Next();
        TESSEL_ASSIGN_OR_RETURN(p.source, LookupBuffer(src));
        if (absl::StatusOr<Stmt> check = MakeDeclBuffer(p.buffer, p.source, EmptySeq()); !check.ok()) {
          return ErrorAt(t, check.status());
        }
      }
      Bind(p.buffer->name, p.buffer);
    }
    if (!Peek().Is("{")) {
      if (++open_flat_scopes_ > kMaxChainDepth) {
        return ErrorAt(t, absl::StrCat("more than ", kMaxChainDepth,
                                       " let/allocate/decl_buffer scopes are open here"));
      }
      p.before = std::move(cur);
      cur.clear();
      pending.push_back(std::move(p));
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(Stmt body, ParseBraced());
    PopScope(p.mark);
    absl::StatusOr<Stmt> s = p.var ? MakeLetStmt(p.var, p.value, body)
                             : p.source ? MakeDeclBuffer(p.buffer, p.source, body)
                                        : MakeAllocate(p.buffer, body);
    if (!s.ok()) return ErrorAt(t, s.status());
    cur.push_back(*s);
  }
  // Close the rest-of-list scopes, innermost first.
  while (!pending.empty()) {
    Pending& p = pending.back();
    TESSEL_ASSIGN_OR_RETURN(Stmt body, ListToStmt(std::move(cur), *p.at));
    absl::StatusOr<Stmt> s = p.var ? MakeLetStmt(p.var, p.value, body)
                             : p.source ? MakeDeclBuffer(p.buffer, p.source, body)
                                        : MakeAllocate(p.buffer, body);
    if (!s.ok()) return ErrorAt(*p.at, s.status());
    cur = std::move(p.before);
    cur.push_back(*s);
    PopScope(p.mark);
    pending.pop_back();
    --open_flat_scopes_;
  }
  return cur;
}

absl::StatusOr<Stmt> Parser::ParseStmt() {
  const Token& t = Peek();
  DepthGuard guard(this);
  if (guard.too_deep()) return TooDeep(t);
  if (t.kind != TokKind::kIdent) return ErrorAt(t, absl::StrCat("expected a statement but found ", Describe(t)));
  if (t.Is("for")) return ParseFor();
  if (t.Is("if")) return ParseIf();
  if (t.Is("block") || t.Is("bare_block")) return ParseBlock();
  if (t.Is("seq")) {
    Next();
    const Token& open = Peek();
    TESSEL_RETURN_IF_ERROR(Expect("{"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<Stmt> list, ParseStmtList(open));
    Next();
    absl::StatusOr<Stmt> s = MakeSeqStmt(std::move(list));
    if (!s.ok()) return ErrorAt(t, s.status());
    return *s;
  }
  if (t.Is("evaluate")) {
    Next();
    TESSEL_ASSIGN_OR_RETURN(Expr e, ParseExpr());
    absl::StatusOr<Stmt> s = MakeEvaluate(std::move(e));
    if (!s.ok()) return ErrorAt(t, s.status());
    return *s;
  }
  if (t.Is("reads") || t.Is("writes") || t.Is("init") || t.Is("alloc_buffer")) {
    return ErrorAt(t, absl::StrCat("'", t.text, "' belongs at the start of a block body, in the order "
                                   "alloc_buffer, reads, writes, init, then the statements"));
  }
  if (t.Is("where") || t.Is("attrs")) {
    return ErrorAt(t, absl::StrCat("'", t.text, "' belongs in a header, e.g. block b(...) where cond attrs {...} {"));
  }
  if (Peek(1).Is("[") && !IsReservedWord(t.text)) return ParseStore();
  if (Peek(1).Is("=")) {
    return ErrorAt(t, absl::StrCat("cannot assign to '", t.text, "': stores are written buffer[indices] = value, "
                                   "variables are bound with let"));
  }
  return ErrorAt(t, absl::StrCat("expected a statement but found ", Describe(t)));
}

absl::StatusOr<Stmt> Parser::ParseStore() {
  const Token& name = Next();
  TESSEL_ASSIGN_OR_RETURN(Buffer b, LookupBuffer(name));
  Next();  // `[`
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> indices, ParseExprList("]"));
  const Token& eq = Peek();
  TESSEL_RETURN_IF_ERROR(Expect("="));
  TESSEL_ASSIGN_OR_RETURN(Expr value, ParseExpr());
  absl::StatusOr<Stmt> s = MakeBufferStore(std::move(b), std::move(value), std::move(indices));
  if (!s.ok()) return ErrorAt(eq, s.status());
  return *s;
}

absl::StatusOr<Stmt> Parser::ParseFor() {
  const Token& kw = Next();
  TESSEL_ASSIGN_OR_RETURN(std::string name, BindingName("a loop variable"));
  bool annotated = false;
  DataType dt;
  if (Accept(":")) {
    TESSEL_ASSIGN_OR_RETURN(dt, ParseDType());
    annotated = true;
  }
  TESSEL_RETURN_IF_ERROR(Expect("in"));
  const Token& kind_tok = Peek();
  static constexpr std::pair<const char*, ForKind> kKinds[] = {
      {"range", ForKind::kSerial},         {"parallel", ForKind::kParallel},
      {"vectorized", ForKind::kVectorized}, {"unrolled", ForKind::kUnrolled},
      {"thread_binding", ForKind::kThreadBinding}};
  ForKind kind = ForKind::kSerial;
  bool found = false;
  for (const auto& [word, k] : kKinds) {
    if (kind_tok.Is(word)) {
      kind = k;
      found = true;
    }
  }
  if (!found || kind_tok.kind != TokKind::kIdent) {
    return ErrorAt(kind_tok, absl::StrCat("expected range, parallel, vectorized, unrolled or thread_binding "
                                          "but found ", Describe(kind_tok)));
  }
  Next();
  TESSEL_RETURN_IF_ERROR(Expect("("));
  TESSEL_ASSIGN_OR_RETURN(Expr min, ParseExpr());
  TESSEL_RETURN_IF_ERROR(Expect(","));
  TESSEL_ASSIGN_OR_RETURN(Expr extent, ParseExpr());
  std::string tag;
  if (kind == ForKind::kThreadBinding) {
    TESSEL_RETURN_IF_ERROR(Expect(","));
    const Token& s = Peek();
    if (s.kind != TokKind::kString) {
      return ErrorAt(s, absl::StrCat("expected a thread tag such as \"threadIdx.x\" but found ", Describe(s)));
    }
    Next();
    tag = s.value;
  }
  TESSEL_RETURN_IF_ERROR(Expect(")"));
  Var v = MakeVar(name, annotated ? dt : min->dtype);
  if (absl::StatusOr<Stmt> check = MakeFor(v, min, extent, kind, EmptySeq(), tag); !check.ok()) {
    return ErrorAt(kw, check.status());
  }
  size_t mark = ScopeMark();
  Bind(name, v);
  Attrs attrs;
  if (Accept("attrs")) {
    TESSEL_ASSIGN_OR_RETURN(attrs, ParseAttrDict());
  }
  if (!Peek().Is("{")) return ErrorAt(Peek(), absl::StrCat("expected '{' and the loop body but found ", Describe(Peek())));
  TESSEL_ASSIGN_OR_RETURN(Stmt body, ParseBraced());
  PopScope(mark);
  absl::StatusOr<Stmt> s = MakeFor(std::move(v), std::move(min), std::move(extent), kind, std::move(body),
                                   std::move(tag), std::move(attrs));
  if (!s.ok()) return ErrorAt(kw, s.status());
  return *s;
}

absl::StatusOr<Stmt> Parser::ParseIf() {
  const Token& kw = Next();
  DepthGuard guard(this);  // `else if` chains recurse.
  if (guard.too_deep()) return TooDeep(kw);
  TESSEL_ASSIGN_OR_RETURN(Expr cond, ParseExpr());
  if (absl::StatusOr<Stmt> check = MakeIfThenElse(cond, EmptySeq()); !check.ok()) {
    return ErrorAt(kw, check.status());
  }
  if (!Peek().Is("{")) return ErrorAt(Peek(), absl::StrCat("expected '{' after the condition but found ", Describe(Peek())));
  TESSEL_ASSIGN_OR_RETURN(Stmt then_case, ParseBraced());
  Stmt else_case;
  if (Accept("else")) {
    if (Peek().Is("if")) {
      TESSEL_ASSIGN_OR_RETURN(else_case, ParseIf());
    } else {
      if (!Peek().Is("{")) return ErrorAt(Peek(), absl::StrCat("expected '{' or 'if' after else but found ", Describe(Peek())));
      TESSEL_ASSIGN_OR_RETURN(else_case, ParseBraced());
    }
  }
  absl::StatusOr<Stmt> s = MakeIfThenElse(std::move(cond), std::move(then_case), std::move(else_case));
  if (!s.ok()) return ErrorAt(kw, s.status());
  return *s;
}

absl::StatusOr<BufferRegion> Parser::ParseRegion() {
  const Token& name = Peek();
  if (name.kind != TokKind::kIdent) return ErrorAt(name, absl::StrCat("expected a buffer region but found ", Describe(name)));
  Next();
  TESSEL_ASSIGN_OR_RETURN(Buffer b, LookupBuffer(name));
  TESSEL_RETURN_IF_ERROR(Expect("["));
  BufferRegion r{b, {}};
  if (!Accept("]")) {
    while (true) {
      const Token& at = Peek();
      TESSEL_ASSIGN_OR_RETURN(Expr min, ParseExpr());
      Expr extent;
      if (Accept("+:")) {
        TESSEL_ASSIGN_OR_RETURN(extent, ParseExpr());
      } else {
        if (!min->dtype.is_integer() || !min->dtype.is_scalar()) {
          return ErrorAt(at, absl::StrCat("a region index must be a scalar integer, not ", min->dtype.ToString()));
        }
        extent = IntImm(min->dtype, 1);
      }
      r.region.push_back(Range{std::move(min), std::move(extent)});
      if (Accept("]")) break;
      if (!Peek().Is(",")) return ErrorAt(Peek(), absl::StrCat("expected ',' or ']' but found ", Describe(Peek())));
      Next();
    }
  }
  if (static_cast<int>(r.region.size()) != b->ndim()) {
    return ErrorAt(name, absl::StrCat("region of buffer '", b->name, "' has ", r.region.size(),
                                      " ranges but the buffer has rank ", b->ndim()));
  }
  return r;
}

// block name(vi: spatial[0, n] = i, ...) where cond attrs {...} { alloc_buffer.. reads(..)
// writes(..) init {..} statements }; bare_block has no bindings and no `where`.
absl::StatusOr<Stmt> Parser::ParseBlock() {
  const Token& kw = Next();
  bool realize = kw.Is("block");
  TESSEL_ASSIGN_OR_RETURN(std::string name, ParseSymbolName("a block name"));
  TESSEL_RETURN_IF_ERROR(Expect("("));
  std::vector<IterVar> iter_vars;
  std::vector<Expr> values;
  std::vector<std::string> iv_names;
  while (!Accept(")")) {
    if (!iter_vars.empty()) TESSEL_RETURN_IF_ERROR(Expect(","));
    const Token& nt = Peek();
    TESSEL_ASSIGN_OR_RETURN(std::string iv_name, BindingName("an iter var"));
    for (const std::string& n : iv_names) {
      if (n == iv_name) return ErrorAt(nt, absl::StrCat("duplicate iter var '", iv_name, "'"));
    }
    TESSEL_RETURN_IF_ERROR(Expect(":"));
    bool annotated = false;
    DataType dt = DataType::Int(32);
    auto is_kind = [](const Token& k) { return k.Is("spatial") || k.Is("reduce") || k.Is("opaque"); };
    if (!is_kind(Peek())) {
      TESSEL_ASSIGN_OR_RETURN(dt, ParseDType());
      annotated = true;
    }
    const Token& kt = Peek();
    if (!is_kind(kt)) {
      return ErrorAt(kt, absl::StrCat("expected an iter kind (spatial, reduce or opaque) but found ", Describe(kt)));
    }
    Next();
    IterKind kind = kt.Is("spatial") ? IterKind::kSpatial : kt.Is("reduce") ? IterKind::kReduce : IterKind::kOpaque;
    TESSEL_RETURN_IF_ERROR(Expect("["));
    TESSEL_ASSIGN_OR_RETURN(Expr min, ParseExpr());
    TESSEL_RETURN_IF_ERROR(Expect(","));
    TESSEL_ASSIGN_OR_RETURN(Expr extent, ParseExpr());
    TESSEL_RETURN_IF_ERROR(Expect("]"));
    if (realize) {
      if (!Peek().Is("=")) {
        return ErrorAt(Peek(), absl::StrCat("expected '=' and the value bound to iter var '", iv_name,
                                            "' but found ", Describe(Peek())));
      }
      Next();
      TESSEL_ASSIGN_OR_RETURN(Expr value, ParseExpr());
      if (!annotated) dt = value->dtype;
      values.push_back(std::move(value));
    } else if (Peek().Is("=")) {
      return ErrorAt(Peek(), "a bare_block's iter vars are not bound; use block for a bound block");
    }
    iter_vars.push_back(IterVar{MakeVar(iv_name, dt), Range{std::move(min), std::move(extent)}, kind});
    iv_names.push_back(iv_name);
  }
  Expr predicate;
  if (Peek().Is("where")) {
    if (!realize) return ErrorAt(Peek(), "a bare_block has no predicate; use block");
    Next();
    TESSEL_ASSIGN_OR_RETURN(predicate, ParseExpr());
  }
  size_t mark = ScopeMark();
  for (const IterVar& iv : iter_vars) Bind(iv.var->name, iv.var);
  Attrs attrs;
  if (Accept("attrs")) {
    TESSEL_ASSIGN_OR_RETURN(attrs, ParseAttrDict());
  }
  const Token& open = Peek();
  DepthGuard guard(this);
  if (guard.too_deep()) return TooDeep(open);
  if (!open.Is("{")) return ErrorAt(open, absl::StrCat("expected '{' and the block body but found ", Describe(open)));
  Next();
  std::vector<Buffer> allocs;
  while (Accept("alloc_buffer")) {
    TESSEL_ASSIGN_OR_RETURN(Buffer b, ParseBufferDef());
    Bind(b->name, b);
    allocs.push_back(std::move(b));
  }
  std::vector<BufferRegion> regions[2];
  for (int w = 0; w < 2; ++w) {
    if (!Accept(w == 0 ? "reads" : "writes")) continue;
    TESSEL_RETURN_IF_ERROR(Expect("("));
    if (Accept(")")) continue;
    while (true) {
      TESSEL_ASSIGN_OR_RETURN(BufferRegion r, ParseRegion());
      regions[w].push_back(std::move(r));
      if (Accept(")")) break;
      if (!Peek().Is(",")) return ErrorAt(Peek(), absl::StrCat("expected ',' or ')' but found ", Describe(Peek())));
      Next();
    }
  }
  Stmt init;
  if (Accept("init")) {
    if (!Peek().Is("{")) return ErrorAt(Peek(), absl::StrCat("expected '{' after init but found ", Describe(Peek())));
    TESSEL_ASSIGN_OR_RETURN(init, ParseBraced());
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<Stmt> list, ParseStmtList(open));
  Next();  // `}`
  TESSEL_ASSIGN_OR_RETURN(Stmt body, ListToStmt(std::move(list), open));
  PopScope(mark);
  absl::StatusOr<Block> block = MakeBlock(std::move(name), std::move(iter_vars), std::move(regions[0]),
                                          std::move(regions[1]), std::move(body), std::move(init),
                                          std::move(allocs), std::move(attrs));
  if (!block.ok()) return ErrorAt(kw, block.status());
  if (!realize) return Stmt(*block);
  absl::StatusOr<Stmt> r = MakeBlockRealize(std::move(values), std::move(predicate), *std::move(block));
  if (!r.ok()) return ErrorAt(kw, r.status());
  return *r;
}

}  // namespace tessel::ir::tsl
