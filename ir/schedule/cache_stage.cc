// Shared pieces of the cache stages (see cache_stage.h).
#include "ir/schedule/cache_stage.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/visitor.h"
#include "ir/schedule/ir_util.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

namespace {

bool Declares(const std::vector<BufferRegion>& regions, const BufferNode* buffer) {
  for (const BufferRegion& r : regions) {
    if (r.buffer.get() == buffer) return true;
  }
  return false;
}

// Splices nested sequences into their parent, so an insertion next to an
// element of a sequence leaves one flat sequence.
class SeqFlattener : public IRMutator {
 public:
  Stmt VisitSeqStmt(const SeqStmtNode* op) override {
    Stmt s = IRMutator::VisitSeqStmt(op);
    const auto* seq = static_cast<const SeqStmtNode*>(s.get());
    bool nested = false;
    for (const Stmt& c : seq->seq) nested |= isa<SeqStmtNode>(c.get());
    if (!nested) return s;
    std::vector<Stmt> flat;
    for (const Stmt& c : seq->seq) {
      if (const auto* inner = dyn_cast<SeqStmtNode>(c.get())) {
        flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
      } else {
        flat.push_back(c);
      }
    }
    return Seq(std::move(flat));
  }
};

// The conditions, beyond what `ana` proves, that `idx` (with `at` substituted)
// lies inside `buf`; true when it provably does.
Expr InsideBuffer(const Buffer& buf, const std::vector<Expr>& idx, const VarMap& at,
                  arith::Analyzer* ana) {
  Expr inside = Bool(true);
  for (size_t d = 0; d < idx.size() && d < buf->shape.size(); ++d) {
    Expr e = at.empty() ? idx[d] : Substitute(idx[d], at);
    Expr zero = IntImm(idx[d]->dtype, 0);
    if (!ana->CanProve(GE(e, zero))) inside = arith::AndE(inside, GE(e, zero));
    if (idx[d]->dtype == buf->shape[d]->dtype && !ana->CanProve(LT(e, buf->shape[d]))) {
      inside = arith::AndE(inside, LT(e, buf->shape[d]));
    }
  }
  return inside;
}

// Whether a statement loads `buffer` outside every nested block with an init
// (such a block writes the element before it reads it).
class LoadsBeforeInit : public IRVisitor {
 public:
  explicit LoadsBeforeInit(const BufferNode* buffer) : buffer_(buffer) {}
  bool found = false;
  void VisitBufferLoad(const BufferLoadNode* op) override {
    found |= op->buffer.get() == buffer_;
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBlock(const BlockNode* op) override {
    if (!op->init) IRVisitor::VisitBlock(op);
  }

 private:
  const BufferNode* buffer_;
};

}  // namespace

BufferAccessors FindAccessors(const StmtIndex& index, int scope, const BufferNode* buffer) {
  BufferAccessors out;
  // Every block of the scope, not only its direct children: a block nested in
  // another block of the scope is summarised by the outer block's regions.
  for (int b : index.ChildBlocks(scope)) {
    const BlockNode* block = index.block(b);
    if (Declares(block->reads, buffer)) out.readers.push_back(b);
    if (Declares(block->writes, buffer)) out.writers.push_back(b);
  }
  return out;
}

int LowestCommonPosition(const StmtIndex& index, int scope, const std::vector<int>& srefs) {
  if (srefs.empty()) return scope;
  // Ancestors of the first, innermost first; keep the lowest one above all.
  std::vector<int> chain;
  for (int p = index.at(srefs[0]).parent; p != scope && p >= 0; p = index.at(p).parent) {
    chain.push_back(p);
  }
  chain.push_back(scope);
  int pos = scope;
  for (int cand : chain) {
    bool holds_all = true;
    for (int s : srefs) holds_all &= (cand == scope) || index.IsAncestor(cand, s);
    if (holds_all) {
      pos = cand;
      break;
    }
  }
  while (pos != scope) {
    const ForNode* loop = index.loop(pos);
    if (loop == nullptr || isa<SeqStmtNode>(loop->body.get())) break;
    pos = index.at(pos).parent;
  }
  return pos;
}

int ChildUnder(const StmtIndex& index, int pos, int sref) {
  int c = sref;
  while (c >= 0 && index.at(c).parent != pos) c = index.at(c).parent;
  return c;
}

void BindPath(const StmtIndex& index, int pos, arith::Analyzer* ana) {
  std::vector<int> path;
  for (int p = pos; p >= 0; p = index.at(p).parent) path.push_back(p);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (const ForNode* f = index.loop(*it)) {
      ana->Bind(f->loop_var, Range{f->min, f->extent});
    } else if (const BlockRealizeNode* r = index.realize(*it)) {
      for (size_t k = 0; k < r->block->iter_vars.size() && k < r->iter_values.size(); ++k) {
        ana->Bind(r->block->iter_vars[k].var, r->iter_values[k]);
      }
    }
  }
}

PrimFunc InsertNextTo(const PrimFunc& func, const StmtNode* target, const Stmt& stmt, bool before) {
  Stmt t = GetRef(target);
  Stmt pair = before ? Seq({stmt, t}) : Seq({t, stmt});
  return FlattenSeqs(ReplaceStmts(func, {{target, pair}}));
}

PrimFunc FlattenSeqs(const PrimFunc& func) { return SeqFlattener().VisitPrimFunc(func); }

std::string UniqueBlockName(const StmtIndex& index, const std::string& base) {
  if (index.FindBlock(base) < 0) return base;
  for (int k = 1;; ++k) {
    std::string name = absl::StrCat(base, "_", k);
    if (index.FindBlock(name) < 0) return name;
  }
}

PrimFunc AllocateInScope(const PrimFunc& func, const StmtIndex& index,
                         const std::string& scope_block, const std::vector<Buffer>& buffers) {
  if (scope_block.empty()) {
    Block root = ValueOrDie(
        MakeBlock(UniqueBlockName(index, "root"), {}, {}, {}, func->body, nullptr, buffers));
    auto n = MakeNode<PrimFuncNode>(*func);
    n->body = ValueOrDie(MakeBlockRealize({}, Bool(true), root));
    return PrimFunc(std::move(n));
  }
  const BlockRealizeNode* r = index.realize(index.FindBlock(scope_block));
  auto b = MakeNode<BlockNode>(*r->block);
  b->alloc_buffers.insert(b->alloc_buffers.end(), buffers.begin(), buffers.end());
  Stmt realize(MakeNode<BlockRealizeNode>(r->iter_values, r->predicate, Block(std::move(b))));
  return ReplaceStmts(func, {{r, realize}});
}

absl::StatusOr<Stmt> MakeCopyNest(
    const std::string& name, const std::vector<CopyDim>& dims, const Buffer& dst,
    const std::function<std::vector<Expr>(const std::vector<Expr>&)>& dst_indices,
    const Buffer& src,
    const std::function<std::vector<Expr>(const std::vector<Expr>&)>& src_indices,
    arith::Analyzer* ana) {
  std::vector<Var> loops;
  std::vector<IterVar> iters;
  std::vector<Expr> bindings, vs;
  Expr pred = Bool(true);
  for (size_t d = 0; d < dims.size(); ++d) {
    const CopyDim& dim = dims[d];
    DataType t = dim.extent->dtype;
    Var ax = MakeVar(absl::StrCat("ax", d), t);
    Var v = MakeVar(absl::StrCat("v", d), t);
    loops.push_back(ax);
    iters.push_back(IterVar{v, dim.dom, IterKind::kSpatial});
    Expr value = ana->Simplify(arith::AddE(dim.min, ax));
    bindings.push_back(value);
    vs.push_back(v);
    // The range may overhang the domain (a region relaxed over a tail split):
    // guard what cannot be proven inside.
    {
      arith::Analyzer::Scope s(ana);
      ana->Bind(ax, Range{IntImm(t, 0), dim.extent});
      if (!ana->CanProve(GE(value, dim.dom.min))) pred = arith::AndE(pred, GE(value, dim.dom.min));
      Expr end = ana->Simplify(arith::AddE(dim.dom.min, dim.dom.extent));
      if (!ana->CanProve(LT(value, end))) pred = arith::AndE(pred, LT(value, end));
    }
  }
  std::vector<Expr> di = dst_indices(vs), si = src_indices(vs);
  // A destination index that may leave its buffer limits the copy to the
  // elements inside (the predicate).
  {
    arith::Analyzer::Scope s(ana);
    VarMap at_loops;
    for (size_t d = 0; d < dims.size(); ++d) {
      ana->Bind(loops[d], Range{IntImm(loops[d]->dtype, 0), dims[d].extent});
      at_loops[static_cast<const VarNode*>(vs[d].get())] = bindings[d];
    }
    pred = arith::AndE(pred, InsideBuffer(dst, di, at_loops, ana));
  }
  // A source index that may leave its buffer (reindex of a padded read, which
  // the block guards by a condition) stores zero there instead of loading:
  // the destination is then written at every point the copy declares, so a
  // later copy of it (a second reindex, a cache_read) reads only written
  // elements. The block's own guard never uses those zeros.
  Expr inside_src;
  {
    arith::Analyzer::Scope s(ana);
    for (size_t d = 0; d < dims.size(); ++d) ana->Bind(iters[d].var, dims[d].dom);
    inside_src = InsideBuffer(src, si, {}, ana);
  }
  TESSEL_ASSIGN_OR_RETURN(Expr load, MakeBufferLoad(src, si));
  TESSEL_ASSIGN_OR_RETURN(Stmt store, MakeBufferStore(dst, load, di));
  if (!arith::IsConstTrue(inside_src)) {
    TESSEL_ASSIGN_OR_RETURN(Expr zero, arith::ZeroOf(dst->dtype));
    TESSEL_ASSIGN_OR_RETURN(Stmt store_zero, MakeBufferStore(dst, zero, di));
    TESSEL_ASSIGN_OR_RETURN(store, MakeIfThenElse(inside_src, store, store_zero));
  }
  TESSEL_ASSIGN_OR_RETURN(
      Block block, MakeBlock(name, iters, {PointRegion(src, si)}, {PointRegion(dst, di)}, store));
  TESSEL_ASSIGN_OR_RETURN(Stmt nest, MakeBlockRealize(bindings, pred, block));
  for (size_t d = dims.size(); d-- > 0;) {
    TESSEL_ASSIGN_OR_RETURN(nest, MakeFor(loops[d], IntImm(loops[d]->dtype, 0), dims[d].extent,
                                          ForKind::kSerial, nest));
  }
  return nest;
}

Buffer CacheBuffer(const Buffer& like, const std::string& name, const std::string& scope) {
  auto n = MakeNode<BufferNode>(*like);
  n->name = name;
  n->scope = scope;
  return Buffer(std::move(n));
}

absl::StatusOr<Buffer> BufferAtIndex(const ScheduleState& state, const BlockNode* block,
                                     int64_t index, bool is_write) {
  const std::vector<BufferRegion>& regions = is_write ? block->writes : block->reads;
  if (index >= 0 && index < static_cast<int64_t>(regions.size())) return regions[index].buffer;
  std::vector<std::string> names;
  for (const BufferRegion& r : regions) names.push_back(r.buffer->name);
  return state.ArgError(
      block,
      absl::StrCat(is_write ? "write" : "read", " buffer index ", index,
                   " is out of range: ", DescribeBlock(block), " ", is_write ? "writes " : "reads ",
                   regions.size(), " buffer", regions.size() == 1 ? "" : "s",
                   names.empty() ? "" : absl::StrCat(" (", absl::StrJoin(names, ", "), ")")));
}

std::string CheckReadBeforeWritten(const BlockNode* block, const Buffer& buffer,
                                   const std::string& what) {
  if (block->init) return "";
  LoadsBeforeInit loads(buffer.get());
  loads.VisitStmt(block->body);
  if (!loads.found && !Touches(block->reads, buffer.get())) return "";
  return absl::StrCat(DescribeBlock(block), " reads buffer ", buffer->name,
                      ", which it writes, without an init: ", what,
                      " would be read before it is written");
}

std::string CheckStorageScope(const std::string& scope) {
  if (IsKnownScope(scope)) return "";
  return absl::StrCat("unknown storage scope '", scope, "'; the scopes are global, local, shared");
}

}  // namespace tessel::ir::schedule
