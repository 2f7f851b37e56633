// Integer sets as symbolic intervals: the values an expression takes while some
// of its variables range over sets of their own ("relaxing" those variables).
//
//   IntSetMap dom = {{i.get(), IntSet::FromRange({0, 64})},      // i in [0, 63]
//                    {j.get(), IntSet::FromRange({0, 16})}};     // j in [0, 15]
//   EvalSet(i * 16 + j, dom, &ana)       -> [0, 1023]
//   EvalSet(k * 64 + i, dom, &ana)       -> [k * 64, k * 64 + 63]    (k stays symbolic)
//   EvalSet(floormod(i, 8), dom, &ana)   -> [0, 7]
//   EvalSet(A[i], dom, &ana)             -> everything an i32 holds   (a load: no structure)
//
// Ends are expressions, simplified with the analyzer; a missing end means
// unbounded. Interval arithmetic is sound (every value lies inside) and, for an
// affine expression in which each relaxed variable appears once, tight: both
// ends are reached. region.h builds buffer footprints on it.
#ifndef TESSEL_IR_ARITH_INT_SET_H_
#define TESSEL_IR_ARITH_INT_SET_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/expr.h"
#include "ir/stmt.h"

namespace tessel::ir::arith {

class Analyzer;

class IntSet {
 public:
  IntSet() = default;  // Everything.
  // Every integer (both ends unbounded).
  static IntSet Everything() { return IntSet(); }
  static IntSet Nothing();
  static IntSet Point(Expr value) { return IntSet(value, value); }
  // [min, max], inclusive; a null end is unbounded.
  static IntSet Interval(Expr min, Expr max) { return IntSet(std::move(min), std::move(max)); }
  // [r.min, r.min + r.extent - 1].
  static IntSet FromRange(const Range& r);

  const Expr& min() const { return min_; }  // Null: no lower bound.
  const Expr& max() const { return max_; }  // Null: no upper bound.
  bool is_empty() const { return empty_; }
  bool is_everything() const { return !empty_ && !min_ && !max_; }
  bool has_lower_bound() const { return min_ != nullptr; }
  bool has_upper_bound() const { return max_ != nullptr; }
  bool is_bounded() const { return min_ && max_; }
  // One value: both ends are the same expression.
  bool is_point() const;

  // [min, max - min + 1) for a bounded set; nothing otherwise.
  std::optional<Range> ToRange(Analyzer* ana) const;
  // "[0, n - 1]", "[-inf, 7]", "{}".
  std::string ToString() const;

 private:
  IntSet(Expr min, Expr max) : min_(std::move(min)), max_(std::move(max)) {}

  Expr min_, max_;
  bool empty_ = false;
};

using IntSetMap = absl::flat_hash_map<const VarNode*, IntSet>;

// The set of values of `e` (an index expression) while each variable in `dom`
// ranges over its set; other variables stay symbolic.
IntSet EvalSet(const Expr& e, const IntSetMap& dom, Analyzer* ana);
// The values min..min+extent-1 of a range whose ends may use relaxed variables.
IntSet EvalSet(const Range& r, const IntSetMap& dom, Analyzer* ana);

// The smallest interval holding both, and the intersection (empty if provably so).
IntSet Union(const IntSet& a, const IntSet& b, Analyzer* ana);
IntSet Intersect(const IntSet& a, const IntSet& b, Analyzer* ana);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_INT_SET_H_
