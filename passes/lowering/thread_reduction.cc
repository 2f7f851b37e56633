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
#include "ir/schedule/block_dataflow.h"
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

ir::Stmt OneOrSeq(const std::vector<ir::Stmt>& stmts) {
  return stmts.size() == 1 ? stmts[0] : ir::Seq(stmts);
}

// The stores of `s`: one store, or a sequence of them; empty otherwise.
std::vector<const ir::BufferStoreNode*> Stores(const ir::StmtNode* s) {
  if (const auto* st = ir::dyn_cast<ir::BufferStoreNode>(s)) return {st};
  std::vector<const ir::BufferStoreNode*> out;
  const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(s);
  if (seq == nullptr) return {};
  for (const ir::Stmt& e : seq->seq) {
    const auto* st = ir::dyn_cast<ir::BufferStoreNode>(e.get());
    if (st == nullptr) return {};
    out.push_back(st);
  }
  return out;
}

// The block's reductions, one per output: its init (still an init, or
// lower-init-block's guarded stores) and its update, one store per output,
// possibly through lets (a tuple reduction: layer_norm's sum and sum of squares).
// The string is the rule broken.
absl::StatusOr<std::vector<Reduction>> Match(const ir::BlockNode* b) {
  std::vector<const ir::BufferStoreNode*> inits;
  const ir::StmtNode* body = b->body.get();
  if (b->init) {
    inits = Stores(b->init.get());
  } else if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(body);
             seq != nullptr && seq->seq.size() == 2) {
    const auto* guard = ir::dyn_cast<ir::IfThenElseNode>(seq->seq[0].get());
    if (guard != nullptr && !guard->else_case) inits = Stores(guard->then_case.get());
    body = seq->seq[1].get();
  }
  ir::VarMap lets;  // The update's lets, by value.
  while (const auto* let = ir::dyn_cast<ir::LetStmtNode>(body)) {
    lets[let->var.get()] = ir::Substitute(let->value, lets);
    body = let->body.get();
  }
  std::vector<const ir::BufferStoreNode*> updates = Stores(body);
  const std::string shape = "its body is not an init store and an update per output element";
  if (inits.empty() || inits.size() != updates.size()) {
    return absl::FailedPreconditionError(shape);
  }
  std::vector<Reduction> out;
  for (size_t i = 0; i < updates.size(); ++i) {
    const ir::BufferStoreNode* update = updates[i];
    const ir::BufferStoreNode* init = inits[i];
    if (init->buffer.get() != update->buffer.get() ||
        !ir::StructuralEqual(init->indices, update->indices)) {
      return absl::FailedPreconditionError(shape);
    }
    const ir::Expr value = ir::Substitute(update->value, lets);
    const auto* bin = ir::dyn_cast<ir::BinaryNode>(value.get());
    ir::NodeKind op = bin != nullptr ? bin->kind() : ir::NodeKind::kVar;
    if (bin == nullptr || (op != ir::NodeKind::kAdd && op != ir::NodeKind::kMul &&
                           op != ir::NodeKind::kMax && op != ir::NodeKind::kMin)) {
      return absl::FailedPreconditionError("its update does not combine with +, *, max or min");
    }
    auto is_acc = [&](const ir::Expr& e) {
      const auto* l = ir::dyn_cast<ir::BufferLoadNode>(e.get());
      return l != nullptr && l->buffer.get() == update->buffer.get() &&
             ir::StructuralEqual(l->indices, update->indices);
    };
    ir::Expr x = is_acc(bin->a) ? bin->b : is_acc(bin->b) ? bin->a : ir::Expr();
    // x may read no output: each output's partials combine on their own.
    bool reads_output = !x;
    for (const ir::BufferStoreNode* u : updates) reads_output |= x && Loads(x, u->buffer.get());
    if (reads_output) {
      return absl::FailedPreconditionError(
          absl::StrCat("its update is not '", update->buffer->name,
                       "[...] op x' with x reading none of the block's outputs"));
    }
    if (Loads(init->value, nullptr)) {
      return absl::FailedPreconditionError("its init value reads a buffer");
    }
    out.push_back(Reduction{update->buffer, update->indices, op, x, init->value});
  }
  return out;
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
    absl::StatusOr<std::vector<Reduction>> rs = Match(b);
    if (!rs.ok()) return Refuse(b, std::string(rs.status().message()));
    std::vector<ir::Stmt> init_partials, update_partials, combine_partials, write_backs;
    std::vector<ir::Buffer> reds;
    std::vector<ir::Expr> zero = {ir::IntImm32(0)};
    for (const Reduction& r : *rs) {
      for (const ir::Expr& e : r.indices) {
        for (const ir::IterVar& iv : b->iter_vars) {
          if (iv.kind == ir::IterKind::kReduce && ir::arith::UsesVar(e, iv.var.get())) {
            return Refuse(b, "the element it reduces into depends on a reduce iter var");
          }
        }
      }
      absl::StatusOr<ir::Expr> identity = Identity(r.op, r.out->dtype);
      if (!identity.ok()) return Refuse(b, std::string(identity.status().message()));
      ir::Buffer red =
          ir::MakeBuffer(r.out->name + "_red", r.out->dtype, {ir::IntImm32(1)}, "local");
      auto combine = [&](ir::Expr a, ir::Expr c) {
        return ir::ValueOrDie(ir::MakeBinary(r.op, std::move(a), std::move(c)));
      };
      reds.push_back(red);
      init_partials.push_back(ir::Store(red, *identity, zero));
      update_partials.push_back(ir::Store(red, combine(ir::Load(red, zero), r.x), zero));
      ir::Expr collective =
          ir::ValueOrDie(ir::MakeCall(r.out->dtype, ir::CallNode::Callee::kThreadReduce,
                                      CollectiveName(r.op), {ir::Load(red, zero)}));
      combine_partials.push_back(ir::Store(red, collective, zero));
      ir::Expr init = ir::Substitute(r.init, spatial);
      ir::Expr total = ir::Load(red, zero);
      if (!ir::StructuralEqual(init, *identity)) total = combine(init, total);
      std::vector<ir::Expr> out_index;
      for (const ir::Expr& e : r.indices) out_index.push_back(ir::Substitute(e, spatial));
      write_backs.push_back(ir::Store(r.out, total, std::move(out_index)));
    }
    // The block, now reducing into this thread's partials.
    auto nb = ir::MakeNode<ir::BlockNode>(*b);
    nb->init = nullptr;
    nb->body = OneOrSeq(update_partials);
    nb->reads.clear();
    for (const ir::BufferRegion& region : b->reads) {
      if (!ir::schedule::Touches(b->writes, region.buffer.get())) nb->reads.push_back(region);
    }
    nb->writes.clear();
    for (const ir::Buffer& red : reds) {
      nb->reads.push_back(ir::FullRegion(red));
      nb->writes.push_back(ir::FullRegion(red));
    }
    ir::Stmt inner = ir::ValueOrDie(
        ir::MakeBlockRealize(realize->iter_values, realize->predicate, ir::Block(std::move(nb))));
    for (auto it = nest.rbegin(); it != nest.rend(); ++it) {
      const ir::ForNode* f = *it;
      inner = ir::ValueOrDie(ir::MakeFor(f->loop_var, f->min, f->extent, f->for_kind, inner,
                                         f->thread_tag, f->annotations));
    }
    ir::Stmt write_back =
        ir::ValueOrDie(ir::MakeIfThenElse(ir::EQ(op->loop_var, op->min), OneOrSeq(write_backs)));
    std::vector<ir::Stmt> seq = init_partials;
    seq.push_back(inner);
    seq.insert(seq.end(), combine_partials.begin(), combine_partials.end());
    seq.push_back(write_back);
    ir::Stmt body = ir::Seq(seq);
    for (auto it = reds.rbegin(); it != reds.rend(); ++it) {
      body = ir::ValueOrDie(ir::MakeAllocate(*it, body));
    }
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
