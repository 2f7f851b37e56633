// Constant integer bounds, bottom-up in exact arithmetic; see const_int_bound.h.
//
//   i in [0, 63], j in [0, 15]:
//   i * 16        -> [0, 1008]       (corners of the product)
//   i * 16 + j    -> [0, 1023]
//   (i*16 + j) // 32  -> [0, 31]     (floor division is monotone in the dividend)
//   (i*16 + j) %% 32  -> [0, 31]     (the dividend spans several periods)
#include "ir/arith/const_int_bound.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tessel::ir::arith {

ConstIntBound ConstIntBound::OfDtype(DataType t) {
  if (!(t.is_integer() || t.is_bool())) return Everything();
  return {DtypeMin(t), DtypeMax(t)};
}

ConstIntBound ConstIntBound::Intersect(const ConstIntBound& o) const {
  return {std::max(min_value, o.min_value), std::min(max_value, o.max_value)};
}

ConstIntBound ConstIntBound::Union(const ConstIntBound& o) const {
  return {std::min(min_value, o.min_value), std::max(max_value, o.max_value)};
}

std::string ConstIntBound::ToString() const {
  auto num = [](int64_t v) -> std::string {
    if (v == kNegInf) return "-inf";
    if (v == kPosInf) return "+inf";
    return absl::StrCat(v);
  };
  return absl::StrCat("[", num(min_value), ", ", num(max_value), "]");
}

// ---- Exact interval arithmetic ------------------------------------------------------

ConstIntBound BoundAdd(const ConstIntBound& a, const ConstIntBound& b) {
  return {SatAdd(a.min_value, b.min_value), SatAdd(a.max_value, b.max_value)};
}

ConstIntBound BoundSub(const ConstIntBound& a, const ConstIntBound& b) {
  return {SatSub(a.min_value, b.max_value), SatSub(a.max_value, b.min_value)};
}

ConstIntBound BoundMul(const ConstIntBound& a, const ConstIntBound& b) {
  int64_t p[4] = {SatMul(a.min_value, b.min_value), SatMul(a.min_value, b.max_value),
                  SatMul(a.max_value, b.min_value), SatMul(a.max_value, b.max_value)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

ConstIntBound BoundScale(const ConstIntBound& a, int64_t c) {
  return BoundMul(a, ConstIntBound::Point(c));
}

namespace {

ConstIntBound Negate(const ConstIntBound& a) { return {SatNeg(a.max_value), SatNeg(a.min_value)}; }

// x / y (floor or trunc) for y > 0, where either may be infinite.
int64_t DivCorner(bool floor, int64_t x, int64_t y) {
  if (x == kNegInf || x == kPosInf) return x;
  if (y == kPosInf) return (floor && x < 0) ? -1 : 0;
  return floor ? FloorDivInt(x, y) : x / y;
}

// Division of `a` by a strictly positive divisor range.
ConstIntBound DivPositive(bool floor, const ConstIntBound& a, const ConstIntBound& b) {
  // The quotient grows with the dividend; for a fixed dividend it moves towards
  // zero (or -1) as the divisor grows, so the corners hold the extremes.
  int64_t lo = std::min(DivCorner(floor, a.min_value, b.min_value),
                        DivCorner(floor, a.min_value, b.max_value));
  int64_t hi = std::max(DivCorner(floor, a.max_value, b.min_value),
                        DivCorner(floor, a.max_value, b.max_value));
  return {lo, hi};
}

int64_t AbsSat(int64_t v) { return v == kNegInf ? kPosInf : (v < 0 ? -v : v); }
int64_t MaxAbs(const ConstIntBound& b) {
  return std::max(AbsSat(b.min_value), AbsSat(b.max_value));
}

}  // namespace

ConstIntBound BoundDivMod(NodeKind kind, const ConstIntBound& a, const ConstIntBound& b_in) {
  ConstIntBound b = b_in;
  // Division by zero stops the program, so 0 is not a divisor that yields values.
  if (b.min_value == 0) b.min_value = 1;
  if (b.max_value == 0) b.max_value = -1;
  if (b.is_empty()) return ConstIntBound::Everything();
  bool floor = kind == NodeKind::kFloorDiv || kind == NodeKind::kFloorMod;
  bool quotient = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
  if (quotient) {
    if (b.min_value > 0) return DivPositive(floor, a, b);
    if (b.max_value < 0) return DivPositive(floor, Negate(a), Negate(b));  // a/b == (-a)/(-b).
    int64_t m = MaxAbs(a);  // |a / b| <= |a| for |b| >= 1.
    return {SatNeg(m), m};
  }
  int64_t mb = MaxAbs(b);
  int64_t rmax = mb == kPosInf ? kPosInf : mb - 1;  // |remainder| < |divisor|.
  if (floor) {
    if (b.min_value > 0) {
      if (b.is_const() && !IsInf(a.min_value) && !IsInf(a.max_value) &&
          FloorDivInt(a.min_value, b.min_value) == FloorDivInt(a.max_value, b.min_value)) {
        return {FloorModInt(a.min_value, b.min_value), FloorModInt(a.max_value, b.min_value)};
      }
      if (a.min_value >= 0 && a.max_value < b.min_value) return a;
      if (a.min_value >= 0) return {0, std::min(a.max_value, rmax)};
      return {0, rmax};
    }
    if (b.max_value < 0) {
      if (a.max_value <= 0 && a.min_value > b.max_value) return a;
      return {SatNeg(rmax), 0};
    }
    return {SatNeg(rmax), rmax};
  }
  // Truncating remainder: the sign of the dividend, smaller than both |a| and |b|.
  if (a.min_value >= 0) return {0, std::min(a.max_value, rmax)};
  if (a.max_value <= 0) return {std::max(a.min_value, SatNeg(rmax)), 0};
  return {std::max(a.min_value, SatNeg(rmax)), std::min(a.max_value, rmax)};
}

// ---- The analyzer -------------------------------------------------------------------

ConstIntBound ConstIntBoundAnalyzer::VarBound(const VarNode* v) const {
  auto it = vars_.find(v);
  if (it != vars_.end()) return it->second.bound;
  return ConstIntBound::OfDtype(v->dtype);
}

void ConstIntBoundAnalyzer::Update(const Var& v, const ConstIntBound& b, bool replace) {
  auto it = vars_.find(v.get());
  std::optional<Entry> old;
  if (it != vars_.end()) old = it->second;
  undo_.emplace_back(v.get(), old);
  ConstIntBound base = replace ? ConstIntBound::OfDtype(v->dtype) : VarBound(v.get());
  vars_[v.get()] = Entry{v, base.Intersect(b)};
}

void ConstIntBoundAnalyzer::Rollback(size_t checkpoint) {
  while (undo_.size() > checkpoint) {
    auto& [var, old] = undo_.back();
    if (old) {
      vars_[var] = *old;
    } else {
      vars_.erase(var);
    }
    undo_.pop_back();
  }
}

ConstIntBound ConstIntBoundAnalyzer::Bound(const Expr& e) const {
  if (!e) return ConstIntBound::Everything();
  return Eval(e, assume_, nullptr).runtime;
}

bool ConstIntBoundAnalyzer::CannotOverflow(const Expr& e) const {
  return assume_ || !e || Eval(e, false, nullptr).exact;
}

bool ConstIntBoundAnalyzer::FitsExactly(const Expr& e, const TrustedSet& trusted) const {
  return e && Eval(e, false, &trusted).exact;
}

namespace {

bool Fits(DataType t, const ConstIntBound& b) {
  ConstIntBound range = ConstIntBound::OfDtype(t.element_of());
  if (t.is_int() && t.bits() >= 64) return !IsInf(b.min_value) && !IsInf(b.max_value);
  return b.min_value >= range.min_value && b.max_value <= range.max_value;
}

}  // namespace

ConstIntBoundAnalyzer::Result ConstIntBoundAnalyzer::Ring(DataType t, ConstIntBound math,
                                                          bool congruent, bool assume) const {
  ConstIntBound range = ConstIntBound::OfDtype(t.element_of());
  if (assume) return Known(math.Intersect(range));
  // Wrapping arithmetic is exact modulo 2^bits, so the value is the exact one
  // whenever the exact one fits.
  bool exact = congruent && Fits(t, math);
  return {exact ? math : range, math, exact, congruent};
}

ConstIntBoundAnalyzer::Result ConstIntBoundAnalyzer::NonRing(DataType t, ConstIntBound runtime,
                                                             bool exact, bool assume) const {
  ConstIntBound range = ConstIntBound::OfDtype(t.element_of());
  if (assume) return Known(runtime.Intersect(range));
  // INT_MIN // -1 is the one quotient that wraps; its value is then anything.
  if (!Fits(t, runtime)) return {range, runtime, false, false};
  return {runtime, runtime, exact, exact};
}

ConstIntBoundAnalyzer::Result ConstIntBoundAnalyzer::Eval(const Expr& e, bool assume,
                                                          const TrustedSet* trusted) const {
  if (trusted != nullptr && trusted->contains(e.get())) return Eval(e, assume_, nullptr);
  DataType t = e->dtype;
  if (!(t.is_integer() || t.is_bool())) return Known(ConstIntBound::Everything());
  // u64 values are bit patterns that int64 cannot order; nothing is known.
  if (t.is_uint() && t.bits() >= 64) return Known(ConstIntBound::OfDtype(t.element_of()));
  switch (e->kind()) {
    case NodeKind::kIntImm: return Known(ConstIntBound::Point(cast<IntImmNode>(e)->value));
    case NodeKind::kVar: return Known(VarBound(cast<VarNode>(e)));
    case NodeKind::kNot: {
      Result a = Eval(cast<NotNode>(e)->a, assume, trusted);
      ConstIntBound r = a.runtime.is_const() ? ConstIntBound::Point(!a.runtime.min_value)
                                             : ConstIntBound::Range(0, 1);
      return NonRing(t, r, a.exact, assume);
    }
    case NodeKind::kSelect: {
      // The value is one arm's, so the arms' congruence carries over.
      const auto* s = cast<SelectNode>(e);
      Result c = Eval(s->condition, assume, trusted);
      Result x = Eval(s->true_value, assume, trusted);
      Result y = Eval(s->false_value, assume, trusted);
      if (c.exact && c.runtime.is_const()) return c.runtime.min_value ? x : y;
      return {x.runtime.Union(y.runtime), x.math.Union(y.math), c.exact && x.exact && y.exact,
              c.exact && x.congruent && y.congruent};
    }
    case NodeKind::kCast: {
      const auto* c = cast<CastNode>(e);
      DataType from = c->value->dtype;
      ConstIntBound range = ConstIntBound::OfDtype(t.element_of());
      if (!(from.is_integer() || from.is_bool())) return Known(range);
      Result v = Eval(c->value, assume, trusted);
      if (t.is_bool()) {
        ConstIntBound r = !v.runtime.contains(0) ? ConstIntBound::Point(1)
                          : v.runtime.is_const() ? ConstIntBound::Point(0)
                                                 : range;
        return NonRing(t, r, v.exact, assume);
      }
      // A value the target holds converts unchanged; otherwise it wraps (C conversion).
      bool same = v.runtime.min_value >= range.min_value && v.runtime.max_value <= range.max_value;
      return NonRing(t, same ? v.runtime : range, v.exact && same, assume);
    }
    case NodeKind::kBroadcast: return Eval(cast<BroadcastNode>(e)->value, assume, trusted);
    case NodeKind::kRamp: {
      const auto* r = cast<RampNode>(e);
      Result base = Eval(r->base, assume, trusted);
      Result stride = Eval(r->stride, assume, trusted);
      ConstIntBound steps = BoundMul(stride.math, ConstIntBound::Range(0, r->lanes - 1));
      return Ring(t, BoundAdd(base.math, steps), base.congruent && stride.congruent, assume);
    }
    default:
      if (isa<BinaryNode>(e)) return EvalBinary(e, assume, trusted);
      // Loads, calls: anything the dtype holds.
      return Known(ConstIntBound::OfDtype(t.element_of()));
  }
}

ConstIntBoundAnalyzer::Result ConstIntBoundAnalyzer::EvalBinary(const Expr& e, bool assume,
                                                                const TrustedSet* trusted) const {
  const auto* op = cast<BinaryNode>(e);
  Result a = Eval(op->a, assume, trusted);
  Result b = Eval(op->b, assume, trusted);
  bool congruent = a.congruent && b.congruent;
  bool exact = a.exact && b.exact;
  const ConstIntBound& x = a.runtime;
  const ConstIntBound& y = b.runtime;
  DataType t = e->dtype;
  switch (op->kind()) {
    case NodeKind::kAdd: return Ring(t, BoundAdd(a.math, b.math), congruent, assume);
    case NodeKind::kSub: return Ring(t, BoundSub(a.math, b.math), congruent, assume);
    case NodeKind::kMul: return Ring(t, BoundMul(a.math, b.math), congruent, assume);
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      if (t.is_uint()) {  // Unsigned division never leaves [0, a].
        bool quotient = op->kind() == NodeKind::kDiv || op->kind() == NodeKind::kFloorDiv;
        return NonRing(t,
                       quotient
                           ? ConstIntBound::Range(0, x.max_value)
                           : ConstIntBound::Range(0, std::min(x.max_value, SatSub(y.max_value, 1))),
                       exact, assume);
      }
      return NonRing(t, BoundDivMod(op->kind(), x, y), exact, assume);
    case NodeKind::kMin:
      return NonRing(t, {std::min(x.min_value, y.min_value), std::min(x.max_value, y.max_value)},
                     exact, assume);
    case NodeKind::kMax:
      return NonRing(t, {std::max(x.min_value, y.min_value), std::max(x.max_value, y.max_value)},
                     exact, assume);
    case NodeKind::kAnd:
    case NodeKind::kOr: {
      bool is_and = op->kind() == NodeKind::kAnd;
      // One side decides when it is the absorbing value; both decide when constant.
      for (const ConstIntBound* s : {&x, &y}) {
        if (s->is_const() && (s->min_value != 0) != is_and) return NonRing(t, *s, exact, assume);
      }
      if (x.is_const() && y.is_const()) return NonRing(t, x, exact, assume);
      return NonRing(t, ConstIntBound::Range(0, 1), exact, assume);
    }
    default: break;
  }
  // Comparisons: decided when the operand ranges are ordered.
  DataType ot = op->a->dtype;
  auto result = [&](int v) {
    return NonRing(t, v < 0 ? ConstIntBound::Range(0, 1) : ConstIntBound::Point(v), exact, assume);
  };
  if (!(ot.is_integer() || ot.is_bool()) || (ot.is_uint() && ot.bits() >= 64)) return result(-1);
  switch (op->kind()) {
    case NodeKind::kLT:
      if (x.max_value < y.min_value) return result(1);
      if (x.min_value >= y.max_value) return result(0);
      break;
    case NodeKind::kLE:
      if (x.max_value <= y.min_value) return result(1);
      if (x.min_value > y.max_value) return result(0);
      break;
    case NodeKind::kGT:
      if (x.min_value > y.max_value) return result(1);
      if (x.max_value <= y.min_value) return result(0);
      break;
    case NodeKind::kGE:
      if (x.min_value >= y.max_value) return result(1);
      if (x.max_value < y.min_value) return result(0);
      break;
    case NodeKind::kEQ:
    case NodeKind::kNE: {
      bool eq = op->kind() == NodeKind::kEQ;
      if (x.is_const() && y.is_const() && x.min_value == y.min_value) return result(eq);
      if (x.max_value < y.min_value || y.max_value < x.min_value) return result(!eq);
      break;
    }
    default: break;
  }
  return result(-1);
}

}  // namespace tessel::ir::arith
