// Canonical simplification of index arithmetic: + - * through the linear form,
// and division/modulo by constants using the terms' coefficients and bounds.
//
//   3 + 4 * (i - 0) + 0 * C[i]         -> i * 4 + 3
//   (f // 8) * 8 + f %% 8              -> f
//   (i * 16 + j) // 16   (j in [0,16)) -> i
//   (i * 16 + j) %% 16   (j in [0,16)) -> j
//   (x * 4 + 1) // 16                  -> x // 4         (gcd: 4x+1 in [16m, 16m+16) iff x in [4m,
//   4m+4)) (x * 4 + 1) %% 16                  -> x %% 4 * 4 + 1 x / 4   (x >= 0) -> x // 4
//   (truncation is floor there)
//
// The division rules are exact floor identities, e.g. floordiv(c*Y + R, c) =
// Y + floordiv(R, c). They read the dividend's exact value, so in the no-overflow
// mode they trust the input, otherwise they need bounds proving it cannot wrap;
// a new dividend (R above) must be proven to fit in both modes (analyzer.h).
#include <algorithm>
#include <numeric>

#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/arith/simplify_internal.h"

namespace tessel::ir::arith::internal {

ConstIntBound TermValueBound(const ConstIntBound& index, const SplitTerm& t) {
  ConstIntBound v = index;
  if (t.lower != 1) v = BoundDivMod(NodeKind::kFloorDiv, v, ConstIntBound::Point(t.lower));
  if (t.extent != 0) v = BoundDivMod(NodeKind::kFloorMod, v, ConstIntBound::Point(t.extent));
  return v;
}

namespace {

bool QuotientFixed(const ConstIntBound& b, int64_t c, int64_t* q) {
  if (IsInf(b.min_value) || IsInf(b.max_value)) return false;
  *q = FloorDivInt(b.min_value, c);
  return *q == FloorDivInt(b.max_value, c);
}

// The sum of `terms` (scales divided by `g`) plus `base`.
LinearSum Part(DataType t, const std::vector<SplitTerm>& terms, int64_t g, int64_t base) {
  LinearSum s{t, {}, base};
  for (SplitTerm term : terms) {
    term.scale /= g;
    s.terms.push_back(std::move(term));
  }
  return s;
}

}  // namespace

bool Simplifier::NormalizeTerms(LinearSum* s) {
  bool changed = false;
  LinearSum out{s->dtype, {}, s->base};
  std::vector<SplitTerm> terms = std::move(s->terms);
  for (SplitTerm& t : terms) {
    ConstIntBound index = ana_->bounds().Bound(t.index);
    if (t.extent != 0) {
      ConstIntBound q = TermValueBound(index, SplitTerm{t.index, t.lower, 0, 1});
      if (q.min_value >= 0 && q.max_value < t.extent) {  // The floormod never wraps.
        t.extent = 0;
        changed = true;
      }
    }
    ConstIntBound v = TermValueBound(index, t);
    if (v.is_const() && IsPure(t.index)) {
      std::optional<int64_t> c = CheckedMul(v.min_value, t.scale);
      if (!c || !AddConst(&out, *c)) return false;
      changed = true;
      continue;
    }
    out.terms.push_back(std::move(t));
  }
  if (!changed) {
    *s = std::move(out);
    return true;
  }
  // Changed terms may now merge or fuse with others: add them afresh.
  LinearSum merged{s->dtype, {}, out.base};
  for (SplitTerm& t : out.terms) {
    if (!AddTerm(&merged, std::move(t))) return false;
  }
  *s = std::move(merged);
  return true;
}

std::optional<Expr> Simplifier::ExactOperand(const LinearSum& s) {
  Expr e = ToExpr(s);
  TrustedSet trusted;
  for (const SplitTerm& t : s.terms) trusted.insert(t.index.get());
  if (!ana_->bounds().FitsExactly(e, trusted)) return std::nullopt;
  return e;
}

std::optional<Expr> Simplifier::SimplifyLinear(const BinaryNode* op) {
  Expr e = GetRef(op);
  if (op->kind() == NodeKind::kMul && !AsConstInt(op->a) && !AsConstInt(op->b)) {
    // A product of two non-constants is an atom; order its factors so that
    // x * y and y * x meet (calls keep their order: it is their evaluation order).
    if (CompareExpr(op->b, op->a) < 0 && IsPure(op->a) && IsPure(op->b)) return Mul(op->b, op->a);
    return std::nullopt;
  }
  std::optional<LinearSum> s = ToLinear(e);
  if (!s || !NormalizeTerms(&*s)) return std::nullopt;
  Expr r = ToExpr(*s);
  if (ExprIdentical(r, e)) return std::nullopt;
  return r;
}

std::optional<Expr> Simplifier::SimplifyDivMod(const BinaryNode* op) {
  std::optional<int64_t> c = AsConstInt(op->b);
  if (!c || *c == 0) return std::nullopt;
  DataType t = op->dtype;
  NodeKind k = op->kind();
  bool is_div = k == NodeKind::kDiv || k == NodeKind::kFloorDiv;
  const Expr& a = op->a;
  // Exact whatever the dividend, wrapping included (x // -1 wraps like -x).
  if (*c == 1 || *c == -1) {
    if (!is_div) return IsPure(a) ? std::optional<Expr>(IntImm(t, 0)) : std::nullopt;
    if (*c == 1) return a;
    std::optional<LinearSum> neg = ToLinear(a);
    if (!neg || !ScaleLinear(&*neg, -1)) return Sub(IntImm(t, 0), a);
    return ToExpr(*neg);
  }
  if (*c < 0) return std::nullopt;
  if (!ana_->bounds().CannotOverflow(a)) return std::nullopt;
  bool floor = k == NodeKind::kFloorDiv || k == NodeKind::kFloorMod;
  if (!floor && ana_->bounds().Bound(a).min_value < 0) return std::nullopt;
  // From here the operation is a floor one: exact for a >= 0 under truncation too.
  std::optional<LinearSum> A = ToLinear(a);
  if (!A || !NormalizeTerms(&*A)) return std::nullopt;
  std::vector<SplitTerm> divisible, rest;
  for (const SplitTerm& term : A->terms) {
    // floormod drops the divisible terms, which calls must not be.
    bool keep = term.scale % *c == 0 && (is_div || IsPure(term.index));
    (keep ? divisible : rest).push_back(term);
  }
  int64_t q = FloorDivInt(A->base, *c), r = FloorModInt(A->base, *c);
  LinearSum result = is_div ? Part(t, divisible, *c, q) : LinearSum{t, {}, 0};
  LinearSum R = Part(t, rest, 1, r);
  bool unchanged_operand = divisible.empty() && q == 0;  // R is the dividend itself.
  auto finish = [&](LinearSum sum) -> std::optional<Expr> {
    if (!NormalizeTerms(&sum)) return std::nullopt;
    Expr out = ToExpr(sum);
    if (ExprIdentical(out, GetRef(op))) return std::nullopt;
    return out;
  };
  if (R.terms.empty()) {
    if (!AddConst(&result, is_div ? 0 : r)) return std::nullopt;
    return finish(std::move(result));
  }
  // floordiv(R, c) or floormod(R, c) with R's constant in [0, c).
  int64_t k_fixed;
  if (QuotientFixed(ana_->LinearBound(R), *c, &k_fixed)) {
    if (is_div) {
      if (!AddConst(&result, k_fixed)) return std::nullopt;
    } else {
      std::optional<int64_t> shift = CheckedMul(k_fixed, -*c);
      if (!shift || !AddLinear(&result, R) || !AddConst(&result, *shift)) return std::nullopt;
    }
    return finish(std::move(result));
  }
  // Split R as g*T + low with g dividing c and low in [0, g): then
  // floordiv(R, c) == floordiv(T, c/g) and floormod(R, c) == floormod(T, c/g)*g + low.
  // E.g. (i*4 + j) // 16 with j in [0, 4) is i // 4. The largest such g wins.
  int64_t g = 0;
  LinearSum T{t, {}, 0}, low{t, {}, r};
  std::vector<int64_t> candidates;
  int64_t all = *c;
  for (const SplitTerm& term : R.terms) {
    candidates.push_back(Gcd(*c, term.scale));
    all = Gcd(all, term.scale);
  }
  candidates.push_back(all);
  std::sort(candidates.rbegin(), candidates.rend());
  for (int64_t cand : candidates) {
    if (cand <= 1 && r != 0) break;
    LinearSum hi{t, {}, 0}, lo{t, {}, r};
    bool droppable = true;
    for (const SplitTerm& term : R.terms) {
      if (term.scale % cand == 0) {
        SplitTerm u = term;
        u.scale /= cand;
        hi.terms.push_back(u);
      } else {
        lo.terms.push_back(term);
        droppable = droppable && IsPure(term.index);
      }
    }
    if (hi.terms.empty() || (is_div && !droppable)) continue;
    ConstIntBound b = ana_->LinearBound(lo);
    if (b.min_value >= 0 && b.max_value < cand) {
      g = cand;
      T = std::move(hi);
      low = std::move(lo);
      break;
    }
  }
  SplitTerm piece;  // floordiv(T, c / g) or floormod(T, c / g), unscaled.
  int64_t piece_scale = 1;
  if (g > 0) {
    int64_t cg = *c / g;
    if (T.terms.size() == 1 && T.terms[0].scale == 1 &&
        (T.terms[0].extent == 0 || T.terms[0].extent % cg == 0)) {
      const SplitTerm& in = T.terms[0];
      std::optional<int64_t> lower = CheckedMul(in.lower, cg);
      if (is_div && (!lower || !FitsDtype(t, *lower))) return std::nullopt;
      piece = is_div ? SplitTerm{in.index, *lower, in.extent == 0 ? 0 : in.extent / cg, 1}
                     : SplitTerm{in.index, in.lower, cg, 1};
    } else {
      if (unchanged_operand && g == 1) return std::nullopt;  // Nothing to gain.
      std::optional<Expr> operand = ExactOperand(T);
      if (!operand) return std::nullopt;
      piece = is_div ? SplitTerm{*operand, cg, 0, 1} : SplitTerm{*operand, 1, cg, 1};
    }
    if (!is_div) {
      piece_scale = g;
      if (!AddLinear(&result, low)) return std::nullopt;
    }
  } else {
    if (unchanged_operand) return std::nullopt;
    std::optional<Expr> operand = ExactOperand(R);
    if (!operand) return std::nullopt;
    piece = is_div ? SplitTerm{*operand, *c, 0, 1} : SplitTerm{*operand, 1, *c, 1};
  }
  piece.scale = piece_scale;
  if (!AddTerm(&result, std::move(piece))) return std::nullopt;
  return finish(std::move(result));
}

}  // namespace tessel::ir::arith::internal
