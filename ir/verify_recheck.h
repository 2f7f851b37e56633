// Context-free checks of one node at a time, for the verifier (ir/verifier.h).
//
// Nodes built directly with MakeNode<...> bypass the checked factories, so the
// verifier re-runs the factory of each node's kind on the node's own operands:
//
//   // a BinaryNode built by hand as f32 + i32:
//   RecheckExprNode(*node)   // "Add: operand types differ (f32 vs i32)"
//   // a BinaryNode i32 + i32 whose dtype field says f32:
//   RecheckExprNode(*node)   // "Add has type f32 but its operands make it i32"
//
// The factories stay the single source of truth for the typing rules; nothing
// here restates them.
//
// The second helper, IsComplete, says whether a subtree has every required child
// present, so that an error message can print it without the printer walking
// into a null pointer.
#ifndef TESSEL_IR_VERIFY_RECHECK_H_
#define TESSEL_IR_VERIFY_RECHECK_H_

#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::ir {

// The factory's verdict on `e`'s operands, plus agreement of the result dtype
// (and, for constants, of the value) with what `e` holds. Children are not
// visited.
absl::Status RecheckExprNode(const ExprNode& e);
// The same for statements. For a BlockRealize, the block must have passed
// RecheckStmtNode first (the BlockRealize factory reads the block's iter vars).
absl::Status RecheckStmtNode(const StmtNode& s);
// The buffer factory's verdict on a buffer's fields.
absl::Status RecheckBuffer(const BufferNode& b);

// True when no required child anywhere below is null (the optional ones are a
// Block's init and an IfThenElse's else_case).
bool IsComplete(const Expr& e);
bool IsComplete(const Stmt& s);

}  // namespace tessel::ir

#endif  // TESSEL_IR_VERIFY_RECHECK_H_
