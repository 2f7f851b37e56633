// The `.tsl` printer (grammar: docs/tsl.md). For example a copy kernel prints as
//
//   func @copy[n](A: f32[n], B: f32[n]) attrs {global_symbol = "copy"} {
//     for i in range(0, n) {
//       B[i] = A[i]
//     }
//   }
//
// Every object prints under its own name unless another object of the function
// already uses that name; then it gets the smallest free `_k` suffix. To know all
// names before writing any, the printer runs twice: the first run only records
// the variables and buffers in order of appearance (printer_names.cc assigns the
// names), the second writes text.
#include "ir/printer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/lexer.h"
#include "ir/printer_internal.h"

namespace tessel::ir {
namespace tsl {

namespace {

// Binding strength of an expression's outermost operator; higher binds tighter.
constexpr int kPrecOr = 1, kPrecAnd = 2, kPrecCmp = 3, kPrecAdd = 4, kPrecMul = 5,
              kPrecUnary = 6, kPrecPrimary = 7;

int BinaryPrec(NodeKind k) {
  switch (k) {
    case NodeKind::kOr: return kPrecOr;
    case NodeKind::kAnd: return kPrecAnd;
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE: return kPrecCmp;
    case NodeKind::kAdd:
    case NodeKind::kSub: return kPrecAdd;
    case NodeKind::kMin:
    case NodeKind::kMax: return kPrecPrimary;  // Printed as calls.
    default: return kPrecMul;
  }
}

bool IsNegativeLiteral(const ExprNode* e) {
  if (const auto* i = dyn_cast<IntImmNode>(e)) return !i->dtype.is_uint() && i->value < 0;
  if (const auto* f = dyn_cast<FloatImmNode>(e)) return !std::isnan(f->value) && std::signbit(f->value);
  return false;
}

int Prec(const ExprNode* e) {
  if (e == nullptr) return kPrecPrimary;
  if (isa<BinaryNode>(e)) return BinaryPrec(e->kind());
  if (isa<NotNode>(e) || IsNegativeLiteral(e)) return kPrecUnary;
  return kPrecPrimary;
}

const char* ForKindWord(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return "range";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kThreadBinding: return "thread_binding";
  }
  return "?";
}

bool IsScoping(const Stmt& s) {
  return isa<LetStmtNode>(s) || isa<AllocateNode>(s) || isa<DeclBufferNode>(s);
}

}  // namespace

// A statement list as the printer writes it between braces: a SeqStmt of any
// size but one is its elements; anything else (a singleton SeqStmt included) is
// itself, so the parser's "one statement is itself, else a SeqStmt" recovers it.
std::vector<Stmt> BodyList(const Stmt& body) {
  if (const auto* seq = dyn_cast<SeqStmtNode>(body); seq && seq->seq.size() != 1) return seq->seq;
  return {body};
}

std::string Printer::IntLiteral(const IntImmNode* op) {
  DataType t = op->dtype;
  if (t.is_bool()) return op->value ? "true" : "false";
  std::string digits =
      t.is_uint() ? absl::StrCat(static_cast<uint64_t>(op->value)) : absl::StrCat(op->value);
  if (t == DataType::Int(32)) return digits;
  return absl::StrCat(digits, t.ToString());
}

void Printer::PrintExpr(const Expr& e, int min_prec) {
  const ExprNode* n = e.get();
  if (n == nullptr) {
    out_ += "<null>";
    return;
  }
  bool parens = Prec(n) < min_prec;
  if (parens) out_ += "(";
  switch (n->kind()) {
    case NodeKind::kVar: out_ += Name(n, static_cast<const VarNode*>(n)->name); break;
    case NodeKind::kIntImm: out_ += IntLiteral(static_cast<const IntImmNode*>(n)); break;
    case NodeKind::kFloatImm: {
      const auto* f = static_cast<const FloatImmNode*>(n);
      out_ += FormatFloat(f->value, f->dtype);
      break;
    }
    case NodeKind::kNot:
      out_ += "!";
      PrintExpr(static_cast<const NotNode*>(n)->a, kPrecUnary);
      break;
    case NodeKind::kSelect: {
      const auto* s = static_cast<const SelectNode*>(n);
      out_ += "select(";
      PrintExprList({s->condition, s->true_value, s->false_value});
      out_ += ")";
      break;
    }
    case NodeKind::kCast: {
      const auto* c = static_cast<const CastNode*>(n);
      absl::StrAppend(&out_, c->dtype.ToString(), "(");
      PrintExpr(c->value, 0);
      out_ += ")";
      break;
    }
    case NodeKind::kBufferLoad: {
      const auto* l = static_cast<const BufferLoadNode*>(n);
      out_ += BufferName(l->buffer);
      out_ += "[";
      PrintExprList(l->indices);
      out_ += "]";
      break;
    }
    case NodeKind::kRamp: {
      const auto* r = static_cast<const RampNode*>(n);
      out_ += "ramp(";
      PrintExprList({r->base, r->stride});
      absl::StrAppend(&out_, ", ", r->lanes, ")");
      break;
    }
    case NodeKind::kBroadcast: {
      const auto* b = static_cast<const BroadcastNode*>(n);
      out_ += "broadcast(";
      PrintExpr(b->value, 0);
      absl::StrAppend(&out_, ", ", b->lanes, ")");
      break;
    }
    case NodeKind::kCall: {
      const auto* c = static_cast<const CallNode*>(n);
      if (c->callee == CallNode::Callee::kExtern) {
        absl::StrAppend(&out_, "@", QuotedName(c->name), "(");
        PrintExprList(c->args);
        absl::StrAppend(&out_, "): ", c->dtype.ToString());
      } else {
        absl::StrAppend(&out_, c->name, "(");
        PrintExprList(c->args);
        out_ += ")";
      }
      break;
    }
    default: {
      const auto* b = static_cast<const BinaryNode*>(n);
      if (n->kind() == NodeKind::kMin || n->kind() == NodeKind::kMax) {
        absl::StrAppend(&out_, BinaryOpSymbol(n->kind()), "(");
        PrintExprList({b->a, b->b});
        out_ += ")";
        break;
      }
      // Left-associative: the left operand may share our precedence, the right
      // may not. Comparisons do not chain, so both sides need parentheses there.
      int p = BinaryPrec(n->kind());
      if (p == kPrecCmp) {
        PrintExpr(b->a, p + 1);
        absl::StrAppend(&out_, " ", BinaryOpSymbol(n->kind()), " ");
        PrintExpr(b->b, p + 1);
        break;
      }
      // Walk the left spine of this precedence level iteratively, so that a long
      // chain such as a + b + c + ... costs no recursion.
      std::vector<const BinaryNode*> spine;
      const ExprNode* leftmost = n;
      while (isa<BinaryNode>(leftmost) && BinaryPrec(leftmost->kind()) == p) {
        spine.push_back(static_cast<const BinaryNode*>(leftmost));
        leftmost = spine.back()->a.get();
      }
      PrintExpr(Expr(GetRef(leftmost)), p);
      for (size_t k = spine.size(); k-- > 0;) {
        absl::StrAppend(&out_, " ", BinaryOpSymbol(spine[k]->kind()), " ");
        PrintExpr(spine[k]->b, p + 1);
      }
      break;
    }
  }
  if (parens) out_ += ")";
}

void Printer::PrintExprList(const std::vector<Expr>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out_ += ", ";
    PrintExpr(list[i], 0);
  }
}

std::string Printer::QuotedName(const std::string& name) {
  return IsIdentifier(name) ? name : QuoteString(name);
}

std::string Printer::BufferName(const Buffer& b) {
  if (!b) return "<null>";
  return Name(b.get(), b->name);
}

void Printer::PrintAttrValue(const AttrValue& v) {
  if (const int64_t* i = v.get_if<int64_t>()) {
    absl::StrAppend(&out_, *i);
  } else if (const double* d = v.get_if<double>()) {
    out_ += FormatDouble(*d);
  } else if (const bool* b = v.get_if<bool>()) {
    out_ += *b ? "true" : "false";
  } else if (const std::string* s = v.get_if<std::string>()) {
    out_ += QuoteString(*s);
  } else if (const Expr* e = v.get_if<Expr>()) {
    out_ += "expr(";
    PrintExpr(*e, 0);
    out_ += ")";
  } else {
    const AttrValue::List& list = v.as<AttrValue::List>();
    out_ += "[";
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ", ";
      PrintAttrValue(list[i]);
    }
    out_ += "]";
  }
}

void Printer::PrintAttrs(const Attrs& attrs) {
  out_ += "{";
  bool first = true;
  for (const auto& [key, value] : attrs) {
    if (!first) out_ += ", ";
    first = false;
    absl::StrAppend(&out_, QuotedName(key), " = ");
    PrintAttrValue(value);
  }
  out_ += "}";
}

int Printer::PrintBufferDef(const Buffer& b) {
  if (!b) {
    out_ += "<null>";
    return -1;
  }
  int entity = NewEntity(b->name);
  absl::StrAppend(&out_, EntityName(entity, b->name), ": ", b->dtype.ToString(), "[");
  PrintExprList(b->shape);
  out_ += "]";
  if (!b->strides.empty()) {
    out_ += " strides [";
    PrintExprList(b->strides);
    out_ += "]";
  }
  const auto* off = dyn_cast<IntImmNode>(b->elem_offset);
  if (b->elem_offset && !(off && off->value == 0 && off->dtype == DataType::Int(32))) {
    out_ += " offset ";
    PrintExpr(b->elem_offset, 0);
  }
  if (b->scope != "global") absl::StrAppend(&out_, " scope ", QuoteString(b->scope));
  if (b->alignment != kDefaultBufferAlignment) absl::StrAppend(&out_, " align ", b->alignment);
  return entity;
}

void Printer::PrintRegion(const BufferRegion& r) {
  out_ += BufferName(r.buffer);
  out_ += "[";
  for (size_t i = 0; i < r.region.size(); ++i) {
    if (i) out_ += ", ";
    const Range& range = r.region[i];
    PrintExpr(range.min, 0);
    const auto* one = dyn_cast<IntImmNode>(range.extent);
    bool point = one && one->value == 1 && range.min && one->dtype == range.min->dtype;
    if (!point) {
      out_ += " +: ";
      PrintExpr(range.extent, 0);
    }
  }
  out_ += "]";
}

int Printer::PrintVarDecl(const Var& v) {
  if (!v) {
    out_ += "<null>";
    return -1;
  }
  int entity = NewEntity(v->name);
  out_ += EntityName(entity, v->name);
  if (v->dtype != DataType::Int(32)) absl::StrAppend(&out_, ": ", v->dtype.ToString());
  return entity;
}

void Printer::Line() { out_.append(2 * indent_, ' '); }

void Printer::OpenMark(const Node* n, bool* opened) {
  if (n != nullptr && n == marked_ && !collecting_ && mark_begin_ == std::string::npos) {
    mark_begin_ = out_.size();
    mark_indent_ = indent_;
    *opened = true;
  }
}

void Printer::CloseMark(bool opened) {
  if (opened) mark_end_ = out_.size();
}

void Printer::PrintBody(const Stmt& body) {
  bool opened = false;
  OpenMark(body.get(), &opened);  // A marked SeqStmt prints as its elements.
  PrintList(BodyList(body));
  CloseMark(opened);
}

// Iterative so that long chains of lets print without deep recursion: a scoping
// statement that ends its list prints flat and its body continues the list.
void Printer::PrintList(std::vector<Stmt> list) {
  size_t scope = ScopeMark();
  std::vector<bool> opened_marks;
  for (size_t i = 0; i < list.size(); ++i) {
    const Stmt& s = list[i];
    if (i + 1 == list.size() && IsScoping(s)) {
      bool opened = false;
      OpenMark(s.get(), &opened);
      opened_marks.push_back(opened);
      Stmt body = PrintScopingHeader(s);
      out_ += "\n";
      list = BodyList(body);
      i = static_cast<size_t>(-1);
      continue;
    }
    PrintStmt(s);
  }
  for (bool opened : opened_marks) CloseMark(opened);
  EndScope(scope);
}

Stmt Printer::PrintScopingHeader(const Stmt& s) {
  Line();
  if (const auto* let = dyn_cast<LetStmtNode>(s)) {
    out_ += "let ";
    int entity = PrintVarDecl(let->var);
    out_ += " = ";
    PrintExpr(let->value, 0);
    Activate(let->var.get(), entity);
    return let->body;
  }
  if (const auto* alloc = dyn_cast<AllocateNode>(s)) {
    out_ += "allocate ";
    Activate(alloc->buffer.get(), PrintBufferDef(alloc->buffer));
    return alloc->body;
  }
  const auto* decl = cast<DeclBufferNode>(s);
  out_ += "decl_buffer ";
  int entity = PrintBufferDef(decl->buffer);
  absl::StrAppend(&out_, " = ", BufferName(decl->source));
  Activate(decl->buffer.get(), entity);
  return decl->body;
}

void Printer::PrintBraced(const Stmt& body) {
  out_ += " {\n";
  ++indent_;
  PrintBody(body);
  --indent_;
  Line();
  out_ += "}";
}

void Printer::PrintStmt(const Stmt& s) {
  bool opened = false;
  const Node* mark_node = s.get();
  if (const auto* r = dyn_cast<BlockRealizeNode>(s); r && r->block.get() == marked_) mark_node = marked_;
  OpenMark(mark_node, &opened);
  const StmtNode* n = s.get();
  if (n == nullptr) {
    Line();
    out_ += "<null>\n";
    CloseMark(opened);
    return;
  }
  switch (n->kind()) {
    case NodeKind::kBufferStore: {
      const auto* st = static_cast<const BufferStoreNode*>(n);
      Line();
      absl::StrAppend(&out_, BufferName(st->buffer), "[");
      PrintExprList(st->indices);
      out_ += "] = ";
      PrintExpr(st->value, 0);
      break;
    }
    case NodeKind::kFor: {
      const auto* f = static_cast<const ForNode*>(n);
      Line();
      out_ += "for ";
      size_t scope = ScopeMark();
      int entity = PrintVarDecl(f->loop_var);
      absl::StrAppend(&out_, " in ", ForKindWord(f->for_kind), "(");
      PrintExprList({f->min, f->extent});
      if (f->for_kind == ForKind::kThreadBinding) absl::StrAppend(&out_, ", ", QuoteString(f->thread_tag));
      out_ += ")";
      Activate(f->loop_var.get(), entity);
      if (!f->annotations.empty()) {
        out_ += " attrs ";
        PrintAttrs(f->annotations);
      }
      PrintBraced(f->body);
      EndScope(scope);
      break;
    }
    case NodeKind::kIfThenElse: {
      const auto* f = static_cast<const IfThenElseNode*>(n);
      Line();
      while (true) {
        out_ += "if ";
        PrintExpr(f->condition, 0);
        PrintBraced(f->then_case);
        if (!f->else_case) break;
        out_ += " else ";
        // `else if` keeps chains flat; it parses back to the same nesting.
        if (const auto* next = dyn_cast<IfThenElseNode>(f->else_case); next && next != marked_) {
          f = next;
          continue;
        }
        out_ += "{\n";
        ++indent_;
        PrintBody(f->else_case);
        --indent_;
        Line();
        out_ += "}";
        break;
      }
      break;
    }
    case NodeKind::kLetStmt:
    case NodeKind::kAllocate:
    case NodeKind::kDeclBuffer: {
      size_t scope = ScopeMark();
      Stmt body = PrintScopingHeader(s);
      PrintBraced(body);
      EndScope(scope);
      break;
    }
    case NodeKind::kSeqStmt:
      Line();
      out_ += "seq {\n";
      ++indent_;
      PrintList(static_cast<const SeqStmtNode*>(n)->seq);
      --indent_;
      Line();
      out_ += "}";
      break;
    case NodeKind::kEvaluate:
      Line();
      out_ += "evaluate ";
      PrintExpr(static_cast<const EvaluateNode*>(n)->value, 0);
      break;
    case NodeKind::kBlockRealize: {
      const auto* r = static_cast<const BlockRealizeNode*>(n);
      PrintBlock(r->block.get(), r);
      break;
    }
    case NodeKind::kBlock:
      PrintBlock(static_cast<const BlockNode*>(n), nullptr);
      break;
    default:
      Line();
      out_ += "<unknown statement>";
  }
  out_ += "\n";
  CloseMark(opened);
}

void Printer::PrintBlock(const BlockNode* b, const BlockRealizeNode* realize) {
  Line();
  if (b == nullptr) {
    out_ += "<null block>";
    return;
  }
  absl::StrAppend(&out_, realize ? "block " : "bare_block ", QuotedName(b->name), "(");
  size_t scope = ScopeMark();
  std::vector<int> entities;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    if (i) out_ += ", ";
    // `vi: spatial[0, 128]`, or `vi: i64 spatial[...]` for a variable that is not i32.
    if (!iv.var) {
      out_ += "<null>";
    } else {
      entities.push_back(NewEntity(iv.var->name));
      absl::StrAppend(&out_, EntityName(entities.back(), iv.var->name), ": ");
      if (iv.var->dtype != DataType::Int(32)) absl::StrAppend(&out_, iv.var->dtype.ToString(), " ");
    }
    absl::StrAppend(&out_, IterKindName(iv.kind), "[");
    PrintExprList({iv.dom.min, iv.dom.extent});
    out_ += "]";
    if (realize) {
      out_ += " = ";
      if (i < realize->iter_values.size()) {
        PrintExpr(realize->iter_values[i], 0);
      } else {
        out_ += "<missing>";
      }
    }
  }
  out_ += ")";
  if (realize) {
    const auto* p = dyn_cast<IntImmNode>(realize->predicate);
    if (!(p && p->dtype.is_bool() && p->value == 1)) {
      out_ += " where ";
      PrintExpr(realize->predicate, 0);
    }
  }
  // The iter vars are in scope from here on; bindings and predicate saw the outside.
  for (size_t i = 0, e = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i].var) Activate(b->iter_vars[i].var.get(), entities[e++]);
  }
  if (!b->annotations.empty()) {
    out_ += " attrs ";
    PrintAttrs(b->annotations);
  }
  out_ += " {\n";
  ++indent_;
  for (const Buffer& buf : b->alloc_buffers) {
    Line();
    out_ += "alloc_buffer ";
    Activate(buf.get(), PrintBufferDef(buf));
    out_ += "\n";
  }
  for (const auto* regions : {&b->reads, &b->writes}) {
    if (regions->empty()) continue;
    Line();
    out_ += regions == &b->reads ? "reads(" : "writes(";
    for (size_t i = 0; i < regions->size(); ++i) {
      if (i) out_ += ", ";
      PrintRegion((*regions)[i]);
    }
    out_ += ")\n";
  }
  if (b->init) {
    Line();
    out_ += "init";
    PrintBraced(b->init);
    out_ += "\n";
  }
  PrintBody(b->body);
  --indent_;
  Line();
  out_ += "}";
  EndScope(scope);
}

void Printer::PrintFunc(const PrimFunc& f, const std::string& name) {
  absl::StrAppend(&out_, "func @", QuotedName(name));
  if (f == nullptr) {
    out_ += "() <null>\n";
    return;
  }
  // Shape variables and scalar parameters are in scope for every parameter's
  // shape (a buffer may use a scalar listed after it), so they bind first.
  size_t scope = ScopeMark();
  std::vector<Var> syms = SymbolicVars(f);
  if (!syms.empty()) {
    out_ += "[";
    for (size_t i = 0; i < syms.size(); ++i) {
      if (i) out_ += ", ";
      Activate(syms[i].get(), PrintVarDecl(syms[i]));
    }
    out_ += "]";
  }
  std::vector<int> scalar_entities(f->params.size(), -1);
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Param& p = f->params[i];
    if (p.buffer || !p.var) continue;
    scalar_entities[i] = NewEntity(p.var->name);
    Activate(p.var.get(), scalar_entities[i]);
  }
  out_ += "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i) out_ += ", ";
    const Param& p = f->params[i];
    if (p.buffer) {
      Activate(p.buffer.get(), PrintBufferDef(p.buffer));
    } else if (p.var) {
      absl::StrAppend(&out_, EntityName(scalar_entities[i], p.var->name), ": ", p.var->dtype.ToString());
    } else {
      out_ += "<null>";
    }
  }
  out_ += ")";
  if (!f->attrs.empty()) {
    out_ += " attrs ";
    PrintAttrs(f->attrs);
  }
  PrintBraced(f->body);
  out_ += "\n";
  EndScope(scope);
}

void Printer::PrintModuleAttrs(const Attrs& attrs) {
  if (attrs.empty()) return;
  out_ += "module_attrs ";
  PrintAttrs(attrs);
  out_ += "\n";
}

}  // namespace tsl

std::string PrintModule(const IRModule& mod) {
  if (!mod) return "<null module>\n";
  std::string out;
  {
    tsl::Printer p;
    out = p.TwoPass([&](tsl::Printer& q) { q.PrintModuleAttrs(mod->attrs); });
  }
  for (const auto& [name, f] : mod->functions) {
    if (!out.empty()) out += "\n";
    tsl::Printer p;
    out += p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(f, name); });
  }
  return out;
}

std::string PrintFunction(const PrimFunc& func, const std::string& name) {
  tsl::Printer p;
  return p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(func, name); });
}

std::string PrintStmt(const Stmt& stmt) {
  tsl::Printer p;
  return p.TwoPass([&](tsl::Printer& q) { q.PrintBody(stmt); });
}

std::string PrintExpr(const Expr& expr) {
  tsl::Printer p;
  return p.TwoPass([&](tsl::Printer& q) { q.PrintExpr(expr, 0); });
}

std::string PrintFunctionMarked(const PrimFunc& func, const std::string& name, const Node* marked,
                                const std::string& note) {
  tsl::Printer p;
  p.SetMarked(marked);
  std::string text = p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(func, name); });
  return tsl::MarkLines(text, p.mark_begin(), p.mark_end(), p.mark_indent(), note);
}

}  // namespace tessel::ir
