// The walks behind region inference: collect every access of a block body or a
// subtree, relax the variables bound inside, merge accesses per buffer.
//
//   for k in range(0, 23) { block C(vi = i, vj = j, vk = k) { reads(A[vi, vk]) ... } }
//   the block's A[vi, vk] becomes A[i, k] (bindings substituted), then k relaxes:
//   A[i : i + 1, 0 : 23]
//
//   B[vi] = A[vi - 1] + A[vi] + A[vi + 1]: three exact points that touch merge into
//   the exact A[vi - 1 : vi + 2]
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/arith/region_internal.h"
#include "ir/binding_map.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::arith {

namespace {

// One access, each dimension as the inclusive interval [lo, hi].
struct Access {
  Buffer buffer;
  std::vector<Expr> lo, hi;
  bool exact = true;
};

// `lhs < bound` taken from a predicate, used to trim the dimension equal to lhs.
struct UpperBound {
  Expr lhs, bound;
};

class AccessCollector : public IRVisitor {
 public:
  explicit AccessCollector(Analyzer* ana) : ana_(ana) {}

  void AddLocal(const Buffer& b) { local_.insert(b.get()); }
  AccessRegions Result();

  void VisitFor(const ForNode* op) override {
    Range r{Substitute(op->min, lets_), Substitute(op->extent, lets_)};
    bool dependent = UsesRelaxed(r.min) || UsesRelaxed(r.extent);
    IntSet s = EvalSet(r, dom_, ana_);
    Analyzer::Scope scope(ana_);
    if (!dependent) ana_->Bind(op->loop_var, r);
    // A range that moves with an outer relaxed loop makes a non-box iteration space.
    if (dependent) inexact_.insert(op->loop_var.get());
    dom_[op->loop_var.get()] = s.is_bounded() ? s : IntSet::Everything();
    VisitStmt(op->body);
    dom_.erase(op->loop_var.get());
  }
  void VisitLetStmt(const LetStmtNode* op) override {
    VisitExpr(op->value);
    lets_[op->var.get()] = Substitute(op->value, lets_);
    VisitStmt(op->body);
    lets_.erase(op->var.get());
  }
  void VisitIfThenElse(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    ++conditional_;  // The branches may not run: what they access is covered, not exact.
    VisitStmt(op->then_case);
    if (op->else_case) VisitStmt(op->else_case);
    --conditional_;
  }
  void VisitAllocate(const AllocateNode* op) override {
    local_.insert(op->buffer.get());
    VisitStmt(op->body);
  }
  void VisitDeclBuffer(const DeclBufferNode* op) override {
    // A view's accesses touch its source somewhere: the whole source, covering.
    views_[op->buffer.get()] = op->source;
    VisitStmt(op->body);
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    IRVisitor::VisitBufferLoad(op);
    AddPoint(&reads_, op->buffer, op->indices);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    IRVisitor::VisitBufferStore(op);
    AddPoint(&writes_, op->buffer, op->indices);
  }
  void VisitCall(const CallNode* op) override {
    if (op->callee != CallNode::Callee::kAddressOf) return IRVisitor::VisitCall(op);
    // The callee of a packed call may read and write all of the buffer.
    const Buffer& b = cast<BufferLoadNode>(op->args[0])->buffer;
    std::vector<Range> whole;
    for (const Expr& e : b->shape) whole.push_back(Range{IntImm(e->dtype, 0), e});
    AddAccess(&reads_, b, whole, {}, {});
    AddAccess(&writes_, b, whole, {}, {});
  }
  void VisitBlockRealize(const BlockRealizeNode* op) override {
    for (const Expr& v : op->iter_values) VisitExpr(v);
    if (op->predicate) VisitExpr(op->predicate);
    const Block& block = op->block;
    VarMap subst = lets_;
    for (const auto& [v, value] : BindingMap(op)) subst[v] = Substitute(value, lets_);
    std::vector<UpperBound> bounds;
    std::vector<Expr> others;
    if (op->predicate)
      SplitPredicate(ana_->Simplify(Substitute(op->predicate, lets_)), &bounds, &others);
    absl::flat_hash_set<const BufferNode*> own(block->alloc_buffers.size());
    for (const Buffer& b : block->alloc_buffers) own.insert(b.get());
    for (int w = 0; w < 2; ++w) {
      for (const BufferRegion& region : w ? block->writes : block->reads) {
        if (own.contains(region.buffer.get())) continue;
        std::vector<Range> ranges;
        for (const Range& r : region.region) {
          ranges.push_back(Range{Substitute(r.min, subst), Substitute(r.extent, subst)});
        }
        AddAccess(w ? &writes_ : &reads_, region.buffer, ranges, bounds, others);
      }
    }
  }

 private:
  bool UsesRelaxed(const Expr& e) const {
    return AnyVar(e, [this](const VarNode* v) { return dom_.contains(v); });
  }
  void SplitPredicate(const Expr& p, std::vector<UpperBound>* bounds, std::vector<Expr>* others) {
    if (AsConstBool(p) == true) return;
    const auto* op = dyn_cast<BinaryNode>(p);
    if (op != nullptr && op->kind() == NodeKind::kAnd) {
      SplitPredicate(op->a, bounds, others);
      SplitPredicate(op->b, bounds, others);
      return;
    }
    if (op != nullptr && IsIndexType(op->a->dtype)) {
      DataType t = op->a->dtype;
      switch (op->kind()) {
        case NodeKind::kLT: bounds->push_back({op->a, op->b}); return;
        case NodeKind::kLE: bounds->push_back({op->a, Add(op->b, IntImm(t, 1))}); return;
        case NodeKind::kGT: bounds->push_back({op->b, op->a}); return;
        case NodeKind::kGE: bounds->push_back({op->b, Add(op->a, IntImm(t, 1))}); return;
        default: break;
      }
    }
    others->push_back(p);
  }
  void AddPoint(std::vector<Access>* list, const Buffer& buffer, const std::vector<Expr>& indices) {
    std::vector<Range> ranges;
    bool dense = true;
    for (const Expr& i : indices) {
      Expr idx = Substitute(i, lets_);
      if (const auto* b = dyn_cast<BroadcastNode>(idx)) idx = b->value;
      if (const auto* ramp = dyn_cast<RampNode>(idx)) {
        // A vector access covers base .. base + stride * (lanes - 1); with holes
        // unless the stride is 1 or -1.
        std::optional<int64_t> stride = AsConstInt(ana_->Simplify(ramp->stride));
        DataType t = ramp->base->dtype;
        if (!stride) {
          ranges.push_back(Range{});
          continue;
        }
        int64_t span = *stride * (ramp->lanes - 1);
        Expr first = span < 0 ? Add(ramp->base, IntImm(t, span)) : ramp->base;
        ranges.push_back(Range{first, IntImm(t, (span < 0 ? -span : span) + 1)});
        dense = dense && (*stride == 1 || *stride == -1);
      } else if (!IsIndexType(idx->dtype)) {
        ranges.push_back(Range{});  // Not an index we understand: the whole dimension.
      } else {
        ranges.push_back(Range{idx, IntImm(idx->dtype, 1)});
      }
    }
    AddAccess(list, buffer, ranges, {}, {}, dense);
  }
  void AddAccess(std::vector<Access>* list, const Buffer& buffer, const std::vector<Range>& ranges,
                 const std::vector<UpperBound>& bounds, const std::vector<Expr>& others,
                 bool dense = true) {
    if (local_.contains(buffer.get())) return;
    if (auto it = views_.find(buffer.get()); it != views_.end()) {
      Access whole{it->second, {}, {}, false};
      for (const Expr& s : it->second->shape) {
        whole.lo.push_back(IntImm(s->dtype, 0));
        whole.hi.push_back(ana_->Simplify(Sub(s, IntImm(s->dtype, 1))));
      }
      list->push_back(std::move(whole));
      return;
    }
    Access a{buffer, {}, {}, conditional_ == 0 && dense};
    std::vector<bool> used_bound(bounds.size(), false);
    std::vector<const VarNode*> used_vars;
    for (size_t d = 0; d < ranges.size(); ++d) {
      const Range& r = ranges[d];
      IntSet s = r.min ? EvalSet(r, dom_, ana_) : IntSet::Everything();
      Expr hi = s.max();
      if (r.min && hi) {
        Expr lhs = ana_->Simplify(r.min);
        for (size_t b = 0; b < bounds.size(); ++b) {
          if (!ExprEqual(lhs, ana_->Simplify(bounds[b].lhs))) continue;
          // min + extent - 1 < bound + extent - 1: the last element the predicate allows.
          Expr cap = Sub(Add(bounds[b].bound, r.extent), IntImm(r.extent->dtype, 2));
          hi = ana_->Simplify(Min(hi, cap));
          used_bound[b] = true;
        }
      }
      if (!s.min() || !hi) {
        Expr shape = buffer->shape[d];
        a.lo.push_back(IntImm(shape->dtype, 0));
        a.hi.push_back(ana_->Simplify(Sub(shape, IntImm(shape->dtype, 1))));
        a.exact = false;
        continue;
      }
      a.lo.push_back(s.min());
      a.hi.push_back(hi);
      a.exact = a.exact && internal::DimIsExact(r, dom_, ana_, &used_vars) &&
                !AnyVar(r.min, [this](const VarNode* v) { return inexact_.contains(v); });
    }
    // A predicate that trimmed no dimension of this region may skip some of it.
    for (size_t b = 0; b < bounds.size(); ++b) {
      if (!used_bound[b] && !ana_->CanProve(LT(bounds[b].lhs, bounds[b].bound))) a.exact = false;
    }
    for (const Expr& o : others) a.exact = a.exact && ana_->CanProve(o);
    list->push_back(std::move(a));
  }
  AccessRegion Merge(const std::vector<const Access*>& group);

  Analyzer* ana_;
  IntSetMap dom_;
  VarMap lets_;
  absl::flat_hash_set<const VarNode*> inexact_;
  absl::flat_hash_set<const BufferNode*> local_;
  absl::flat_hash_map<const BufferNode*, Buffer> views_;
  int conditional_ = 0;
  std::vector<Access> reads_, writes_;
};

AccessRegion AccessCollector::Merge(const std::vector<const Access*>& in) {
  // Indices of one dimension may differ in width (T[i] with i: i32 and T[j] with
  // j: i64): the bounds are merged in the widest.
  std::vector<Access> widened;
  std::vector<const Access*> group = in;
  const size_t dims = in[0]->lo.size();
  std::vector<DataType> widest(dims);
  bool mixed = false;
  for (size_t d = 0; d < dims; ++d) {
    widest[d] = in[0]->lo[d]->dtype;
    for (const Access* a : in) {
      for (const Expr& e : {a->lo[d], a->hi[d]}) {
        if (e->dtype == widest[d]) continue;
        mixed = true;
        if (e->dtype.bits() > widest[d].bits()) widest[d] = e->dtype;
      }
    }
  }
  if (mixed) {
    widened.reserve(in.size());
    for (const Access* a : in) {
      Access w = *a;
      for (size_t d = 0; d < dims; ++d) {
        if (w.lo[d]->dtype != widest[d]) w.lo[d] = Cast(widest[d], w.lo[d]);
        if (w.hi[d]->dtype != widest[d]) w.hi[d] = Cast(widest[d], w.hi[d]);
      }
      widened.push_back(std::move(w));
    }
    for (size_t i = 0; i < in.size(); ++i) group[i] = &widened[i];
  }
  const Access& first = *group[0];
  size_t ndim = first.lo.size();
  std::vector<Expr> lo = first.lo, hi = first.hi;
  bool exact = true;
  std::vector<size_t> differing;
  for (size_t d = 0; d < ndim; ++d) {
    for (const Access* a : group) {
      exact = exact && a->exact;
      if (!ExprEqual(a->lo[d], first.lo[d]) || !ExprEqual(a->hi[d], first.hi[d])) {
        if (differing.empty() || differing.back() != d) differing.push_back(d);
      }
      lo[d] = ana_->Simplify(Min(lo[d], a->lo[d]));
      hi[d] = ana_->Simplify(Max(hi[d], a->hi[d]));
    }
  }
  if (differing.size() > 1) exact = false;
  if (exact && differing.size() == 1) {
    // The intervals of the one differing dimension must chain into one.
    size_t d = differing[0];
    std::vector<std::pair<Expr, Expr>> spans;
    for (const Access* a : group) spans.emplace_back(a->lo[d], a->hi[d]);
    bool merged = true;
    while (spans.size() > 1 && merged) {
      merged = false;
      for (size_t x = 0; x < spans.size() && !merged; ++x) {
        for (size_t y = x + 1; y < spans.size() && !merged; ++y) {
          auto& [lx, hx] = spans[x];
          auto& [ly, hy] = spans[y];
          DataType t = lx->dtype;
          if (ana_->CanProve(LE(ly, Add(hx, IntImm(t, 1)))) &&
              ana_->CanProve(LE(lx, Add(hy, IntImm(t, 1))))) {
            spans[x] = {ana_->Simplify(Min(lx, ly)), ana_->Simplify(Max(hx, hy))};
            spans.erase(spans.begin() + y);
            merged = true;
          }
        }
      }
    }
    exact = spans.size() == 1;
  }
  AccessRegion out{BufferRegion{first.buffer, {}}, exact};
  for (size_t d = 0; d < ndim; ++d) {
    out.region.region.push_back(
        Range{lo[d], ana_->Simplify(Add(Sub(hi[d], lo[d]), IntImm(hi[d]->dtype, 1)))});
  }
  return out;
}

AccessRegions AccessCollector::Result() {
  AccessRegions out;
  for (int w = 0; w < 2; ++w) {
    const std::vector<Access>& list = w ? writes_ : reads_;
    std::vector<const BufferNode*> order;
    for (const Access& a : list) {
      if (std::find(order.begin(), order.end(), a.buffer.get()) == order.end()) {
        order.push_back(a.buffer.get());
      }
    }
    for (const BufferNode* b : order) {
      std::vector<const Access*> group;
      for (const Access& a : list) {
        if (a.buffer.get() == b) group.push_back(&a);
      }
      (w ? out.writes : out.reads).push_back(Merge(group));
    }
  }
  return out;
}

// The loops and blocks from the root down to `target`.
class PathFinder : public IRVisitor {
 public:
  explicit PathFinder(const Node* target) : target_(target) {}
  std::vector<const StmtNode*> path;
  bool found = false;

  void VisitFor(const ForNode* op) override {
    Enter(op, [&] { IRVisitor::VisitFor(op); });
  }
  void VisitBlockRealize(const BlockRealizeNode* op) override {
    Enter(op, [&] { IRVisitor::VisitBlockRealize(op); });
  }

 private:
  template <typename F>
  void Enter(const StmtNode* op, F descend) {
    if (found) return;
    if (op == target_) {
      found = true;
      return;
    }
    path.push_back(op);
    descend();
    if (!found) path.pop_back();
  }
  const Node* target_;
};

}  // namespace

absl::StatusOr<AccessRegions> InferBlockAccess(const Block& block, Analyzer* ana) {
  if (!block) return absl::InvalidArgumentError("InferBlockAccess: no block");
  Analyzer::Scope scope(ana);
  for (const IterVar& iv : block->iter_vars) ana->Bind(iv.var, iv.dom);
  AccessCollector c(ana);
  for (const Buffer& b : block->alloc_buffers) c.AddLocal(b);
  if (block->init) c.VisitStmt(block->init);
  c.VisitStmt(block->body);
  return c.Result();
}

absl::StatusOr<AccessRegions> InferSubtreeAccess(const Stmt& subtree, Analyzer* ana) {
  if (!subtree) return absl::InvalidArgumentError("InferSubtreeAccess: no statement");
  if (const auto* block = dyn_cast<BlockNode>(subtree)) return InferBlockAccess(GetRef(block), ana);
  AccessCollector c(ana);
  c.VisitStmt(subtree);
  return c.Result();
}

absl::StatusOr<AccessRegions> InferLoopAccess(const PrimFunc& func, const ForNode* loop,
                                              Analyzer* ana) {
  if (!func || !loop) return absl::InvalidArgumentError("InferLoopAccess: no function or loop");
  PathFinder finder(loop);
  finder.VisitStmt(func->body);
  if (!finder.found) {
    return absl::NotFoundError(
        absl::StrCat("InferLoopAccess: loop '", loop->loop_var->name, "' is not in the function"));
  }
  Analyzer::Scope scope(ana);
  for (const StmtNode* s : finder.path) {
    if (const auto* f = dyn_cast<ForNode>(s)) {
      ana->Bind(f->loop_var, Range{f->min, f->extent});
    } else if (const auto* r = dyn_cast<BlockRealizeNode>(s)) {
      for (size_t k = 0; k < r->block->iter_vars.size() && k < r->iter_values.size(); ++k) {
        ana->Bind(r->block->iter_vars[k].var, r->iter_values[k]);
      }
      if (r->predicate) ana->EnterConstraint(r->predicate);
    }
  }
  return InferSubtreeAccess(GetRef(loop), ana);
}

}  // namespace tessel::ir::arith
