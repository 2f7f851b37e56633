// Small IR rewrites the schedule primitives share.
//
//   PrimFunc g = ReplaceStmts(f, {{old_loop, new_loop}});   // path copy, rest shared
//
// Variable substitution and buffer replacement are ir/substitute.h; the folding
// expression builders (AddE, MulE, ...) are ir/arith/expr_util.h.
#ifndef TESSEL_IR_SCHEDULE_IR_UTIL_H_
#define TESSEL_IR_SCHEDULE_IR_UTIL_H_

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"

namespace tessel::ir::schedule {

// `func` with each statement named in `repl` (by identity) replaced; the path
// from the body to each replaced statement is copied, everything else shared.
PrimFunc ReplaceStmts(const PrimFunc& func, const absl::flat_hash_map<const StmtNode*, Stmt>& repl);

// True when `e` uses a variable of `vars` (one variable: arith::UsesVar).
bool UsesAnyVar(const Expr& e, const absl::flat_hash_map<const VarNode*, int>& vars);

// True when a reduce iter var of `r`'s block is bound to an expression that uses
// `loop_var`: the loop runs over that block's reduction.
bool ReducesOver(const BlockRealizeNode* r, const VarNode* loop_var);

// True when `s` holds a store or an evaluate that is not inside a block: code
// the schedule cannot reason about through block iter kinds.
bool HasStmtOutsideBlocks(const Stmt& s);
// `s` with `cond` added (by &&) to the predicate of every block realize that is
// not inside another block.
Stmt AddPredicateToBlocks(const Stmt& s, const Expr& cond);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_IR_UTIL_H_
