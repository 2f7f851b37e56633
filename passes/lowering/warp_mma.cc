// Tensor-core products (see warp_mma.h).
#include "passes/lowering/warp_mma.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/binding_map.h"
#include "ir/fallible_mutator.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"

namespace tessel::passes::lowering {
namespace {

const ir::DataType kF16 = ir::DataType::Float(16);
const ir::DataType kF32 = ir::DataType::Float(32);

// `C[c] = C[c] + f32(A[a]) * f32(B[b])`.
struct MmaBody {
  const ir::BufferLoadNode* a = nullptr;
  const ir::BufferLoadNode* b = nullptr;
  const ir::BufferStoreNode* c = nullptr;
};

const ir::BufferLoadNode* CastF16Load(const ir::Expr& e) {
  const auto* cast = ir::dyn_cast<ir::CastNode>(e.get());
  if (cast == nullptr || cast->dtype != kF32) return nullptr;
  const auto* load = ir::dyn_cast<ir::BufferLoadNode>(cast->value.get());
  return load != nullptr && load->dtype == kF16 ? load : nullptr;
}

absl::StatusOr<MmaBody> MatchBody(const ir::Stmt& body) {
  const std::string want = "its body is not C[c] = C[c] + f32(A[a]) * f32(B[b]) (A, B f16; C f32)";
  if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(body.get());
      seq != nullptr && !seq->seq.empty() && seq->seq[0]->kind() == ir::NodeKind::kIfThenElse) {
    // lower-init-block's guarded init.
    return absl::FailedPreconditionError(
        "it has an init (decompose the reduction at a loop outside the warp's products)");
  }
  MmaBody m;
  m.c = ir::dyn_cast<ir::BufferStoreNode>(body.get());
  if (m.c == nullptr || m.c->value->dtype != kF32 || m.c->value->kind() != ir::NodeKind::kAdd) {
    return absl::FailedPreconditionError(want);
  }
  const auto* add = static_cast<const ir::BinaryNode*>(m.c->value.get());
  const auto* acc = ir::dyn_cast<ir::BufferLoadNode>(add->a.get());
  if (acc == nullptr || acc->buffer.get() != m.c->buffer.get() ||
      !ir::StructuralEqual(acc->indices, m.c->indices) || add->b->kind() != ir::NodeKind::kMul) {
    return absl::FailedPreconditionError(want);
  }
  const auto* mul = static_cast<const ir::BinaryNode*>(add->b.get());
  m.a = CastF16Load(mul->a);
  m.b = CastF16Load(mul->b);
  if (m.a == nullptr || m.b == nullptr) return absl::FailedPreconditionError(want);
  return m;
}

// Whether every element at an even flat offset of `b` starts a 4-byte word: an
// aligned pointer, no offset, and even strides (compact: an even last extent).
bool EvenWords(const ir::Buffer& b) {
  auto even = [](const ir::Expr& e) {
    std::optional<int64_t> v = ir::arith::AsConstInt(e);
    return v && *v % 2 == 0;
  };
  if (b->alignment < 4 || (b->elem_offset && !ir::arith::IsConstInt(b->elem_offset, 0))) {
    return false;
  }
  if (!b->strides.empty()) {
    for (size_t d = 0; d + 1 < b->strides.size(); ++d) {
      if (!even(b->strides[d])) return false;
    }
    return ir::arith::IsConstInt(b->strides.back(), 1);
  }
  return b->shape.size() < 2 || even(b->shape.back());
}

bool AnyUses(const std::vector<ir::Expr>& idx, const ir::VarNode* v) {
  for (const ir::Expr& e : idx) {
    if (ir::arith::UsesVar(e, v)) return true;
  }
  return false;
}

// `e` in the dtype of `v`.
ir::Expr As(const ir::Var& v, const ir::Expr& e) {
  return e->dtype == v->dtype ? e : ir::Cast(v->dtype, e);
}

class Lowerer : public ir::FallibleMutator<> {
 public:
  int lowered = 0;

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    if (const ir::BlockRealizeNode* r = MarkedNest(op)) {
      std::optional<ir::Stmt> s = Lower(op, r);
      if (!s) return ir::GetRef(op);
      ++lowered;
      return *s;
    }
    loops_.push_back(op);
    ir::Stmt s = IRMutator::VisitFor(op);
    loops_.pop_back();
    return s;
  }

  ir::Stmt VisitBlockRealize(const ir::BlockRealizeNode* op) override {
    if (op->block->annotations.count(kWarpMmaAnnotation)) {
      return Fail(absl::FailedPreconditionError(
                      absl::StrCat("block '", op->block->name, "' is marked ", kWarpMmaAnnotation,
                                   " but is not the whole body of three loops (warp_mma.h)")),
                  ir::GetRef(op));
    }
    return IRMutator::VisitBlockRealize(op);
  }

 private:
  // The marked block when `op` is the outermost of three loops around it alone.
  static const ir::BlockRealizeNode* MarkedNest(const ir::ForNode* op) {
    const auto* f2 = ir::dyn_cast<ir::ForNode>(op->body.get());
    const auto* f3 = f2 != nullptr ? ir::dyn_cast<ir::ForNode>(f2->body.get()) : nullptr;
    const auto* r = f3 != nullptr ? ir::dyn_cast<ir::BlockRealizeNode>(f3->body.get()) : nullptr;
    return r != nullptr && r->block->annotations.count(kWarpMmaAnnotation) ? r : nullptr;
  }

  std::optional<ir::Stmt> Refuse(const ir::BlockNode* b, const std::string& why) {
    Fail(absl::FailedPreconditionError(
        absl::StrCat("block '", b->name, "' is marked ", kWarpMmaAnnotation, ", but ", why,
                     "; tessel lowers it to mma_m16n8k16 only as warp_mma.h describes")));
    return std::nullopt;
  }

  std::optional<ir::Stmt> Lower(const ir::ForNode* outer, const ir::BlockRealizeNode* realize) {
    const ir::BlockNode* b = realize->block.get();
    if (b->init) {
      return Refuse(b,
                    "it has an init (decompose the reduction at a loop outside the warp's "
                    "products)");
    }
    if (!ir::arith::IsConstTrue(realize->predicate)) return Refuse(b, "it has a predicate");
    if (!b->alloc_buffers.empty()) return Refuse(b, "it allocates");
    const ir::Stmt body = ir::Substitute(b->body, ir::BindingMap(realize));
    absl::StatusOr<MmaBody> m = MatchBody(body);
    if (!m.ok()) return Refuse(b, std::string(m.status().message()));

    // The three loops' roles, by what each index uses.
    const std::array<const ir::ForNode*, 3> nest = {
        outer, static_cast<const ir::ForNode*>(outer->body.get()),
        static_cast<const ir::ForNode*>(
            static_cast<const ir::ForNode*>(outer->body.get())->body.get())};
    const ir::ForNode *ih = nullptr, *jl = nullptr, *kk = nullptr;
    for (const ir::ForNode* f : nest) {
      const ir::VarNode* v = f->loop_var.get();
      const bool ua = AnyUses(m->a->indices, v), ub = AnyUses(m->b->indices, v),
                 uc = AnyUses(m->c->indices, v);
      const ir::ForNode** role = ua && ub && !uc   ? &kk
                                 : ua && uc && !ub ? &ih
                                 : ub && uc && !ua ? &jl
                                                   : nullptr;
      if (role == nullptr || *role != nullptr) {
        return Refuse(b,
                      "its loops are not one over A's and C's rows, one over B's and C's "
                      "columns and one over the reduction");
      }
      *role = f;
      if (!ir::arith::IsConstInt(f->min, 0)) {
        return Refuse(b, "a loop of its nest does not start at 0");
      }
    }
    if (!ir::arith::IsConstInt(ih->extent, 2) || !ir::arith::IsConstInt(jl->extent, 2) ||
        !ir::arith::IsConstInt(kk->extent, 16)) {
      return Refuse(b, absl::StrCat("its rows, columns and reduction loops have extents ",
                                    ir::PrintExpr(ih->extent), ", ", ir::PrintExpr(jl->extent),
                                    " and ", ir::PrintExpr(kk->extent), ", not 2, 2 and 16"));
    }
    const ir::ForNode* lane = nullptr;
    for (size_t k = loops_.size(); k-- > 0 && lane == nullptr;) {
      if (loops_[k]->for_kind == ir::ForKind::kThreadBinding &&
          loops_[k]->thread_tag == "threadIdx.x") {
        lane = loops_[k];
      }
    }
    if (lane == nullptr || !ir::arith::IsConstInt(lane->min, 0) ||
        !ir::arith::IsConstInt(lane->extent, 32)) {
      return Refuse(b, "it is not under a loop of 32 bound to threadIdx.x from 0 (a warp's lanes)");
    }

    ir::arith::Analyzer ana;
    for (const ir::ForNode* f : loops_) ana.Bind(f->loop_var, ir::Range{f->min, f->extent});
    for (const ir::ForNode* f : nest) ana.Bind(f->loop_var, ir::Range{f->min, f->extent});
    const ir::Var tx = lane->loop_var;
    auto c = [&](int64_t v) { return ir::IntImm(tx->dtype, v); };
    const ir::Expr g = ir::FloorDiv(tx, c(4)), t = ir::FloorMod(tx, c(4));
    // A's rows are the lane's g, B's columns its t.
    auto only_through = [&](const std::vector<ir::Expr>& idx, const ir::Expr& part) {
      for (const ir::Expr& e : idx) {
        if (!ana.CanProveEqual(ir::Substitute(e, {{tx.get(), part}}), e)) return false;
      }
      return true;
    };
    if (!only_through(m->a->indices, ir::Mul(g, c(4)))) {
      return Refuse(b,
                    absl::StrCat(m->a->buffer->name, "'s index uses the lane other than through ",
                                 "threadIdx.x // 4"));
    }
    if (!only_through(m->b->indices, t)) {
      return Refuse(b,
                    absl::StrCat(m->b->buffer->name, "'s index uses the lane other than through ",
                                 "threadIdx.x % 4"));
    }

    // Fragment element r of each operand, as PTX's m16n8k16 layout places it.
    auto fragment = [&](const std::vector<ir::Expr>& indices, const ir::VarMap& map,
                        const ir::Var& r, int64_t lanes) {
      ir::arith::Analyzer::Scope scope(&ana);
      ana.Bind(r, ir::Range{c(0), c(lanes)});
      std::vector<ir::Expr> idx;
      for (const ir::Expr& e : indices) idx.push_back(ana.Simplify(ir::Substitute(e, map)));
      return idx;
    };
    const ir::Var ra = ir::MakeVar("r", tx->dtype), rb = ir::MakeVar("r", tx->dtype),
                  rc = ir::MakeVar("r", tx->dtype), rd = ir::MakeVar("r", tx->dtype);
    auto two_t = [&](const ir::Var& r, int64_t high) {
      return ir::Add(ir::Add(ir::Mul(t, c(2)), ir::FloorMod(r, c(2))),
                     ir::Mul(ir::FloorDiv(r, c(high)), c(8)));
    };
    const ir::Var vih = ih->loop_var, vjl = jl->loop_var, vkk = kk->loop_var;
    std::vector<ir::Expr> ai =
        fragment(m->a->indices,
                 {{vih.get(), As(vih, ir::FloorMod(ir::FloorDiv(ra, c(2)), c(2)))},
                  {vkk.get(), As(vkk, two_t(ra, 4))}},
                 ra, 8);
    std::vector<ir::Expr> bi = fragment(m->b->indices,
                                        {{tx.get(), ir::FloorDiv(g, c(2))},
                                         {vjl.get(), As(vjl, ir::FloorMod(g, c(2)))},
                                         {vkk.get(), As(vkk, two_t(rb, 2))}},
                                        rb, 4);
    // A lane's four accumulators must be four elements of C: the loops would add
    // twice into one element where the mma keeps two.
    std::vector<std::vector<ir::Expr>> cells;
    for (int64_t r = 0; r < 4; ++r) {
      std::vector<ir::Expr> idx;
      for (const ir::Expr& e : m->c->indices) {
        idx.push_back(ana.Simplify(
            ir::Substitute(e, {{vih.get(), As(vih, c(r / 2))}, {vjl.get(), As(vjl, c(r % 2))}})));
      }
      for (const std::vector<ir::Expr>& other : cells) {
        bool apart = false;
        for (size_t d = 0; d < idx.size() && !apart; ++d)
          apart = ana.CanProve(ir::NE(idx[d], other[d]));
        if (!apart) return Refuse(b, "two of a lane's four accumulators may be one element of C");
      }
      cells.push_back(std::move(idx));
    }
    auto own = [&](const ir::Var& r) {
      ir::VarMap map = {{vih.get(), As(vih, ir::FloorDiv(r, c(2)))},
                        {vjl.get(), As(vjl, ir::FloorMod(r, c(2)))}};
      return fragment(m->c->indices, map, r, 4);
    };

    const std::string base = m->c->buffer->name;
    const ir::Buffer fa = ir::MakeBuffer(base + "_a", kF16, {ir::IntImm32(8)}, "local");
    const ir::Buffer fb = ir::MakeBuffer(base + "_b", kF16, {ir::IntImm32(4)}, "local");
    const ir::Buffer fd = ir::MakeBuffer(base + "_d", kF32, {ir::IntImm32(4)}, "local");
    auto unrolled = [&](const ir::Var& r, int64_t n, ir::Stmt s) {
      return ir::ValueOrDie(ir::MakeFor(r, c(0), c(n), ir::ForKind::kUnrolled, std::move(s)));
    };
    auto load = [](const ir::Buffer& buf, std::vector<ir::Expr> idx) {
      return ir::ValueOrDie(ir::MakeBufferLoad(buf, std::move(idx)));
    };
    auto store = [](const ir::Buffer& buf, ir::Expr v, std::vector<ir::Expr> idx) {
      return ir::ValueOrDie(ir::MakeBufferStore(buf, std::move(v), std::move(idx)));
    };
    auto ramp = [&](const ir::Buffer& buf, int lanes) {
      return load(buf, {ir::ValueOrDie(ir::MakeRamp(ir::IntImm32(0), ir::IntImm32(1), lanes))});
    };
    // A fragment's elements r = 2p and 2p + 1 are one 32-bit register. Where they
    // neighbour in the source's last dimension at an even element offset, they are
    // one 2-lane load (ld.shared.b32); otherwise one element at a time.
    auto fill = [&](const ir::Buffer& frag, const ir::Buffer& src, const std::vector<ir::Expr>& idx,
                    const ir::Var& r, int64_t lanes) {
      const ir::Var p = ir::MakeVar("p", tx->dtype);
      ir::arith::Analyzer::Scope scope(&ana);
      ana.Bind(p, ir::Range{c(0), c(lanes / 2)});
      auto at = [&](int64_t l) {
        return fragment(idx, {{r.get(), As(r, ir::Add(ir::Mul(p, c(2)), c(l)))}}, p, lanes / 2);
      };
      std::vector<ir::Expr> lo = at(0), hi = at(1);
      if (EvenWords(src) && !lo.empty()) {
        const ir::Expr last = lo.back();
        bool paired = ana.CanProveEqual(ir::Sub(hi.back(), last), ir::IntImm(last->dtype, 1)) &&
                      ana.CanProveEqual(ir::FloorMod(last, ir::IntImm(last->dtype, 2)),
                                        ir::IntImm(last->dtype, 0));
        for (size_t d = 0; d + 1 < lo.size() && paired; ++d) {
          paired = ana.CanProveEqual(lo[d], hi[d]);
        }
        if (paired) {
          lo.back() = ir::ValueOrDie(ir::MakeRamp(last, ir::IntImm(last->dtype, 1), 2));
          const ir::Expr at_frag = ir::ValueOrDie(ir::MakeRamp(ir::Mul(p, c(2)), c(1), 2));
          return unrolled(p, lanes / 2, store(frag, load(src, lo), {at_frag}));
        }
      }
      return unrolled(r, lanes, store(frag, load(src, idx), {r}));
    };
    const ir::Expr mma =
        ir::ValueOrDie(ir::MakeCall(kF32.with_lanes(4), ir::CallNode::Callee::kWarpMma,
                                    ir::kMmaM16N8K16, {ramp(fa, 8), ramp(fb, 4), ramp(fd, 4)}));
    ir::Stmt seq = ir::Seq({
        fill(fa, m->a->buffer, ai, ra, 8),
        fill(fb, m->b->buffer, bi, rb, 4),
        unrolled(rc, 4, store(fd, load(m->c->buffer, own(rc)), {rc})),
        store(fd, mma, {ir::ValueOrDie(ir::MakeRamp(ir::IntImm32(0), ir::IntImm32(1), 4))}),
        unrolled(rd, 4, store(m->c->buffer, load(fd, {rd}), own(rd))),
    });
    for (const ir::Buffer& buf : {fd, fb, fa}) seq = ir::ValueOrDie(ir::MakeAllocate(buf, seq));
    return seq;
  }

  std::vector<const ir::ForNode*> loops_;  // Around the statement visited.
};

}  // namespace

absl::Status CheckWarpMmaBody(const ir::Stmt& body) { return MatchBody(body).status(); }

absl::StatusOr<ir::PrimFunc> LowerWarpMmas(const ir::PrimFunc& func, int* lowered) {
  Lowerer l;
  ir::PrimFunc out = l.VisitPrimFunc(func);
  if (!l.ok()) return l.status();
  if (lowered != nullptr) *lowered = l.lowered;
  return out;
}

}  // namespace tessel::passes::lowering
