// Symbolic interval arithmetic; see int_set.h.
//
//   i in [0, 63], j in [0, 15], k free:
//   i * 16 + j        -> [0 * 16 + 0, 63 * 16 + 15] -> [0, 1023]
//   k - i             -> [k - 63, k]
//   min(i, k)         -> [min(0, k), min(63, k)]
//   (i * 4 + 3) %% 4  -> [3, 3]   (simplified before relaxing: the set of 3)
#include "ir/arith/int_set.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/printer.h"

namespace tessel::ir::arith {

IntSet IntSet::Nothing() {
  IntSet s;
  s.empty_ = true;
  return s;
}

IntSet IntSet::FromRange(const Range& r) {
  return Interval(r.min, Sub(Add(r.min, r.extent), IntImm(r.extent->dtype, 1)));
}

bool IntSet::is_point() const {
  return !empty_ && min_ && max_ && (min_.same_as(max_) || ExprEqual(min_, max_));
}

std::optional<Range> IntSet::ToRange(Analyzer* ana) const {
  if (empty_ || !is_bounded()) return std::nullopt;
  return Range{min_, ana->Simplify(Add(Sub(max_, min_), IntImm(max_->dtype, 1)))};
}

std::string IntSet::ToString() const {
  if (empty_) return "{}";
  return absl::StrCat("[", min_ ? PrintExpr(min_) : "-inf", ", ", max_ ? PrintExpr(max_) : "+inf",
                      "]");
}

namespace {

class SetEvaluator {
 public:
  SetEvaluator(const IntSetMap& dom, Analyzer* ana) : dom_(dom), ana_(ana) {}

  IntSet Eval(const Expr& e) {
    if (!Relaxed(e)) return IntSet::Point(e);
    if (const auto* v = dyn_cast<VarNode>(e)) return dom_.at(v);
    const auto* op = dyn_cast<BinaryNode>(e);
    if (op == nullptr) {
      if (const auto* s = dyn_cast<SelectNode>(e)) {
        return Union(Eval(s->true_value), Eval(s->false_value), ana_);
      }
      return Fallback(e);
    }
    IntSet a = Eval(op->a);
    IntSet b = Eval(op->b);
    if (a.is_empty() || b.is_empty()) return IntSet::Nothing();
    switch (op->kind()) {
      case NodeKind::kAdd:
        return Make(Bin(NodeKind::kAdd, a.min(), b.min()), Bin(NodeKind::kAdd, a.max(), b.max()));
      case NodeKind::kSub:
        return Make(Bin(NodeKind::kSub, a.min(), b.max()), Bin(NodeKind::kSub, a.max(), b.min()));
      case NodeKind::kMul: {
        if (a.is_point() && !b.is_point()) return Scale(b, a.min(), e);
        if (b.is_point()) return Scale(a, b.min(), e);
        return Fallback(e);
      }
      case NodeKind::kDiv:
      case NodeKind::kFloorDiv:
        if (!b.is_point() || !Floorish(op, a)) return Fallback(e);
        return Divide(a, b.min(), e);
      case NodeKind::kMod:
      case NodeKind::kFloorMod:
        if (!b.is_point() || !Floorish(op, a)) return Fallback(e);
        return Modulo(a, b.min(), e);
      case NodeKind::kMin:
        // A missing lower end stays missing; a missing upper end yields to the other.
        return Make(Bin(NodeKind::kMin, a.min(), b.min()),
                    a.max() && b.max() ? Bin(NodeKind::kMin, a.max(), b.max())
                                       : (a.max() ? a.max() : b.max()));
      case NodeKind::kMax:
        return Make(a.min() && b.min() ? Bin(NodeKind::kMax, a.min(), b.min())
                                       : (a.min() ? a.min() : b.min()),
                    Bin(NodeKind::kMax, a.max(), b.max()));
      default: return Fallback(e);
    }
  }

 private:
  bool Relaxed(const Expr& e) {
    return AnyVar(e, [this](const VarNode* v) { return dom_.contains(v); });
  }
  // A binary operation on ends; a missing end makes the result missing.
  Expr Bin(NodeKind k, const Expr& a, const Expr& b) {
    if (!a || !b) return Expr();
    return ValueOrDie(MakeBinary(k, a, b));
  }
  IntSet Make(const Expr& lo, const Expr& hi) {
    return IntSet::Interval(lo ? ana_->Simplify(lo) : lo, hi ? ana_->Simplify(hi) : hi);
  }
  // 1 for c > 0, -1 for c < 0, 0 for c == 0; with `weak`, 1 for c >= 0 and
  // -1 for c <= 0 (enough to scale an interval).
  std::optional<int> Sign(const Expr& c, bool weak = false) {
    ConstIntBound b = ana_->GetConstIntBound(c);
    if (b.is_const() && b.min_value == 0) return 0;
    if (b.min_value > 0 || (weak && b.min_value >= 0)) return 1;
    if (b.max_value < 0 || (weak && b.max_value <= 0)) return -1;
    return std::nullopt;
  }
  IntSet Scale(const IntSet& a, const Expr& c, const Expr& e) {
    std::optional<int> s = Sign(c, /*weak=*/true);
    if (!s) return Fallback(e);
    if (*s == 0) return IntSet::Point(IntImm(c->dtype, 0));
    Expr lo = Bin(NodeKind::kMul, a.min(), c), hi = Bin(NodeKind::kMul, a.max(), c);
    return *s > 0 ? Make(lo, hi) : Make(hi, lo);
  }
  // Truncating division and modulo act like floor ones on non-negative dividends.
  bool Floorish(const BinaryNode* op, const IntSet& a) {
    if (op->kind() == NodeKind::kFloorDiv || op->kind() == NodeKind::kFloorMod) return true;
    return a.min() && ana_->CanProve(GE(a.min(), IntImm(a.min()->dtype, 0)));
  }
  IntSet Divide(const IntSet& a, const Expr& c, const Expr& e) {
    std::optional<int> s = Sign(c);
    if (!s || *s == 0) return Fallback(e);
    Expr lo = Bin(NodeKind::kFloorDiv, a.min(), c), hi = Bin(NodeKind::kFloorDiv, a.max(), c);
    return *s > 0 ? Make(lo, hi) : Make(hi, lo);
  }
  IntSet Modulo(const IntSet& a, const Expr& c, const Expr& e) {
    std::optional<int> s = Sign(c);
    if (!s || *s <= 0) return Fallback(e);
    DataType t = c->dtype;
    if (a.is_bounded()) {
      // Within one period the modulo is monotone: [a.min %% c, a.max %% c].
      Expr q_lo = ana_->Simplify(FloorDiv(a.min(), c)), q_hi = ana_->Simplify(FloorDiv(a.max(), c));
      if (ana_->CanProveEqual(q_lo, q_hi)) {
        return Make(FloorMod(a.min(), c), FloorMod(a.max(), c));
      }
    }
    return Make(IntImm(t, 0), Sub(c, IntImm(t, 1)));
  }
  // Constant bounds of `e` with each relaxed variable bounded by its set's ends.
  IntSet Fallback(const Expr& e) {
    if (!IsIndexType(e->dtype)) return IntSet::Everything();
    Analyzer::Scope scope(ana_);
    for (const Var& v : CollectVars(e)) {
      auto it = dom_.find(v.get());
      if (it == dom_.end()) continue;
      const IntSet& s = it->second;
      ConstIntBound b = ConstIntBound::Everything();
      if (s.min()) b.min_value = ana_->GetConstIntBound(s.min()).min_value;
      if (s.max()) b.max_value = ana_->GetConstIntBound(s.max()).max_value;
      ana_->Bind(v, b);
    }
    ConstIntBound r = ana_->GetConstIntBound(e);
    DataType t = e->dtype;
    // The dtype's own limits mean "nothing known": unbounded, not a huge range.
    auto end = [&](int64_t v) -> Expr {
      if (IsInf(v) || !FitsDtype(t, v) || v == DtypeMin(t) || v == DtypeMax(t)) return Expr();
      return IntImm(t, v);
    };
    return IntSet::Interval(end(r.min_value), end(r.max_value));
  }
  const IntSetMap& dom_;
  Analyzer* ana_;
};

}  // namespace

IntSet EvalSet(const Expr& e, const IntSetMap& dom, Analyzer* ana) {
  if (!e || !IsIndexType(e->dtype)) return IntSet::Everything();
  SetEvaluator ev(dom, ana);
  return ev.Eval(ana->Simplify(e));
}

IntSet EvalSet(const Range& r, const IntSetMap& dom, Analyzer* ana) {
  IntSet lo = EvalSet(r.min, dom, ana);
  IntSet hi = EvalSet(Sub(Add(r.min, r.extent), IntImm(r.extent->dtype, 1)), dom, ana);
  if (lo.is_empty() || hi.is_empty()) return IntSet::Nothing();
  return IntSet::Interval(lo.min(), hi.max());
}

IntSet Union(const IntSet& a, const IntSet& b, Analyzer* ana) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  Expr lo = a.min() && b.min() ? ana->Simplify(Min(a.min(), b.min())) : Expr();
  Expr hi = a.max() && b.max() ? ana->Simplify(Max(a.max(), b.max())) : Expr();
  return IntSet::Interval(lo, hi);
}

IntSet Intersect(const IntSet& a, const IntSet& b, Analyzer* ana) {
  if (a.is_empty() || b.is_empty()) return IntSet::Nothing();
  Expr lo = !a.min() ? b.min() : !b.min() ? a.min() : ana->Simplify(Max(a.min(), b.min()));
  Expr hi = !a.max() ? b.max() : !b.max() ? a.max() : ana->Simplify(Min(a.max(), b.max()));
  if (lo && hi && ana->CanProve(LT(hi, lo))) return IntSet::Nothing();
  return IntSet::Interval(lo, hi);
}

}  // namespace tessel::ir::arith
