// Constant folding with the interpreter's exact semantics: an operation whose
// operands are all constants becomes its value.
//
//   FoldConstant(100i8 + 100i8)        -> -56i8      (wraps at the width)
//   FoldConstant(-7 / 2), (-7 // 2)    -> -3, -4     (C division; floor division)
//   FoldConstant(7 // 0)               -> nothing    (stays a run-time error)
//   FoldConstant(1.5f32 + 2.25f32)     -> 3.75f32
//   FoldConstant(1.5f16 + 2.25f16)     -> nothing    (would round twice)
//   FoldConstant(min(3, 7) < 4)        -> nothing    (operands not constant yet;
//                                                     fold min(3, 7) first)
//
// Float arithmetic folds only for f32/f64, where rounding the double result
// once gives what the interpreter computes; min/max never fold on NaN or on two
// zeros (where implementations disagree). Comparisons of floats fold for all
// float types. Vector operands are left alone.
#ifndef TESSEL_IR_ARITH_CONST_FOLD_H_
#define TESSEL_IR_ARITH_CONST_FOLD_H_

#include <cstdint>
#include <optional>

#include "ir/expr.h"

namespace tessel::ir::arith {

// The value of `e` when its direct operands are constants and folding is exact;
// otherwise nothing. Only looks one level deep.
std::optional<Expr> FoldConstant(const Expr& e);

// The integer operation `kind` (kAdd..kGE, kAnd, kOr) on two values of `t`,
// wrapping at its width; nothing for division by zero. Comparisons give 0 or 1.
std::optional<int64_t> FoldIntOp(NodeKind kind, DataType t, int64_t a, int64_t b);

// `v` wrapped to the width of integer or bool type `t` (sign-extended for signed
// types): C's conversion.
int64_t WrapToDtype(DataType t, int64_t v);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_CONST_FOLD_H_
