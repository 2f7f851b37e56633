// Buffer replacement (see buffer_replace.h).
#include "ir/schedule/buffer_replace.h"

#include "ir/mutator.h"

namespace tessel::ir::schedule {

namespace {

class BufferReplacer : public IRMutator {
 public:
  explicit BufferReplacer(const BufferMap& map) : map_(map) {}

  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitBufferLoad(op);
    const auto* load = static_cast<const BufferLoadNode*>(e.get());
    const Buffer* to = Find(load->buffer);
    if (to == nullptr) return e;
    auto n = MakeNode<BufferLoadNode>(*load);
    n->buffer = *to;
    return Expr(std::move(n));
  }

  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitBufferStore(op);
    const auto* store = static_cast<const BufferStoreNode*>(s.get());
    const Buffer* to = Find(store->buffer);
    if (to == nullptr) return s;
    auto n = MakeNode<BufferStoreNode>(*store);
    n->buffer = *to;
    return Stmt(std::move(n));
  }

  Stmt VisitAllocate(const AllocateNode* op) override {
    Stmt s = IRMutator::VisitAllocate(op);
    const auto* alloc = static_cast<const AllocateNode*>(s.get());
    const Buffer* to = Find(alloc->buffer);
    if (to == nullptr) return s;
    auto n = MakeNode<AllocateNode>(*alloc);
    n->buffer = *to;
    return Stmt(std::move(n));
  }

  Stmt VisitBlock(const BlockNode* op) override {
    Stmt s = IRMutator::VisitBlock(op);
    const auto* block = static_cast<const BlockNode*>(s.get());
    bool changed = false;
    auto regions = [&](std::vector<BufferRegion> rs) {
      for (BufferRegion& r : rs) {
        if (const Buffer* to = Find(r.buffer)) {
          r.buffer = *to;
          changed = true;
        }
      }
      return rs;
    };
    std::vector<BufferRegion> reads = regions(block->reads);
    std::vector<BufferRegion> writes = regions(block->writes);
    std::vector<Buffer> allocs = block->alloc_buffers;
    for (Buffer& b : allocs) {
      if (const Buffer* to = Find(b)) {
        b = *to;
        changed = true;
      }
    }
    if (!changed) return s;
    auto n = MakeNode<BlockNode>(*block);
    n->reads = std::move(reads);
    n->writes = std::move(writes);
    n->alloc_buffers = std::move(allocs);
    return Stmt(std::move(n));
  }

 private:
  const Buffer* Find(const Buffer& b) const {
    auto it = map_.find(b.get());
    return it == map_.end() ? nullptr : &it->second;
  }
  const BufferMap& map_;
};

}  // namespace

Stmt ReplaceBuffers(const Stmt& s, const BufferMap& map) {
  if (map.empty()) return s;
  return BufferReplacer(map).VisitStmt(s);
}

Expr ReplaceBuffers(const Expr& e, const BufferMap& map) {
  if (map.empty()) return e;
  return BufferReplacer(map).VisitExpr(e);
}

}  // namespace tessel::ir::schedule
