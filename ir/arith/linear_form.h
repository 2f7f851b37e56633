// The canonical form of integer index arithmetic: a constant plus a sum of
// scaled split terms, where a split term is floormod(floordiv(x, lower), extent)
// of an atom x (any expression that is not itself a sum).
//
//   i * 16 + j - 3                 -> {i*16, j*1}, base -3
//   (f // 8) * 8 + f %% 8          -> split(f, lower 8) * 8 + split(f, extent 8)
//                                     fuse into split(f) = f        (the key rule)
//   x - x %% 4                     -> split(x, lower 4) * 4         ((x // 4) * 4)
//   4 * (i - 0) + 3 + 0 * C[i]     -> {i*4}, base 3                 (pure 0-terms go)
//
// Adding terms merges equal ones (same atom, lower and extent) and fuses splits
// of one atom that sit next to each other. Everything here is exact integer
// arithmetic: +, - and * are exact modulo 2^bits whatever the order, so a
// LinearSum computes what the expression it was read from computes. A constant
// that leaves the dtype's range makes the operation fail (the caller then keeps
// the expression as it was) instead of wrapping.
#ifndef TESSEL_IR_ARITH_LINEAR_FORM_H_
#define TESSEL_IR_ARITH_LINEAR_FORM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel::ir::arith {

// floormod(floordiv(index, lower), extent) * scale; extent 0 means no floormod.
struct SplitTerm {
  Expr index;
  int64_t lower = 1;
  int64_t extent = 0;
  int64_t scale = 1;

  bool is_plain() const { return lower == 1 && extent == 0; }
  // Same index (ExprEqual), lower and extent: the terms differ only in scale.
  bool SameSource(const SplitTerm& o) const;
};

struct LinearSum {
  DataType dtype;
  std::vector<SplitTerm> terms;
  int64_t base = 0;

  bool is_const() const { return terms.empty(); }
};

// Reads a scalar signed-integer expression as a sum; nothing when a constant
// would leave the dtype's range.
std::optional<LinearSum> ToLinear(const Expr& e);
// A sum holding one atom with scale 1.
LinearSum AtomSum(const Expr& e);

// Builds the expression: terms with positive scale first (largest scale first),
// then the negative ones as subtractions, then the constant.
//   {i*16, j*1, n*-1}, base 1  ->  i * 16 + j - n + 1
Expr ToExpr(const LinearSum& s);
// The unscaled value of a term: floormod(floordiv(index, lower), extent).
Expr SplitValue(const SplitTerm& t);

// s += t, merging and fusing; false when a constant leaves the dtype's range
// (then `s` is left in an unspecified state).
bool AddTerm(LinearSum* s, SplitTerm t);
// s += factor * o.
bool AddLinear(LinearSum* s, const LinearSum& o, int64_t factor = 1);
bool AddConst(LinearSum* s, int64_t c);
// s *= c.
bool ScaleLinear(LinearSum* s, int64_t c);

// For tests and messages: "{(i)*16, (f // 8 %% 4)*1} + 3".
std::string LinearDebugString(const LinearSum& s);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_LINEAR_FORM_H_
