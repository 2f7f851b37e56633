// The simplifier's visitor: simplifies operands first, then the node, with
// the handler for its kind (canonical form, comparison, min/max) and then the
// rule table; conditions refine the context of what they guard.
//
//   min(i + 1, i + 3)                    -> i + 1        (the difference is a constant)
//   min(i, n)         inside `if i < n`  -> i            (a known fact orders them)
//   i < n && i < n + 1                   -> i < n        (the right side, under i < n)
//   select(i < 4, select(i < 8, a, b), c) -> select(i < 4, a, c)
//   x * 1.0f32, u + 0u32                 -> x, u         (identities of other types)
#include "ir/arith/analyzer.h"
#include "ir/arith/const_fold.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/pattern.h"
#include "ir/arith/simplify_internal.h"

namespace tessel::ir::arith::internal {

namespace {

// Rewrites of rules applied in a row on one expression before giving up; rules
// shrink expressions, so this only guards against a cycle between rules.
constexpr int kMaxRuleDepth = 8;

bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

bool IsFloatConst(const Expr& e, double v) {
  const auto* f = dyn_cast<FloatImmNode>(e);
  return f != nullptr && f->value == v;
}

}  // namespace

Expr Simplifier::VisitBinary(const BinaryNode* op) {
  Expr a = VisitExpr(op->a);
  Expr b;
  bool logic = op->kind() == NodeKind::kAnd || op->kind() == NodeKind::kOr;
  if (logic && a->dtype.is_scalar() && !AsConstBool(a)) {
    // `b` only matters where `a` is true (for &&) or false (for ||).
    Analyzer::Scope scope(ana_);
    ana_->EnterSimplifiedConstraint(op->kind() == NodeKind::kAnd ? a : Negate(a));
    b = VisitExpr(op->b);
  } else {
    b = VisitExpr(op->b);
  }
  Expr e =
      a.same_as(op->a) && b.same_as(op->b) ? GetRef(op) : ValueOrDie(MakeBinary(op->kind(), a, b));
  return SimplifyNode(e);
}

std::optional<Expr> Simplifier::KnownFact(const Expr& e) {
  if (!e->dtype.is_bool() || !e->dtype.is_scalar()) return std::nullopt;
  // A condition known in this context (an enclosing if, the left of &&).
  for (const Expr& f : ana_->literal_facts()) {
    if (ExprEqual(f, e)) {
      ana_->CountRule("known-fact");
      return Bool(true);
    }
    const auto* n = dyn_cast<NotNode>(e);
    if ((n != nullptr && ExprEqual(f, n->a)) ||
        (isa<NotNode>(f) && ExprEqual(cast<NotNode>(f)->a, e))) {
      ana_->CountRule("known-fact");
      return Bool(false);
    }
  }
  return std::nullopt;
}

Expr Simplifier::VisitVar(const VarNode* op) {
  Expr e = GetRef(op);
  return KnownFact(e).value_or(e);
}

Expr Simplifier::VisitBufferLoad(const BufferLoadNode* op) {
  Expr e = IRMutator::VisitBufferLoad(op);
  return KnownFact(e).value_or(e);
}

Expr Simplifier::Negate(const Expr& simplified) {
  // Only the new node is simplified: its operand is already.
  return SimplifyNode(Not(simplified));
}

Expr Simplifier::VisitNot(const NotNode* op) {
  Expr a = VisitExpr(op->a);
  return SimplifyNode(a.same_as(op->a) ? GetRef(op) : Not(a));
}

Expr Simplifier::VisitSelect(const SelectNode* op) {
  Expr c = VisitExpr(op->condition);
  if (std::optional<bool> v = AsConstBool(c)) {
    const Expr& keep = *v ? op->true_value : op->false_value;
    const Expr& drop = *v ? op->false_value : op->true_value;
    if (IsPure(drop)) {
      ana_->CountRule("constant-select");
      return VisitExpr(keep);
    }
  }
  Expr t, f;
  bool scoped = c->dtype.is_scalar() && !AsConstBool(c);
  // Both arms are evaluated whatever the condition: an arm that could fault
  // (a load, an integer division) is simplified without assuming it.
  {
    Analyzer::Scope scope(ana_);
    if (scoped && !MayTrap(op->true_value)) ana_->EnterSimplifiedConstraint(c);
    t = VisitExpr(op->true_value);
  }
  {
    Analyzer::Scope scope(ana_);
    if (scoped && !MayTrap(op->false_value)) ana_->EnterSimplifiedConstraint(Negate(c));
    f = VisitExpr(op->false_value);
  }
  bool same = c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value);
  return SimplifyNode(same ? GetRef(op) : Select(c, t, f));
}

Expr Simplifier::VisitCast(const CastNode* op) {
  Expr v = VisitExpr(op->value);
  Expr e = v.same_as(op->value) ? GetRef(op) : Cast(op->dtype, v);
  if (v->dtype == op->dtype) {
    ana_->CountRule("identity");
    return v;
  }
  return SimplifyNode(e);
}

Expr Simplifier::Resimplify(const Expr& e, const char* rule) {
  ana_->CountRule(rule);
  if (depth_ >= kMaxRuleDepth) return e;
  ++depth_;
  Expr r = VisitExpr(e);
  --depth_;
  return r;
}

Expr Simplifier::SimplifyNode(const Expr& e) {
  if (std::optional<Expr> f = FoldConstant(e)) {
    ana_->CountRule("fold-constant");
    return *f;
  }
  Expr cur = e;
  if (const auto* op = dyn_cast<BinaryNode>(e)) {
    DataType t = op->a->dtype;
    bool logic_type = t.is_bool() && t.is_scalar();
    if (!IsIndexType(t) && !logic_type) {
      std::optional<Expr> r = SimplifyOtherTypes(op);
      if (r) ana_->CountRule("identity");
      return r ? *r : e;
    }
    NodeKind k = op->kind();
    std::optional<Expr> r;
    if (k == NodeKind::kAdd || k == NodeKind::kSub || k == NodeKind::kMul) {
      r = SimplifyLinear(op);
      if (r) ana_->CountRule("canonical-form");
      return r ? *r : e;
    }
    if (k >= NodeKind::kDiv && k <= NodeKind::kFloorMod) {
      r = SimplifyDivMod(op);
      // Composed splits (x * 2 // 5 // 2 -> x * 2 // 10) may simplify again.
      if (r) return Resimplify(*r, "canonical-form");
    } else if (k == NodeKind::kMin || k == NodeKind::kMax) {
      r = SimplifyMinMax(op);
      if (r) {
        ana_->CountRule("prove-min-max");
        return *r;
      }
    } else if (IsCompare(k)) {
      r = SimplifyCompare(op);
      if (r && AsConstBool(*r)) return *r;
      if (r) cur = *r;
    }
  } else if (const auto* n = dyn_cast<NotNode>(e); n != nullptr && !n->dtype.is_scalar()) {
    return e;
  } else if (!e->dtype.is_scalar() || !(IsIndexType(e->dtype) || e->dtype.is_bool())) {
    return e;
  }
  if (std::optional<Expr> known = KnownFact(cur)) return *known;
  if (std::optional<std::pair<Expr, const RewriteRule*>> m = IndexRules().Apply(cur, *ana_)) {
    return Resimplify(m->first, m->second->name().c_str());
  }
  return cur;
}

std::optional<Expr> Simplifier::SimplifyMinMax(const BinaryNode* op) {
  const Expr& a = op->a;
  const Expr& b = op->b;
  // min(x, x) is x whatever x's value, so also where x may wrap (i * 4 with i
  // below a shape variable: the regions of one access merged).
  if (ExprEqual(a, b) && IsPure(b)) return a;
  if (!ana_->bounds().CannotOverflow(a) || !ana_->bounds().CannotOverflow(b)) return std::nullopt;
  std::optional<LinearSum> d = LinearDifference(a, b);  // a - b
  if (!d) return std::nullopt;
  bool is_min = op->kind() == NodeKind::kMin;
  LinearSum neg{d->dtype, {}, 0};
  // a <= b: min is a, max is b. b <= a: the other way round.
  if (IsPure(is_min ? b : a) && ana_->DecideNonPositive(*d) == true) return is_min ? a : b;
  if (IsPure(is_min ? a : b) && AddLinear(&neg, *d, -1) && ana_->DecideNonPositive(neg) == true) {
    return is_min ? b : a;
  }
  return std::nullopt;
}

std::optional<Expr> Simplifier::SimplifyOtherTypes(const BinaryNode* op) {
  DataType t = op->a->dtype;
  if (!t.is_scalar()) return std::nullopt;
  const Expr& a = op->a;
  const Expr& b = op->b;
  if (t.is_float()) {
    // Exact for every value, NaN and infinities included (x + 0.0 is not: -0.0).
    if (op->kind() == NodeKind::kMul && IsFloatConst(b, 1.0)) return a;
    if (op->kind() == NodeKind::kMul && IsFloatConst(a, 1.0)) return b;
    if (op->kind() == NodeKind::kDiv && IsFloatConst(b, 1.0)) return a;
    return std::nullopt;
  }
  if (!t.is_integer()) return std::nullopt;
  switch (op->kind()) {
    case NodeKind::kAdd:
      if (IsConstInt(b, 0)) return a;
      if (IsConstInt(a, 0)) return b;
      break;
    case NodeKind::kSub:
      if (IsConstInt(b, 0)) return a;
      break;
    case NodeKind::kMul:
      if (IsConstInt(b, 1)) return a;
      if (IsConstInt(a, 1)) return b;
      if (IsConstInt(b, 0) && IsPure(a)) return b;
      if (IsConstInt(a, 0) && IsPure(b)) return a;
      break;
    case NodeKind::kDiv:
    case NodeKind::kFloorDiv:
      if (IsConstInt(b, 1)) return a;
      break;
    case NodeKind::kMod:
    case NodeKind::kFloorMod:
      if (IsConstInt(b, 1) && IsPure(a)) return IntImm(t, 0);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace tessel::ir::arith::internal
