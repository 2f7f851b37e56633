// Relaxing one buffer region over some variables, and whether the result is
// exact; the walks that collect regions are in region_collect.cc.
//
//   A[i * 16 + j] over i in [0, 4), j in [0, 16):   [0, 64)   exact (digits tile it)
//   A[i * 2]      over i in [0, 4):                 [0, 7)    covers (holes at odd indices)
//   A[i, i]       over i in [0, 4):                 [0,4)x[0,4) covers (a diagonal)
//   A[i : i + 4]  over i in [0, 8) step 1:          [0, 11)   exact (windows overlap)
#include "ir/arith/region.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/linear_form.h"
#include "ir/arith/region_internal.h"
#include "ir/printer.h"

namespace tessel::ir::arith {

namespace internal {

namespace {

bool IsRelaxed(const IntSetMap& dom, const VarNode* v) {
  auto it = dom.find(v);
  return it != dom.end() && !it->second.is_point();
}

}  // namespace

bool DimIsExact(const Range& range, const IntSetMap& dom, Analyzer* ana,
                std::vector<const VarNode*>* used) {
  std::vector<const VarNode*> rel;
  for (const Var& v : CollectVars(range.min)) {
    if (IsRelaxed(dom, v.get())) rel.push_back(v.get());
  }
  for (const Var& v : CollectVars(range.extent)) {
    if (IsRelaxed(dom, v.get())) return false;  // Windows of varying size.
  }
  if (rel.empty()) return true;
  std::optional<LinearSum> lin = ToLinear(ana->Simplify(range.min));
  if (!lin) return false;
  struct Digit {
    int64_t scale;
    Expr extent;
  };
  std::vector<Digit> digits;
  for (const SplitTerm& t : lin->terms) {
    const auto* v = dyn_cast<VarNode>(t.index);
    if (v != nullptr && t.is_plain() && IsRelaxed(dom, v)) {
      const IntSet& s = dom.at(v);
      if (!s.is_bounded()) return false;
      digits.push_back({t.scale < 0 ? -t.scale : t.scale,
                        ana->Simplify(Add(Sub(s.max(), s.min()), IntImm(s.max()->dtype, 1)))});
    } else if (AnyVar(t.index, [&](const VarNode* u) { return IsRelaxed(dom, u); })) {
      return false;  // A relaxed variable inside a non-linear term.
    }
  }
  std::optional<int64_t> window = AsConstInt(ana->Simplify(range.extent));
  if (!window) {
    // A symbolic window is contiguous when it slides by one.
    if (digits.size() != 1 || digits[0].scale != 1) return false;
  } else {
    // Sorted by stride, each step must not jump past what is covered so far.
    std::sort(digits.begin(), digits.end(),
              [](const Digit& a, const Digit& b) { return a.scale < b.scale; });
    int64_t span = *window;
    for (const Digit& d : digits) {
      std::optional<int64_t> n = AsConstInt(d.extent);
      if (!n) {
        if (digits.size() != 1 || d.scale > span) return false;
        continue;
      }
      if (*n <= 1) continue;
      if (d.scale > span) return false;
      span += d.scale * (*n - 1);
    }
  }
  for (const VarNode* v : rel) {
    if (std::find(used->begin(), used->end(), v) != used->end()) return false;
    used->push_back(v);
  }
  return true;
}

}  // namespace internal

AccessRegion RelaxRegion(const BufferRegion& region, const IntSetMap& dom, Analyzer* ana) {
  AccessRegion out{BufferRegion{region.buffer, {}}, true};
  std::vector<const VarNode*> used;
  for (size_t d = 0; d < region.region.size(); ++d) {
    const Range& r = region.region[d];
    IntSet s = EvalSet(r, dom, ana);
    if (s.is_empty() || !s.is_bounded()) {
      // Unbounded: the whole dimension (a valid program stays inside it).
      Expr shape = region.buffer->shape[d];
      out.region.region.push_back(Range{IntImm(shape->dtype, 0), shape});
      out.exact = false;
      continue;
    }
    out.exact = out.exact && internal::DimIsExact(r, dom, ana, &used);
    out.region.region.push_back(*s.ToRange(ana));
  }
  return out;
}

std::string AccessRegionToString(const AccessRegion& r) {
  // As .tsl writes regions: a point as its index, otherwise `min +: extent`.
  std::string out = absl::StrCat(r.region.buffer->name, "[");
  for (size_t d = 0; d < r.region.region.size(); ++d) {
    const Range& range = r.region.region[d];
    absl::StrAppend(&out, d ? ", " : "", PrintExpr(range.min));
    if (!IsConstInt(range.extent, 1)) absl::StrAppend(&out, " +: ", PrintExpr(range.extent));
  }
  absl::StrAppend(&out, "]", r.exact ? "" : " (covers)");
  return out;
}

}  // namespace tessel::ir::arith
