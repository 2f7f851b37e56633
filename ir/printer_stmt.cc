// The `.tsl` printer's statements and functions (expressions, attributes and
// buffers are in printer.cc). A loop whose body is a let prints the let flat,
// its body being the rest of the loop body:
//
//   for i in parallel(0, 16) {
//     let k = i * 4
//     A[k] = 0.0f32
//   }
//
// Statement lists are printed iteratively (see PrintList), so long chains of
// lets cost no recursion.
#include "absl/strings/str_cat.h"
#include "ir/lexer.h"
#include "ir/printer_internal.h"

namespace tessel::ir::tsl {
namespace {

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
    if (realize->predicate && !(p && p->dtype.is_bool() && p->value == 1)) {
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

void Printer::PrintShapeVars(const std::vector<Var>& syms) {
  if (syms.empty()) return;
  out_ += "[";
  for (size_t i = 0; i < syms.size(); ++i) {
    if (i) out_ += ", ";
    Activate(syms[i].get(), PrintVarDecl(syms[i]));
  }
  out_ += "]";
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
  PrintShapeVars(SymbolicVars(f));
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

}  // namespace tessel::ir::tsl
