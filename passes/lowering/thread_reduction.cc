// Cross-thread reductions (see thread_reduction.h): partial in each thread, one
// collective across threadIdx.x, a write-back by the first thread.
#include "passes/lowering/thread_reduction.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/fallible_mutator.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/te/reducer.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::passes::lowering {
namespace {

// `C[idx] = C[idx] op x` with its init `C[idx] = init`.
struct Reduction {
  ir::Buffer out;
  std::vector<ir::Expr> indices;
  ir::NodeKind op;
  ir::Expr x;
  ir::Expr init;
};

const char* CollectiveName(ir::NodeKind op) {
  switch (op) {
    case ir::NodeKind::kAdd:
      return "thread_sum_x";
    case ir::NodeKind::kMul:
      return "thread_prod_x";
    case ir::NodeKind::kMax:
      return "thread_max_x";
    default:
      return "thread_min_x";
  }
}

absl::StatusOr<ir::Expr> Identity(ir::NodeKind op, ir::DataType t) {
  switch (op) {
    case ir::NodeKind::kAdd:
      return t.is_float() ? ir::MakeFloatImm(t, 0) : ir::MakeIntImm(t, 0);
    case ir::NodeKind::kMul:
      return t.is_float() ? ir::MakeFloatImm(t, 1) : ir::MakeIntImm(t, 1);
    case ir::NodeKind::kMax:
      return ir::te::MinValue(t);
    default:
      return ir::te::MaxValue(t);
  }
}

bool Loads(const ir::Expr& e, const ir::BufferNode* only) {
  class Finder : public ir::IRVisitor {
   public:
    explicit Finder(const ir::BufferNode* b) : b_(b) {}
    bool found = false;
    void VisitBufferLoad(const ir::BufferLoadNode* op) override {
      if (b_ == nullptr || op->buffer.get() == b_) found = true;
      ir::IRVisitor::VisitBufferLoad(op);
    }

   private:
    const ir::BufferNode* b_;
  };
  Finder f(only);
  f.VisitExpr(e);
  return f.found;
}

bool SameIndices(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d) {
    if (!ir::StructuralEqual(a[d], b[d])) return false;
  }
  return true;
}

// The block's reduction: its init (still an init, or lower-init-block's guarded
// store) and its update. The string is the rule broken.
absl::StatusOr<Reduction> Match(const ir::BlockNode* b) {
  const ir::BufferStoreNode* init = nullptr;
  const ir::BufferStoreNode* update = ir::dyn_cast<ir::BufferStoreNode>(b->body.get());
  if (b->init) {
    init = ir::dyn_cast<ir::BufferStoreNode>(b->init.get());
  } else if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(b->body.get());
             seq != nullptr && seq->seq.size() == 2) {
    const auto* guard = ir::dyn_cast<ir::IfThenElseNode>(seq->seq[0].get());
    if (guard != nullptr && !guard->else_case) {
      init = ir::dyn_cast<ir::BufferStoreNode>(guard->then_case.get());
    }
    update = ir::dyn_cast<ir::BufferStoreNode>(seq->seq[1].get());
  }
  if (init == nullptr || update == nullptr || init->buffer.get() != update->buffer.get() ||
      !SameIndices(init->indices, update->indices)) {
    return absl::FailedPreconditionError(
        "its body is not one init store and one update of the same element");
  }
  const auto* bin = ir::dyn_cast<ir::BinaryNode>(update->value.get());
  ir::NodeKind op = bin != nullptr ? bin->kind() : ir::NodeKind::kVar;
  if (bin == nullptr || (op != ir::NodeKind::kAdd && op != ir::NodeKind::kMul &&
                         op != ir::NodeKind::kMax && op != ir::NodeKind::kMin)) {
    return absl::FailedPreconditionError("its update does not combine with +, *, max or min");
  }
  auto is_acc = [&](const ir::Expr& e) {
    const auto* l = ir::dyn_cast<ir::BufferLoadNode>(e.get());
    return l != nullptr && l->buffer.get() == update->buffer.get() &&
           SameIndices(l->indices, update->indices);
  };
  ir::Expr x = is_acc(bin->a) ? bin->b : is_acc(bin->b) ? bin->a : ir::Expr();
  if (!x || Loads(x, update->buffer.get())) {
    return absl::FailedPreconditionError(absl::StrCat("its update is not '", update->buffer->name,
                                                      "[...] op x' with x not reading '",
                                                      update->buffer->name, "'"));
  }
  if (Loads(init->value, nullptr)) {
    return absl::FailedPreconditionError("its init value reads a buffer");
  }
  return Reduction{update->buffer, update->indices, op, x, init->value};
}

class Lowerer : public ir::FallibleMutator<> {
 public:
  int lowered = 0;

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    std::optional<int> axis = op->for_kind == ir::ForKind::kThreadBinding
                                  ? ir::LaunchAxisOf(op->thread_tag)
                                  : std::nullopt;
    if (!axis || !ir::IsThreadIdxAxis(*axis)) return FallibleMutator::VisitFor(op);
    if (*axis == 3) {
      if (std::optional<ir::Stmt> s = TryLower(op)) return *s;
      if (!ok()) return ir::GetRef<ir::StmtNode>(op);
    }
    thread_vars_.insert(op->loop_var.get());
    ir::Stmt s = FallibleMutator::VisitFor(op);
    thread_vars_.erase(op->loop_var.get());
    return s;
  }

  // A reduction over a thread that TryLower did not take would race.
  ir::Stmt VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    const ir::BlockNode* b = op->block.get();
    for (size_t i = 0; i < b->iter_vars.size() && ok(); ++i) {
      if (b->iter_vars[i].kind != ir::IterKind::kReduce) continue;
      for (const ir::Var& v : ir::arith::CollectVars(op->iter_values[i])) {
        if (!thread_vars_.contains(v.get())) continue;
        return Fail(absl::FailedPreconditionError(absl::StrCat(
                        "block '", b->name, "' reduces over loop '", v->name,
                        "', which is bound to a thread axis, but is not a cross-thread "
                        "reduction tessel lowers: the loop must be bound to threadIdx.x and its "
                        "body a nest of loops ending at the block, used only by the block's "
                        "reduce iter vars (thread_reduction.h)")),
                    ir::GetRef<ir::StmtNode>(op));
      }
    }
    return FallibleMutator::VisitBlockRealize(op);
  }

 private:
  absl::flat_hash_set<const ir::VarNode*> thread_vars_;

  // The lowered loop, nullopt when `op` does not hold a reduction over its variable
  // (or, with an error recorded, holds one that breaks a rule).
  std::optional<ir::Stmt> TryLower(const ir::ForNode* op) {
    std::vector<const ir::ForNode*> nest;
    absl::flat_hash_set<const ir::VarNode*> below = {op->loop_var.get()};
    const ir::StmtNode* s = op->body.get();
    while (const auto* f = ir::dyn_cast<ir::ForNode>(s)) {
      if (f->for_kind == ir::ForKind::kThreadBinding || f->for_kind == ir::ForKind::kParallel) {
        return std::nullopt;
      }
      nest.push_back(f);
      below.insert(f->loop_var.get());
      s = f->body.get();
    }
    const auto* realize = ir::dyn_cast<ir::BlockRealizeNode>(s);
    if (realize == nullptr) return std::nullopt;
    const ir::BlockNode* b = realize->block.get();
    if (!ir::schedule::ReducesOver(realize, op->loop_var.get())) return std::nullopt;
    ir::VarMap spatial;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      bool reduce = b->iter_vars[i].kind == ir::IterKind::kReduce;
      for (const ir::Var& v : ir::arith::CollectVars(realize->iter_values[i])) {
        bool inside = below.contains(v.get());
        if (reduce != inside) {
          return Refuse(b, absl::StrCat(reduce ? "its reduce iter var '" : "its spatial iter var '",
                                        b->iter_vars[i].var->name, "' uses loop '", v->name, "', ",
                                        reduce ? "outside" : "inside", " the thread loop"));
        }
      }
      if (!reduce) spatial[b->iter_vars[i].var.get()] = realize->iter_values[i];
    }
    absl::StatusOr<Reduction> r = Match(b);
    if (!r.ok()) return Refuse(b, std::string(r.status().message()));
    for (const ir::Expr& e : r->indices) {
      for (const ir::IterVar& iv : b->iter_vars) {
        if (iv.kind == ir::IterKind::kReduce && ir::arith::UsesVar(e, iv.var.get())) {
          return Refuse(b, "the element it reduces into depends on a reduce iter var");
        }
      }
    }
    absl::StatusOr<ir::Expr> identity = Identity(r->op, r->out->dtype);
    if (!identity.ok()) return Refuse(b, std::string(identity.status().message()));

    ir::Buffer red =
        ir::MakeBuffer(r->out->name + "_red", r->out->dtype, {ir::IntImm32(1)}, "local");
    std::vector<ir::Expr> zero = {ir::IntImm32(0)};
    auto combine = [&](ir::Expr a, ir::Expr c) {
      return ir::ValueOrDie(ir::MakeBinary(r->op, std::move(a), std::move(c)));
    };
    // The block, now reducing into this thread's partial.
    auto nb = ir::MakeNode<ir::BlockNode>(*b);
    nb->init = nullptr;
    nb->body = ir::Store(red, combine(ir::Load(red, zero), r->x), zero);
    nb->reads.clear();
    for (const ir::BufferRegion& region : b->reads) {
      if (region.buffer.get() != r->out.get()) nb->reads.push_back(region);
    }
    nb->reads.push_back(ir::FullRegion(red));
    nb->writes = {ir::FullRegion(red)};
    ir::Stmt inner = ir::ValueOrDie(
        ir::MakeBlockRealize(realize->iter_values, realize->predicate, ir::Block(std::move(nb))));
    for (auto it = nest.rbegin(); it != nest.rend(); ++it) {
      const ir::ForNode* f = *it;
      inner = ir::ValueOrDie(ir::MakeFor(f->loop_var, f->min, f->extent, f->for_kind, inner,
                                         f->thread_tag, f->annotations));
    }
    ir::Expr collective =
        ir::ValueOrDie(ir::MakeCall(r->out->dtype, ir::CallNode::Callee::kThreadReduce,
                                    CollectiveName(r->op), {ir::Load(red, zero)}));
    ir::Expr init = ir::Substitute(r->init, spatial);
    ir::Expr total = ir::Load(red, zero);
    if (!ir::StructuralEqual(init, *identity)) total = combine(init, total);
    std::vector<ir::Expr> out_index;
    for (const ir::Expr& e : r->indices) out_index.push_back(ir::Substitute(e, spatial));
    ir::Stmt write_back = ir::ValueOrDie(ir::MakeIfThenElse(
        ir::EQ(op->loop_var, op->min), ir::Store(r->out, total, std::move(out_index))));
    ir::Stmt body = ir::ValueOrDie(
        ir::MakeAllocate(red, ir::Seq({ir::Store(red, *identity, zero), inner,
                                       ir::Store(red, collective, zero), write_back})));
    ++lowered;
    return ir::ValueOrDie(ir::MakeFor(op->loop_var, op->min, op->extent, op->for_kind,
                                      std::move(body), op->thread_tag, op->annotations));
  }

  std::optional<ir::Stmt> Refuse(const ir::BlockNode* b, const std::string& why) {
    Fail(absl::FailedPreconditionError(
        absl::StrCat("block '", b->name, "' reduces across threadIdx.x, but ", why,
                     "; tessel lowers a cross-thread reduction only as thread_reduction.h "
                     "describes")));
    return std::nullopt;
  }
};

}  // namespace

absl::Status CheckReductionBody(const ir::BlockNode* block) { return Match(block).status(); }

absl::StatusOr<ir::PrimFunc> LowerThreadReductions(const ir::PrimFunc& func, int* lowered) {
  Lowerer l;
  ir::PrimFunc out = l.VisitPrimFunc(func);
  if (!l.ok()) return l.status();
  if (lowered != nullptr) *lowered = l.lowered;
  return out;
}

}  // namespace tessel::passes::lowering
