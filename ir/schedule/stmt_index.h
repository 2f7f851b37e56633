// An index of the loops and blocks of one function: the schedule's "sref tree".
//
//   for i { for j { block A(...) }  block B(...) }      srefs (preorder):
//                                                          0 for i        parent -1
//                                                          1 for j        parent 0
//                                                          2 realize A    parent 1
//                                                          3 realize B    parent 0
//   StmtIndex index(func);
//   index.FindLoop(j.get()) == 1;  index.FindBlock("B") == 3;
//   index.LoopsAbove(2) == {0, 1};  index.ChildBlocks(0) == {2, 3}
//
// IR is immutable, so the schedule rebuilds the index after every primitive
// (one walk of the function) instead of patching parent pointers as TVM does;
// handles are resolved through it by loop variable and block name, which
// survive every primitive that keeps the loop or block.
#ifndef TESSEL_IR_SCHEDULE_STMT_INDEX_H_
#define TESSEL_IR_SCHEDULE_STMT_INDEX_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"

namespace tessel::ir::schedule {

struct SRef {
  const StmtNode* stmt = nullptr;  // A ForNode or a BlockRealizeNode.
  int parent = -1;                 // The nearest enclosing loop or block; -1 at the top.
  std::vector<int> children;       // Loops and blocks directly below, in program order.
};

class StmtIndex {
 public:
  StmtIndex() = default;
  explicit StmtIndex(const PrimFunc& func);

  int size() const { return static_cast<int>(srefs_.size()); }
  const SRef& at(int i) const { return srefs_[i]; }
  // Null when sref `i` is not of that kind.
  const ForNode* loop(int i) const;
  const BlockRealizeNode* realize(int i) const;
  const BlockNode* block(int i) const;

  // -1 when absent.
  int FindLoop(const VarNode* loop_var) const;
  int FindBlock(const std::string& name) const;
  int FindStmt(const StmtNode* stmt) const;
  // Every block name in program order.
  std::vector<std::string> BlockNames() const;

  // True when `a` strictly encloses `b`.
  bool IsAncestor(int a, int b) const;
  // The loops between sref `i` and its enclosing block (or the top), outermost first.
  std::vector<int> LoopsAbove(int i) const;
  // The nearest enclosing block of `i`, or -1.
  int ScopeBlock(int i) const;
  // Blocks below `i` (or at the top, for -1) that are not inside another block
  // below `i`, in program order.
  std::vector<int> ChildBlocks(int i) const;

 private:
  void Walk(const Stmt& s, int parent);
  void Add(const StmtNode* stmt, int parent);

  std::vector<SRef> srefs_;
  std::vector<int> top_;  // srefs with parent -1.
  absl::flat_hash_map<const VarNode*, int> loops_;
  absl::flat_hash_map<std::string, int> blocks_;
  absl::flat_hash_map<const StmtNode*, int> stmts_;
};

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_STMT_INDEX_H_
