// tensorize (see tensorize.h).
#include "ir/schedule/primitive/tensorize.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/binding_map.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/schedule/tensor_intrin.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// A buffer seen through a region: accesses become `to[idx - min]` (matching)
// or `to[min + idx]` (instantiating).
struct Rebase {
  Buffer to;
  std::vector<Expr> min;
};
using RebaseMap = absl::flat_hash_map<const BufferNode*, Rebase>;

// Matching form: accesses relative to their region, renamed to the region's
// parameter, indices simplified knowing the block's iter var domains and the
// nest's loop ranges. A panel-major operand needs them: with j in [0, 16),
//   B[(vj_o * 16 + j) // 32 * K + k, ...] relative to B[vj_o // 2 * K + k, ...]
// is row 0 only because 16 * vj_o % 32 + j stays below 32.
class RelativeAccesses : public IRMutator {
 public:
  RelativeAccesses(const RebaseMap& map, const std::vector<IterVar>& iter_vars) : map_(map) {
    for (const IterVar& iv : iter_vars) ana_.Bind(iv.var, iv.dom);
  }
  Stmt VisitFor(const ForNode* op) override {
    arith::Analyzer::Scope loop(&ana_);
    ana_.Bind(op->loop_var, Range{op->min, op->extent});
    return IRMutator::VisitFor(op);
  }
  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitBufferLoad(op);
    const auto* l = static_cast<const BufferLoadNode*>(e.get());
    auto it = map_.find(l->buffer.get());
    if (it == map_.end()) return e;
    return ValueOrDie(MakeBufferLoad(it->second.to, Relative(l->indices, it->second.min)));
  }
  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = static_cast<const BufferStoreNode*>(s.get());
    auto it = map_.find(st->buffer.get());
    if (it == map_.end()) return s;
    return ValueOrDie(
        MakeBufferStore(it->second.to, st->value, Relative(st->indices, it->second.min)));
  }

 private:
  std::vector<Expr> Relative(const std::vector<Expr>& idx, const std::vector<Expr>& min) {
    std::vector<Expr> out;
    for (size_t k = 0; k < idx.size(); ++k) {
      // A mismatched index type stays absolute, so the forms differ.
      out.push_back(idx[k]->dtype.lanes() == 1 && k < min.size() &&
                            idx[k]->dtype == min[k]->dtype
                        ? ana_.Simplify(Sub(idx[k], min[k]))
                        : idx[k]);
    }
    return out;
  }
  const RebaseMap& map_;
  arith::Analyzer ana_;
};

// The buffers a statement accesses, in visiting order (stores before their
// value's loads).
class AccessOrder : public IRVisitor {
 public:
  void VisitBufferLoad(const BufferLoadNode* op) override {
    order.push_back(op->buffer);
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    order.push_back(op->buffer);
    IRVisitor::VisitBufferStore(op);
  }
  std::vector<Buffer> order;
};

// The implementation placed in the block: params -> the matched buffers
// (indices shifted by the region minimum), loop and let variables fresh.
class Instantiate : public IRMutator {
 public:
  explicit Instantiate(const RebaseMap& map) : map_(map) {}
  Expr VisitVar(const VarNode* op) override {
    auto it = fresh_.find(op);
    return it == fresh_.end() ? GetRef(op) : it->second;
  }
  Stmt VisitFor(const ForNode* op) override {
    Var v = MakeVar(op->loop_var->name, op->loop_var->dtype);
    fresh_[op->loop_var.get()] = v;
    auto n = MakeNode<ForNode>(*static_cast<const ForNode*>(IRMutator::VisitFor(op).get()));
    n->loop_var = v;
    return Stmt(std::move(n));
  }
  Stmt VisitLetStmt(const LetStmtNode* op) override {
    Var v = MakeVar(op->var->name, op->var->dtype);
    fresh_[op->var.get()] = v;
    auto n = MakeNode<LetStmtNode>(*static_cast<const LetStmtNode*>(IRMutator::VisitLetStmt(op).get()));
    n->var = v;
    return Stmt(std::move(n));
  }
  Expr VisitBufferLoad(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitBufferLoad(op);
    const auto* l = static_cast<const BufferLoadNode*>(e.get());
    auto it = map_.find(l->buffer.get());
    if (it == map_.end()) return e;
    return ValueOrDie(MakeBufferLoad(it->second.to, Shift(l->indices, it->second.min)));
  }
  Stmt VisitBufferStore(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = static_cast<const BufferStoreNode*>(s.get());
    auto it = map_.find(st->buffer.get());
    if (it == map_.end()) return s;
    return ValueOrDie(MakeBufferStore(it->second.to, st->value, Shift(st->indices, it->second.min)));
  }

 private:
  static std::vector<Expr> Shift(const std::vector<Expr>& idx, const std::vector<Expr>& min) {
    std::vector<Expr> out;
    for (size_t k = 0; k < idx.size(); ++k) {
      DataType t = idx[k]->dtype.with_lanes(1);
      const Expr m = min[k]->dtype == t ? min[k] : Cast(t, min[k]);
      if (const auto* r = dyn_cast<RampNode>(idx[k])) {
        out.push_back(ValueOrDie(MakeRamp(arith::AddE(m, r->base), r->stride, r->lanes)));
      } else if (const auto* b = dyn_cast<BroadcastNode>(idx[k])) {
        out.push_back(ValueOrDie(MakeBroadcast(arith::AddE(m, b->value), b->lanes)));
      } else if (idx[k]->dtype.lanes() > 1) {
        out.push_back(Add(Broadcast(m, idx[k]->dtype.lanes()), idx[k]));
      } else {
        out.push_back(arith::AddE(m, idx[k]));
      }
    }
    return out;
  }
  const RebaseMap& map_;
  absl::flat_hash_map<const VarNode*, Expr> fresh_;
};

// A loop chain around one block, with the block's bindings substituted into
// its body; "" or why the body has another shape.
std::string InlineNest(const Stmt& body, Stmt* out) {
  std::vector<const ForNode*> loops;
  const StmtNode* s = body.get();
  while (const auto* f = dyn_cast<ForNode>(s)) {
    loops.push_back(f);
    s = f->body.get();
  }
  const auto* realize = dyn_cast<BlockRealizeNode>(s);
  if (realize == nullptr) {
    return "its body is not a loop nest around one block (blockize the loops to tensorize)";
  }
  const BlockNode* inner = realize->block.get();
  if (inner->init) {
    return absl::StrCat("block ", inner->name, " below still has an init; blockize at a loop "
                        "inside the reduction so the init moves to the outer block");
  }
  if (!arith::IsConstTrue(realize->predicate)) {
    return absl::StrCat("block ", inner->name, " below has the predicate ",
                        PrintExpr(realize->predicate),
                        "; intrinsics cover whole tiles (pad the computation with pad_einsum)");
  }
  if (!inner->alloc_buffers.empty()) return absl::StrCat("block ", inner->name, " allocates");
  VarMap bind = BindingMap(realize);
  // A loop of one iteration is its minimum (a split by 1 leaves such loops,
  // whose variable the simplifier already dropped from the bindings).
  VarMap unit;
  for (const ForNode* f : loops) {
    if (std::optional<int64_t> e = arith::AsConstInt(f->extent); e && *e == 1)
      unit[f->loop_var.get()] = f->min;
  }
  for (auto& [v, e] : bind) e = Substitute(e, unit);
  Stmt nest = Substitute(inner->body, bind);
  for (size_t k = loops.size(); k-- > 0;) {
    auto n = MakeNode<ForNode>(*loops[k]);
    n->body = nest;
    nest = Stmt(std::move(n));
  }
  *out = nest;
  return "";
}

}  // namespace

absl::Status Tensorize(ScheduleState* state, const std::string& block_name,
                       const std::string& intrin_name) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block_name));
  const BlockNode* block = state->index().block(sref);
  absl::StatusOr<TensorIntrin> intrin = GetTensorIntrin(intrin_name);
  if (!intrin.ok()) return state->ArgError(block, std::string(intrin.status().message()));
  const std::string what =
      absl::StrCat(DescribeBlock(block), " does not match intrinsic '", intrin_name, "': ");

  Stmt cand, desc;
  if (std::string why = InlineNest(block->body, &cand); !why.empty()) {
    return state->Error(block, what + why);
  }
  if (std::string why = InlineNest(intrin->desc->body, &desc); !why.empty()) {
    return state->Error(block, what + "its description: " + why);
  }

  // Each buffer's region in the block (the write region where there is one).
  absl::flat_hash_map<const BufferNode*, const BufferRegion*> regions;
  for (const BufferRegion& r : block->reads) regions[r.buffer.get()] = &r;
  for (const BufferRegion& r : block->writes) regions[r.buffer.get()] = &r;

  AccessOrder cand_order, desc_order;
  cand_order.VisitStmt(cand);
  desc_order.VisitStmt(desc);
  if (cand_order.order.size() != desc_order.order.size()) {
    return state->Error(block, absl::StrCat(what, "it makes ", cand_order.order.size(),
                                            " buffer accesses, the description ",
                                            desc_order.order.size()));
  }
  // Pair the buffers by access order; each region becomes a parameter.
  absl::flat_hash_map<const BufferNode*, int> desc_param;
  for (size_t k = 0; k < intrin->desc->params.size(); ++k) {
    desc_param[intrin->desc->params[k].buffer.get()] = static_cast<int>(k);
  }
  std::vector<Buffer> matched(intrin->desc->params.size());
  RebaseMap to_param, desc_self;
  arith::Analyzer ana;
  for (size_t k = 0; k < cand_order.order.size(); ++k) {
    const Buffer& x = cand_order.order[k];
    auto p = desc_param.find(desc_order.order[k].get());
    if (p == desc_param.end()) {
      return state->Error(block, what + "its description accesses a buffer that is not a "
                                        "parameter");
    }
    if (matched[p->second] && !matched[p->second].same_as(x)) {
      return state->Error(block, absl::StrCat(what, "the description's parameter ", p->second,
                                              " would stand for both ", matched[p->second]->name,
                                              " and ", x->name));
    }
    if (to_param.contains(x.get())) {
      if (!matched[p->second].same_as(x)) {
        return state->Error(block, absl::StrCat(what, "buffer ", x->name,
                                                " would stand for two description parameters"));
      }
      continue;
    }
    matched[p->second] = x;
    auto r = regions.find(x.get());
    if (r == regions.end()) {
      return state->Error(block, absl::StrCat(what, "buffer ", x->name,
                                              " has no region in the block's reads or writes"));
    }
    std::vector<Expr> shape, mins;
    for (const Range& d : r->second->region) {
      Expr e = ana.Simplify(d.extent);
      if (!isa<IntImmNode>(e)) {
        return state->Error(block, absl::StrCat(what, "the region of ", x->name,
                                                " has the non-constant extent ", PrintExpr(e)));
      }
      shape.push_back(e);
      mins.push_back(d.min);
    }
    absl::StatusOr<Buffer> param = MakeBufferChecked(x->name, x->dtype, shape);
    if (!param.ok()) return state->Error(block, what + std::string(param.status().message()));
    to_param[x.get()] = Rebase{*param, mins};
  }
  for (size_t k = 0; k < matched.size(); ++k) {
    if (!matched[k]) {
      return state->Error(block, absl::StrCat(what, "the description's parameter ", k,
                                              " is never accessed"));
    }
    const Buffer& d = intrin->desc->params[k].buffer;
    desc_self[d.get()] = Rebase{d, std::vector<Expr>(d->shape.size(), IntImm32(0))};
  }
  std::vector<Param> cand_params;
  for (const Buffer& x : matched) cand_params.push_back(Param::OfBuffer(to_param.at(x.get()).to));
  RelativeAccesses cand_rel(to_param, block->iter_vars), desc_rel(desc_self, {});
  PrimFunc cand_func = MakePrimFunc(cand_params, cand_rel.VisitStmt(cand));
  PrimFunc desc_func = MakePrimFunc(intrin->desc->params, desc_rel.VisitStmt(desc));
  if (absl::Status eq = AssertStructuralEqual(cand_func, desc_func); !eq.ok()) {
    return state->Error(block, absl::StrCat(what, "the computation differs: ", eq.message()));
  }

  // Instantiate the implementation on the matched buffers.
  RebaseMap impl_map;
  for (size_t k = 0; k < matched.size(); ++k) {
    impl_map[intrin->impl->params[k].buffer.get()] =
        Rebase{matched[k], to_param.at(matched[k].get()).min};
  }
  Instantiate inst(impl_map);
  auto n = MakeNode<BlockNode>(*block);
  n->body = inst.VisitStmt(intrin->impl->body);
  n->annotations["tensorized"] = AttrValue(intrin_name);
  const BlockRealizeNode* r = state->index().realize(sref);
  Stmt realize(MakeNode<BlockRealizeNode>(r->iter_values, r->predicate, Block(std::move(n))));
  state->Replace(ReplaceStmts(state->func(), {{r, realize}}));
  return absl::OkStatus();
}

// A loop is blockized first; the schedule restores the state if tensorize then
// fails, so both happen or neither.
absl::Status primitive::Tensorize::Apply(PrimitiveContext& ctx,
                                         const std::variant<std::string, Var>& block_or_loop,
                                         const std::string& intrin_name) {
  std::string block;
  if (const Var* loop = std::get_if<Var>(&block_or_loop)) {
    TESSEL_ASSIGN_OR_RETURN(block, schedule::Blockize(ctx.state(), *loop));
  } else {
    block = std::get<std::string>(block_or_loop);
  }
  return schedule::Tensorize(ctx.state(), block, intrin_name);
}

TESSEL_REGISTER_PRIMITIVE(primitive::Tensorize);

}  // namespace tessel::ir::schedule
