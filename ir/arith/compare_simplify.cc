// Comparisons of index expressions, read as linear inequalities `q <= 0` and
// decided by bounds and known facts, or else written in a normal form.
//
//   i * 16 + j < 1024      (i < 64, j < 16)    -> true     (bound of the difference)
//   i < n + 1              (fact: i < n)        -> true     (difference with a fact)
//   i * 2 < n * 2                               -> i < n    (common factor)
//   x * 4 == 7                                  -> false    (4 does not divide 7)
//   i + 5 <= j + 2                              -> i + 4 < j (constants to one side)
//   3 < i                                       -> 3 < i    (already normal)
//   n <= (n + 255) // 256 * 256   (n >= 0)      -> true     (c * (X // c) = X - X %% c)
//
// The normal form is `L < R` (or `L == R`, `L != R`) with the positive terms on
// the left, the negated negative ones and the constant on the right. Both sides
// are new operands of a comparison, so the rewrite happens only when bounds show
// their exact values fit the dtype (otherwise the comparison keeps its operands).
#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/arith/simplify_internal.h"

namespace tessel::ir::arith {

namespace {

bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

// `s` divided by the gcd of its scales, exactly equivalent as `s <= 0`:
// g*T + b <= 0  iff  T + ceil(b / g) <= 0.
LinearSum DivideByGcd(LinearSum s) {
  int64_t g = 0;
  for (const SplitTerm& t : s.terms) g = Gcd(g, t.scale);
  if (g <= 1) return s;
  for (SplitTerm& t : s.terms) t.scale /= g;
  s.base = CeilDivInt(s.base, g);
  return s;
}

// `s`, as `s <= 0`, with each term c * k * (X // c) (c > 1 a constant) written
// k * (X - X %% c): what lets X's terms meet the rest of `s` (a split's ceil-div
// extent against the bound it covers). A term whose scale c does not divide is
// first made so by multiplying all of `s` by the least m that does, which keeps
// `s <= 0` equivalent: n - 128 * ((8 * n + 1023) // 1024) - 1 <= 0 (a bound already
// divided by its gcd) becomes 8 * n - (8 * n + 1023 - (8 * n + 1023) %% 1024) - 8.
// Nullopt when there is no such term or a new term would not fit.
std::optional<LinearSum> ExpandFloorDivs(const LinearSum& s) {
  auto expandable = [](const SplitTerm& t) {
    return t.lower > 1 && t.extent == 0 && ToLinear(t.index).has_value();
  };
  int64_t m = 1;
  for (const SplitTerm& t : s.terms) {
    if (!expandable(t)) continue;
    // c divides scale * m when c / gcd(c, scale), coprime with scale's rest, divides m.
    const int64_t step = t.lower / Gcd(t.lower, t.scale);
    const int64_t need = step / Gcd(step, m);
    if (__builtin_mul_overflow(m, need, &m) || m > (int64_t{1} << 20)) return std::nullopt;
  }
  LinearSum scaled = s;
  if (m > 1 && !ScaleLinear(&scaled, m)) return std::nullopt;
  LinearSum out{s.dtype, {}, scaled.base};
  bool expanded = false;
  for (const SplitTerm& t : scaled.terms) {
    // floordiv(X, c) is the split of X with lower c (linear_form.h).
    const int64_t c = t.lower;
    std::optional<LinearSum> x =
        expandable(t) && t.scale % c == 0 ? ToLinear(t.index) : std::nullopt;
    if (!x) {
      if (!AddTerm(&out, t)) return std::nullopt;
      continue;
    }
    const int64_t k = t.scale / c;
    if (!AddLinear(&out, *x, k) || !AddTerm(&out, SplitTerm{t.index, 1, c, -k})) {
      return std::nullopt;
    }
    expanded = true;
  }
  if (!expanded) return std::nullopt;
  return out;
}

// Positive multipliers m worth trying in "s - m * fact <= 0": 1, and the ratio of
// the scales of a term the two share.
std::vector<int64_t> Multipliers(const LinearSum& s, const LinearSum& fact) {
  std::vector<int64_t> ms = {1};
  if (fact.terms.empty()) return ms;
  const SplitTerm& f = fact.terms[0];
  for (const SplitTerm& t : s.terms) {
    if (t.SameSource(f) && t.scale % f.scale == 0 && t.scale / f.scale > 1) {
      ms.push_back(t.scale / f.scale);
    }
  }
  return ms;
}

}  // namespace

std::optional<bool> Analyzer::DecideNonPositive(const LinearSum& q) const {
  LinearSum forms[2] = {q, DivideByGcd(q)};
  for (const LinearSum& s : forms) {
    ConstIntBound b = LinearBound(s);
    if (b.max_value <= 0) return true;
    if (b.min_value > 0) return false;
    // s > 0 iff (1 - s) <= 0: refute with the same facts.
    LinearSum refute{s.dtype, {}, 1};
    bool can_refute = AddLinear(&refute, s, -1);
    for (const LinearSum& fact : linear_facts_) {
      for (int64_t m : Multipliers(s, fact)) {
        LinearSum diff = s;
        if (AddLinear(&diff, fact, -m) && LinearBound(diff).max_value <= 0) return true;
      }
      if (!can_refute) continue;
      for (int64_t m : Multipliers(refute, fact)) {
        LinearSum diff = refute;
        if (AddLinear(&diff, fact, -m) && LinearBound(diff).max_value <= 0) return false;
      }
    }
  }
  return std::nullopt;
}

namespace internal {

std::optional<LinearSum> LinearDifference(const Expr& a, const Expr& b) {
  if (!IsIndexType(a->dtype) || a->dtype != b->dtype) return std::nullopt;
  std::optional<LinearSum> la = ToLinear(a);
  std::optional<LinearSum> lb = ToLinear(b);
  if (!la || !lb || !AddLinear(&*la, *lb, -1)) return std::nullopt;
  return la;
}

namespace {

// The inequality a `kind` b as q <= 0; nothing for ==, != or unreadable operands.
std::optional<LinearSum> AsNonPositive(NodeKind kind, const LinearSum& d) {
  LinearSum q{d.dtype, {}, 0};
  bool ok = true;
  switch (kind) {
    case NodeKind::kLT: ok = AddLinear(&q, d, 1) && AddConst(&q, 1); break;
    case NodeKind::kLE: ok = AddLinear(&q, d, 1); break;
    case NodeKind::kGT: ok = AddLinear(&q, d, -1) && AddConst(&q, 1); break;
    case NodeKind::kGE: ok = AddLinear(&q, d, -1); break;
    default: return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return q;
}

// Decides d == 0.
std::optional<bool> DecideZero(const Analyzer& ana, const LinearSum& d) {
  LinearSum neg{d.dtype, {}, 0};
  std::optional<bool> le = ana.DecideNonPositive(d);
  std::optional<bool> ge;
  if (AddLinear(&neg, d, -1)) ge = ana.DecideNonPositive(neg);
  if (le == false || ge == false) return false;
  if (le == true && ge == true) return true;
  int64_t g = 0;
  for (const SplitTerm& t : d.terms) g = Gcd(g, t.scale);
  if (g > 1 && d.base % g != 0) return false;  // g divides every term but not the constant.
  return std::nullopt;
}

}  // namespace

std::optional<bool> TryDecide(const Analyzer& ana, const Expr& cond) {
  if (std::optional<bool> b = AsConstBool(cond)) return b;
  for (const Expr& f : ana.literal_facts()) {
    if (ExprEqual(f, cond)) return true;
    if (const auto* n = dyn_cast<NotNode>(cond); n != nullptr && ExprEqual(f, n->a)) return false;
    if (const auto* n = dyn_cast<NotNode>(f); n != nullptr && ExprEqual(n->a, cond)) return false;
  }
  if (const auto* n = dyn_cast<NotNode>(cond)) {
    std::optional<bool> a = TryDecide(ana, n->a);
    if (a) return !*a;
    return std::nullopt;
  }
  const auto* op = dyn_cast<BinaryNode>(cond);
  if (op != nullptr && (op->kind() == NodeKind::kAnd || op->kind() == NodeKind::kOr)) {
    bool is_and = op->kind() == NodeKind::kAnd;
    std::optional<bool> a = TryDecide(ana, op->a);
    if (a == !is_and) return a;  // false && ..., true || ...
    std::optional<bool> b = TryDecide(ana, op->b);
    if (b == !is_and) return b;
    if (a && b) return a;
    return std::nullopt;
  }
  if (op != nullptr && IsCompare(op->kind()) && IsIndexType(op->a->dtype) &&
      ana.bounds().CannotOverflow(op->a) && ana.bounds().CannotOverflow(op->b)) {
    if (std::optional<LinearSum> d = LinearDifference(op->a, op->b)) {
      if (op->kind() == NodeKind::kEQ || op->kind() == NodeKind::kNE) {
        std::optional<bool> z = DecideZero(ana, *d);
        if (z) return op->kind() == NodeKind::kEQ ? *z : !*z;
      } else if (std::optional<LinearSum> q = AsNonPositive(op->kind(), *d)) {
        if (std::optional<bool> r = ana.DecideNonPositive(*q)) return r;
        if (std::optional<LinearSum> e = ExpandFloorDivs(*q)) {
          if (std::optional<bool> r = ana.DecideNonPositive(*e)) return r;
        }
      }
    }
  }
  ConstIntBound b = ana.bounds().Bound(cond);
  if (cond->dtype.is_bool() && b.is_const()) return b.min_value != 0;
  return std::nullopt;
}

std::optional<Expr> Simplifier::SimplifyCompare(const BinaryNode* op) {
  const Expr& a = op->a;
  const Expr& b = op->b;
  NodeKind kind = op->kind();
  if (!IsIndexType(a->dtype)) return std::nullopt;
  if (!ana_->bounds().CannotOverflow(a) || !ana_->bounds().CannotOverflow(b)) return std::nullopt;
  std::optional<LinearSum> d = LinearDifference(a, b);
  if (!d || !NormalizeTerms(&*d)) return std::nullopt;
  DataType t = a->dtype;
  bool equality = kind == NodeKind::kEQ || kind == NodeKind::kNE;
  LinearSum form{t, {}, 0};  // Compared against 0 below.
  if (equality) {
    if (std::optional<bool> z = DecideZero(*ana_, *d)) {
      ana_->CountRule("prove-compare");
      return Bool(kind == NodeKind::kEQ ? *z : !*z);
    }
    // DecideZero saw the gcd divide the constant, so the division is exact.
    bool negate = !d->terms.empty() && d->terms[0].scale < 0;
    if (!AddLinear(&form, DivideByGcd(*d), negate ? -1 : 1)) return std::nullopt;
  } else {
    std::optional<LinearSum> q = AsNonPositive(kind, *d);
    if (!q) return std::nullopt;
    if (std::optional<bool> r = ana_->DecideNonPositive(*q)) {
      ana_->CountRule("prove-compare");
      return Bool(*r);
    }
    // q <= 0 iff q - 1 < 0.
    form = DivideByGcd(*q);
    if (!AddConst(&form, -1)) return std::nullopt;
  }
  // form (op) 0 as L (op) R: positive terms left, the rest and the constant right.
  LinearSum left{t, {}, 0}, right{t, {}, 0};
  for (const SplitTerm& s : form.terms) {
    SplitTerm u = s;
    if (s.scale < 0) u.scale = -s.scale;
    if (!AddTerm(s.scale > 0 ? &left : &right, u)) return std::nullopt;
  }
  if (left.terms.empty()) {
    left.base = form.base;  // c < R, c == R
  } else if (!AddConst(&right, -form.base)) {
    return std::nullopt;
  }
  std::optional<Expr> l = ExactOperand(left);
  std::optional<Expr> r = ExactOperand(right);
  if (!l || !r) return std::nullopt;
  Expr out = equality ? (kind == NodeKind::kEQ ? EQ(*l, *r) : NE(*l, *r)) : LT(*l, *r);
  if (ExprIdentical(out, GetRef(op))) return std::nullopt;
  ana_->CountRule("normalize-compare");
  return out;
}

}  // namespace internal

}  // namespace tessel::ir::arith
