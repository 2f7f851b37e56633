// Quasi-affine reading of bindings (see binding_analysis.h). ARITH-DEPENDENT:
// to be replaced by ir/arith's iter-map detection once it lands.
#include "ir/schedule/binding_analysis.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/stmt_index.h"

namespace tessel::ir::schedule {

namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct Bound {
  int64_t lo, hi;
};

// The range of an unscaled term, when its variable's range is known.
std::optional<Bound> TermRange(const IterTerm& t, const LoopRanges& ranges) {
  auto it = ranges.find(t.var);
  if (it == ranges.end()) return std::nullopt;
  auto [min, extent] = it->second;
  if (extent <= 0) return std::nullopt;
  int64_t hi;
  if (__builtin_add_overflow(min, extent - 1, &hi)) return std::nullopt;
  Bound b{FloorDivInt(min, t.lower), FloorDivInt(hi, t.lower)};
  if (t.extent > 0 && !(b.lo >= 0 && b.hi < t.extent)) b = {0, t.extent - 1};
  return b;
}

// The range of a whole sum.
std::optional<Bound> SumRange(const IterSum& s, const LoopRanges& ranges) {
  Bound total{s.base, s.base};
  for (const IterTerm& t : s.terms) {
    std::optional<Bound> r = TermRange(t, ranges);
    if (!r) return std::nullopt;
    int64_t a, b;
    if (__builtin_mul_overflow(r->lo, t.scale, &a) || __builtin_mul_overflow(r->hi, t.scale, &b)) {
      return std::nullopt;
    }
    if (__builtin_add_overflow(total.lo, std::min(a, b), &total.lo) ||
        __builtin_add_overflow(total.hi, std::max(a, b), &total.hi)) {
      return std::nullopt;
    }
  }
  return total;
}

bool AddTermTo(IterSum* s, IterTerm t) {
  for (auto it = s->terms.begin(); it != s->terms.end(); ++it) {
    if (it->var == t.var && it->lower == t.lower && it->extent == t.extent) {
      if (__builtin_add_overflow(it->scale, t.scale, &it->scale)) return false;
      if (it->scale == 0) s->terms.erase(it);
      return true;
    }
  }
  if (t.scale != 0) s->terms.push_back(t);
  return true;
}

std::optional<IterSum> Merge(IterSum a, const IterSum& b, int64_t sign) {
  for (IterTerm t : b.terms) {
    if (__builtin_mul_overflow(t.scale, sign, &t.scale) || !AddTermTo(&a, t)) return std::nullopt;
  }
  int64_t nb;
  if (__builtin_mul_overflow(b.base, sign, &nb) || __builtin_add_overflow(a.base, nb, &a.base)) {
    return std::nullopt;
  }
  return a;
}

std::optional<IterSum> Scale(IterSum s, int64_t c) {
  if (c == 0) return IterSum{};
  for (IterTerm& t : s.terms) {
    if (__builtin_mul_overflow(t.scale, c, &t.scale)) return std::nullopt;
  }
  if (__builtin_mul_overflow(s.base, c, &s.base)) return std::nullopt;
  return s;
}

// Splits s into c * high + low, where every scale of high's terms was a
// multiple of c; the base goes to high as far as it is one.
void SplitByMultiple(const IterSum& s, int64_t c, IterSum* high, IterSum* low) {
  for (const IterTerm& t : s.terms) {
    if (t.scale % c == 0) {
      IterTerm h = t;
      h.scale /= c;
      high->terms.push_back(h);
    } else {
      low->terms.push_back(t);
    }
  }
  high->base = FloorDivInt(s.base, c);
  low->base = s.base - high->base * c;
}

bool IsSingleUnscaled(const IterSum& s) {
  return s.terms.size() == 1 && s.base == 0 && s.terms[0].scale == 1;
}

std::optional<IterSum> DivSum(const IterSum& s, int64_t c, const LoopRanges& ranges) {
  if (IsSingleUnscaled(s)) {
    IterTerm t = s.terms[0];
    if (t.extent == 0 || t.extent % c == 0) {
      if (__builtin_mul_overflow(t.lower, c, &t.lower)) return std::nullopt;
      if (t.extent != 0) t.extent /= c;
      return IterSum{{t}, 0};
    }
  }
  IterSum high, low;
  SplitByMultiple(s, c, &high, &low);
  std::optional<Bound> r = SumRange(low, ranges);
  if (r && r->lo >= 0 && r->hi < c) return high;
  return std::nullopt;
}

std::optional<IterSum> ModSum(const IterSum& s, int64_t c, const LoopRanges& ranges) {
  if (std::optional<Bound> r = SumRange(s, ranges); r && r->lo >= 0 && r->hi < c) return s;
  if (IsSingleUnscaled(s)) {
    IterTerm t = s.terms[0];
    if (t.extent == 0 || t.extent % c == 0) {
      t.extent = c;
      return IterSum{{t}, 0};
    }
  }
  IterSum high, low;
  SplitByMultiple(s, c, &high, &low);
  std::optional<Bound> r = SumRange(low, ranges);
  if (r && r->lo >= 0 && r->hi < c) return low;
  return std::nullopt;
}

}  // namespace

LoopRanges RangesAbove(const StmtIndex& index, int sref) {
  LoopRanges ranges;
  for (int p = sref; p >= 0; p = index.at(p).parent) {
    const ForNode* f = index.loop(p);
    if (f == nullptr) continue;
    std::optional<int64_t> min = ConstInt(f->min), extent = ConstInt(f->extent);
    if (min && extent) ranges[f->loop_var.get()] = {*min, *extent};
  }
  return ranges;
}

std::optional<IterSum> ReadIterSum(const Expr& e, const LoopRanges& ranges) {
  if (!e || !e->dtype.is_int() || !e->dtype.is_scalar()) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::kIntImm: return IterSum{{}, static_cast<const IntImmNode*>(e.get())->value};
    case NodeKind::kVar: return IterSum{{IterTerm{static_cast<const VarNode*>(e.get())}}, 0};
    case NodeKind::kAdd:
    case NodeKind::kSub: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      std::optional<IterSum> x = ReadIterSum(b->a, ranges), y = ReadIterSum(b->b, ranges);
      if (!x || !y) return std::nullopt;
      return Merge(*x, *y, e->kind() == NodeKind::kAdd ? 1 : -1);
    }
    case NodeKind::kMul: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      if (std::optional<int64_t> c = ConstInt(b->b)) {
        std::optional<IterSum> x = ReadIterSum(b->a, ranges);
        return x ? Scale(*x, *c) : std::nullopt;
      }
      if (std::optional<int64_t> c = ConstInt(b->a)) {
        std::optional<IterSum> x = ReadIterSum(b->b, ranges);
        return x ? Scale(*x, *c) : std::nullopt;
      }
      return std::nullopt;
    }
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      std::optional<int64_t> c = ConstInt(b->b);
      if (!c || *c <= 0) return std::nullopt;
      std::optional<IterSum> x = ReadIterSum(b->a, ranges);
      if (!x) return std::nullopt;
      return e->kind() == NodeKind::kFloorDiv ? DivSum(*x, *c, ranges) : ModSum(*x, *c, ranges);
    }
    default: return std::nullopt;
  }
}

std::string CheckAffineBindings(const BlockRealizeNode* realize,
                                const absl::flat_hash_map<const VarNode*, int>& loops,
                                const LoopRanges& ranges) {
  const BlockNode* block = realize->block.get();
  absl::flat_hash_map<const VarNode*, std::vector<IterTerm>> per_loop;
  for (size_t k = 0; k < block->iter_vars.size() && k < realize->iter_values.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const Expr& value = realize->iter_values[k];
    if (!UsesAnyVar(value, loops)) continue;
    std::string where = absl::StrCat("iter var ", iv.var->name, " of block ", block->name,
                                     " (bound to ", PrintExpr(value), ")");
    if (iv.kind == IterKind::kOpaque) {
      return absl::StrCat(where, " is opaque: its iterations have no known order freedom");
    }
    std::optional<IterSum> sum = ReadIterSum(value, ranges);
    if (!sum) return absl::StrCat(where, " is not an affine binding of the loops");
    for (const IterTerm& t : sum->terms) {
      if (!loops.contains(t.var)) continue;
      // A reduction must meet its init first: its bindings may not run backwards.
      if (t.scale <= 0 && iv.kind == IterKind::kReduce) {
        return absl::StrCat(where, " decreases as loop ", t.var->name, " grows");
      }
      per_loop[t.var].push_back(t);
    }
  }
  for (auto& [var, terms] : per_loop) {
    std::sort(terms.begin(), terms.end(),
              [](const IterTerm& a, const IterTerm& b) { return a.lower < b.lower; });
    for (size_t k = 0; k + 1 < terms.size(); ++k) {
      int64_t end;
      bool overlap = terms[k].extent == 0 ||
                     __builtin_mul_overflow(terms[k].lower, terms[k].extent, &end) ||
                     end > terms[k + 1].lower;
      if (overlap) {
        return absl::StrCat("loop ", var->name, " feeds overlapping parts of block ", block->name,
                            "'s bindings, so the bindings are not a bijection of the loops");
      }
    }
  }
  return "";
}

bool IsInjectiveIn(const BlockRealizeNode* realize, const VarNode* loop,
                   std::optional<int64_t> min, std::optional<int64_t> extent,
                   const LoopRanges& ranges) {
  if (extent && *extent <= 1) return true;
  const BlockNode* block = realize->block.get();
  std::vector<IterTerm> candidates;
  for (size_t k = 0; k < block->iter_vars.size() && k < realize->iter_values.size(); ++k) {
    if (block->iter_vars[k].kind != IterKind::kSpatial) continue;
    std::optional<IterSum> sum = ReadIterSum(realize->iter_values[k], ranges);
    if (!sum) continue;
    const IterTerm* only = nullptr;
    int count = 0;
    for (const IterTerm& t : sum->terms) {
      if (t.var == loop) {
        only = &t;
        ++count;
      }
    }
    if (count == 1) candidates.push_back(*only);
  }
  for (const IterTerm& t : candidates) {
    if (t.lower == 1 && t.extent == 0) return true;  // A plain, nonzero multiple of the loop.
  }
  // Splits of the loop that together cover every digit of it (floordiv and
  // floormod read a loop starting at 0 as mixed-radix digits).
  if (!min || *min != 0) return false;
  int64_t covered = 1;
  while (true) {
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const IterTerm& t) { return t.lower == covered; });
    if (it == candidates.end()) return false;
    if (it->extent == 0) return true;
    if (__builtin_mul_overflow(covered, it->extent, &covered)) return true;
    if (extent && covered >= *extent) return true;
  }
}

}  // namespace tessel::ir::schedule
