// Iter-map detection: index expressions to IterSums; see iter_map.h.
//
//   loops f in [0, 32):            f // 8 -> split(f, lower 8, extent 4)
//                                  f %% 8 -> split(f, lower 1, extent 8)
//   loops i in [0, 4), j in [0, 8): i * 8 + j -> fuse: the term of scale 1 is j
//                                  (extent 8), the next needs scale 8: i; the fused
//                                  mark (i * 8 + j) has extent 32
//   predicate io * 16 + ii < 100:  the fused mark (io * 16 + ii) gets extent 100
#include "ir/arith/iter_map.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/iter_map_internal.h"
#include "ir/printer.h"

namespace tessel::ir::arith {

namespace internal {

bool ProveEqual(Analyzer* ana, const Expr& a, const Expr& b) {
  return ExprEqual(a, b) || ana->CanProveEqual(ana->Simplify(a), ana->Simplify(b));
}

bool ProveDivides(Analyzer* ana, const Expr& c, const Expr& x) {
  if (IsConstInt(x, 0)) return true;
  return ana->CanProve(EQ(FloorMod(x, c), IntImm(x->dtype, 0)));
}

}  // namespace internal

namespace {

using internal::ProveDivides;
using internal::ProveEqual;

absl::Status NotAffine(const Expr& e, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(PrintExpr(e), ": ", why));
}

// An index value while rewriting: an IterSum, or a plain expression that uses no
// loop variable.
struct Value {
  bool has_iters = false;
  IterSum sum;
  Expr plain;
};

class IterMapRewriter {
 public:
  IterMapRewriter(Analyzer* ana, IterMapLevel level) : ana_(ana), level_(level) {}

  absl::Status AddLoops(const std::vector<IterMapInput>& loops);
  absl::Status AddPredicate(const Expr& predicate);
  absl::StatusOr<IterSum> RewriteIndex(const Expr& e);
  const std::vector<IterMark>& loop_marks() const { return loop_marks_; }

 private:
  absl::StatusOr<Value> Rewrite(const Expr& e);
  absl::StatusOr<Value> DivMod(const Expr& e, bool is_div, const IterSum& sum, const Expr& c);
  // `sum` (its base apart) as one split of a fused mark; `limit`, if set, is the
  // fused mark's extent (from a predicate).
  absl::StatusOr<IterSplit> Fuse(const IterSum& sum, const Expr& limit);
  // Joins splits of one mark that are neighbouring digits at matching scales:
  // f // 6 %% 3 + f // 18 * 3 is f // 6 (when 18 * 4 is f's extent).
  void MergeAdjacentSplits(std::vector<IterSplit>* args);
  // Replaces the digits of a predicate-cut fused mark, wherever they appear
  // among `args` at one scale, by a split of that mark.
  void CutByPredicates(std::vector<IterSplit>* args);
  // The fused mark made of exactly these splits (lowest digit first), if any.
  IterMark FindFused(const std::vector<IterSplit>& order);
  bool UsesLoops(const Expr& e) const {
    return AnyVar(e, [this](const VarNode* v) { return var_map_.contains(v); });
  }
  Expr S(const Expr& e) { return ana_->Simplify(e); }
  IterSum Add(const IterSum& a, const IterSum& b);
  IterSum Scale(const IterSum& a, const Expr& c);

  Analyzer* ana_;
  IterMapLevel level_;
  std::vector<IterMark> loop_marks_;
  absl::flat_hash_map<const VarNode*, IterSum> var_map_;
  std::vector<IterMark> fused_marks_;
};

absl::Status IterMapRewriter::AddLoops(const std::vector<IterMapInput>& loops) {
  for (const IterMapInput& in : loops) {
    if (!in.var || !in.dom.min || !in.dom.extent || !IsIndexType(in.var->dtype)) {
      return absl::InvalidArgumentError(
          "DetectIterMap: a loop needs an integer variable and a range");
    }
    DataType t = in.var->dtype;
    ana_->Bind(in.var, in.dom);
    Expr extent = S(in.dom.extent);
    if (IsConstInt(extent, 1)) {  // A unit loop is its minimum: a constant.
      var_map_[in.var.get()] = IterSum{{}, in.dom.min};
      continue;
    }
    auto mark = std::make_shared<IterMarkNode>();
    mark->var = in.var;
    mark->var_min = in.dom.min;
    mark->extent = extent;
    loop_marks_.push_back(mark);
    IterSplit split{mark, IntImm(t, 1), extent, IntImm(t, 1)};
    var_map_[in.var.get()] = IterSum{{split}, in.dom.min};
  }
  return absl::OkStatus();
}

IterSum IterMapRewriter::Add(const IterSum& a, const IterSum& b) {
  IterSum r = a;
  for (const IterSplit& s : b.args) {
    bool merged = false;
    for (size_t k = 0; k < r.args.size(); ++k) {
      IterSplit& o = r.args[k];
      if (o.mark == s.mark && ProveEqual(ana_, o.lower_factor, s.lower_factor) &&
          ProveEqual(ana_, o.extent, s.extent)) {
        o.scale = S(ir::Add(o.scale, s.scale));
        if (IsConstInt(o.scale, 0)) r.args.erase(r.args.begin() + k);
        merged = true;
        break;
      }
    }
    if (!merged) r.args.push_back(s);
  }
  r.base = S(ir::Add(a.base, b.base));
  return r;
}

IterSum IterMapRewriter::Scale(const IterSum& a, const Expr& c) {
  IterSum r;
  for (const IterSplit& s : a.args) {
    IterSplit t = s;
    t.scale = S(Mul(s.scale, c));
    if (!IsConstInt(t.scale, 0)) r.args.push_back(std::move(t));
  }
  r.base = S(Mul(a.base, c));
  return r;
}

absl::StatusOr<Value> IterMapRewriter::Rewrite(const Expr& e) {
  if (!UsesLoops(e)) return Value{false, {}, e};
  if (const auto* v = dyn_cast<VarNode>(e)) return Value{true, var_map_.at(v), nullptr};
  const auto* op = dyn_cast<BinaryNode>(e);
  if (op == nullptr) return NotAffine(e, "an iterator inside an operation that is not + - * // %%");
  absl::StatusOr<Value> a = Rewrite(op->a);
  if (!a.ok()) return a;
  absl::StatusOr<Value> b = Rewrite(op->b);
  if (!b.ok()) return b;
  for (Value* v : {&*a, &*b}) {  // Unit loops leave sums without splits: plain values.
    if (v->has_iters && v->sum.args.empty()) *v = Value{false, {}, v->sum.base};
  }
  if (!a->has_iters && !b->has_iters) {  // E.g. u * 2 for a unit loop u.
    return Value{false, {}, S(ValueOrDie(MakeBinary(op->kind(), a->plain, b->plain)))};
  }
  auto as_sum = [](const Value& v) { return v.has_iters ? v.sum : IterSum{{}, v.plain}; };
  switch (op->kind()) {
    case NodeKind::kAdd: return Value{true, Add(as_sum(*a), as_sum(*b)), nullptr};
    case NodeKind::kSub:
      return Value{true, Add(as_sum(*a), Scale(as_sum(*b), IntImm(e->dtype, -1))), nullptr};
    case NodeKind::kMul:
      if (a->has_iters && b->has_iters) return NotAffine(e, "multiplies two iterators");
      if (a->has_iters) return Value{true, Scale(a->sum, b->plain), nullptr};
      return Value{true, Scale(b->sum, a->plain), nullptr};
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      if (b->has_iters) return NotAffine(e, "divides by an iterator");
      bool truncating = op->kind() == NodeKind::kDiv || op->kind() == NodeKind::kMod;
      if (truncating && !ana_->CanProve(GE(op->a, IntImm(e->dtype, 0)))) {
        return NotAffine(e, "truncating division of a value that may be negative");
      }
      bool is_div = op->kind() == NodeKind::kDiv || op->kind() == NodeKind::kFloorDiv;
      return DivMod(e, is_div, a->sum, b->plain);
    }
    default:
      return NotAffine(
          e, absl::StrCat("an iterator inside ", BinaryOpSymbol(op->kind()), " (not affine)"));
  }
}

absl::StatusOr<Value> IterMapRewriter::DivMod(const Expr& e, bool is_div, const IterSum& sum,
                                              const Expr& c) {
  DataType t = e->dtype;
  if (!ana_->CanProve(GT(c, IntImm(t, 0)))) {
    return NotAffine(e, absl::StrCat("the divisor ", PrintExpr(c), " is not provably positive"));
  }
  if (sum.args.empty())
    return Value{false, {}, S(is_div ? FloorDiv(sum.base, c) : FloorMod(sum.base, c))};
  IterSum body{sum.args, IntImm(t, 0)};
  absl::StatusOr<IterSplit> fused = Fuse(body, nullptr);
  if (!fused.ok()) return NotAffine(e, fused.status().message());
  // (split * s + base) // c == (split * s) // c + base / c when c divides base.
  if (!ProveDivides(ana_, c, sum.base)) {
    return NotAffine(e, absl::StrCat("the offset ", PrintExpr(sum.base), " is not a multiple of ",
                                     PrintExpr(c)));
  }
  IterSplit sp = *fused;
  Expr base = is_div && !IsConstInt(sum.base, 0) ? S(FloorDiv(sum.base, c)) : IntImm(t, 0);
  if (ProveDivides(ana_, c, sp.scale)) {
    if (!is_div) return Value{false, {}, IntImm(t, 0)};  // (split * k * c) %% c == 0
    sp.scale = S(FloorDiv(sp.scale, c));
    return Value{true, IterSum{{sp}, base}, nullptr};
  }
  if (!ProveDivides(ana_, sp.scale, c)) {
    return NotAffine(e, absl::StrCat("the scale ", PrintExpr(sp.scale), " and the divisor ",
                                     PrintExpr(c), " do not divide each other"));
  }
  // (split * s) // (s * k) == split // k;  (split * s) %% (s * k) == (split %% k) * s.
  Expr k = S(FloorDiv(c, sp.scale));
  if (!ProveDivides(ana_, k, sp.extent)) {
    return NotAffine(
        e, absl::StrCat("the extent ", PrintExpr(sp.extent), " of ", IterMarkToString(sp.mark),
                        " is not divisible by ", PrintExpr(k)));
  }
  if (is_div) {
    IterSplit r{sp.mark, S(Mul(sp.lower_factor, k)), S(FloorDiv(sp.extent, k)), IntImm(t, 1)};
    return Value{true, IterSum{{r}, base}, nullptr};
  }
  IterSplit r{sp.mark, sp.lower_factor, k, sp.scale};
  return Value{true, IterSum{{r}, base}, nullptr};
}

absl::StatusOr<IterSplit> IterMapRewriter::Fuse(const IterSum& sum, const Expr& limit) {
  DataType t = sum.base->dtype;
  if (sum.args.empty()) return absl::InvalidArgumentError("no iterator to fuse");
  // Digits that a predicate cut into a fused iterator of their own (a padded
  // split) stand for that iterator: j + (o * 2 + i) * 4 with o * 2 + i < 5 is
  // j + (o * 2 + i)[5] * 4, extent 20.
  std::vector<IterSplit> args = sum.args;
  MergeAdjacentSplits(&args);
  CutByPredicates(&args);
  if (args.size() == 1 && !limit) {
    // A predicate may have cut this very iterator: use its mark.
    IterSplit unit_split = args[0];
    unit_split.scale = IntImm(t, 1);
    if (IterMark m = FindFused({unit_split})) {
      return IterSplit{m, IntImm(t, 1), m->extent, args[0].scale};
    }
    return args[0];
  }
  // The smallest scale is the unit digit: a constant minimum, or a scale of 1.
  Expr unit;
  bool all_const = true;
  int64_t min_scale = 0;
  for (const IterSplit& s : args) {
    std::optional<int64_t> c = AsConstInt(s.scale);
    if (!c) {
      all_const = false;
      continue;
    }
    if (*c <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("the term of ", IterMarkToString(s.mark),
                                                     " has the non-positive scale ", *c));
    }
    if (min_scale == 0 || *c < min_scale) min_scale = *c;
  }
  if (all_const) {
    unit = IntImm(t, min_scale);
  } else {
    for (const IterSplit& s : args) {
      if (IsConstInt(s.scale, 1)) unit = s.scale;
    }
    if (!unit) return absl::InvalidArgumentError("no term has scale 1 (symbolic scales)");
  }
  // Digits from the lowest: each scale is the unit times the extents below it.
  std::vector<IterSplit> order;
  std::vector<bool> used(args.size(), false);
  Expr expected = unit, digit = IntImm(t, 1);
  for (size_t n = 0; n < args.size(); ++n) {
    size_t pick = args.size();
    for (size_t k = 0; k < args.size(); ++k) {
      if (!used[k] && ProveEqual(ana_, args[k].scale, expected)) {
        pick = k;
        break;
      }
    }
    if (pick == args.size()) {
      std::string terms;
      for (size_t k = 0; k < args.size(); ++k) {
        if (used[k]) continue;
        absl::StrAppend(&terms, terms.empty() ? "" : ", ", IterMarkToString(args[k].mark),
                        " (scale ", PrintExpr(args[k].scale), ")");
      }
      return absl::InvalidArgumentError(
          absl::StrCat("the terms do not fuse into one iterator: no term with scale ",
                       PrintExpr(expected), " among ", terms));
    }
    used[pick] = true;
    IterSplit s = args[pick];
    s.scale = digit;
    order.push_back(s);
    digit = S(Mul(digit, s.extent));
    expected = S(Mul(expected, s.extent));
  }
  Expr extent = digit;
  if (limit) {
    if (!ana_->CanProve(LE(limit, extent))) {
      return absl::InvalidArgumentError(absl::StrCat("the bound ", PrintExpr(limit),
                                                     " is not provably within the fused extent ",
                                                     PrintExpr(extent)));
    }
    extent = limit;
  }
  // One fused mark per structure: a predicate's mark is the one bindings reuse.
  IterMark mark = FindFused(order);
  if (!mark || limit) {
    auto m = std::make_shared<IterMarkNode>();
    m->fused = IterSum{order, IntImm(t, 0)};
    m->extent = extent;
    if (mark) std::erase(fused_marks_, mark);
    fused_marks_.push_back(m);
    mark = m;
  }
  return IterSplit{mark, IntImm(t, 1), mark->extent, unit};
}

void IterMapRewriter::MergeAdjacentSplits(std::vector<IterSplit>* args) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t a = 0; a < args->size() && !merged; ++a) {
      for (size_t b = 0; b < args->size() && !merged; ++b) {
        const IterSplit& x = (*args)[a];
        const IterSplit& y = (*args)[b];
        if (a == b || x.mark != y.mark) continue;
        if (!ProveEqual(ana_, y.lower_factor, Mul(x.lower_factor, x.extent)) ||
            !ProveEqual(ana_, y.scale, Mul(x.scale, x.extent))) {
          continue;
        }
        IterSplit both{x.mark, x.lower_factor, S(Mul(x.extent, y.extent)), x.scale};
        args->erase(args->begin() + std::max(a, b));
        args->erase(args->begin() + std::min(a, b));
        args->push_back(both);
        merged = true;
      }
    }
  }
}

void IterMapRewriter::CutByPredicates(std::vector<IterSplit>* args) {
  for (const IterMark& m : fused_marks_) {
    const std::vector<IterSplit>& digits = m->fused.args;
    size_t k = digits.size();
    if (k == 0 || k >= args->size()) continue;  // All of it: FindFused reuses m.
    auto same_split = [&](const IterSplit& x, const IterSplit& y) {
      return x.mark == y.mark && ProveEqual(ana_, x.lower_factor, y.lower_factor) &&
             ProveEqual(ana_, x.extent, y.extent);
    };
    // The lowest digit fixes the scale; the others must sit at its multiples.
    for (size_t low = 0; low < args->size(); ++low) {
      if (!same_split((*args)[low], digits[0])) continue;
      Expr base = (*args)[low].scale;
      std::vector<size_t> found = {low};
      for (size_t j = 1; j < k; ++j) {
        for (size_t a = 0; a < args->size(); ++a) {
          if (std::find(found.begin(), found.end(), a) == found.end() &&
              same_split((*args)[a], digits[j]) &&
              ProveEqual(ana_, (*args)[a].scale, Mul(base, digits[j].scale))) {
            found.push_back(a);
            break;
          }
        }
        if (found.size() != j + 1) break;
      }
      if (found.size() != k) continue;
      std::sort(found.rbegin(), found.rend());
      for (size_t a : found) args->erase(args->begin() + a);
      args->push_back(IterSplit{m, IntImm(base->dtype, 1), m->extent, base});
      break;
    }
  }
}

IterMark IterMapRewriter::FindFused(const std::vector<IterSplit>& order) {
  for (const IterMark& m : fused_marks_) {
    if (m->fused.args.size() != order.size()) continue;
    bool same = true;
    for (size_t k = 0; k < order.size() && same; ++k) {
      const IterSplit& x = m->fused.args[k];
      const IterSplit& y = order[k];
      same = x.mark == y.mark && ProveEqual(ana_, x.lower_factor, y.lower_factor) &&
             ProveEqual(ana_, x.extent, y.extent) && ProveEqual(ana_, x.scale, y.scale);
    }
    if (same) return m;
  }
  return nullptr;
}

absl::Status IterMapRewriter::AddPredicate(const Expr& predicate) {
  if (!predicate || AsConstBool(predicate) == true) return absl::OkStatus();
  if (const auto* op = dyn_cast<BinaryNode>(predicate); op && op->kind() == NodeKind::kAnd) {
    absl::Status s = AddPredicate(op->a);
    if (!s.ok()) return s;
    return AddPredicate(op->b);
  }
  if (!UsesLoops(predicate)) return absl::OkStatus();  // About outer variables only.
  auto not_understood = [&](absl::string_view why) {
    if (level_ == IterMapLevel::kNoCheck) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("predicate ", PrintExpr(predicate), ": ", why));
  };
  const auto* op = dyn_cast<BinaryNode>(predicate);
  if (op == nullptr) return not_understood("not a comparison");
  // As `lhs < bound` with the iterators on the left.
  Expr lhs, bound;
  DataType t = op->a->dtype;
  switch (op->kind()) {
    case NodeKind::kLT: lhs = op->a, bound = op->b; break;
    case NodeKind::kLE: lhs = op->a, bound = ir::Add(op->b, IntImm(t, 1)); break;
    case NodeKind::kGT: lhs = op->b, bound = op->a; break;
    case NodeKind::kGE: lhs = op->b, bound = ir::Add(op->a, IntImm(t, 1)); break;
    default: return not_understood("only upper bounds (<, <=) of fused iterators are understood");
  }
  if (UsesLoops(bound))
    return not_understood("only upper bounds of fused iterators are understood");
  absl::StatusOr<Value> v = Rewrite(lhs);
  if (!v.ok()) return not_understood(v.status().message());
  absl::StatusOr<IterSplit> fused =
      Fuse(IterSum{v->sum.args, IntImm(t, 0)}, S(Sub(bound, v->sum.base)));
  if (!fused.ok()) return not_understood(fused.status().message());
  if (!IsConstInt(fused->scale, 1)) return not_understood("the bounded sum has a scale");
  return absl::OkStatus();
}

absl::StatusOr<IterSum> IterMapRewriter::RewriteIndex(const Expr& e) {
  absl::StatusOr<Value> v = Rewrite(e);
  if (!v.ok()) return v.status();
  if (!v->has_iters) return IterSum{{}, v->plain};
  IterSum sum = v->sum;
  if (!sum.args.empty()) {
    absl::StatusOr<IterSplit> fused = Fuse(IterSum{sum.args, IntImm(e->dtype, 0)}, nullptr);
    if (!fused.ok()) return NotAffine(e, fused.status().message());
    sum.args = {*fused};
  }
  return sum;
}

}  // namespace

namespace {

absl::StatusOr<std::vector<IterSum>> DetectOnce(const std::vector<Expr>& indices,
                                                const std::vector<IterMapInput>& loops,
                                                const Expr& predicate, IterMapLevel level,
                                                bool simplify, Analyzer* ana) {
  Analyzer::Scope scope(ana);
  IterMapRewriter rw(ana, level);
  absl::Status s = rw.AddLoops(loops);
  if (!s.ok()) return s;
  s = rw.AddPredicate(predicate ? ana->Simplify(predicate) : predicate);
  if (!s.ok()) return s;
  std::vector<IterSum> out;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!indices[k] || !IsIndexType(indices[k]->dtype)) {
      return absl::InvalidArgumentError(absl::StrCat("index ", k, " is not a scalar integer"));
    }
    absl::StatusOr<IterSum> sum =
        rw.RewriteIndex(simplify ? ana->Simplify(indices[k]) : indices[k]);
    if (!sum.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", k, " (", PrintExpr(indices[k]), "): ", sum.status().message()));
    }
    out.push_back(*std::move(sum));
  }
  if (level == IterMapLevel::kNoCheck) return out;
  s = internal::CheckIterCoverage(out, rw.loop_marks(), level, ana);
  if (!s.ok()) return s;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<IterSum>> DetectIterMap(const std::vector<Expr>& indices,
                                                   const std::vector<IterMapInput>& loops,
                                                   const Expr& predicate, IterMapLevel level,
                                                   Analyzer* ana) {
  // Simplified indices read best, but simplifying can also cut through a fused
  // iterator ((i * 9 + j) // 18 becomes i // 2 when j < 9) and hide how its
  // digits fit together; then the indices as written are tried.
  absl::StatusOr<std::vector<IterSum>> r = DetectOnce(indices, loops, predicate, level, true, ana);
  if (r.ok()) return r;
  absl::StatusOr<std::vector<IterSum>> raw =
      DetectOnce(indices, loops, predicate, level, false, ana);
  return raw.ok() ? raw : r;
}

}  // namespace tessel::ir::arith
