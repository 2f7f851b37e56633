// The walk behind VerifyFunction (ir/verifier.h), shared by ir/verifier.cc
// (scopes, expressions, parameters, messages) and ir/verify_stmts.cc
// (statements and blocks). Internal to the verifier.
//
//   FunctionVerifier v("mm");
//   absl::Status s = v.Verify(func);   // the first broken rule, or OK
//
// A FunctionVerifier checks one function once; it keeps the state of the walk:
// which variables and buffers are visible, which were ever bound, the blocks
// and thread-bound loops around the current node, and the statement and
// top-level expression being checked (quoted in messages).
#ifndef TESSEL_IR_VERIFY_WALK_H_
#define TESSEL_IR_VERIFY_WALK_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::ir {

class FunctionVerifier {
 public:
  explicit FunctionVerifier(std::string name) : name_(std::move(name)) {}
  absl::Status Verify(const PrimFunc& func);

 private:
  // What binds a variable. Loop, let and iter var bindings are local: a block
  // with iter vars does not see those of its surroundings.
  enum class Binder { kParam, kShape, kLoop, kLet, kIterVar };
  struct VarBinding {
    Binder binder;
    int block_level;        // scoped_blocks_.size() where it was bound.
    const ForNode* loop;    // The binding loop, for kLoop.
  };
  // Wide enough for any i64 or u64 constant and their sums.
  using Int = __int128;

  static const char* BinderName(Binder b);
  static std::string ShowExpr(const Expr& e);
  static std::string ShowStmt(const StmtNode* s);
  static std::optional<Int> ConstInt(const Expr& e);
  static std::string IntText(Int v);

  // An error naming the function and the innermost block, quoting `at` (or the
  // top-level expression) and the current statement.
  absl::Status Fail(const std::string& problem, const ExprNode* at = nullptr) const;

  absl::Status BindVar(const Var& var, Binder binder, const ForNode* loop = nullptr);
  void UnbindVar(const Var& var);
  absl::Status CheckVarUse(const VarNode* v);
  // A buffer being bound: its fields are legal and it was not bound before.
  absl::Status CheckBufferDef(const Buffer& buffer, const char* binder);
  // The buffer's shape, strides and offset as expressions in the current scope.
  absl::Status CheckBufferShape(const Buffer& buffer);
  // Values nested deeper than the parser reads (kMaxAttrNesting) would print as
  // text that does not parse back. `owner`: "function", "loop 'i'", "block 'B'".
  absl::Status CheckAttrs(const Attrs& attrs, const std::string& owner);
  absl::Status CheckBufferUse(const Buffer& buffer, const std::string& what,
                              const ExprNode* at = nullptr);
  absl::Status CheckConstIndices(const Buffer& buffer, const std::vector<Expr>& indices,
                                 const char* what);
  absl::Status CheckRegion(const BufferRegion& region, const char* what);

  // Provable out-of-bounds accesses (ir/verify_bounds.cc). An index as
  // constant + sum of coef * loop variable (each loop with constant range).
  struct Affine {
    Int constant = 0;
    std::vector<std::pair<const VarNode*, Int>> terms;
  };
  // `e` as an affine form of loop variables, block iter vars standing for their
  // bindings; nullopt when it is not one or a part of it may wrap.
  std::optional<Affine> AffineOf(const Expr& e, int depth) const;
  // The smallest and largest value of `f` over its loops' ranges.
  std::pair<Int, Int> Extremes(const Affine& f) const;
  absl::Status CheckAffineIndex(const Buffer& buffer, size_t dim, const Expr& index, Int extent,
                                const char* what);

  // Expressions: CheckRootExpr starts a top-level expression (the one quoted in
  // messages); CheckExpr descends, children first. A null child is left for the
  // parent's factory re-check to report.
  absl::Status CheckRootExpr(const Expr& e);
  absl::Status CheckExpr(const Expr& e);
  absl::Status CheckExprs(const std::vector<Expr>& es);

  // Statements and blocks (ir/verify_stmts.cc).
  absl::Status CheckStmt(const Stmt& s);
  absl::Status CheckStmtNode(const StmtNode* s);
  absl::Status Recheck(const StmtNode* s);
  absl::Status CheckFor(const ForNode* op);
  absl::Status CheckBufferStore(const BufferStoreNode* op);
  absl::Status CheckAllocate(const AllocateNode* op);
  absl::Status CheckDeclBuffer(const DeclBufferNode* op);
  absl::Status CheckBlockRealize(const BlockRealizeNode* op);
  absl::Status CheckBinding(const IterVar& iv, const Expr& value, const BlockRealizeNode* realize);
  absl::Status CheckBlockInside(const BlockNode* block);

  std::string name_;
  absl::flat_hash_map<const VarNode*, VarBinding> visible_;
  absl::flat_hash_map<const VarNode*, Binder> bound_;  // Every variable bound so far.
  absl::flat_hash_set<const BufferNode*> visible_buffers_;
  absl::flat_hash_set<const BufferNode*> bound_buffers_;
  absl::flat_hash_set<std::string> block_names_;
  std::vector<const BlockNode*> blocks_;         // Enclosing blocks, innermost last.
  std::vector<const BlockNode*> scoped_blocks_;  // Those of them with iter vars.
  std::vector<const ForNode*> thread_loops_;     // Enclosing thread-bound loops.
  const StmtNode* stmt_ = nullptr;               // The statement being checked.
  const ExprNode* root_expr_ = nullptr;          // Its top-level expression being checked.
  // How many enclosing guards (if, block predicate, init, zero-trip loop, right
  // operand of && / ||) may keep the current node from running on some iteration.
  int guard_depth_ = 0;
  // The binding of each visible spatial or reduce iter var.
  absl::flat_hash_map<const VarNode*, Expr> iter_values_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_VERIFY_WALK_H_
