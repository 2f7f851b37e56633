// Structural equality: alpha-equivalence with the first mismatch as a path.
//
//   for i in 0..n { A[i] = 0.0f32 }   vs   for k in 0..n { A[k] = 1.0f32 }
//   AssertStructuralEqual(s1, s2) ->
//     structural mismatch at body.value: values differ
//       lhs: 0.0f32
//       rhs: 1.0f32
//
// Both sides are walked in lockstep. Where one side binds a variable or buffer
// (loop var, let var, block iter var, parameter, allocation), the pair is recorded
// in two maps, lhs->rhs and rhs->lhs; a use is equal when both maps agree, so the
// correspondence is a bijection. Bindings are scoped: leaving a loop restores what
// its variable meant before, so a Var object reused by sibling or nested loops
// compares like distinct variables would. The binding order here must match the
// one in structural_hash.cc, which numbers bindings in the same order.
//
// The path is built only on failure: each level appends its segment while the
// `false` travels back up, so the success path does no string work.
#include "ir/structural_equal.h"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/printer.h"

namespace tessel::ir {
namespace {

// Keeps long statements readable in messages: the first lines only, indented.
std::string IndentText(const std::string& text) {
  constexpr int kMaxLines = 24;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (static_cast<int>(lines.size()) > kMaxLines) {
    size_t more = lines.size() - kMaxLines;
    lines.resize(kMaxLines);
    lines.push_back(absl::StrCat("... (", more, " more lines)"));
  }
  return absl::StrJoin(lines, "\n       ");
}

std::string BufferText(const BufferNode* b) {
  std::vector<std::string> dims;
  for (const Expr& e : b->shape) dims.push_back(e ? PrintExpr(e) : "?");
  return absl::StrCat("buffer ", b->name, ": ", b->dtype.ToString(), "[", absl::StrJoin(dims, ", "),
                      "] in ", b->scope);
}

std::string NodeText(const Node* n) {
  if (n == nullptr) return "(absent)";
  if (const auto* e = dyn_cast<ExprNode>(n)) return PrintExpr(GetRef(e));
  if (const auto* s = dyn_cast<StmtNode>(n)) return PrintStmt(GetRef(s));
  if (const auto* b = dyn_cast<BufferNode>(n)) return BufferText(b);
  if (const auto* f = dyn_cast<PrimFuncNode>(n)) return PrintFunction(GetRef(f));
  if (const auto* m = dyn_cast<IRModuleNode>(n)) return PrintModule(GetRef(m));
  return NodeKindName(n->kind());
}

const std::string& NameOf(const Node* n) {
  return isa<VarNode>(n) ? static_cast<const VarNode*>(n)->name
                         : static_cast<const BufferNode*>(n)->name;
}

std::string AttrText(const AttrValue& v) {
  struct Printer {
    std::string operator()(int64_t x) const { return absl::StrCat(x); }
    std::string operator()(double x) const { return FormatFloat(x, DataType::Float(64)); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return absl::StrCat("\"", x, "\""); }
    std::string operator()(const Expr& x) const { return x ? PrintExpr(x) : "(absent)"; }
    std::string operator()(const AttrValue::List& x) const {
      return absl::StrCat("[", absl::StrJoin(x, ", ", [](std::string* out, const AttrValue& e) {
                            out->append(AttrText(e));
                          }), "]");
    }
  };
  return std::visit(Printer{}, v.storage());
}

class EqualChecker {
 public:
  EqualChecker(StructuralEqualOptions opts, bool record) : opts_(opts), record_(record) {}

  bool Module(const IRModuleNode* a, const IRModuleNode* b);
  bool Func(const PrimFuncNode* a, const PrimFuncNode* b);
  bool S(const Stmt& a, const Stmt& b);
  bool E(const Expr& a, const Expr& b);

  // Whether the roots are both present (true) or the mismatch is recorded (false).
  bool Roots(const Node* a, const Node* b) {
    if (a != nullptr && b != nullptr) return true;
    return a == b || Mismatch(a ? "rhs is absent" : "lhs is absent", a, b);
  }

  absl::Status Error() const;

 private:
  // An entry of the undo log: what `l` and `r` meant before a binding.
  struct Undo {
    const Node* l;
    const Node* l_prev;  // Null: unmapped before.
    const Node* r;
    const Node* r_prev;
  };

  // ---- Mismatch recording -------------------------------------------------------
  // Records the innermost mismatch (printed only when a message is wanted).
  bool Mismatch(std::string reason, const Node* l, const Node* r) {
    return record_ ? MismatchText(std::move(reason), NodeText(l), NodeText(r)) : false;
  }
  bool MismatchText(std::string reason, std::string l, std::string r) {
    if (record_) {
      reason_ = std::move(reason);
      lhs_text_ = std::move(l);
      rhs_text_ = std::move(r);
    }
    return false;
  }
  // A mismatch in a plain field (not a node) of the current node.
  bool FieldMismatch(std::string field, std::string reason, std::string l, std::string r) {
    MismatchText(std::move(reason), std::move(l), std::move(r));
    return Up(std::move(field));
  }
  // Prepends a path segment while a failure travels up; always false.
  bool Up(std::string segment) {
    if (record_) path_.push_back(std::move(segment));
    return false;
  }
  bool KindMismatch(const Node* a, const Node* b) {
    return Mismatch(absl::StrCat("node kinds differ (", NodeKindName(a->kind()), " vs ",
                                 NodeKindName(b->kind()), ")"),
                    a, b);
  }
  bool Lengths(const char* field, size_t a, size_t b) {
    if (a == b) return true;
    return FieldMismatch(field, "lengths differ", absl::StrCat(a, " elements"),
                         absl::StrCat(b, " elements"));
  }

  // ---- Bindings -------------------------------------------------------------------
  size_t Mark() const { return log_.size(); }
  void Restore(size_t mark) {
    while (log_.size() > mark) {
      const Undo& u = log_.back();
      if (u.l_prev) lmap_[u.l] = u.l_prev; else lmap_.erase(u.l);
      if (u.r_prev) rmap_[u.r] = u.r_prev; else rmap_.erase(u.r);
      log_.pop_back();
    }
  }
  void Bind(const Node* l, const Node* r) {
    auto [li, l_new] = lmap_.try_emplace(l, r);
    auto [ri, r_new] = rmap_.try_emplace(r, l);
    log_.push_back(Undo{l, l_new ? nullptr : li->second, r, r_new ? nullptr : ri->second});
    li->second = r;
    ri->second = l;
  }
  bool BindVar(const Var& a, const Var& b) {
    if (!Roots(a.get(), b.get())) return false;
    if (a.get() == nullptr) return true;
    if (a->dtype != b->dtype) {
      return MismatchText("dtypes differ", absl::StrCat(a->name, ": ", a->dtype.ToString()),
                          absl::StrCat(b->name, ": ", b->dtype.ToString()));
    }
    Bind(a.get(), b.get());
    return true;
  }

  bool Use(const Node* a, const Node* b, const std::string& a_name, const std::string& b_name);
  bool BufferUse(const Buffer& a, const Buffer& b);
  bool BufferFields(const BufferNode* a, const BufferNode* b);
  bool BufferDef(const Buffer& a, const Buffer& b, bool defines_shape_vars);
  bool Exprs(const char* field, const std::vector<Expr>& a, const std::vector<Expr>& b);
  bool Regions(const char* field, const std::vector<BufferRegion>& a,
               const std::vector<BufferRegion>& b);
  bool BlockEq(const BlockNode* a, const BlockNode* b);
  bool AttrsEq(const char* field, const Attrs& a, const Attrs& b);
  bool AttrEq(const AttrValue& a, const AttrValue& b);

  StructuralEqualOptions opts_;
  bool record_;
  // Set while comparing a parameter buffer's shape, strides and offset: an unbound
  // variable met there is defined there (a symbolic shape).
  bool defining_ = false;
  absl::flat_hash_map<const Node*, const Node*> lmap_, rmap_;
  std::vector<Undo> log_;

  std::vector<std::string> path_;  // Innermost segment first.
  std::string reason_;
  std::string lhs_text_, rhs_text_;
};

absl::Status EqualChecker::Error() const {
  std::string path;
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    if (!path.empty() && (*it)[0] != '[') path += '.';
    path += *it;
  }
  if (path.empty()) path = "(root)";
  return absl::InvalidArgumentError(absl::StrCat("structural mismatch at ", path, ": ", reason_,
                                                 "\n  lhs: ", IndentText(lhs_text_),
                                                 "\n  rhs: ", IndentText(rhs_text_)));
}

// A use of a variable or buffer: equal when both sides are bound together, or
// both free and either the same object or (map_free_vars) matched on first use.
bool EqualChecker::Use(const Node* a, const Node* b, const std::string& a_name,
                       const std::string& b_name) {
  const char* what = isa<VarNode>(a) ? "variables" : "buffers";
  auto la = lmap_.find(a);
  auto rb = rmap_.find(b);
  bool a_bound = la != lmap_.end();
  bool b_bound = rb != rmap_.end();
  if (a_bound && b_bound && la->second == b && rb->second == a) return true;
  if (a_bound && (!b_bound || la->second != b)) {
    return Mismatch(absl::StrCat("different ", what, ": lhs '", a_name, "' corresponds to rhs '",
                                 NameOf(la->second), "', ",
                                 b_bound ? absl::StrCat("not '", b_name, "'")
                                         : absl::StrCat("while rhs '", b_name, "' is unbound")),
                    a, b);
  }
  if (b_bound) {
    return Mismatch(absl::StrCat("different ", what, ": rhs '", b_name, "' corresponds to lhs '",
                                 NameOf(rb->second), "', ",
                                 a_bound ? absl::StrCat("not '", a_name, "'")
                                         : absl::StrCat("while lhs '", a_name, "' is unbound")),
                    a, b);
  }
  if (defining_ && isa<VarNode>(a)) {
    Bind(a, b);
    return true;
  }
  if (opts_.map_free_vars) {
    // A free buffer's definition must agree, since both sides then mean one buffer.
    if (isa<BufferNode>(a) && !BufferFields(static_cast<const BufferNode*>(a),
                                            static_cast<const BufferNode*>(b))) {
      return false;
    }
    // Matched for good: a free name means the same thing everywhere.
    lmap_.emplace(a, b);
    rmap_.emplace(b, a);
    return true;
  }
  if (a == b) return true;
  return Mismatch(absl::StrCat("different free ", what, " '", a_name, "' and '", b_name,
                               "' (map_free_vars would match them by first use)"),
                  a, b);
}

bool EqualChecker::BufferUse(const Buffer& a, const Buffer& b) {
  if (!Roots(a.get(), b.get())) return false;
  return a.get() == nullptr || Use(a.get(), b.get(), a->name, b->name);
}

bool EqualChecker::BufferFields(const BufferNode* a, const BufferNode* b) {
  if (a->dtype != b->dtype) {
    return FieldMismatch("dtype", "dtypes differ", a->dtype.ToString(), b->dtype.ToString());
  }
  if (!Exprs("shape", a->shape, b->shape)) return false;
  if (!Exprs("strides", a->strides, b->strides)) return false;
  if (!E(a->elem_offset, b->elem_offset)) return Up("elem_offset");
  if (a->scope != b->scope) return FieldMismatch("scope", "scopes differ", a->scope, b->scope);
  if (a->alignment != b->alignment) {
    return FieldMismatch("alignment", "alignments differ", absl::StrCat(a->alignment),
                         absl::StrCat(b->alignment));
  }
  return true;
}

bool EqualChecker::BufferDef(const Buffer& a, const Buffer& b, bool defines_shape_vars) {
  if (!Roots(a.get(), b.get())) return false;
  if (a.get() == nullptr) return true;
  defining_ = defines_shape_vars;
  bool ok = BufferFields(a.get(), b.get());
  defining_ = false;
  if (!ok) return false;
  Bind(a.get(), b.get());
  return true;
}

bool EqualChecker::Exprs(const char* field, const std::vector<Expr>& a,
                         const std::vector<Expr>& b) {
  if (!Lengths(field, a.size(), b.size())) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!E(a[i], b[i])) return Up(absl::StrCat(field, "[", i, "]"));
  }
  return true;
}

bool EqualChecker::Regions(const char* field, const std::vector<BufferRegion>& a,
                           const std::vector<BufferRegion>& b) {
  if (!Lengths(field, a.size(), b.size())) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const BufferRegion& ra = a[i];
    const BufferRegion& rb = b[i];
    if (!BufferUse(ra.buffer, rb.buffer)) return Up(absl::StrCat(field, "[", i, "].buffer"));
    if (ra.region.size() != rb.region.size()) {
      return FieldMismatch(absl::StrCat(field, "[", i, "].region"), "lengths differ",
                           absl::StrCat(ra.region.size(), " ranges"),
                           absl::StrCat(rb.region.size(), " ranges"));
    }
    for (size_t j = 0; j < ra.region.size(); ++j) {
      if (!E(ra.region[j].min, rb.region[j].min)) {
        return Up(absl::StrCat(field, "[", i, "].region[", j, "].min"));
      }
      if (!E(ra.region[j].extent, rb.region[j].extent)) {
        return Up(absl::StrCat(field, "[", i, "].region[", j, "].extent"));
      }
    }
  }
  return true;
}

bool EqualChecker::AttrEq(const AttrValue& a, const AttrValue& b) {
  if (a.storage().index() != b.storage().index()) {
    return MismatchText("attribute value kinds differ", AttrText(a), AttrText(b));
  }
  bool same = true;
  if (const auto* x = a.get_if<int64_t>()) {
    same = *x == b.as<int64_t>();
  } else if (const auto* x = a.get_if<double>()) {
    same = std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(b.as<double>());
  } else if (const auto* x = a.get_if<bool>()) {
    same = *x == b.as<bool>();
  } else if (const auto* x = a.get_if<std::string>()) {
    same = *x == b.as<std::string>();
  } else if (const auto* x = a.get_if<Expr>()) {
    return E(*x, b.as<Expr>());
  } else if (const auto* x = a.get_if<AttrValue::List>()) {
    const AttrValue::List& y = b.as<AttrValue::List>();
    if (x->size() != y.size()) {
      return MismatchText("list lengths differ", AttrText(a), AttrText(b));
    }
    for (size_t i = 0; i < x->size(); ++i) {
      if (!AttrEq((*x)[i], y[i])) return Up(absl::StrCat("[", i, "]"));
    }
  }
  return same || MismatchText("attribute values differ", AttrText(a), AttrText(b));
}

bool EqualChecker::AttrsEq(const char* field, const Attrs& a, const Attrs& b) {
  // Both maps are sorted by key: walk them together.
  auto ia = a.begin();
  auto ib = b.begin();
  for (; ia != a.end() || ib != b.end(); ++ia, ++ib) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      return FieldMismatch(absl::StrCat(field, "[", ia->first, "]"), "key only on lhs",
                           AttrText(ia->second), "(absent)");
    }
    if (ia == a.end() || ib->first < ia->first) {
      return FieldMismatch(absl::StrCat(field, "[", ib->first, "]"), "key only on rhs",
                           "(absent)", AttrText(ib->second));
    }
    if (!AttrEq(ia->second, ib->second)) return Up(absl::StrCat(field, "[", ia->first, "]"));
  }
  return true;
}

bool EqualChecker::E(const Expr& ra, const Expr& rb) {
  const ExprNode* a = ra.get();
  const ExprNode* b = rb.get();
  if (!Roots(a, b)) return false;
  if (a == nullptr) return true;
  if (a->kind() != b->kind()) return KindMismatch(a, b);
  if (a->dtype != b->dtype) {
    return Mismatch(absl::StrCat("dtypes differ (", a->dtype.ToString(), " vs ",
                                 b->dtype.ToString(), ")"),
                    a, b);
  }
  switch (a->kind()) {
    case NodeKind::kVar:
      return Use(a, b, static_cast<const VarNode*>(a)->name, static_cast<const VarNode*>(b)->name);
    case NodeKind::kIntImm:
      return static_cast<const IntImmNode*>(a)->value == static_cast<const IntImmNode*>(b)->value ||
             Mismatch("values differ", a, b);
    case NodeKind::kFloatImm:
      // Bit patterns: -0.0 differs from 0.0, a NaN equals the same NaN.
      return std::bit_cast<uint64_t>(static_cast<const FloatImmNode*>(a)->value) ==
                 std::bit_cast<uint64_t>(static_cast<const FloatImmNode*>(b)->value) ||
             Mismatch("values differ", a, b);
    case NodeKind::kNot:
      return E(static_cast<const NotNode*>(a)->a, static_cast<const NotNode*>(b)->a) || Up("a");
    case NodeKind::kSelect: {
      const auto* x = static_cast<const SelectNode*>(a);
      const auto* y = static_cast<const SelectNode*>(b);
      if (!E(x->condition, y->condition)) return Up("condition");
      if (!E(x->true_value, y->true_value)) return Up("true_value");
      return E(x->false_value, y->false_value) || Up("false_value");
    }
    case NodeKind::kCast:
      return E(static_cast<const CastNode*>(a)->value, static_cast<const CastNode*>(b)->value) ||
             Up("value");
    case NodeKind::kBufferLoad: {
      const auto* x = static_cast<const BufferLoadNode*>(a);
      const auto* y = static_cast<const BufferLoadNode*>(b);
      if (!BufferUse(x->buffer, y->buffer)) return Up("buffer");
      return Exprs("indices", x->indices, y->indices);
    }
    case NodeKind::kRamp: {
      const auto* x = static_cast<const RampNode*>(a);
      const auto* y = static_cast<const RampNode*>(b);
      if (!E(x->base, y->base)) return Up("base");
      if (!E(x->stride, y->stride)) return Up("stride");
      return x->lanes == y->lanes || FieldMismatch("lanes", "lane counts differ",
                                                   absl::StrCat(x->lanes), absl::StrCat(y->lanes));
    }
    case NodeKind::kBroadcast: {
      const auto* x = static_cast<const BroadcastNode*>(a);
      const auto* y = static_cast<const BroadcastNode*>(b);
      if (!E(x->value, y->value)) return Up("value");
      return x->lanes == y->lanes || FieldMismatch("lanes", "lane counts differ",
                                                   absl::StrCat(x->lanes), absl::StrCat(y->lanes));
    }
    case NodeKind::kCall: {
      const auto* x = static_cast<const CallNode*>(a);
      const auto* y = static_cast<const CallNode*>(b);
      if (x->callee != y->callee) return Mismatch("callee kinds differ (intrinsic vs extern)", a, b);
      if (x->name != y->name) return FieldMismatch("name", "call names differ", x->name, y->name);
      return Exprs("args", x->args, y->args);
    }
    default: {
      const auto* x = static_cast<const BinaryNode*>(a);
      const auto* y = static_cast<const BinaryNode*>(b);
      if (!E(x->a, y->a)) return Up("a");
      return E(x->b, y->b) || Up("b");
    }
  }
}

bool EqualChecker::BlockEq(const BlockNode* a, const BlockNode* b) {
  if (a->name != b->name) return FieldMismatch("name", "block names differ", a->name, b->name);
  if (!Lengths("iter_vars", a->iter_vars.size(), b->iter_vars.size())) return false;
  // Domains belong to the enclosing scope: compared before the iter vars are bound.
  for (size_t i = 0; i < a->iter_vars.size(); ++i) {
    const IterVar& x = a->iter_vars[i];
    const IterVar& y = b->iter_vars[i];
    if (!E(x.dom.min, y.dom.min)) return Up(absl::StrCat("iter_vars[", i, "].dom.min"));
    if (!E(x.dom.extent, y.dom.extent)) return Up(absl::StrCat("iter_vars[", i, "].dom.extent"));
    if (x.kind != y.kind) {
      return FieldMismatch(absl::StrCat("iter_vars[", i, "].kind"), "iter kinds differ",
                           IterKindName(x.kind), IterKindName(y.kind));
    }
  }
  size_t mark = Mark();
  for (size_t i = 0; i < a->iter_vars.size(); ++i) {
    if (!BindVar(a->iter_vars[i].var, b->iter_vars[i].var)) {
      return Up(absl::StrCat("iter_vars[", i, "].var"));
    }
  }
  if (!Lengths("alloc_buffers", a->alloc_buffers.size(), b->alloc_buffers.size())) return false;
  for (size_t i = 0; i < a->alloc_buffers.size(); ++i) {
    if (!BufferDef(a->alloc_buffers[i], b->alloc_buffers[i], false)) {
      return Up(absl::StrCat("alloc_buffers[", i, "]"));
    }
  }
  if (!Regions("reads", a->reads, b->reads)) return false;
  if (!Regions("writes", a->writes, b->writes)) return false;
  if (!S(a->init, b->init)) return Up("init");
  if (!S(a->body, b->body)) return Up("body");
  if (!AttrsEq("annotations", a->annotations, b->annotations)) return false;
  Restore(mark);
  return true;
}

bool EqualChecker::S(const Stmt& ra, const Stmt& rb) {
  const StmtNode* a = ra.get();
  const StmtNode* b = rb.get();
  if (!Roots(a, b)) return false;
  if (a == nullptr) return true;
  if (a->kind() != b->kind()) return KindMismatch(a, b);
  switch (a->kind()) {
    case NodeKind::kBufferStore: {
      const auto* x = static_cast<const BufferStoreNode*>(a);
      const auto* y = static_cast<const BufferStoreNode*>(b);
      if (!BufferUse(x->buffer, y->buffer)) return Up("buffer");
      if (!E(x->value, y->value)) return Up("value");
      return Exprs("indices", x->indices, y->indices);
    }
    case NodeKind::kFor: {
      const auto* x = static_cast<const ForNode*>(a);
      const auto* y = static_cast<const ForNode*>(b);
      if (!E(x->min, y->min)) return Up("min");
      if (!E(x->extent, y->extent)) return Up("extent");
      size_t mark = Mark();
      if (!BindVar(x->loop_var, y->loop_var)) return Up("loop_var");
      if (x->for_kind != y->for_kind) {
        return FieldMismatch("for_kind", "loop kinds differ", ForKindName(x->for_kind),
                             ForKindName(y->for_kind));
      }
      if (x->thread_tag != y->thread_tag) {
        return FieldMismatch("thread_tag", "thread tags differ", x->thread_tag, y->thread_tag);
      }
      if (!AttrsEq("annotations", x->annotations, y->annotations)) return false;
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kIfThenElse: {
      const auto* x = static_cast<const IfThenElseNode*>(a);
      const auto* y = static_cast<const IfThenElseNode*>(b);
      if (!E(x->condition, y->condition)) return Up("condition");
      if (!S(x->then_case, y->then_case)) return Up("then_case");
      return S(x->else_case, y->else_case) || Up("else_case");
    }
    case NodeKind::kLetStmt: {
      const auto* x = static_cast<const LetStmtNode*>(a);
      const auto* y = static_cast<const LetStmtNode*>(b);
      if (!E(x->value, y->value)) return Up("value");
      size_t mark = Mark();
      if (!BindVar(x->var, y->var)) return Up("var");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kSeqStmt: {
      const auto& x = static_cast<const SeqStmtNode*>(a)->seq;
      const auto& y = static_cast<const SeqStmtNode*>(b)->seq;
      if (!Lengths("seq", x.size(), y.size())) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!S(x[i], y[i])) return Up(absl::StrCat("seq[", i, "]"));
      }
      return true;
    }
    case NodeKind::kEvaluate:
      return E(static_cast<const EvaluateNode*>(a)->value,
               static_cast<const EvaluateNode*>(b)->value) ||
             Up("value");
    case NodeKind::kAllocate: {
      const auto* x = static_cast<const AllocateNode*>(a);
      const auto* y = static_cast<const AllocateNode*>(b);
      size_t mark = Mark();
      if (!BufferDef(x->buffer, y->buffer, false)) return Up("buffer");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kDeclBuffer: {
      const auto* x = static_cast<const DeclBufferNode*>(a);
      const auto* y = static_cast<const DeclBufferNode*>(b);
      if (!BufferUse(x->source, y->source)) return Up("source");
      size_t mark = Mark();
      if (!BufferDef(x->buffer, y->buffer, false)) return Up("buffer");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kBlock:
      return BlockEq(static_cast<const BlockNode*>(a), static_cast<const BlockNode*>(b));
    case NodeKind::kBlockRealize: {
      const auto* x = static_cast<const BlockRealizeNode*>(a);
      const auto* y = static_cast<const BlockRealizeNode*>(b);
      if (!Exprs("iter_values", x->iter_values, y->iter_values)) return false;
      if (!E(x->predicate, y->predicate)) return Up("predicate");
      if (!Roots(x->block.get(), y->block.get())) return Up("block");
      if (x->block && !BlockEq(x->block.get(), y->block.get())) {
        return Up(x->block->name == y->block->name ? absl::StrCat("block[", x->block->name, "]")
                                                   : std::string("block"));
      }
      return true;
    }
    default:
      return Mismatch("unknown statement kind", a, b);
  }
}

bool EqualChecker::Func(const PrimFuncNode* a, const PrimFuncNode* b) {
  if (!Lengths("params", a->params.size(), b->params.size())) return false;
  size_t mark = Mark();
  // Scalar parameters first, so that a buffer's shape may name any of them
  // wherever it sits in the list; then buffers, whose shapes may define new vars.
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Param& x = a->params[i];
    const Param& y = b->params[i];
    if (x.is_buffer() != y.is_buffer()) {
      auto describe = [](const Param& p) {
        return p.is_buffer() ? BufferText(p.buffer.get())
                             : (p.var ? absl::StrCat("var ", p.var->name) : "(absent)");
      };
      return FieldMismatch(absl::StrCat("params[", i, "]"), "parameter kinds differ",
                           describe(x), describe(y));
    }
    if (!x.is_buffer() && !BindVar(x.var, y.var)) return Up(absl::StrCat("params[", i, "]"));
  }
  for (size_t i = 0; i < a->params.size(); ++i) {
    if (a->params[i].is_buffer() && !BufferDef(a->params[i].buffer, b->params[i].buffer, true)) {
      return Up(absl::StrCat("params[", i, "]"));
    }
  }
  if (!AttrsEq("attrs", a->attrs, b->attrs)) return false;
  if (!S(a->body, b->body)) return Up("body");
  Restore(mark);
  return true;
}

bool EqualChecker::Module(const IRModuleNode* a, const IRModuleNode* b) {
  if (a->functions.size() != b->functions.size()) {
    auto names = [](const IRModuleNode* m) {
      return absl::StrCat(m->functions.size(), " functions (",
                          absl::StrJoin(m->functions, ", ",
                                        [](std::string* out, const auto& f) { out->append(f.first); }),
                          ")");
    };
    return FieldMismatch("functions", "function counts differ", names(a), names(b));
  }
  // Functions compare in order: the order is part of the module (it is printed).
  for (size_t i = 0; i < a->functions.size(); ++i) {
    const auto& [na, fa] = a->functions[i];
    const auto& [nb, fb] = b->functions[i];
    if (na != nb) {
      return FieldMismatch(absl::StrCat("functions[", i, "]"), "function names differ", na, nb);
    }
    if (!Roots(fa.get(), fb.get()) || (fa && !Func(fa.get(), fb.get()))) {
      return Up(absl::StrCat("func[", na, "]"));
    }
  }
  return AttrsEq("attrs", a->attrs, b->attrs);
}

// The entry points differ only in the root they start from.
bool Run(EqualChecker& c, const IRModule& a, const IRModule& b) {
  return c.Roots(a.get(), b.get()) && (a.get() == nullptr || c.Module(a.get(), b.get()));
}
bool Run(EqualChecker& c, const PrimFunc& a, const PrimFunc& b) {
  return c.Roots(a.get(), b.get()) && (a.get() == nullptr || c.Func(a.get(), b.get()));
}
bool Run(EqualChecker& c, const Stmt& a, const Stmt& b) { return c.S(a, b); }
bool Run(EqualChecker& c, const Expr& a, const Expr& b) { return c.E(a, b); }

template <typename T>
bool Equal(const T& a, const T& b, StructuralEqualOptions opts) {
  EqualChecker c(opts, /*record=*/false);
  return Run(c, a, b);
}

template <typename T>
absl::Status AssertEqual(const T& a, const T& b, StructuralEqualOptions opts) {
  EqualChecker c(opts, /*record=*/true);
  if (Run(c, a, b)) return absl::OkStatus();
  return c.Error();
}

}  // namespace

bool StructuralEqual(const IRModule& a, const IRModule& b, StructuralEqualOptions opts) {
  return Equal(a, b, opts);
}
bool StructuralEqual(const PrimFunc& a, const PrimFunc& b, StructuralEqualOptions opts) {
  return Equal(a, b, opts);
}
bool StructuralEqual(const Stmt& a, const Stmt& b, StructuralEqualOptions opts) {
  return Equal(a, b, opts);
}
bool StructuralEqual(const Expr& a, const Expr& b, StructuralEqualOptions opts) {
  return Equal(a, b, opts);
}

absl::Status AssertStructuralEqual(const IRModule& a, const IRModule& b,
                                   StructuralEqualOptions opts) {
  return AssertEqual(a, b, opts);
}
absl::Status AssertStructuralEqual(const PrimFunc& a, const PrimFunc& b,
                                   StructuralEqualOptions opts) {
  return AssertEqual(a, b, opts);
}
absl::Status AssertStructuralEqual(const Stmt& a, const Stmt& b, StructuralEqualOptions opts) {
  return AssertEqual(a, b, opts);
}
absl::Status AssertStructuralEqual(const Expr& a, const Expr& b, StructuralEqualOptions opts) {
  return AssertEqual(a, b, opts);
}

}  // namespace tessel::ir
