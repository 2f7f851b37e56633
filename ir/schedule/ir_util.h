// Small IR rewrites and builders the schedule primitives share.
//
//   PrimFunc g = ReplaceStmts(f, {{old_loop, new_loop}});   // path copy, rest shared
//   Expr e = AddE(MulE(i_0, ConstOf(i_0->dtype, 16)), i_1);  // i_0 * 16 + i_1, folded
//
// Variable substitution and buffer replacement are ir/substitute.h.
//
// The builders (AddE, MulE, ...) fold the constant cases a primitive creates
// itself (x * 1, x + 0, 4 * 16), so a split of a constant loop prints
// `i_0 * 16 + i_1`, not `(i_0 * 16) * 1 + i_1 + 0`; the full simplifier
// (ir/arith/) is applied on top where it is available.
#ifndef TESSEL_IR_SCHEDULE_IR_UTIL_H_
#define TESSEL_IR_SCHEDULE_IR_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::ir::schedule {

// `func` with each statement named in `repl` (by identity) replaced; the path
// from the body to each replaced statement is copied, everything else shared.
PrimFunc ReplaceStmts(const PrimFunc& func, const absl::flat_hash_map<const StmtNode*, Stmt>& repl);

// The value of an integer constant.
std::optional<int64_t> ConstInt(const Expr& e);
// A constant of an integer dtype.
Expr ConstOf(DataType t, int64_t v);
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

// True when `e` uses a variable of `vars` (one variable: arith::UsesVar).
bool UsesAnyVar(const Expr& e, const absl::flat_hash_map<const VarNode*, int>& vars);

// True when `s` holds a store or an evaluate that is not inside a block: code
// the schedule cannot reason about through block iter kinds.
bool HasStmtOutsideBlocks(const Stmt& s);
// `s` with `cond` added (by &&) to the predicate of every block realize that is
// not inside another block.
Stmt AddPredicateToBlocks(const Stmt& s, const Expr& cond);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_IR_UTIL_H_
