// The sref index of a function (see stmt_index.h).
#include "ir/schedule/stmt_index.h"

#include <algorithm>

namespace tessel::ir::schedule {

StmtIndex::StmtIndex(const PrimFunc& func) { Walk(func->body, -1); }

void StmtIndex::Add(const StmtNode* stmt, int parent) {
  int id = size();
  srefs_.push_back(SRef{stmt, parent, {}});
  (parent < 0 ? top_ : srefs_[parent].children).push_back(id);
  stmts_[stmt] = id;
}

// Iterative over sequences and scopes, recursive only through loops and blocks,
// whose nesting the verifier and the parser bound.
void StmtIndex::Walk(const Stmt& s, int parent) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::kFor: {
      const auto* f = static_cast<const ForNode*>(s.get());
      Add(f, parent);
      int id = size() - 1;
      loops_[f->loop_var.get()] = id;
      Walk(f->body, id);
      return;
    }
    case NodeKind::kBlockRealize: {
      const auto* r = static_cast<const BlockRealizeNode*>(s.get());
      Add(r, parent);
      int id = size() - 1;
      blocks_.emplace(r->block->name, id);
      Walk(r->block->init, id);
      Walk(r->block->body, id);
      return;
    }
    case NodeKind::kSeqStmt:
      for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->seq) Walk(c, parent);
      return;
    case NodeKind::kIfThenElse: {
      const auto* n = static_cast<const IfThenElseNode*>(s.get());
      Walk(n->then_case, parent);
      Walk(n->else_case, parent);
      return;
    }
    case NodeKind::kLetStmt:
      Walk(static_cast<const LetStmtNode*>(s.get())->body, parent);
      return;
    case NodeKind::kAllocate:
      Walk(static_cast<const AllocateNode*>(s.get())->body, parent);
      return;
    case NodeKind::kDeclBuffer:
      Walk(static_cast<const DeclBufferNode*>(s.get())->body, parent);
      return;
    case NodeKind::kBlock: {  // A bare block (not realized) only appears in hand-written IR.
      const auto* b = static_cast<const BlockNode*>(s.get());
      Walk(b->init, parent);
      Walk(b->body, parent);
      return;
    }
    default:
      return;
  }
}

const ForNode* StmtIndex::loop(int i) const { return dyn_cast<ForNode>(srefs_[i].stmt); }

const BlockRealizeNode* StmtIndex::realize(int i) const {
  return dyn_cast<BlockRealizeNode>(srefs_[i].stmt);
}

const BlockNode* StmtIndex::block(int i) const {
  const BlockRealizeNode* r = realize(i);
  return r == nullptr ? nullptr : r->block.get();
}

int StmtIndex::FindLoop(const VarNode* loop_var) const {
  auto it = loops_.find(loop_var);
  return it == loops_.end() ? -1 : it->second;
}

int StmtIndex::FindBlock(const std::string& name) const {
  auto it = blocks_.find(name);
  return it == blocks_.end() ? -1 : it->second;
}

int StmtIndex::FindStmt(const StmtNode* stmt) const {
  auto it = stmts_.find(stmt);
  return it == stmts_.end() ? -1 : it->second;
}

std::vector<std::string> StmtIndex::BlockNames() const {
  std::vector<std::string> names;
  for (int i = 0; i < size(); ++i) {
    if (const BlockNode* b = block(i)) names.push_back(b->name);
  }
  return names;
}

bool StmtIndex::IsAncestor(int a, int b) const {
  for (int p = srefs_[b].parent; p >= 0; p = srefs_[p].parent) {
    if (p == a) return true;
  }
  return false;
}

std::vector<int> StmtIndex::LoopsAbove(int i) const {
  std::vector<int> loops;
  for (int p = srefs_[i].parent; p >= 0 && loop(p) != nullptr; p = srefs_[p].parent) {
    loops.push_back(p);
  }
  std::reverse(loops.begin(), loops.end());
  return loops;
}

int StmtIndex::ScopeBlock(int i) const {
  for (int p = srefs_[i].parent; p >= 0; p = srefs_[p].parent) {
    if (realize(p) != nullptr) return p;
  }
  return -1;
}

std::vector<int> StmtIndex::ChildBlocks(int i) const {
  std::vector<int> out, stack;
  const std::vector<int>& start = i < 0 ? top_ : srefs_[i].children;
  stack.assign(start.rbegin(), start.rend());
  while (!stack.empty()) {
    int c = stack.back();
    stack.pop_back();
    if (realize(c) != nullptr) {
      out.push_back(c);
      continue;
    }
    stack.insert(stack.end(), srefs_[c].children.rbegin(), srefs_[c].children.rend());
  }
  return out;
}

}  // namespace tessel::ir::schedule
