// Small expression helpers the arithmetic analyses, schedule primitives and
// lowering passes share.
//
//   AsConstInt(IntImm32(16)) == 16;   AsConstInt(x) == std::nullopt
//   AddE(MulE(i_0, IntImm32(16)), i_1)                -> i_0 * 16 + i_1 (folded)
//   ExprEqual(Add(x, IntImm32(1)), Add(x, IntImm32(1)))  -> true  (same x)
//   ExprEqual(f(), f())                                  -> false (an extern call
//                                                           may return two values)
//
// ExprEqual is deliberately simpler than StructuralEqual: inside one expression
// every variable is free, so variables compare by identity, and it runs in the
// inner loop of rule matching.
//
// The builders (AddE, MulE, ...) fold the constant cases a rewrite creates
// itself (x * 1, x + 0, 4 * 16), so a split of a constant loop prints
// `i_0 * 16 + i_1`, not `(i_0 * 16) * 1 + i_1 + 0`; the full simplifier is
// applied on top where it is available.
#ifndef TESSEL_IR_ARITH_EXPR_UTIL_H_
#define TESSEL_IR_ARITH_EXPR_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace tessel::ir::arith {

// The value of an integer (not bool) constant.
std::optional<int64_t> AsConstInt(const Expr& e);
inline bool IsConstInt(const Expr& e, int64_t v) {
  std::optional<int64_t> c = AsConstInt(e);
  return c && *c == v;
}
// The value of a bool constant.
std::optional<bool> AsConstBool(const Expr& e);

// Scalar signed integers: the types whose arithmetic the simplifier reasons about
// (unsigned types get constant folding only).
inline bool IsIndexType(DataType t) { return t.is_int() && t.is_scalar(); }

// `v` as a constant of `t`, or nothing when `t` cannot hold it.
std::optional<Expr> TryMakeConst(DataType t, int64_t v);
// True when `v` is a value of the signed integer type `t` (any value for 64 bits).
bool FitsInt(DataType t, int64_t v);
// The zero of `t` (0.0 for a float type), an error for a type without one.
absl::StatusOr<Expr> ZeroOf(DataType t);

// Arithmetic that folds constants and the unit cases (for index expressions of
// one scalar integer dtype; both operands must have it).
Expr AddE(const Expr& a, const Expr& b);
Expr MulE(const Expr& a, const Expr& b);
Expr FloorDivE(const Expr& a, const Expr& b);
Expr FloorModE(const Expr& a, const Expr& b);
// a && b, dropping a constant-true side.
Expr AndE(const Expr& a, const Expr& b);
bool IsConstTrue(const Expr& e);
// The terms of a conjunction `a && b && ...` (a constant true gives none).
std::vector<Expr> SplitConjuncts(const Expr& e);

// Deep equality with variables and buffers by identity; extern calls are never
// equal to anything (they may have side effects or differ between calls).
bool ExprEqual(const Expr& a, const Expr& b);
// The same text: like ExprEqual, but calls compare by name and arguments. For
// "did the simplifier change anything", never for merging.
bool ExprIdentical(const Expr& a, const Expr& b);

// A deterministic order for commutative operands: by kind, then constant value
// or variable name, then children. 0 when it cannot tell (e.g. two variables of
// one name), in which case callers keep the given order.
int CompareExpr(const Expr& a, const Expr& b);

// False when `e` calls an external function: such an expression must be neither
// dropped nor duplicated.
bool IsPure(const Expr& e);

// True when evaluating `e` could fault for some values of its variables: it
// loads from a buffer, divides integers by a non-constant, or calls a function. Both arms of a
// select are evaluated, so such an arm must not be rewritten under the select's
// condition (a clamp guarding a load's index would be dropped).
bool MayTrap(const Expr& e);

// True when a variable of `e` satisfies `pred`. The walk stops at the first such
// variable: these run inside the schedule primitives' and region analyses' loops.
bool AnyVar(const Expr& e, absl::FunctionRef<bool(const VarNode*)> pred);
// True when `e` uses `v` (false for a null `e`).
bool UsesVar(const Expr& e, const VarNode* v);
// The distinct variables of `e`, in order of first use.
std::vector<Var> CollectVars(const Expr& e);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_EXPR_UTIL_H_
