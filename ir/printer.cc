// The `.tsl` printer (grammar: docs/tsl.md): expressions, attributes, buffer
// definitions and the entry points; statements and functions are in
// printer_stmt.cc, names, float spelling and marking in printer_names.cc.
// For example a copy kernel prints as
//
//   func @copy[n](A: f32[n], B: f32[n]) attrs {global_symbol = "copy"} {
//     for i in range(0, n) {
//       B[i] = A[i]
//     }
//   }
//
// Every binding prints under its object's own name unless an earlier binding of
// the function uses that name; then it gets the smallest free `_k` suffix. To know
// all names before writing any, the printer runs twice: the first run only records
// the bindings in order, the second writes text.
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

}  // namespace

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
      if (c->callee == CallNode::Callee::kExtern || c->callee == CallNode::Callee::kPacked) {
        absl::StrAppend(&out_, "@", QuotedName(c->name), "(");
        PrintExprList(c->args);
        absl::StrAppend(
            &out_, "): ", c->callee == CallNode::Callee::kPacked ? "packed" : c->dtype.ToString());
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

}  // namespace tsl

std::string PrintModule(const IRModule& mod) {
  if (!mod) return "<null module>\n";
  std::string out;
  {
    tsl::Printer p;
    out = p.TwoPass([&](tsl::Printer& q) { q.PrintModuleAttrs(mod->attrs); });
  }
  // Graph functions first: they are the entry points, and they read top-down
  // into the kernels they call.
  for (const auto& [name, g] : mod->graph_functions) {
    if (!out.empty()) out += "\n";
    tsl::Printer p;
    out += p.TwoPass([&](tsl::Printer& q) { q.PrintGraph(g, name); });
  }
  for (const auto& [name, f] : mod->functions) {
    if (!out.empty()) out += "\n";
    tsl::Printer p;
    out += p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(f, name); });
  }
  // Constants last, one per line: the data, after the code that reads it.
  if (!out.empty() && !mod->constants.empty()) out += "\n";
  for (const auto& [name, c] : mod->constants) out += PrintConstant(name, c);
  return out;
}

std::string PrintFunction(const PrimFunc& func, const std::string& name) {
  tsl::Printer p;
  return p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(func, name); });
}

std::string PrintGraphFunction(const GraphFunc& func, const std::string& name) {
  tsl::Printer p;
  return p.TwoPass([&](tsl::Printer& q) { q.PrintGraph(func, name); });
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
