// transform_layout (see transform_layout.h).
#include "ir/schedule/primitive/transform_layout.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/iter_map.h"
#include "ir/arith/region.h"
#include "ir/fallible_mutator.h"
#include "ir/printer.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// Where a buffer is bound, and whether a view uses it.
class DefinitionFinder : public IRVisitor {
 public:
  explicit DefinitionFinder(const BufferNode* b) : buffer_(b) {}
  void VisitBlock(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) allocated |= b.get() == buffer_;
    IRVisitor::VisitBlock(op);
  }
  void VisitAllocate(const AllocateNode* op) override {
    allocated |= op->buffer.get() == buffer_;
    IRVisitor::VisitAllocate(op);
  }
  void VisitDeclBuffer(const DeclBufferNode* op) override {
    if (op->buffer.get() == buffer_ || op->source.get() == buffer_) view = op;
    IRVisitor::VisitDeclBuffer(op);
  }
  const BufferNode* buffer_;
  bool allocated = false;
  const DeclBufferNode* view = nullptr;
};

class LayoutRewriter : public FallibleMutator<> {
 public:
  LayoutRewriter(const Buffer& from, const Buffer& to, const IndexMap& map)
      : from_(from), to_(to), map_(map) {}

  // The store that held the first error, when it was a store (else null).
  const Node* failed_at = nullptr;

  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitBufferLoad(op);
    const auto* load = static_cast<const BufferLoadNode*>(e.get());
    if (load->buffer.get() != from_.get()) return e;
    std::optional<std::vector<Expr>> idx = Map(load->indices, nullptr);
    return idx ? Expr(ValueOrDie(MakeBufferLoad(to_, *idx))) : e;
  }

  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitBufferStore(op);
    const auto* store = static_cast<const BufferStoreNode*>(s.get());
    if (store->buffer.get() != from_.get()) return s;
    std::optional<std::vector<Expr>> idx = Map(store->indices, op);
    return idx ? ValueOrDie(MakeBufferStore(to_, store->value, *idx)) : s;
  }

  Stmt VisitBlock(const BlockNode* op) override {
    Stmt s = IRMutator::VisitBlock(op);
    auto n = MakeNode<BlockNode>(*static_cast<const BlockNode*>(s.get()));
    bool changed = false;
    for (auto* regions : {&n->reads, &n->writes}) {
      for (BufferRegion& r : *regions) {
        if (r.buffer.get() != from_.get()) continue;
        r = MapRegion(r);
        changed = true;
      }
    }
    for (Buffer& b : n->alloc_buffers) {
      if (b.get() == from_.get()) {
        b = to_;
        changed = true;
      }
    }
    return changed ? Stmt(std::move(n)) : s;
  }

  Stmt VisitAllocate(const AllocateNode* op) override {
    Stmt s = IRMutator::VisitAllocate(op);
    const auto* a = static_cast<const AllocateNode*>(s.get());
    if (a->buffer.get() != from_.get()) return s;
    return ValueOrDie(MakeAllocate(to_, a->body));
  }

 private:
  std::optional<std::vector<Expr>> Map(const std::vector<Expr>& indices, const Node* at) {
    for (const Expr& i : indices) {
      if (i->dtype.lanes() != 1 && ok()) {
        Fail(absl::FailedPreconditionError(
            absl::StrCat("the access ", from_->name, "[", PrintExpr(i),
                         ", ...] is vectorized; transform the layout before vectorizing")));
        failed_at = at;
      }
    }
    if (!ok()) return std::nullopt;
    absl::StatusOr<std::vector<Expr>> out = map_.Apply(indices);
    if (!out.ok()) {
      Fail(out.status());
      failed_at = at;
      return std::nullopt;
    }
    for (Expr& e : *out) e = ana_.Simplify(e);
    return *out;
  }

  // The image of a box region: a point maps to a point, a box is relaxed.
  BufferRegion MapRegion(const BufferRegion& r) {
    std::vector<Expr> mins;
    arith::IntSetMap dom;
    bool point = true;
    for (const Range& d : r.region) {
      std::optional<int64_t> n = d.extent->kind() == NodeKind::kIntImm
                                     ? std::optional<int64_t>(
                                           static_cast<const IntImmNode*>(d.extent.get())->value)
                                     : std::nullopt;
      if (n && *n == 1) {
        mins.push_back(VisitExpr(d.min));
        continue;
      }
      point = false;
      Var v = MakeVar("r", d.min->dtype);
      dom[v.get()] = arith::IntSet::FromRange(Range{d.min, d.extent});
      mins.push_back(v);
    }
    absl::StatusOr<std::vector<Expr>> out = map_.Apply(mins);
    if (!out.ok()) return Fail(out.status(), r);
    BufferRegion mapped{to_, {}};
    for (const Expr& e : *out) {
      mapped.region.push_back(Range{ana_.Simplify(e), IntImm(e->dtype, 1)});
    }
    if (point) return mapped;
    return arith::RelaxRegion(mapped, dom, &ana_).region;
  }

  Buffer from_, to_;
  const IndexMap& map_;
  arith::Analyzer ana_;
};

}  // namespace

absl::Status TransformLayout(ScheduleState* state, const std::string& block_name,
                             const BufferRef& ref, const IndexMap& map) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block_name));
  const BlockNode* block = state->index().block(sref);

  // The block's buffers, reads then writes, each once.
  std::vector<Buffer> buffers;
  for (const auto* regions : {&block->reads, &block->writes}) {
    for (const BufferRegion& r : *regions) {
      bool seen = false;
      for (const Buffer& b : buffers) seen |= b.same_as(r.buffer);
      if (!seen) buffers.push_back(r.buffer);
    }
  }
  std::vector<std::string> names;
  for (const Buffer& b : buffers) names.push_back(b->name);
  Buffer buf;
  if (const auto* name = std::get_if<std::string>(&ref)) {
    for (const Buffer& b : buffers) {
      if (b->name == *name) buf = b;
    }
    if (!buf) {
      return state->ArgError(block, absl::StrCat(DescribeBlock(block), " accesses no buffer named '",
                                                 *name, "'; it accesses ",
                                                 absl::StrJoin(names, ", ")));
    }
  } else {
    int64_t k = std::get<int64_t>(ref);
    if (k < 0 || k >= static_cast<int64_t>(buffers.size())) {
      return state->ArgError(block, absl::StrCat("buffer index ", k, " is out of range; ",
                                                 DescribeBlock(block), " accesses ",
                                                 buffers.size(), " buffers (",
                                                 absl::StrJoin(names, ", "), ")"));
    }
    buf = buffers[k];
  }

  for (const Param& p : state->func()->params) {
    if (p.buffer.same_as(buf)) {
      return state->Error(block, absl::StrCat("buffer ", buf->name, " is a parameter of function '",
                                              state->func_name(),
                                              "'; transform_layout changes only buffers the "
                                              "function allocates (a parameter's shape is what "
                                              "callers pass): stage it through a copy"));
    }
  }
  DefinitionFinder def(buf.get());
  def.VisitStmt(state->func()->body);
  if (def.view != nullptr) {
    return state->Error(def.view, absl::StrCat("buffer ", buf->name,
                                               " is used by a buffer view; transform_layout "
                                               "cannot rewrite views"));
  }
  if (!def.allocated) {
    return state->Error(block, absl::StrCat("buffer ", buf->name,
                                            " is not allocated in this function"));
  }
  if (!buf->strides.empty()) {
    return state->Error(block, absl::StrCat("buffer ", buf->name,
                                            " has explicit strides; only compact buffers are "
                                            "transformed"));
  }
  const std::string map_text = map.ToPython();
  if (map.inputs().size() != buf->shape.size()) {
    return state->ArgError(block, absl::StrCat("the index map ", map_text, " takes ",
                                               map.inputs().size(), " indices but buffer ",
                                               buf->name, " has ", buf->shape.size(),
                                               " dimensions"));
  }

  // The image of the shape, through a bijection onto a box at 0.
  std::vector<std::string> dims;
  std::vector<arith::IterMapInput> in;
  for (size_t k = 0; k < buf->shape.size(); ++k) {
    dims.push_back(PrintExpr(buf->shape[k]));
    if (buf->shape[k]->dtype != map.inputs()[k]->dtype) {
      return state->ArgError(block, absl::StrCat("buffer ", buf->name, " has ",
                                                 buf->shape[k]->dtype.ToString(),
                                                 " extents; index maps are int32"));
    }
    in.push_back({map.inputs()[k], Range{IntImm(buf->shape[k]->dtype, 0), buf->shape[k]}});
  }
  const std::string what = absl::StrCat("the index map ", map_text, " on the shape [",
                                        absl::StrJoin(dims, ", "), "] of buffer ", buf->name);
  arith::Analyzer ana;
  absl::StatusOr<std::vector<arith::IterSum>> sums =
      arith::DetectIterMap(map.outputs(), in, Bool(true), arith::IterMapLevel::kBijective, &ana);
  if (!sums.ok()) {
    return state->Error(block, absl::StrCat(what, " is not a bijection onto a box: ",
                                            sums.status().message(),
                                            " (transform_layout does not pad; pad the "
                                            "computation with pad_einsum first)"));
  }
  std::vector<Expr> shape;
  for (size_t k = 0; k < sums->size(); ++k) {
    const arith::IterSum& s = (*sums)[k];
    if (!(s.base->kind() == NodeKind::kIntImm &&
          static_cast<const IntImmNode*>(s.base.get())->value == 0)) {
      return state->Error(block, absl::StrCat(what, ": output ", k, " starts at ",
                                              PrintExpr(s.base), ", not 0; the new shape "
                                              "would hold unused elements"));
    }
    shape.push_back(s.args.empty() ? IntImm(map.outputs()[k]->dtype, 1)
                                   : ana.Simplify(s.args[0].extent));
  }
  absl::StatusOr<Buffer> to = MakeBufferChecked(buf->name, buf->dtype, shape, {},
                                                buf->elem_offset, buf->scope, buf->alignment);
  if (!to.ok()) return state->Error(block, std::string(to.status().message()));

  LayoutRewriter rewrite(buf, *to, map);
  PrimFunc g = rewrite.VisitPrimFunc(state->func());
  if (!rewrite.ok()) {
    return state->Error(rewrite.failed_at ? rewrite.failed_at : block,
                        std::string(rewrite.status().message()));
  }
  state->Replace(g);
  return absl::OkStatus();
}

absl::Status primitive::TransformLayout::Apply(PrimitiveContext& ctx, const std::string& block,
                                               const BufferRef& buffer,
                                               const IndexMapText& index_map) {
  TESSEL_ASSIGN_OR_RETURN(IndexMap map, IndexMap::Parse(index_map.text));
  return schedule::TransformLayout(ctx.state(), block, buffer, map);
}

TESSEL_REGISTER_PRIMITIVE(primitive::TransformLayout);

}  // namespace tessel::ir::schedule
