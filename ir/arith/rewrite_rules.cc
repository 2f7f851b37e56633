// The rewrite rules of the simplifier, one line each, in the pattern language of
// pattern.h. They cover what the canonical form and the bounds do not: min/max,
// select and logic, and division forms that are not linear.
//
//   min(x * c1, y * c1)  with c1 = 4    ->  min(x, y) * 4
//   !(i < n)                            ->  n <= i
//   select(i < j, i, j)                 ->  min(i, j)
//
// Work done elsewhere (no rule needed): + - * and division by constants
// (canonical_simplify.cc), comparisons decided by bounds or facts and common
// factors (compare_simplify.cc), min/max with provably ordered operands (so
// min(x, x) -> x), `a && b` / `a || b` / select arms simplified under their
// conditions, which known facts decide (so x && x -> x, x || !x -> true)
// (rewrite_simplify.cc), constants (const_fold.cc).
//
// Every rule makes the expression smaller or moves it toward the normal form, so
// rewriting ends; the simplifier also stops after a fixed depth.
#include "ir/arith/pattern.h"

namespace tessel::ir::arith {

const RuleTable& IndexRules() {
  static const RuleTable* table = new RuleTable({
      // ---- min / max -------------------------------------------------------------
      {"min-of-max", "min(max(x, y), x) => x"},
      {"max-of-min", "max(min(x, y), x) => x"},
      {"min-of-min", "min(min(x, y), x) => min(x, y)"},
      {"max-of-max", "max(max(x, y), x) => max(x, y)"},
      {"min-min-const", "min(min(x, c1), c2) => min(x, min(c1, c2))"},
      {"max-max-const", "max(max(x, c1), c2) => max(x, max(c1, c2))"},
      {"min-common-add", "min(x + y, x + z) => x + min(y, z)"},
      {"max-common-add", "max(x + y, x + z) => x + max(y, z)"},
      {"min-common-sub", "min(x - y, x - z) => x - max(y, z)"},
      {"max-common-sub", "max(x - y, x - z) => x - min(y, z)"},
      {"min-scaled", "min(x * c1, y * c1) => min(x, y) * c1  if c1 > 0"},
      {"max-scaled", "max(x * c1, y * c1) => max(x, y) * c1  if c1 > 0"},
      {"min-floordiv", "min(x // c1, y // c1) => min(x, y) // c1  if c1 > 0"},
      {"max-floordiv", "max(x // c1, y // c1) => max(x, y) // c1  if c1 > 0"},

      // ---- division that is not linear ---------------------------------------------
      {"floordiv-cancel", "(x * y) // y => x  if y != 0"},
      {"floormod-cancel", "(x * y) %% y => 0  if y != 0"},
      {"floordiv-of-zero", "0 // x => 0  if x != 0"},
      {"floormod-of-zero", "0 %% x => 0  if x != 0"},
      {"floordiv-lt", "x // c1 < c2 => x < c1 * c2  if c1 > 0"},
      {"lt-floordiv", "c2 < x // c1 => c1 * c2 + c1 <= x  if c1 > 0"},

      // ---- logic -----------------------------------------------------------------
      {"not-not", "!!x => x"},
      {"not-lt", "!(x < y) => y <= x"},
      {"not-le", "!(x <= y) => y < x"},
      {"not-gt", "!(x > y) => x <= y"},
      {"not-ge", "!(x >= y) => x < y"},
      {"not-eq", "!(x == y) => x != y"},
      {"not-ne", "!(x != y) => x == y"},
      {"and-true", "x && true => x"},
      {"and-false", "x && false => false"},
      {"or-true", "x || true => true"},
      {"or-false", "x || false => x"},

      // ---- select ----------------------------------------------------------------
      {"select-same", "select(x, y, y) => y"},
      {"select-not", "select(!x, y, z) => select(x, z, y)"},
      {"select-min", "select(x < y, x, y) => min(x, y)"},
      {"select-max", "select(x < y, y, x) => max(x, y)"},
  });
  return *table;
}

}  // namespace tessel::ir::arith
