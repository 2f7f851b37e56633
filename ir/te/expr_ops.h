// Arithmetic operators on expressions, so compute bodies read like the math:
//
//   Compute({n}, [&](Var i) { return A(i) * 0.5 + B(i); }, "C");
//   // A(i) * 0.5 is Mul(A[i], 0.5f32): a plain number takes the other operand's dtype
//
// These are C++ conveniences in the spirit of ir/expr.h's short builders: they
// abort on operands of different dtypes, which the op library rules out by
// checking dtypes first and returning a Status. They live in namespace te, so
// code outside it opts in with `using namespace tessel::ir::te` or by name.
#ifndef TESSEL_IR_TE_EXPR_OPS_H_
#define TESSEL_IR_TE_EXPR_OPS_H_

#include <cstdint>
#include <type_traits>

#include "ir/expr.h"

namespace tessel::ir::te {

// `v` as a constant of `dtype`: a FloatImm for floats, an IntImm (truncated) for
// integers and bool. Aborts if the value does not fit.
Expr Const(DataType dtype, double v);

template <typename T>
concept Number = std::is_arithmetic_v<T>;

inline Expr operator+(const Expr& a, const Expr& b) { return Add(a, b); }
inline Expr operator-(const Expr& a, const Expr& b) { return Sub(a, b); }
inline Expr operator*(const Expr& a, const Expr& b) { return Mul(a, b); }
inline Expr operator/(const Expr& a, const Expr& b) { return Div(a, b); }
inline Expr operator-(const Expr& a) { return Sub(Const(a->dtype, 0), a); }

template <Number T> Expr operator+(const Expr& a, T b) { return Add(a, Const(a->dtype, b)); }
template <Number T> Expr operator-(const Expr& a, T b) { return Sub(a, Const(a->dtype, b)); }
template <Number T> Expr operator*(const Expr& a, T b) { return Mul(a, Const(a->dtype, b)); }
template <Number T> Expr operator/(const Expr& a, T b) { return Div(a, Const(a->dtype, b)); }
template <Number T> Expr operator+(T a, const Expr& b) { return Add(Const(b->dtype, a), b); }
template <Number T> Expr operator-(T a, const Expr& b) { return Sub(Const(b->dtype, a), b); }
template <Number T> Expr operator*(T a, const Expr& b) { return Mul(Const(b->dtype, a), b); }
template <Number T> Expr operator/(T a, const Expr& b) { return Div(Const(b->dtype, a), b); }

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_EXPR_OPS_H_
