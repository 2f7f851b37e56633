// pad_einsum (see pad_einsum.h).
#include "ir/schedule/primitive/pad_einsum.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/printer.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The iter var (by position) indexing each dimension of each buffer.
class AccessScan : public IRVisitor {
 public:
  explicit AccessScan(const BlockNode* block) {
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      ivs_[block->iter_vars[k].var.get()] = static_cast<int>(k);
    }
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    Record(op->buffer, op->indices);
    loaded.push_back(op->buffer.get());
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    Record(op->buffer, op->indices);
    if (std::find(stored.begin(), stored.end(), op->buffer) == stored.end()) {
      stored.push_back(op->buffer);
    }
    IRVisitor::VisitBufferStore(op);
  }

  std::vector<Buffer> buffers;  // In order of first access.
  absl::flat_hash_map<const BufferNode*, std::vector<int>> dims;
  std::vector<Buffer> stored;
  std::vector<const BufferNode*> loaded;
  std::string error;

 private:
  void Record(const Buffer& b, const std::vector<Expr>& indices) {
    std::vector<int> d;
    for (const Expr& e : indices) {
      const auto* v = dyn_cast<VarNode>(e);
      auto it = v ? ivs_.find(v) : ivs_.end();
      if (it == ivs_.end()) {
        if (error.empty()) {
          error = absl::StrCat("the index ", PrintExpr(e), " of buffer ", b->name,
                               " is not an iter var; pad_einsum needs every index to be one");
        }
        return;
      }
      d.push_back(it->second);
    }
    auto [at, fresh] = dims.emplace(b.get(), d);
    if (fresh) {
      buffers.push_back(b);
    } else if (at->second != d && error.empty()) {
      error = absl::StrCat("buffer ", b->name,
                           " is indexed by different iter vars in different accesses");
    }
  }
  absl::flat_hash_map<const VarNode*, int> ivs_;
};

// e is a product of (casts of) loads of buffers other than `out`.
bool ProductOfLoads(const Expr& e, const BufferNode* out, std::vector<const BufferLoadNode*>* loads) {
  if (e->kind() == NodeKind::kMul) {
    const auto* m = static_cast<const BinaryNode*>(e.get());
    return ProductOfLoads(m->a, out, loads) && ProductOfLoads(m->b, out, loads);
  }
  if (const auto* c = dyn_cast<CastNode>(e)) return ProductOfLoads(c->value, out, loads);
  if (const auto* l = dyn_cast<BufferLoadNode>(e)) {
    loads->push_back(l);
    return l->buffer.get() != out;
  }
  return false;
}

// for v_0 in [0, extent_0) ... { block name(v_d: spatial = loop_d) { body(v) } },
// regions inferred.
absl::StatusOr<Stmt> CopyNest(
    const std::string& name, const std::vector<Expr>& extents,
    const std::function<absl::StatusOr<Stmt>(const std::vector<Var>&)>& body) {
  std::vector<Var> vars, loops;
  std::vector<IterVar> ivs;
  std::vector<Expr> values;
  for (size_t d = 0; d < extents.size(); ++d) {
    const DataType t = extents[d]->dtype;  // An i64 extent takes i64 vars.
    vars.push_back(MakeVar(absl::StrCat("v", d), t));
    loops.push_back(MakeVar(absl::StrCat("ax", d), t));
    ivs.push_back(IterVar{vars.back(), Range{IntImm(t, 0), extents[d]}, IterKind::kSpatial});
    values.push_back(loops.back());
  }
  TESSEL_ASSIGN_OR_RETURN(Stmt inner, body(vars));
  TESSEL_ASSIGN_OR_RETURN(Block b, MakeBlock(name, ivs, {}, {}, inner));
  arith::Analyzer ana;
  TESSEL_ASSIGN_OR_RETURN(arith::AccessRegions acc, arith::InferBlockAccess(b, &ana));
  auto n = MakeNode<BlockNode>(*b);
  for (const arith::AccessRegion& r : acc.reads) n->reads.push_back(r.region);
  for (const arith::AccessRegion& r : acc.writes) n->writes.push_back(r.region);
  absl::StatusOr<Stmt> nest = MakeBlockRealize(values, Bool(true), Block(std::move(n)));
  for (size_t d = extents.size(); nest.ok() && d-- > 0;) {
    nest = MakeFor(loops[d], IntImm(extents[d]->dtype, 0), extents[d], ForKind::kSerial, *nest);
  }
  return nest;
}

// Two extents are one: equal constants (whatever their integer types), or
// expressions the analyzer proves equal.
bool SameExtent(arith::Analyzer& ana, const Expr& a, const Expr& b) {
  std::optional<int64_t> x = arith::AsConstInt(a), y = arith::AsConstInt(b);
  if (x || y) return x && y && *x == *y;
  return arith::ExprEqual(a, b) || ana.CanProveEqual(a, b);
}

}  // namespace

absl::Status PadEinsum(ScheduleState* state, const std::string& block_name,
                       const std::vector<int64_t>& padding) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block_name));
  const StmtIndex& index = state->index();
  const BlockRealizeNode* realize = index.realize(sref);
  const BlockNode* block = realize->block.get();
  const size_t n = block->iter_vars.size();
  if (padding.size() != n) {
    return state->ArgError(block, absl::StrCat("pad_einsum needs one factor per iter var of ",
                                               DescribeBlock(block), " (", n, "), got ",
                                               padding.size()));
  }
  for (size_t k = 0; k < n; ++k) {
    if (padding[k] <= 0) {
      return state->ArgError(block, absl::StrCat("factor ", k, " is ", padding[k],
                                                 "; factors must be positive"));
    }
  }

  // Iter vars over [0, n), each bound to its own loop over the same range. n is
  // a constant or an expression of shape variables; a symbolic n pads to
  // (n + f - 1) // f * f unless the analyzer proves f divides it.
  std::vector<Expr> ext(n), padded(n);
  std::vector<bool> grows(n);
  std::vector<int> loop_srefs;
  arith::Analyzer ana;
  for (size_t k = 0; k < n; ++k) {
    const IterVar& iv = block->iter_vars[k];
    const auto* v = dyn_cast<VarNode>(realize->iter_values[k]);
    int l = v ? index.FindLoop(v) : -1;
    const ForNode* f = l >= 0 ? index.loop(l) : nullptr;
    if (!arith::IsConstInt(iv.dom.min, 0) || iv.kind == IterKind::kOpaque || f == nullptr ||
        !arith::IsConstInt(f->min, 0) || !SameExtent(ana, f->extent, iv.dom.extent) ||
        !arith::IsPure(iv.dom.extent)) {
      return state->Error(block,
                          absl::StrCat("iter var ", iv.var->name, " of ", DescribeBlock(block),
                                       " must be spatial or reduce over [0, n), bound to "
                                       "its own loop over the same range"));
    }
    ext[k] = iv.dom.extent;
    const Expr factor = IntImm(ext[k]->dtype, padding[k]);
    if (std::optional<int64_t> e = arith::AsConstInt(ext[k])) {
      padded[k] = IntImm(ext[k]->dtype, (*e + padding[k] - 1) / padding[k] * padding[k]);
      grows[k] = padding[k] > 1 && *e % padding[k] != 0;
    } else {
      grows[k] =
          padding[k] > 1 && !ana.CanProveEqual(FloorMod(ext[k], factor), IntImm(ext[k]->dtype, 0));
      padded[k] =
          grows[k]
              ? ana.Simplify(Mul(
                    FloorDiv(Add(ext[k], IntImm(ext[k]->dtype, padding[k] - 1)), factor), factor))
              : ext[k];
    }
    loop_srefs.push_back(l);
  }
  if (!block->alloc_buffers.empty()) {
    return state->Error(block, absl::StrCat(DescribeBlock(block), " allocates buffers; pad_einsum "
                                            "pads blocks over buffers allocated outside them"));
  }
  if (!arith::IsConstTrue(realize->predicate)) {
    return state->Error(block, absl::StrCat(DescribeBlock(block), " has a predicate; pad_einsum "
                                            "pads a whole iteration domain"));
  }
  std::vector<int> chain = index.LoopsAbove(sref);
  std::vector<int> sorted = loop_srefs;
  std::sort(sorted.begin(), sorted.end());
  if (chain != sorted || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return state->Error(block, absl::StrCat("the loops above ", DescribeBlock(block),
                                            " must be exactly the loops its iter vars are bound "
                                            "to, one each"));
  }
  for (size_t k = 0; k + 1 < chain.size(); ++k) {
    if (index.loop(chain[k])->body.get() != index.loop(chain[k + 1])) {
      return state->Error(index.loop(chain[k]),
                          absl::StrCat("the body of ", DescribeLoop(index.loop(chain[k])),
                                       " is not a single loop; pad_einsum needs a perfect nest"));
    }
  }
  if (!chain.empty() && index.loop(chain.back())->body.get() != realize) {
    return state->Error(index.loop(chain.back()), "the innermost loop holds more than the block");
  }

  // The einsum: plain iter var indices, one output.
  AccessScan scan(block);
  if (block->init) scan.VisitStmt(block->init);
  scan.VisitStmt(block->body);
  if (!scan.error.empty()) return state->Error(block, scan.error);
  if (scan.stored.size() != 1) {
    return state->Error(block, absl::StrCat(DescribeBlock(block), " writes ", scan.stored.size(),
                                            " buffers; pad_einsum needs exactly one output"));
  }
  const Buffer out = scan.stored[0];
  bool reads_out = std::find(scan.loaded.begin(), scan.loaded.end(), out.get()) !=
                   scan.loaded.end();
  if (reads_out && !block->init) {
    return state->Error(block, absl::StrCat(DescribeBlock(block), " reads its output ", out->name,
                                            " without an init; the padded copy would lose its "
                                            "initial values"));
  }
  for (const Buffer& b : scan.buffers) {
    const std::vector<int>& d = scan.dims.at(b.get());
    for (size_t k = 0; k < d.size(); ++k) {
      if (!SameExtent(ana, b->shape[k], ext[d[k]])) {
        return state->Error(
            block, absl::StrCat("dimension ", k, " of buffer ", b->name, " is not the extent ",
                                PrintExpr(ext[d[k]]), " of iter var ",
                                block->iter_vars[d[k]].var->name, " that indexes it"));
      }
    }
  }
  bool padded_reduce = false;
  for (size_t k = 0; k < n; ++k) {
    padded_reduce |= block->iter_vars[k].kind == IterKind::kReduce && grows[k];
  }
  if (padded_reduce) {
    const auto* st = dyn_cast<BufferStoreNode>(block->body);
    const auto* sum = st ? dyn_cast<BinaryNode>(st->value) : nullptr;
    std::vector<const BufferLoadNode*> loads;
    bool ok = sum != nullptr && sum->kind() == NodeKind::kAdd;
    if (ok) {
      const auto* acc = dyn_cast<BufferLoadNode>(sum->a);
      ok = acc != nullptr && acc->buffer.same_as(out) && ProductOfLoads(sum->b, out.get(), &loads);
    }
    const auto* init = dyn_cast<BufferStoreNode>(block->init);
    ok = ok && init != nullptr &&
         (isa<FloatImmNode>(init->value) || isa<IntImmNode>(init->value));
    if (!ok) {
      return state->Error(block, absl::StrCat(DescribeBlock(block),
                                              " pads a reduction but is not `O[...] = O[...] + "
                                              "product of input loads` with a constant init; "
                                              "zero padding keeps only a sum of products exact"));
    }
    for (size_t k = 0; k < n; ++k) {
      if (block->iter_vars[k].kind != IterKind::kReduce || !grows[k]) continue;
      bool indexed = false;
      for (const BufferLoadNode* l : loads) {
        const std::vector<int>& d = scan.dims.at(l->buffer.get());
        indexed |= std::find(d.begin(), d.end(), static_cast<int>(k)) != d.end();
      }
      if (!indexed) {
        return state->Error(block, absl::StrCat("no load of the product is indexed by the padded "
                                                "reduce iter var ",
                                                block->iter_vars[k].var->name));
      }
    }
  }
  if (std::find(grows.begin(), grows.end(), true) == grows.end()) {
    return absl::OkStatus();  // Already multiples: nothing to do.
  }

  // Padded buffers, the copies in and the crop out.
  BufferMap swap;
  std::vector<Buffer> allocs;
  std::vector<Stmt> before, after;
  for (const Buffer& b : scan.buffers) {
    const std::vector<int>& d = scan.dims.at(b.get());
    std::vector<Expr> shape, orig;
    std::vector<bool> dim_grows;
    bool any = false;
    for (size_t dim = 0; dim < d.size(); ++dim) {
      // In the buffer's own index type: its extent, and a constant padded one.
      const int k = d[dim];
      std::optional<int64_t> c = arith::AsConstInt(padded[k]);
      shape.push_back(c ? IntImm(b->shape[dim]->dtype, *c) : padded[k]);
      orig.push_back(b->shape[dim]);
      dim_grows.push_back(grows[k]);
      any |= grows[k];
    }
    if (!any) continue;
    absl::StatusOr<Buffer> p =
        MakeBufferChecked(absl::StrCat(b->name, "_pad"), b->dtype, shape, {}, nullptr, b->scope);
    if (!p.ok()) return state->Error(block, std::string(p.status().message()));
    swap[b.get()] = *p;
    allocs.push_back(*p);
    if (b.same_as(out)) {
      TESSEL_ASSIGN_OR_RETURN(Stmt crop,
                              CopyNest(UniqueBlockName(index, absl::StrCat(b->name, "_crop")), orig,
                                       [&](const std::vector<Var>& v) {
                                         std::vector<Expr> idx(v.begin(), v.end());
                                         return MakeBufferStore(b, Load(*p, idx), idx);
                                       }));
      after.push_back(crop);
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(Stmt copy, CopyNest(
        UniqueBlockName(index, absl::StrCat(b->name, "_pad")), shape,
        [&](const std::vector<Var>& v) -> absl::StatusOr<Stmt> {
          std::vector<Expr> idx(v.begin(), v.end());
          Expr inside = Bool(true);
          for (size_t k = 0; k < v.size(); ++k) {
            if (dim_grows[k]) inside = arith::AndE(inside, LT(v[k], orig[k]));
          }
          absl::StatusOr<Stmt> in = MakeBufferStore(*p, Load(b, idx), idx);
          TESSEL_ASSIGN_OR_RETURN(Expr z, arith::ZeroOf(b->dtype));
          absl::StatusOr<Stmt> zero = MakeBufferStore(*p, z, idx);
          if (!in.ok()) return in;
          if (!zero.ok()) return zero;
          return MakeIfThenElse(inside, *in, *zero);
        }));
    before.push_back(copy);
  }

  // The block over the padded domain, on the padded buffers.
  auto nb = MakeNode<BlockNode>(*cast<BlockNode>(ReplaceBuffers(GetRef(block), swap)));
  for (size_t k = 0; k < n; ++k) {
    nb->iter_vars[k].dom.extent = padded[k];
  }
  Stmt nest(MakeNode<BlockRealizeNode>(realize->iter_values, realize->predicate, Block(std::move(nb))));
  for (size_t k = chain.size(); k-- > 0;) {
    auto f = MakeNode<ForNode>(*index.loop(chain[k]));
    auto pos = std::find(loop_srefs.begin(), loop_srefs.end(), chain[k]) - loop_srefs.begin();
    f->extent = padded[pos];
    f->body = nest;
    nest = Stmt(std::move(f));
  }
  std::vector<Stmt> seq = before;
  seq.push_back(nest);
  seq.insert(seq.end(), after.begin(), after.end());
  TESSEL_ASSIGN_OR_RETURN(Stmt all, MakeSeqStmt(seq));
  const StmtNode* top = chain.empty() ? static_cast<const StmtNode*>(realize) : index.loop(chain.front());
  PrimFunc g = ReplaceStmts(state->func(), {{top, all}});

  // Allocate the padded buffers in the enclosing block, or a new root block.
  int scope = index.ScopeBlock(sref);
  if (scope >= 0) {
    StmtIndex gi(g);
    const BlockRealizeNode* sr = gi.realize(gi.FindBlock(index.block(scope)->name));
    auto sb = MakeNode<BlockNode>(*sr->block);
    sb->alloc_buffers.insert(sb->alloc_buffers.end(), allocs.begin(), allocs.end());
    Stmt r(MakeNode<BlockRealizeNode>(sr->iter_values, sr->predicate, Block(std::move(sb))));
    g = ReplaceStmts(g, {{sr, r}});
  } else {
    TESSEL_ASSIGN_OR_RETURN(Block root, MakeBlock(UniqueBlockName(index, "root"), {}, {}, {},
                                                  g->body, nullptr, allocs));
    TESSEL_ASSIGN_OR_RETURN(Stmt rr, MakeBlockRealize({}, Bool(true), root));
    auto fn = MakeNode<PrimFuncNode>(*g);
    fn->body = rr;
    g = PrimFunc(std::move(fn));
  }
  state->Replace(g);
  return absl::OkStatus();
}

TESSEL_REGISTER_PRIMITIVE(primitive::PadEinsum);

}  // namespace tessel::ir::schedule
