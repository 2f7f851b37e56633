// The body rewrite of vectorize-loop (see vectorizer.h).
#include "passes/lowering/vectorizer.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/status_macros.h"

namespace tessel::passes::lowering {
namespace {

using ir::Expr;
using ir::NodeKind;
using ir::Stmt;

bool IsVec(const Expr& e) { return e->dtype.is_vector(); }

class Vectorizer {
 public:
  Vectorizer(const ir::Var& x, const ir::Expr& min, int lanes) : x_(x), min_(min), lanes_(lanes) {}

  absl::StatusOr<Expr> Vec(const Expr& e) {
    switch (e->kind()) {
      case NodeKind::kVar: {
        if (e.get() == x_.get()) {
          Expr base = min_->dtype == x_->dtype ? min_ : ir::Cast(x_->dtype, min_);
          return ir::MakeRamp(base, ir::IntImm(x_->dtype, 1), lanes_);
        }
        auto it = lets_.find(static_cast<const ir::VarNode*>(e.get()));
        return it == lets_.end() ? e : it->second;
      }
      case NodeKind::kIntImm:
      case NodeKind::kFloatImm:
        return e;
      case NodeKind::kNot: {
        TESSEL_ASSIGN_OR_RETURN(Expr a, Vec(ir::cast<ir::NotNode>(e)->a));
        if (a.same_as(ir::cast<ir::NotNode>(e)->a)) return e;
        return ir::MakeNot(a);
      }
      case NodeKind::kSelect: {
        const auto* s = ir::cast<ir::SelectNode>(e);
        TESSEL_ASSIGN_OR_RETURN(Expr c, Vec(s->condition));
        TESSEL_ASSIGN_OR_RETURN(Expr t, Vec(s->true_value));
        TESSEL_ASSIGN_OR_RETURN(Expr f, Vec(s->false_value));
        if (!IsVec(c) && !IsVec(t) && !IsVec(f)) {
          if (c.same_as(s->condition) && t.same_as(s->true_value) && f.same_as(s->false_value)) return e;
          return ir::MakeSelect(c, t, f);
        }
        TESSEL_ASSIGN_OR_RETURN(c, Widen(c));
        TESSEL_ASSIGN_OR_RETURN(t, Widen(t));
        TESSEL_ASSIGN_OR_RETURN(f, Widen(f));
        return ir::MakeSelect(c, t, f);
      }
      case NodeKind::kCast: {
        const auto* c = ir::cast<ir::CastNode>(e);
        TESSEL_ASSIGN_OR_RETURN(Expr v, Vec(c->value));
        if (v.same_as(c->value)) return e;
        return ir::MakeCast(e->dtype.with_lanes(v->dtype.lanes()), v);
      }
      case NodeKind::kBufferLoad:
        return VecLoad(ir::cast<ir::BufferLoadNode>(e));
      case NodeKind::kRamp:
      case NodeKind::kBroadcast:
        return absl::FailedPreconditionError("its body is already vector code");
      case NodeKind::kCall: {
        const auto* c = ir::cast<ir::CallNode>(e);
        if (c->callee == ir::CallNode::Callee::kExtern) {
          return absl::FailedPreconditionError(
              absl::StrCat("it calls the external symbol @", c->name, " (once per lane)"));
        }
        std::vector<Expr> args;
        bool any_vec = false, changed = false;
        for (const Expr& a : c->args) {
          TESSEL_ASSIGN_OR_RETURN(Expr v, Vec(a));
          any_vec |= IsVec(v);
          changed |= !v.same_as(a);
          args.push_back(v);
        }
        if (!changed) return e;
        if (any_vec) {
          for (Expr& a : args) {
            TESSEL_ASSIGN_OR_RETURN(a, Widen(a));
          }
        }
        return ir::MakeCall(e->dtype.with_lanes(any_vec ? lanes_ : 1), c->callee, c->name, args);
      }
      default:
        break;
    }
    if (const auto* b = ir::dyn_cast<ir::BinaryNode>(e)) {
      TESSEL_ASSIGN_OR_RETURN(Expr a, Vec(b->a));
      TESSEL_ASSIGN_OR_RETURN(Expr c, Vec(b->b));
      if (!IsVec(a) && !IsVec(c)) {
        if (a.same_as(b->a) && c.same_as(b->b)) return e;
        return ir::MakeBinary(e->kind(), a, c);
      }
      return Combine(e->kind(), a, c);
    }
    return absl::UnimplementedError(absl::StrCat("it holds a ", ir::NodeKindName(e->kind())));
  }

  absl::StatusOr<Stmt> VecStmt(const Stmt& s) {
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* st = ir::cast<ir::BufferStoreNode>(s);
        TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> idx, VecIndices(st->buffer, st->indices));
        if (idx.size() != 1 || !IsVec(idx[0])) {
          return absl::FailedPreconditionError(absl::StrCat(
              "every lane stores to the same element of '", st->buffer->name,
              "' (a reduction or a lane-independent store over the loop)"));
        }
        TESSEL_ASSIGN_OR_RETURN(Expr v, Vec(st->value));
        TESSEL_ASSIGN_OR_RETURN(v, Widen(v));
        return ir::MakeBufferStore(st->buffer, v, idx);
      }
      case NodeKind::kSeqStmt: {
        std::vector<Stmt> seq;
        for (const Stmt& c : ir::cast<ir::SeqStmtNode>(s)->seq) {
          TESSEL_ASSIGN_OR_RETURN(Stmt v, VecStmt(c));
          seq.push_back(v);
        }
        return ir::MakeSeqStmt(seq);
      }
      case NodeKind::kIfThenElse: {
        const auto* n = ir::cast<ir::IfThenElseNode>(s);
        TESSEL_ASSIGN_OR_RETURN(Expr c, Vec(n->condition));
        if (IsVec(c)) {
          return absl::FailedPreconditionError(absl::StrCat(
              "the condition of 'if ", ir::PrintExpr(n->condition), "' depends on the lane"));
        }
        TESSEL_ASSIGN_OR_RETURN(Stmt t, VecStmt(n->then_case));
        Stmt f;
        if (n->else_case) {
          TESSEL_ASSIGN_OR_RETURN(f, VecStmt(n->else_case));
        }
        return ir::MakeIfThenElse(c, t, f);
      }
      case NodeKind::kFor: {
        const auto* f = ir::cast<ir::ForNode>(s);
        TESSEL_ASSIGN_OR_RETURN(Expr mn, Vec(f->min));
        TESSEL_ASSIGN_OR_RETURN(Expr ext, Vec(f->extent));
        if (IsVec(mn) || IsVec(ext)) {
          return absl::FailedPreconditionError(absl::StrCat(
              "the bounds of the inner loop '", f->loop_var->name, "' depend on the lane"));
        }
        if (f->for_kind != ir::ForKind::kSerial && f->for_kind != ir::ForKind::kUnrolled) {
          return absl::FailedPreconditionError(absl::StrCat(
              "it holds the ", ir::ForKindName(f->for_kind), " loop '", f->loop_var->name, "'"));
        }
        TESSEL_ASSIGN_OR_RETURN(Stmt body, VecStmt(f->body));
        return ir::MakeFor(f->loop_var, mn, ext, f->for_kind, body, f->thread_tag, f->annotations);
      }
      case NodeKind::kLetStmt: {
        const auto* l = ir::cast<ir::LetStmtNode>(s);
        TESSEL_ASSIGN_OR_RETURN(Expr v, Vec(l->value));
        ir::Var var = l->var;
        if (IsVec(v)) {
          var = ir::MakeVar(l->var->name, l->var->dtype.with_lanes(lanes_));
          lets_[l->var.get()] = var;
        }
        TESSEL_ASSIGN_OR_RETURN(Stmt body, VecStmt(l->body));
        return ir::MakeLetStmt(var, v, body);
      }
      case NodeKind::kEvaluate:
        return absl::FailedPreconditionError("it evaluates an expression for its effect");
      case NodeKind::kAllocate:
      case NodeKind::kDeclBuffer:
        return absl::FailedPreconditionError("it binds a buffer inside the loop");
      case NodeKind::kBlock:
      case NodeKind::kBlockRealize:
        return absl::FailedPreconditionError("it holds a block (run remove-blocks first)");
      default:
        return absl::UnimplementedError(absl::StrCat("it holds a ", ir::NodeKindName(s->kind())));
    }
  }

 private:
  // A scalar made a vector of lanes_ lanes; a vector as it is.
  absl::StatusOr<Expr> Widen(const Expr& e) {
    if (IsVec(e)) return e;
    return ir::MakeBroadcast(e, lanes_);
  }

  // Ramp arithmetic first (so that indices stay ramps), then lane by lane.
  absl::StatusOr<Expr> Combine(NodeKind k, const Expr& a, const Expr& b) {
    const auto* ra = ir::dyn_cast<ir::RampNode>(a);
    const auto* rb = ir::dyn_cast<ir::RampNode>(b);
    if (k == NodeKind::kAdd || k == NodeKind::kSub) {
      if (ra && !IsVec(b)) return Ramp(Fold(k, ra->base, b), ra->stride);
      if (ra && rb) return Ramp(Fold(k, ra->base, rb->base), Fold(k, ra->stride, rb->stride));
      if (rb && !IsVec(a) && k == NodeKind::kAdd) return Ramp(Fold(k, a, rb->base), rb->stride);
      if (rb && !IsVec(a)) {
        return Ramp(Fold(k, a, rb->base), Fold(k, ir::IntImm(rb->stride->dtype, 0), rb->stride));
      }
    }
    if (k == NodeKind::kMul) {
      if (ra && !IsVec(b)) return Ramp(Fold(k, ra->base, b), Fold(k, ra->stride, b));
      if (rb && !IsVec(a)) return Ramp(Fold(k, a, rb->base), Fold(k, a, rb->stride));
    }
    TESSEL_ASSIGN_OR_RETURN(Expr wa, Widen(a));
    TESSEL_ASSIGN_OR_RETURN(Expr wb, Widen(b));
    return ir::MakeBinary(k, wa, wb);
  }

  // a (+ - *) b on scalars, folding the constant and unit cases so that ramps
  // print as ramp(i * 16, 1, 16), not ramp(i * 16 + 0, 1 * 1, 16).
  static absl::StatusOr<Expr> Fold(NodeKind k, const Expr& a, const Expr& b) {
    if (a->dtype != b->dtype || !a->dtype.is_int()) return ir::MakeBinary(k, a, b);
    if (k == NodeKind::kAdd) return ir::arith::AddE(a, b);
    if (k == NodeKind::kMul) return ir::arith::MulE(a, b);
    if (ir::arith::IsConstInt(b, 0)) return a;
    return ir::MakeBinary(k, a, b);
  }

  // ramp(base, stride); with a zero stride every lane has the value `base`.
  absl::StatusOr<Expr> Ramp(absl::StatusOr<Expr> base, absl::StatusOr<Expr> stride) {
    TESSEL_RETURN_IF_ERROR(base.status());
    TESSEL_RETURN_IF_ERROR(stride.status());
    if (ir::arith::IsConstInt(*stride, 0)) return *base;
    return ir::MakeRamp(*base, *stride, lanes_);
  }

  absl::StatusOr<std::vector<Expr>> VecIndices(const ir::Buffer& buf, const std::vector<Expr>& in) {
    std::vector<Expr> out;
    bool any_vec = false;
    for (const Expr& i : in) {
      TESSEL_ASSIGN_OR_RETURN(Expr v, Vec(i));
      any_vec |= IsVec(v);
      out.push_back(v);
    }
    if (!any_vec) return out;
    if (out.size() != 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "'", buf->name, "' is accessed with ", out.size(), " indices (run flatten-buffer first)"));
    }
    if (!ir::isa<ir::RampNode>(out[0])) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the index of '", buf->name, "' is not affine in the loop variable (",
          ir::PrintExpr(in[0]), ")"));
    }
    return out;
  }

  absl::StatusOr<Expr> VecLoad(const ir::BufferLoadNode* op) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> idx, VecIndices(op->buffer, op->indices));
    bool same = true;
    for (size_t d = 0; d < idx.size(); ++d) same &= idx[d].same_as(op->indices[d]);
    if (same) return ir::GetRef<ir::ExprNode>(op);
    return ir::MakeBufferLoad(op->buffer, idx);
  }

  ir::Var x_;
  Expr min_;
  int lanes_;
  absl::flat_hash_map<const ir::VarNode*, Expr> lets_;  // Let vars that became vectors.
};

}  // namespace

absl::StatusOr<ir::Stmt> VectorizeBody(const ir::Stmt& body, const ir::Var& x, const ir::Expr& min,
                                       int lanes) {
  Vectorizer v(x, min, lanes);
  return v.VecStmt(body);
}

absl::StatusOr<ir::Expr> VectorizeExpr(const ir::Expr& e, const ir::Var& x, const ir::Expr& min,
                                       int lanes) {
  Vectorizer v(x, min, lanes);
  return v.Vec(e);
}

}  // namespace tessel::passes::lowering
