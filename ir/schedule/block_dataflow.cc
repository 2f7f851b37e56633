// Buffer dataflow between blocks and nest removal (see block_dataflow.h).
#include "ir/schedule/block_dataflow.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/iter_map.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/arith/expr_util.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

class AccessCounter : public IRVisitor {
 public:
  explicit AccessCounter(const BufferNode* buffer) : buffer_(buffer) {}
  void VisitBufferStore(const BufferStoreNode* op) override {
    stores += op->buffer.get() == buffer_;
    IRVisitor::VisitBufferStore(op);
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    loads += op->buffer.get() == buffer_;
    IRVisitor::VisitBufferLoad(op);
  }
  int stores = 0, loads = 0;

 private:
  const BufferNode* buffer_;
};

class BlockNames : public IRVisitor {
 public:
  void VisitBlock(const BlockNode* op) override {
    names.insert(op->name);
    IRVisitor::VisitBlock(op);
  }
  absl::flat_hash_set<std::string> names;
};

class LoadCollector : public IRVisitor {
 public:
  void VisitBufferLoad(const BufferLoadNode* op) override {
    buffers.insert(op->buffer.get());
    IRVisitor::VisitBufferLoad(op);
  }
  absl::flat_hash_set<const BufferNode*> buffers;
};

std::vector<std::string> BlocksDeclaring(const StmtIndex& index, const BufferNode* buffer,
                                         bool writes) {
  std::vector<std::string> out;
  for (int s = 0; s < index.size(); ++s) {
    const BlockNode* b = index.block(s);
    if (b != nullptr && Touches(writes ? b->writes : b->reads, buffer)) out.push_back(b->name);
  }
  return out;
}

// Drops one element of one sequence (and the sequence when one element is left).
class SeqEraser : public IRMutator {
 public:
  explicit SeqEraser(const StmtNode* target) : target_(target) {}
  Stmt VisitSeqStmt(const SeqStmtNode* op) override {
    std::vector<Stmt> kept;
    bool hit = false;
    for (const Stmt& s : op->seq) {
      if (s.get() == target_) {
        hit = true;
        continue;
      }
      kept.push_back(s);
    }
    if (!hit) return IRMutator::VisitSeqStmt(op);
    found = true;
    if (kept.size() == 1) return kept[0];
    return Stmt(MakeNode<SeqStmtNode>(std::move(kept)));
  }
  bool found = false;

 private:
  const StmtNode* target_;
};

class AllocEraser : public IRMutator {
 public:
  explicit AllocEraser(const BufferNode* buffer) : buffer_(buffer) {}
  Stmt VisitBlock(const BlockNode* op) override {
    Stmt s = IRMutator::VisitBlock(op);
    const auto* b = cast<BlockNode>(s.get());
    std::vector<Buffer> kept;
    for (const Buffer& a : b->alloc_buffers) {
      if (a.get() != buffer_) kept.push_back(a);
    }
    if (kept.size() == b->alloc_buffers.size()) return s;
    auto n = MakeNode<BlockNode>(*b);
    n->alloc_buffers = std::move(kept);
    return Stmt(std::move(n));
  }
  Stmt VisitAllocate(const AllocateNode* op) override {
    if (op->buffer.get() == buffer_) return VisitStmt(op->body);
    return IRMutator::VisitAllocate(op);
  }

 private:
  const BufferNode* buffer_;
};

}  // namespace

bool Touches(const std::vector<BufferRegion>& regions, const BufferNode* buffer) {
  for (const BufferRegion& r : regions) {
    if (r.buffer.get() == buffer) return true;
  }
  return false;
}

std::vector<BufferRegion> AccumulatorReads(const BlockNode& block) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& w : block.writes) {
    if (CountLoads(block.body, w.buffer.get()) > 0 && !Touches(block.reads, w.buffer.get()) &&
        !Touches(out, w.buffer.get())) {
      out.push_back(w);
    }
  }
  return out;
}

std::vector<std::string> WritersOf(const StmtIndex& index, const BufferNode* buffer) {
  return BlocksDeclaring(index, buffer, /*writes=*/true);
}

std::vector<std::string> ReadersOf(const StmtIndex& index, const BufferNode* buffer) {
  return BlocksDeclaring(index, buffer, /*writes=*/false);
}

int CountStores(const Stmt& s, const BufferNode* buffer) {
  AccessCounter c(buffer);
  c.VisitStmt(s);
  return c.stores;
}

int CountLoads(const Stmt& s, const BufferNode* buffer) {
  AccessCounter c(buffer);
  c.VisitStmt(s);
  return c.loads;
}

bool IsParam(const PrimFunc& func, const BufferNode* buffer) {
  for (const Param& p : func->params) {
    if (p.is_buffer() && p.buffer.get() == buffer) return true;
  }
  return false;
}

absl::flat_hash_set<std::string> BlocksIn(const Stmt& s) {
  BlockNames v;
  v.VisitStmt(s);
  return std::move(v.names);
}

absl::flat_hash_set<const BufferNode*> LoadedBuffers(const Expr& e) {
  LoadCollector v;
  v.VisitExpr(e);
  return std::move(v.buffers);
}

std::string CheckCoversDomain(const StmtIndex& index, int block) {
  const BlockRealizeNode* r = index.realize(block);
  const BlockNode* b = r->block.get();
  arith::Analyzer ana;
  int scope = index.ScopeBlock(block);
  if (scope >= 0) {
    for (const IterVar& iv : index.block(scope)->iter_vars) ana.Bind(iv.var, iv.dom);
  }
  std::vector<arith::IterMapInput> loops;
  for (int l : index.LoopsAbove(block)) {
    const ForNode* f = index.loop(l);
    loops.push_back({f->loop_var, Range{f->min, f->extent}});
  }
  absl::StatusOr<std::vector<arith::IterSum>> map = arith::DetectIterMap(
      r->iter_values, loops, r->predicate, arith::IterMapLevel::kBijective, &ana);
  if (!map.ok()) {
    return absl::StrCat("the bindings of block ", b->name,
                        " are not an affine bijection of its loops: ", map.status().message());
  }
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    const arith::IterSum& sum = (*map)[k];
    bool whole = ana.CanProveEqual(sum.base, iv.dom.min);
    if (sum.args.empty()) {
      whole = whole && ana.CanProveEqual(iv.dom.extent, IntImm(iv.dom.extent->dtype, 1));
    } else {
      const arith::IterSplit& s = sum.args[0];
      whole = whole && sum.args.size() == 1 && ana.CanProveEqual(s.extent, iv.dom.extent) &&
              ana.CanProveEqual(s.scale, IntImm(s.scale->dtype, 1));
    }
    if (!whole) {
      return absl::StrCat("iter var ", iv.var->name, " of block ", b->name, " (bound to ",
                          PrintExpr(r->iter_values[k]), ") does not span its domain [",
                          PrintExpr(iv.dom.min), ", ",
                          PrintExpr(arith::AddE(iv.dom.min, iv.dom.extent)), ")");
    }
  }
  return "";
}

void BindLoopsAround(const StmtIndex& index, int loop, arith::Analyzer* ana) {
  for (int p = loop; p >= 0; p = index.at(p).parent) {
    if (const ForNode* f = index.loop(p)) {
      ana->Bind(f->loop_var, Range{f->min, f->extent});
      continue;
    }
    for (const IterVar& iv : index.block(p)->iter_vars) ana->Bind(iv.var, iv.dom);
    break;
  }
}

const StmtNode* BlockNestRoot(const StmtIndex& index, int block) {
  int cur = block;
  for (int p = index.at(cur).parent; p >= 0; p = index.at(cur).parent) {
    const ForNode* f = index.loop(p);
    if (f == nullptr || f->body.get() != index.at(cur).stmt) break;
    cur = p;
  }
  return index.at(cur).stmt;
}

absl::StatusOr<PrimFunc> RemoveStmt(const PrimFunc& func, const StmtNode* root) {
  SeqEraser eraser(root);
  PrimFunc out = eraser.VisitPrimFunc(func);
  if (!eraser.found) {
    return absl::FailedPreconditionError(
        "it is the only statement of its scope; removing it would leave an empty body");
  }
  return out;
}

PrimFunc RemoveAlloc(const PrimFunc& func, const BufferNode* buffer) {
  AllocEraser eraser(buffer);
  return eraser.VisitPrimFunc(func);
}

BufferRegion ClipToShape(const BufferRegion& r, arith::Analyzer* ana) {
  BufferRegion out = r;
  for (size_t d = 0; d < out.region.size() && d < r.buffer->shape.size(); ++d) {
    Range& range = out.region[d];
    const Expr& shape = r.buffer->shape[d];
    if (range.min->dtype != shape->dtype || range.extent->dtype != shape->dtype) continue;
    Expr lo = range.min, hi = Add(range.min, range.extent);
    bool clip_lo = !ana->CanProve(GE(lo, IntImm(lo->dtype, 0)));
    bool clip_hi = !ana->CanProve(LE(hi, shape));
    if (!clip_lo && !clip_hi) continue;
    if (clip_lo) lo = Max(lo, IntImm(lo->dtype, 0));
    if (clip_hi) hi = Min(hi, shape);
    range.min = ana->Simplify(lo);
    range.extent = ana->Simplify(Sub(hi, lo));
  }
  return out;
}

std::vector<BufferRegion> MergeReads(const std::vector<BufferRegion>& declared,
                                     const std::vector<arith::AccessRegion>& inferred,
                                     const absl::flat_hash_set<const BufferNode*>& changed,
                                     const BufferNode* dropped) {
  auto inferred_of = [&](const BufferNode* b) -> const BufferRegion* {
    for (const arith::AccessRegion& a : inferred) {
      if (a.region.buffer.get() == b) return &a.region;
    }
    return nullptr;
  };
  std::vector<BufferRegion> out;
  absl::flat_hash_set<const BufferNode*> seen;
  for (const BufferRegion& r : declared) {
    const BufferNode* b = r.buffer.get();
    if (b == dropped || !seen.insert(b).second) continue;
    const BufferRegion* now = changed.contains(b) ? inferred_of(b) : nullptr;
    out.push_back(now != nullptr ? *now : r);
  }
  for (const arith::AccessRegion& a : inferred) {
    const BufferNode* b = a.region.buffer.get();
    if (b == dropped || !changed.contains(b) || !seen.insert(b).second) continue;
    out.push_back(a.region);
  }
  return out;
}

}  // namespace tessel::ir::schedule
