// The canonical linear form; see linear_form.h.
//
//   ToLinear((i + 1) * 4 - i)        -> {i*3} + 4
//   ToLinear(f // 8 * 8 + f %% 8)    -> {f*1}          (split fusion)
//   ToExpr({n*-1, i*16, j*1} + 1)    -> i * 16 + j - n + 1
#include "ir/arith/linear_form.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/printer.h"

namespace tessel::ir::arith {

bool SplitTerm::SameSource(const SplitTerm& o) const {
  return lower == o.lower && extent == o.extent && ExprEqual(index, o.index);
}

namespace {

// A checked product that must also be a constant of `t` (it may be printed).
std::optional<int64_t> MulFits(DataType t, int64_t a, int64_t b) {
  std::optional<int64_t> r = CheckedMul(a, b);
  if (!r || !FitsDtype(t, *r)) return std::nullopt;
  return r;
}

int64_t PositiveConst(const Expr& e) {
  std::optional<int64_t> c = AsConstInt(e);
  return c && *c > 0 ? *c : 0;
}

// True for expressions ToLinear reads as more than one atom.
bool IsSumLike(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kAdd:
    case NodeKind::kSub: return true;
    case NodeKind::kMul: {
      const auto* m = cast<BinaryNode>(e);
      return AsConstInt(m->a).has_value() || AsConstInt(m->b).has_value();
    }
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: return PositiveConst(cast<BinaryNode>(e)->b) > 0;
    default: return false;
  }
}

bool AddExpr(LinearSum* s, const Expr& e, int64_t factor);

// floordiv(x, c) or floormod(x, c) for c > 0 as one term (or a constant).
bool AddDivMod(LinearSum* s, const Expr& e, bool is_div, const Expr& x, int64_t c, int64_t factor) {
  DataType t = s->dtype;
  std::optional<LinearSum> inner = ToLinear(x);
  if (inner && inner->is_const()) {
    int64_t v = is_div ? FloorDivInt(inner->base, c) : FloorModInt(inner->base, c);
    std::optional<int64_t> r = CheckedMul(v, factor);
    return r && AddConst(s, *r);
  }
  SplitTerm term{x, is_div ? c : 1, is_div ? 0 : c, factor};
  if (inner && inner->base == 0 && inner->terms.size() == 1 && inner->terms[0].scale == 1) {
    // Compose with the split x already is: floordiv(floordiv(y, l), c) == floordiv(y, l * c),
    // floormod(floormod(y, E), c) == floormod(y, c) when c divides E, and so on.
    const SplitTerm& in = inner->terms[0];
    if (in.extent != 0 && c % in.extent == 0) {
      // The inner value lies in [0, E) with E dividing c: x %% c is x, x // c is 0.
      if (!is_div) return AddTerm(s, SplitTerm{in.index, in.lower, in.extent, factor});
      if (IsPure(in.index)) return true;
    }
    if (is_div && (in.extent == 0 || in.extent % c == 0)) {
      if (std::optional<int64_t> lower = MulFits(t, in.lower, c)) {
        term = SplitTerm{in.index, *lower, in.extent == 0 ? 0 : in.extent / c, factor};
      }
    } else if (!is_div && (in.extent == 0 || in.extent % c == 0)) {
      term = SplitTerm{in.index, in.lower, c, factor};
    }
  }
  return AddTerm(s, std::move(term));
}

bool AddExpr(LinearSum* s, const Expr& e, int64_t factor) {
  DataType t = s->dtype;
  if (std::optional<int64_t> c = AsConstInt(e)) {
    std::optional<int64_t> v = MulFits(t, *c, factor);
    return v && AddConst(s, *v);
  }
  switch (e->kind()) {
    case NodeKind::kAdd: {
      const auto* b = cast<BinaryNode>(e);
      return AddExpr(s, b->a, factor) && AddExpr(s, b->b, factor);
    }
    case NodeKind::kSub: {
      const auto* b = cast<BinaryNode>(e);
      std::optional<int64_t> neg = MulFits(t, factor, -1);
      return neg && AddExpr(s, b->a, factor) && AddExpr(s, b->b, *neg);
    }
    case NodeKind::kMul: {
      const auto* b = cast<BinaryNode>(e);
      std::optional<int64_t> ca = AsConstInt(b->a), cb = AsConstInt(b->b);
      if (cb || ca) {
        std::optional<int64_t> f = MulFits(t, factor, cb ? *cb : *ca);
        return f && AddExpr(s, cb ? b->a : b->b, *f);
      }
      break;
    }
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      const auto* b = cast<BinaryNode>(e);
      if (int64_t c = PositiveConst(b->b)) {
        return AddDivMod(s, e, e->kind() == NodeKind::kFloorDiv, b->a, c, factor);
      }
      break;
    }
    default: break;
  }
  return AddTerm(s, SplitTerm{e, 1, 0, factor});
}

// a and b (terms of one index) combined into one term, if they fit together:
//   split(x, l, E) * s + split(x, l * E, E2) * (s * E)  ->  split(x, l, E * E2) * s
//   split(x, l, E) * s - split(x, l, e) * s             ->  split(x, l * e, E / e) * (s * e)
std::optional<SplitTerm> FusePair(DataType t, const SplitTerm& a, const SplitTerm& b) {
  std::optional<int64_t> next_lower = CheckedMul(a.lower, a.extent);
  std::optional<int64_t> next_scale = CheckedMul(a.scale, a.extent);
  if (a.extent != 0 && next_lower && next_scale && b.lower == *next_lower &&
      b.scale == *next_scale) {
    int64_t extent = 0;
    if (b.extent != 0) {
      std::optional<int64_t> e = MulFits(t, a.extent, b.extent);
      if (!e) return std::nullopt;
      extent = *e;
    }
    return SplitTerm{a.index, a.lower, extent, a.scale};
  }
  if (b.scale == -a.scale && a.lower == b.lower && b.extent != 0 &&
      (a.extent == 0 || (a.extent % b.extent == 0 && a.extent != b.extent))) {
    std::optional<int64_t> lower = MulFits(t, a.lower, b.extent);
    std::optional<int64_t> scale = MulFits(t, a.scale, b.extent);
    if (!lower || !scale) return std::nullopt;
    return SplitTerm{a.index, *lower, a.extent == 0 ? 0 : a.extent / b.extent, *scale};
  }
  return std::nullopt;
}

// Fuses the term at `pos` with any partner; the fused term is added afresh.
bool FuseAt(LinearSum* s, size_t pos) {
  for (size_t j = 0; j < s->terms.size(); ++j) {
    if (j == pos) continue;
    const SplitTerm& a = s->terms[pos];
    const SplitTerm& b = s->terms[j];
    if (!ExprEqual(a.index, b.index)) continue;
    std::optional<SplitTerm> f = FusePair(s->dtype, a, b);
    if (!f) f = FusePair(s->dtype, b, a);
    if (!f) continue;
    s->terms.erase(s->terms.begin() + std::max(pos, j));
    s->terms.erase(s->terms.begin() + std::min(pos, j));
    return AddTerm(s, *std::move(f));
  }
  return true;
}

}  // namespace

std::optional<LinearSum> ToLinear(const Expr& e) {
  LinearSum s{e->dtype, {}, 0};
  if (!AddExpr(&s, e, 1)) return std::nullopt;
  return s;
}

LinearSum AtomSum(const Expr& e) { return LinearSum{e->dtype, {SplitTerm{e, 1, 0, 1}}, 0}; }

bool AddConst(LinearSum* s, int64_t c) {
  std::optional<int64_t> r = CheckedAdd(s->base, c);
  if (!r || !FitsDtype(s->dtype, *r)) return false;
  s->base = *r;
  return true;
}

bool AddTerm(LinearSum* s, SplitTerm t) {
  if (t.scale == 0 && IsPure(t.index)) return true;
  if (std::optional<int64_t> c = AsConstInt(t.index)) {
    int64_t v = FloorDivInt(*c, t.lower);
    if (t.extent != 0) v = FloorModInt(v, t.extent);
    std::optional<int64_t> r = MulFits(s->dtype, v, t.scale);
    return r && AddConst(s, *r);
  }
  if (t.is_plain() && IsSumLike(t.index)) return AddExpr(s, t.index, t.scale);
  for (size_t k = 0; k < s->terms.size(); ++k) {
    SplitTerm& o = s->terms[k];
    if (!o.SameSource(t)) continue;
    std::optional<int64_t> scale = CheckedAdd(o.scale, t.scale);
    if (!scale || !FitsDtype(s->dtype, *scale)) return false;
    o.scale = *scale;
    if (o.scale == 0) {  // Equal sources are pure (ExprEqual), so the pair cancels.
      s->terms.erase(s->terms.begin() + k);
      return true;
    }
    return FuseAt(s, k);
  }
  s->terms.push_back(std::move(t));
  return FuseAt(s, s->terms.size() - 1);
}

bool AddLinear(LinearSum* s, const LinearSum& o, int64_t factor) {
  for (const SplitTerm& t : o.terms) {
    std::optional<int64_t> scale = MulFits(s->dtype, t.scale, factor);
    if (!scale) return false;
    SplitTerm u = t;
    u.scale = *scale;
    if (!AddTerm(s, std::move(u))) return false;
  }
  std::optional<int64_t> b = MulFits(s->dtype, o.base, factor);
  return b && AddConst(s, *b);
}

bool ScaleLinear(LinearSum* s, int64_t c) {
  if (c == 0) {
    LinearSum zero{s->dtype, {}, 0};
    for (const SplitTerm& t : s->terms) {
      if (!IsPure(t.index)) zero.terms.push_back(SplitTerm{t.index, t.lower, t.extent, 0});
    }
    *s = std::move(zero);
    return true;
  }
  for (SplitTerm& t : s->terms) {
    std::optional<int64_t> v = MulFits(s->dtype, t.scale, c);
    if (!v) return false;
    t.scale = *v;
  }
  std::optional<int64_t> b = MulFits(s->dtype, s->base, c);
  if (!b) return false;
  s->base = *b;
  return true;
}

Expr SplitValue(const SplitTerm& t) {
  DataType dt = t.index->dtype;
  Expr v = t.index;
  if (t.lower != 1) v = FloorDiv(v, IntImm(dt, t.lower));
  if (t.extent != 0) v = FloorMod(v, IntImm(dt, t.extent));
  return v;
}

Expr ToExpr(const LinearSum& s) {
  DataType dt = s.dtype;
  std::vector<const SplitTerm*> pos, neg;
  for (const SplitTerm& t : s.terms) (t.scale >= 0 ? pos : neg).push_back(&t);
  auto by_magnitude = [](const SplitTerm* a, const SplitTerm* b) {
    return std::abs(a->scale) > std::abs(b->scale);
  };
  std::stable_sort(pos.begin(), pos.end(), by_magnitude);
  std::stable_sort(neg.begin(), neg.end(), by_magnitude);
  auto scaled = [dt](const SplitTerm& t, int64_t scale) {
    Expr v = SplitValue(t);
    return scale == 1 ? v : Mul(v, IntImm(dt, scale));
  };
  Expr result;
  int64_t base = s.base;
  for (const SplitTerm* t : pos)
    result = result ? Add(result, scaled(*t, t->scale)) : scaled(*t, t->scale);
  if (!result && !neg.empty()) {  // 3 - x, 0 - x - y rather than x * -1 + 3.
    result = IntImm(dt, base > 0 ? base : 0);
    if (base > 0) base = 0;
  }
  for (const SplitTerm* t : neg) {
    if (result && FitsDtype(dt, -t->scale)) {
      result = Sub(result, scaled(*t, -t->scale));
    } else {
      result = result ? Add(result, scaled(*t, t->scale)) : scaled(*t, t->scale);
    }
  }
  if (!result) return IntImm(dt, base);
  if (base > 0 || base == kNegInf || (base < 0 && !FitsDtype(dt, -base))) {
    return Add(result, IntImm(dt, base));
  }
  if (base < 0) return Sub(result, IntImm(dt, -base));
  return result;
}

std::string LinearDebugString(const LinearSum& s) {
  std::string out = "{";
  for (size_t i = 0; i < s.terms.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", "(", PrintExpr(SplitValue(s.terms[i])), ")*",
                    s.terms[i].scale);
  }
  absl::StrAppend(&out, "} + ", s.base);
  return out;
}

}  // namespace tessel::ir::arith
