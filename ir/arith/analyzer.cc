// The Analyzer's context (bindings, facts, scopes) and its proofs; see analyzer.h.
//
//   Bind(i, [0, n))          i in [0, +inf) as a bound; facts -i <= 0, i - n + 1 <= 0
//   EnterConstraint(i < 10)  fact i - 9 <= 0; i narrowed to [0, 9]
//   CanProve(i < n + 1)      the fact i - n + 1 <= 0 leaves i - n <= 0 to bounds: true
#include "ir/arith/analyzer.h"

#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/arith/simplify_internal.h"

namespace tessel::ir::arith {

namespace {

bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

}  // namespace

Analyzer::Analyzer(AnalyzerOptions options)
    : options_(options), bounds_(options.assume_no_overflow) {}

Analyzer::Scope::Scope(Analyzer* analyzer)
    : analyzer_(analyzer),
      bounds_checkpoint_(analyzer->bounds_.Checkpoint()),
      linear_facts_(analyzer->linear_facts_.size()),
      literal_facts_(analyzer->literal_facts_.size()) {}

Analyzer::Scope::~Scope() {
  analyzer_->bounds_.Rollback(bounds_checkpoint_);
  analyzer_->linear_facts_.resize(linear_facts_);
  analyzer_->literal_facts_.resize(literal_facts_);
}

void Analyzer::Bind(const Var& v, const Range& range) {
  if (!range.min || !range.extent) return;
  ConstIntBound lo = bounds_.Bound(range.min);
  ConstIntBound ext = bounds_.Bound(range.extent);
  ConstIntBound b{lo.min_value, SatSub(SatAdd(lo.max_value, ext.max_value), 1)};
  // An empty range binds nothing: the code it guards never runs.
  if (!b.is_empty() && ext.max_value > 0) bounds_.Update(v, b, /*replace=*/true);
  if (!IsIndexType(v->dtype) || range.min->dtype != v->dtype || range.extent->dtype != v->dtype) {
    return;
  }
  // Symbolic ends become facts: min - v <= 0 and v - (min + extent) + 1 <= 0.
  if (!lo.is_const() || !ext.is_const()) {
    AddComparisonFacts(GE(v, range.min));
    AddComparisonFacts(LT(v, Add(range.min, range.extent)));
  }
}

void Analyzer::Bind(const Var& v, const Expr& value) {
  if (!value) return;
  bounds_.Update(v, bounds_.Bound(value), /*replace=*/true);
  if (IsIndexType(v->dtype) && value->dtype == v->dtype && !isa<IntImmNode>(value)) {
    AddComparisonFacts(EQ(v, value));
  }
}

void Analyzer::Bind(const Var& v, const ConstIntBound& bound) {
  bounds_.Update(v, bound, /*replace=*/true);
}

void Analyzer::EnterConstraint(const Expr& condition) {
  if (!condition || !condition->dtype.is_bool() || !condition->dtype.is_scalar()) return;
  EnterSimplifiedConstraint(Simplify(condition));
}

void Analyzer::EnterSimplifiedConstraint(const Expr& c) {
  if (!c || !c->dtype.is_bool() || !c->dtype.is_scalar()) return;
  if (AsConstBool(c)) return;  // true adds nothing; false: unreachable, nothing to learn.
  if (const auto* op = dyn_cast<BinaryNode>(c); op != nullptr && op->kind() == NodeKind::kAnd) {
    EnterSimplifiedConstraint(op->a);
    EnterSimplifiedConstraint(op->b);
    return;
  }
  literal_facts_.push_back(c);
  AddComparisonFacts(c);
}

void Analyzer::AddComparisonFacts(const Expr& cond) {
  const auto* op = dyn_cast<BinaryNode>(cond);
  if (op == nullptr || !IsCompare(op->kind()) || op->kind() == NodeKind::kNE) return;
  if (!bounds_.CannotOverflow(op->a) || !bounds_.CannotOverflow(op->b)) return;
  std::optional<LinearSum> d = internal::LinearDifference(op->a, op->b);
  if (!d) return;
  LinearSum neg{d->dtype, {}, 0};
  if (!AddLinear(&neg, *d, -1)) return;
  std::vector<LinearSum> facts;
  switch (op->kind()) {
    case NodeKind::kLT: facts.push_back(*d); break;  // d + 1 <= 0 (the 1 below)
    case NodeKind::kLE: facts.push_back(*d); break;
    case NodeKind::kGT: facts.push_back(neg); break;
    case NodeKind::kGE: facts.push_back(neg); break;
    default:
      facts.push_back(*d);
      facts.push_back(neg);
      break;  // ==
  }
  bool strict = op->kind() == NodeKind::kLT || op->kind() == NodeKind::kGT;
  if (strict && !AddConst(&facts.back(), 1)) return;
  for (LinearSum& f : facts) {
    if (f.terms.empty()) continue;
    NarrowVarBounds(f);
    linear_facts_.push_back(std::move(f));
  }
}

void Analyzer::NarrowVarBounds(const LinearSum& fact) {
  // s*v + rest <= 0 bounds v by -min(rest) / s from the side s points to.
  for (size_t k = 0; k < fact.terms.size(); ++k) {
    const SplitTerm& t = fact.terms[k];
    const auto* v = dyn_cast<VarNode>(t.index);
    if (v == nullptr || !t.is_plain()) continue;
    LinearSum rest = fact;
    rest.terms.erase(rest.terms.begin() + k);
    int64_t rmin = LinearBound(rest).min_value;
    if (IsInf(rmin)) continue;
    ConstIntBound b = ConstIntBound::Everything();
    if (t.scale > 0) {
      b.max_value = FloorDivInt(SatNeg(rmin), t.scale);  // v <= floor(-rmin / s)
    } else {
      b.min_value = CeilDivInt(rmin, -t.scale);  // v >= ceil(rmin / -s)
    }
    bounds_.Update(GetRef(v), b);
  }
}

ConstIntBound Analyzer::LinearBound(const LinearSum& s) const {
  ConstIntBound b = ConstIntBound::Point(s.base);
  for (const SplitTerm& t : s.terms) {
    ConstIntBound v = internal::TermValueBound(bounds_.Bound(t.index), t);
    b = BoundAdd(b, BoundScale(v, t.scale));
  }
  return b;
}

Expr Analyzer::Simplify(const Expr& e) {
  if (!e) return e;
  internal::Simplifier s(this);
  return s.VisitExpr(e);
}

bool Analyzer::CanProve(const Expr& condition) {
  if (!condition || !condition->dtype.is_bool() || !condition->dtype.is_scalar()) return false;
  return internal::TryDecide(*this, Simplify(condition)) == true;
}

bool Analyzer::CanProveEqual(const Expr& a, const Expr& b) {
  if (!a || !b || a->dtype != b->dtype) return false;
  if (ExprEqual(a, b)) return true;
  if (!IsIndexType(a->dtype)) return false;
  return CanProve(EQ(a, b));
}

}  // namespace tessel::ir::arith
