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

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/printer.h"
#include "ir/structural_equal_checker.h"

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

}  // namespace

namespace structural_equal_internal {

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

namespace {

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

}  // namespace

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
      if (x->callee != y->callee) {
        static const char* kCallees[] = {"intrinsic",    "extern",        "packed",  "address_of",
                                         "sync_threads", "thread_reduce", "warp_mma"};
        return Mismatch(absl::StrCat("callee kinds differ (", kCallees[static_cast<int>(x->callee)],
                                     " vs ", kCallees[static_cast<int>(y->callee)], ")"),
                        a, b);
      }
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

}  // namespace structural_equal_internal

namespace {

using structural_equal_internal::EqualChecker;

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
bool StructuralEqual(const std::vector<Expr>& a, const std::vector<Expr>& b,
                     StructuralEqualOptions opts) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Equal(a[i], b[i], opts)) return false;
  }
  return true;
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
