// Coverage of iter maps (does every loop value map to one output, once?) and
// the printed and expression forms of IterSums.
//
//   f[32] // 8 and f[32] %% 8        splits of f at lower 1 (extent 8) and 8 (extent 4):
//                                    1 -> 8 -> 32 = the extent of f: bijective
//   f[32] // 8 alone                 starts at 8, nothing at 1: surjective only
//   i[8] and i[8] %% 4               two splits start at 1: i is used twice
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/iter_map_internal.h"
#include "ir/printer.h"

namespace tessel::ir::arith {

namespace {

// The top digit needs no modulo: floordiv(mark, lower) stays below extent.
bool IsTop(const IterSplit& s) {
  if (IsConstInt(s.lower_factor, 1) && ExprEqual(s.extent, s.mark->extent)) return true;
  Analyzer ana;  // Without context: m * n == n * m, 4 * 8 == 32.
  return ana.CanProveEqual(Mul(s.lower_factor, s.extent), s.mark->extent);
}

std::string SplitToString(const IterSplit& s) {
  std::string out = IterMarkToString(s.mark);
  if (!IsConstInt(s.lower_factor, 1)) absl::StrAppend(&out, " // ", PrintExpr(s.lower_factor));
  if (!IsTop(s)) absl::StrAppend(&out, " %% ", PrintExpr(s.extent));
  if (!IsConstInt(s.scale, 1)) absl::StrAppend(&out, " * ", PrintExpr(s.scale));
  return out;
}

Expr SplitToExpr(const IterSplit& s) {
  Expr v = IterMarkToExpr(s.mark);
  if (!IsConstInt(s.lower_factor, 1)) v = FloorDiv(v, s.lower_factor);
  if (!IsTop(s)) v = FloorMod(v, s.extent);
  if (!IsConstInt(s.scale, 1)) v = Mul(v, s.scale);
  return v;
}

}  // namespace

std::string IterMarkToString(const IterMark& mark) {
  std::string extent = absl::StrCat("[", PrintExpr(mark->extent), "]");
  if (mark->is_loop_var()) {
    if (IsConstInt(mark->var_min, 0)) return absl::StrCat(mark->var->name, extent);
    return absl::StrCat("(", mark->var->name, " - ", PrintExpr(mark->var_min), ")", extent);
  }
  // Highest digit first, as the sum reads.
  std::string inner;
  for (auto it = mark->fused.args.rbegin(); it != mark->fused.args.rend(); ++it) {
    absl::StrAppend(&inner, inner.empty() ? "" : " + ", SplitToString(*it));
  }
  return absl::StrCat("(", inner, ")", extent);
}

std::string IterSumToString(const IterSum& sum) {
  std::string out;
  for (const IterSplit& s : sum.args)
    absl::StrAppend(&out, out.empty() ? "" : " + ", SplitToString(s));
  if (out.empty()) return PrintExpr(sum.base);
  if (!IsConstInt(sum.base, 0)) absl::StrAppend(&out, " + ", PrintExpr(sum.base));
  return out;
}

Expr IterMarkToExpr(const IterMark& mark) {
  if (mark->is_loop_var()) {
    if (IsConstInt(mark->var_min, 0)) return mark->var;
    return Sub(mark->var, mark->var_min);
  }
  return IterSumToExpr(mark->fused);
}

Expr IterSumToExpr(const IterSum& sum) {
  Expr out;
  for (auto it = sum.args.rbegin(); it != sum.args.rend(); ++it) {
    Expr v = SplitToExpr(*it);
    out = out ? Add(out, v) : v;
  }
  if (!out) return sum.base;
  if (sum.base && !IsConstInt(sum.base, 0)) out = Add(out, sum.base);
  return out;
}

namespace internal {

namespace {

struct Use {
  IterSplit split;
  std::string where;  // Which index uses it, for messages.
};

absl::Status Fail(const IterMark& mark, absl::string_view why) {
  std::string what = mark->is_loop_var() ? absl::StrCat("loop variable ", mark->var->name)
                                         : absl::StrCat("fused iterator ", IterMarkToString(mark));
  return absl::InvalidArgumentError(absl::StrCat(what, " ", why));
}

// The splits of one mark: bijective needs them to tile [0, extent) digit by digit
// from lower factor 1; surjective only needs them not to overlap.
absl::Status CheckMark(const IterMark& mark, std::vector<Use> uses, IterMapLevel level,
                       Analyzer* ana) {
  for (size_t a = 0; a < uses.size(); ++a) {
    for (size_t b = a + 1; b < uses.size(); ++b) {
      if (ProveEqual(ana, uses[a].split.lower_factor, uses[b].split.lower_factor)) {
        return Fail(mark, absl::StrCat("is used twice (in ", uses[a].where, " and ", uses[b].where,
                                       "): the map is not injective"));
      }
    }
  }
  DataType t = mark->extent->dtype;
  Expr expected = IntImm(t, 1);
  while (!uses.empty()) {
    size_t pick = uses.size();
    for (size_t k = 0; k < uses.size() && pick == uses.size(); ++k) {
      if (ProveEqual(ana, uses[k].split.lower_factor, expected)) pick = k;
    }
    if (pick == uses.size()) {
      if (level == IterMapLevel::kBijective) {
        return Fail(mark,
                    absl::StrCat("is not covered: no split starts at digit ", PrintExpr(expected),
                                 " (splits used: ", SplitToString(uses[0].split), ", ...)"));
      }
      // Surjective: skip a gap, but the next split must start at or above `expected`.
      size_t low = 0;
      for (size_t k = 1; k < uses.size(); ++k) {
        if (ana->CanProve(LT(uses[k].split.lower_factor, uses[low].split.lower_factor))) low = k;
      }
      if (!ana->CanProve(LE(expected, uses[low].split.lower_factor))) {
        return Fail(mark,
                    absl::StrCat("has overlapping splits (", SplitToString(uses[low].split), ")"));
      }
      pick = low;
    }
    const IterSplit& s = uses[pick].split;
    expected = ana->Simplify(Mul(s.lower_factor, s.extent));
    uses.erase(uses.begin() + pick);
  }
  if (level == IterMapLevel::kBijective && !ProveEqual(ana, expected, mark->extent)) {
    return Fail(mark, absl::StrCat("is covered up to ", PrintExpr(expected), " of its extent ",
                                   PrintExpr(mark->extent)));
  }
  if (!ana->CanProve(LE(expected, mark->extent))) {
    return Fail(mark, absl::StrCat("has splits beyond its extent ", PrintExpr(mark->extent)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckIterCoverage(const std::vector<IterSum>& outputs,
                               const std::vector<IterMark>& loop_marks, IterMapLevel level,
                               Analyzer* ana) {
  // A bijection onto [base, base + extent) needs scale 1: i * 4 takes every
  // fourth value. (Surjective maps are about digits and allow scales.)
  for (size_t k = 0; k < outputs.size() && level == IterMapLevel::kBijective; ++k) {
    for (const IterSplit& s : outputs[k].args) {
      if (!IsConstInt(s.scale, 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", k, " (", IterSumToString(outputs[k]), ") has scale ",
                         PrintExpr(s.scale), ": it skips values of its range"));
      }
    }
  }
  // Uses of every mark reached, expanding each fused mark's own splits once.
  std::vector<IterMark> order;
  std::vector<std::vector<Use>> uses;
  auto add = [&](const IterSplit& s, std::string where) {
    for (size_t k = 0; k < order.size(); ++k) {
      if (order[k] == s.mark) {
        uses[k].push_back(Use{s, std::move(where)});
        return false;
      }
    }
    order.push_back(s.mark);
    uses.push_back({Use{s, std::move(where)}});
    return true;
  };
  std::vector<IterMark> to_expand;
  for (size_t k = 0; k < outputs.size(); ++k) {
    for (const IterSplit& s : outputs[k].args) {
      if (add(s, absl::StrCat("index ", k)) && !s.mark->is_loop_var()) to_expand.push_back(s.mark);
    }
  }
  while (!to_expand.empty()) {
    IterMark m = to_expand.back();
    to_expand.pop_back();
    for (const IterSplit& s : m->fused.args) {
      if (add(s, IterMarkToString(m)) && !s.mark->is_loop_var()) to_expand.push_back(s.mark);
    }
  }
  for (size_t k = 0; k < order.size(); ++k) {
    absl::Status s = CheckMark(order[k], uses[k], level, ana);
    if (!s.ok()) return s;
  }
  if (level == IterMapLevel::kBijective) {
    for (const IterMark& m : loop_marks) {
      if (std::find(order.begin(), order.end(), m) == order.end()) {
        return Fail(m, "is not used by any index: the map is not injective");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace internal

}  // namespace tessel::ir::arith
