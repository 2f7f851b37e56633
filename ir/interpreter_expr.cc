// Expressions of the reference interpreter: compiling an Expr into a CExpr tree
// and evaluating it lane by lane.
//
//   x + y  (f32)       -> a Binary node whose function adds in float, so every f32
//                         operation rounds to f32 exactly as compiled code does
//   i // j (i32)       -> floors toward -inf and wraps to 32 bits; j == 0 is an error
//   A[ramp(i, 1, 4)]   -> a Load node that bounds-checks each of the 4 lanes
//
// The arithmetic itself (per operator and dtype) lives in interpreter_ops.cc;
// here are the nodes that feed it: leaves, operators, calls and loads, with a
// scalar fast path that reads variables and constants without a virtual call.
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_internal.h"
#include "ir/intrinsics.h"
#include "ir/printer.h"

namespace tessel::ir::interp {
namespace {

// ---- Leaves ----------------------------------------------------------------------

class ConstExpr : public CExpr {
 public:
  ConstExpr(int lanes, Lane v) : CExpr(lanes), v_(v) {
    is_const = true;
    const_value = v;
  }
  void Eval(Ctx&, Lane* out) override {
    for (int l = 0; l < lanes; ++l) out[l] = v_;
  }

 private:
  Lane v_;
};

class VarExpr : public CExpr {
 public:
  VarExpr(int lanes, int slot) : CExpr(lanes), slot_(slot) {
    if (lanes == 1) var_slot = slot;
  }
  void Eval(Ctx& c, Lane* out) override {
    const Lane* src = c.frame + slot_;
    for (int l = 0; l < lanes; ++l) out[l] = src[l];
  }

 private:
  int slot_;
};

// ---- Binary operators --------------------------------------------------------------

class BinaryExpr : public CExpr {
 public:
  BinaryExpr(const BinaryNode* op, const StmtNode* where, BinFn fn, CExprPtr a, CExprPtr b)
      : CExpr(op->dtype.lanes()), op_(op), where_(where), fn_(fn),
        wrap_(IntWrap::For(op->a->dtype)), a_(std::move(a)), b_(std::move(b)),
        oa_(a_.get()), ob_(b_.get()), sa_(lanes), sb_(lanes) {}

  void Eval(Ctx& c, Lane* out) override {
    int bad;
    if (lanes == 1) {
      Lane x = oa_.Get(c), y = ob_.Get(c);
      bad = fn_(&x, &y, out, 1, wrap_);
    } else {
      a_->Eval(c, sa_.data());
      b_->Eval(c, sb_.data());
      bad = fn_(sa_.data(), sb_.data(), out, lanes, wrap_);
    }
    if (bad >= 0) DivByZero(c, out, bad);
  }

 private:
  void DivByZero(Ctx& c, Lane* out, int lane) {
    for (int l = 0; l < lanes; ++l) out[l].i = 0;
    std::string lane_text = lanes > 1 ? absl::StrCat(" (lane ", lane, ")") : "";
    c.Fail(absl::StatusCode::kInvalidArgument, where_,
           absl::StrCat("integer division by zero", lane_text, " in '",
                        PrintExpr(GetRef(static_cast<const ExprNode*>(op_))), "'"));
  }

  const BinaryNode* op_;
  const StmtNode* where_;
  BinFn fn_;
  IntWrap wrap_;
  CExprPtr a_, b_;
  Operand oa_, ob_;  // Scalar fast path.
  std::vector<Lane> sa_, sb_;
};

// ---- Other operators ---------------------------------------------------------------

class NotExpr : public CExpr {
 public:
  explicit NotExpr(CExprPtr a) : CExpr(a->lanes), a_(std::move(a)), s_(lanes) {}
  void Eval(Ctx& c, Lane* out) override {
    a_->Eval(c, s_.data());
    for (int l = 0; l < lanes; ++l) out[l].i = s_[l].i != 0 ? 0 : 1;
  }

 private:
  CExprPtr a_;
  std::vector<Lane> s_;
};

class SelectExpr : public CExpr {
 public:
  SelectExpr(CExprPtr cond, CExprPtr t, CExprPtr f)
      : CExpr(t->lanes), c_(std::move(cond)), t_(std::move(t)), f_(std::move(f)),
        sc_(c_->lanes), st_(lanes), sf_(lanes) {}
  void Eval(Ctx& c, Lane* out) override {
    c_->Eval(c, sc_.data());
    t_->Eval(c, st_.data());  // Both arms are evaluated (expr.h).
    f_->Eval(c, sf_.data());
    bool scalar_cond = c_->lanes == 1;
    for (int l = 0; l < lanes; ++l) out[l] = sc_[scalar_cond ? 0 : l].i != 0 ? st_[l] : sf_[l];
  }

 private:
  CExprPtr c_, t_, f_;
  std::vector<Lane> sc_, st_, sf_;
};

class CastExpr : public CExpr {
 public:
  CastExpr(DataType from, DataType to, CExprPtr v)
      : CExpr(v->lanes), from_(from.element_of()), to_(to.element_of()), v_(std::move(v)),
        s_(lanes) {}
  void Eval(Ctx& c, Lane* out) override {
    v_->Eval(c, s_.data());
    for (int l = 0; l < lanes; ++l) out[l] = CastLane(s_[l], from_, to_);
  }

 private:
  DataType from_, to_;
  CExprPtr v_;
  std::vector<Lane> s_;
};

class RampExpr : public CExpr {
 public:
  RampExpr(int lanes, DataType t, CExprPtr base, CExprPtr stride)
      : CExpr(lanes), wrap_(IntWrap::For(t)), base_(std::move(base)), stride_(std::move(stride)) {}
  void Eval(Ctx& c, Lane* out) override {
    Lane b, s;
    base_->Eval(c, &b);
    stride_->Eval(c, &s);
    for (int l = 0; l < lanes; ++l) {
      uint64_t v = static_cast<uint64_t>(b.i) + static_cast<uint64_t>(l) * static_cast<uint64_t>(s.i);
      out[l].i = wrap_(static_cast<int64_t>(v));
    }
  }

 private:
  IntWrap wrap_;
  CExprPtr base_, stride_;
};

class BroadcastExpr : public CExpr {
 public:
  BroadcastExpr(int lanes, CExprPtr v) : CExpr(lanes), v_(std::move(v)) {}
  void Eval(Ctx& c, Lane* out) override {
    Lane v;
    v_->Eval(c, &v);
    for (int l = 0; l < lanes; ++l) out[l] = v;
  }

 private:
  CExprPtr v_;
};

// ---- Calls -------------------------------------------------------------------------

class IntrinsicExpr : public CExpr {
 public:
  IntrinsicExpr(Intr id, DataType t, std::vector<CExprPtr> args)
      : CExpr(t.lanes()), id_(id), repr_(ReprOf(t)), wrap_(IntWrap::For(t)),
        args_(std::move(args)) {
    for (size_t i = 0; i < args_.size(); ++i) s_[i].resize(lanes);
  }
  void Eval(Ctx& c, Lane* out) override {
    for (size_t i = 0; i < args_.size(); ++i) args_[i]->Eval(c, s_[i].data());
    for (int l = 0; l < lanes; ++l) out[l] = Lane1(l);
  }

 private:
  Lane Lane1(int l) const {
    Lane a = s_[0][l];
    Lane b = args_.size() > 1 ? s_[1][l] : a;
    Lane c = args_.size() > 2 ? s_[2][l] : a;
    return ApplyIntrinsicLane(id_, repr_, wrap_, a, b, c);
  }

  Intr id_;
  Repr repr_;
  IntWrap wrap_;
  std::vector<CExprPtr> args_;
  std::vector<Lane> s_[3];
};

class ExternCallExpr : public CExpr {
 public:
  ExternCallExpr(int lanes, const CallNode* op, const StmtNode* where)
      : CExpr(lanes), op_(op), where_(where) {}
  void Eval(Ctx& c, Lane* out) override {
    for (int l = 0; l < lanes; ++l) out[l].i = 0;
    c.Fail(absl::StatusCode::kUnimplemented, where_,
           absl::StrCat("extern call '", op_->name, "' cannot be run by the interpreter"));
  }

 private:
  const CallNode* op_;
  const StmtNode* where_;
};

// ---- Loads -------------------------------------------------------------------------

class LoadExpr : public CExpr {
 public:
  LoadExpr(const BufferLoadNode* op, int slot, const StmtNode* where, std::vector<CExprPtr> idx)
      : CExpr(op->dtype.lanes()), buf_(op->buffer.get()), slot_(slot), where_(where),
        read_(ReaderFor(op->buffer->dtype)), elem_bytes_(op->buffer->dtype.bytes()),
        idx_(std::move(idx)), cur_(idx_.size()) {
    for (const CExprPtr& e : idx_) {
      s_.emplace_back(e->lanes);
      ops_.emplace_back(e.get());
    }
  }

  void Eval(Ctx& c, Lane* out) override {
    int nd = static_cast<int>(idx_.size());
    if (lanes == 1) {  // Scalar fast path: no scratch vectors.
      for (int d = 0; d < nd; ++d) cur_[d] = ops_[d].Get(c).i;
      const BufState& b = c.bufs[slot_];
      int64_t off = FastOffset(b, cur_.data(), nd);
      if (off < 0 || off >= b.storage_elems) {
        if (c.failed) {  // An index already failed: its value means nothing.
          out[0].i = 0;
          return;
        }
        off = CheckedOffset(c, b, buf_, cur_.data(), false, where_, -1);
        if (off < 0) {
          out[0].i = 0;
          return;
        }
      }
      if (b.written && !b.written[off]) {
        UninitializedRead(c, b, buf_, cur_.data(), where_, -1);
        out[0].i = 0;
        return;
      }
      CheckGpuAccess(c, b, buf_, off, elem_bytes_, cur_.data(), false, where_);
      out[0] = read_(b.data + off * elem_bytes_);
      return;
    }
    for (int d = 0; d < nd; ++d) idx_[d]->Eval(c, s_[d].data());
    const BufState& b = c.bufs[slot_];
    for (int l = 0; l < lanes; ++l) {
      for (int d = 0; d < nd; ++d) cur_[d] = s_[d][idx_[d]->lanes == 1 ? 0 : l].i;
      int64_t off = FastOffset(b, cur_.data(), nd);
      if (off < 0 || off >= b.storage_elems) {
        off = CheckedOffset(c, b, buf_, cur_.data(), false, where_, lanes > 1 ? l : -1);
        if (off < 0) {
          for (int k = 0; k < lanes; ++k) out[k].i = 0;
          return;
        }
      }
      if (b.written && !b.written[off]) {
        UninitializedRead(c, b, buf_, cur_.data(), where_, l);
        for (int k = 0; k < lanes; ++k) out[k].i = 0;
        return;
      }
      CheckGpuAccess(c, b, buf_, off, elem_bytes_, cur_.data(), false, where_);
      out[l] = read_(b.data + off * elem_bytes_);
    }
  }

 private:
  const BufferNode* buf_;
  int slot_;
  const StmtNode* where_;
  ElementReader read_;
  int elem_bytes_;
  std::vector<CExprPtr> idx_;
  std::vector<Operand> ops_;
  std::vector<std::vector<Lane>> s_;
  std::vector<int64_t> cur_;
};

// ---- Compiling -------------------------------------------------------------------

// Compiles `children` into `out` (same order); the first error wins.
absl::Status CompileChildren(Compiler& comp, std::initializer_list<const Expr*> children,
                             const StmtNode* where, std::initializer_list<CExprPtr*> out) {
  auto dst = out.begin();
  for (const Expr* child : children) {
    absl::StatusOr<CExprPtr> c = comp.CompileExpr(*child, where);
    if (!c.ok()) return c.status();
    **dst++ = *std::move(c);
  }
  return absl::OkStatus();
}

#define TESSEL_NOINLINE __attribute__((noinline))

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileMalformed(Compiler& comp, const Expr& e,
                                                          const StmtNode* where) {
  if (!e) return comp.Error(where, "an expression is missing");
  if (e->dtype.lanes() < 1) {
    return comp.Error(where,
                      absl::StrCat("expression of type ", e->dtype.ToString(), " has no value"));
  }
  return comp.Error(where, absl::StrCat("unsupported expression kind ", NodeKindName(e->kind())));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileLeaf(Compiler& comp, const Expr& e,
                                                     const StmtNode* where) {
  int lanes = e->dtype.lanes();
  if (const auto* v = dyn_cast<VarNode>(e)) {
    std::optional<int> slot = comp.SlotOf(v);
    if (!slot) {
      return comp.Error(where, absl::StrCat("variable '", v->name, "' is used but not bound here"));
    }
    return CExprPtr(new VarExpr(lanes, *slot));
  }
  if (const auto* imm = dyn_cast<IntImmNode>(e)) {
    return CExprPtr(new ConstExpr(lanes, IntLane(IntWrap::For(e->dtype)(imm->value))));
  }
  const auto* imm = cast<FloatImmNode>(e);
  return CExprPtr(new ConstExpr(lanes, FloatLane(RoundToDtype(imm->value, e->dtype))));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileNot(Compiler& comp, const Expr& e,
                                                    const StmtNode* where) {
  CExprPtr a;
  if (absl::Status st = CompileChildren(comp, {&static_cast<const NotNode*>(e.get())->a}, where, {&a});
      !st.ok()) {
    return st;
  }
  return CExprPtr(new NotExpr(std::move(a)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileSelect(Compiler& comp, const Expr& e,
                                                       const StmtNode* where) {
  const auto* s = static_cast<const SelectNode*>(e.get());
  CExprPtr c, t, f;
  if (absl::Status st = CompileChildren(comp, {&s->condition, &s->true_value, &s->false_value},
                                        where, {&c, &t, &f});
      !st.ok()) {
    return st;
  }
  if (t->lanes != f->lanes || (c->lanes != 1 && c->lanes != t->lanes)) {
    return comp.Error(where, "Select with mismatched lanes: " + PrintExpr(e));
  }
  return CExprPtr(new SelectExpr(std::move(c), std::move(t), std::move(f)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileCast(Compiler& comp, const Expr& e,
                                                     const StmtNode* where) {
  const auto* c = static_cast<const CastNode*>(e.get());
  CExprPtr v;
  if (absl::Status st = CompileChildren(comp, {&c->value}, where, {&v}); !st.ok()) return st;
  if (v->lanes != e->dtype.lanes()) {
    return comp.Error(where, "Cast changes the lane count: " + PrintExpr(e));
  }
  if (c->value->dtype.is_handle() || e->dtype.is_handle()) {
    return comp.Error(where, "cannot cast handles: " + PrintExpr(e));
  }
  return CExprPtr(new CastExpr(c->value->dtype, e->dtype, std::move(v)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileRamp(Compiler& comp, const Expr& e,
                                                     const StmtNode* where) {
  const auto* r = static_cast<const RampNode*>(e.get());
  CExprPtr b, s;
  if (absl::Status st = CompileChildren(comp, {&r->base, &r->stride}, where, {&b, &s}); !st.ok()) {
    return st;
  }
  if (b->lanes != 1 || s->lanes != 1 || !r->base->dtype.is_integer() ||
      e->dtype.lanes() != r->lanes) {
    return comp.Error(where, "malformed Ramp: " + PrintExpr(e));
  }
  return CExprPtr(new RampExpr(r->lanes, r->base->dtype, std::move(b), std::move(s)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileBroadcast(Compiler& comp, const Expr& e,
                                                          const StmtNode* where) {
  const auto* b = static_cast<const BroadcastNode*>(e.get());
  CExprPtr v;
  if (absl::Status st = CompileChildren(comp, {&b->value}, where, {&v}); !st.ok()) return st;
  if (v->lanes != 1 || e->dtype.lanes() != b->lanes) {
    return comp.Error(where, "malformed Broadcast: " + PrintExpr(e));
  }
  return CExprPtr(new BroadcastExpr(b->lanes, std::move(v)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileCall(Compiler& comp, const Expr& e,
                                                     const StmtNode* where) {
  const auto* call = static_cast<const CallNode*>(e.get());
  if (call->callee == CallNode::Callee::kPacked) return CompilePackedCall(comp, call, where);
  if (call->callee == CallNode::Callee::kAddressOf) {
    return comp.Error(where, "address_of is only an argument of a packed call: " + PrintExpr(e));
  }
  if (call->callee == CallNode::Callee::kWarpMma) {
    return comp.Error(where, absl::StrCat(call->name,
                                          "(...) is a collective of a GPU kernel's warps: the "
                                          "whole value of a store below loops bound to threads"));
  }
  if (call->callee == CallNode::Callee::kThreadReduce) {
    return comp.Error(where, absl::StrCat(call->name,
                                          "(...) is a collective of a GPU kernel's "
                                          "threads: the whole value of a store below a "
                                          "loop bound to threadIdx.x"));
  }
  if (call->callee == CallNode::Callee::kSyncThreads) {
    // A kernel's barriers are statements of their own, compiled by the phase
    // compiler (interpreter_gpu.cc); any other place has no block to synchronise.
    return comp.Error(
        where, comp.thread_mode() == Compiler::ThreadMode::kSerial
                   ? "sync_threads() in a function that still has blocks (its thread-bound loops "
                     "run serially; lowering inserts the barriers)"
                   : "sync_threads() is a statement of its own inside a GPU kernel (below a loop "
                     "bound to blockIdx or threadIdx)");
  }
  int lanes = e->dtype.lanes();
  std::vector<CExprPtr> args;
  for (const Expr& a : call->args) {
    absl::StatusOr<CExprPtr> ca = comp.CompileExpr(a, where);
    if (!ca.ok()) return ca.status();
    args.push_back(*std::move(ca));
  }
  if (call->callee == CallNode::Callee::kExtern) {
    return CExprPtr(new ExternCallExpr(lanes, call, where));
  }
  std::optional<Intr> id = IntrinsicId(call->name);
  const IntrinsicInfo* info = LookupIntrinsic(call->name);
  if (!id || !info || static_cast<int>(args.size()) != info->arity) {
    return comp.Error(where, "unknown intrinsic or wrong arity: " + PrintExpr(e));
  }
  for (const CExprPtr& a : args) {
    if (a->lanes != lanes) return comp.Error(where, "intrinsic lanes differ: " + PrintExpr(e));
  }
  bool ok = e->dtype.is_float() || (*id == Intr::kFabs && e->dtype.is_integer());
  if (!ok) return comp.Error(where, "intrinsic on a non-float type: " + PrintExpr(e));
  return CExprPtr(new IntrinsicExpr(*id, e->dtype, std::move(args)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileLoad(Compiler& comp, const Expr& e,
                                                     const StmtNode* where) {
  const auto* ld = static_cast<const BufferLoadNode*>(e.get());
  if (!ld->buffer) return comp.Error(where, "a BufferLoad has no buffer");
  std::optional<int> slot = comp.BufferSlotOf(ld->buffer.get());
  if (!slot) {
    return comp.Error(where, absl::StrCat("buffer '", ld->buffer->name,
                                          "' is used but not bound here"));
  }
  if (static_cast<int>(ld->indices.size()) != ld->buffer->ndim()) {
    return comp.Error(where, absl::StrCat("BufferLoad from '", ld->buffer->name, "' has ",
                                          ld->indices.size(), " indices for rank ",
                                          ld->buffer->ndim()));
  }
  std::vector<CExprPtr> idx;
  for (const Expr& i : ld->indices) {
    absl::StatusOr<CExprPtr> ci = comp.CompileExpr(i, where);
    if (!ci.ok()) return ci.status();
    if (!i->dtype.is_integer() || ((*ci)->lanes != 1 && (*ci)->lanes != e->dtype.lanes())) {
      return comp.Error(where, "malformed index in " + PrintExpr(e));
    }
    idx.push_back(*std::move(ci));
  }
  return CExprPtr(new LoadExpr(ld, *slot, where, std::move(idx)));
}

TESSEL_NOINLINE absl::StatusOr<CExprPtr> CompileBinary(Compiler& comp, const Expr& e,
                                                       const StmtNode* where) {
  const auto* bin = static_cast<const BinaryNode*>(e.get());
  if (!bin->a || !bin->b) return comp.Error(where, "a binary operand is missing");
  CExprPtr a, b;
  if (absl::Status st = CompileChildren(comp, {&bin->a, &bin->b}, where, {&a, &b}); !st.ok()) {
    return st;
  }
  BinFn fn = SelectBinFn(e->kind(), ReprOf(bin->a->dtype));
  if (fn == nullptr || bin->a->dtype != bin->b->dtype || a->lanes != e->dtype.lanes()) {
    return comp.Error(where, absl::StrCat("operator ", NodeKindName(e->kind()), " on ",
                                          bin->a->dtype.ToString(), " is not supported: ",
                                          PrintExpr(e)));
  }
  return CExprPtr(new BinaryExpr(bin, where, fn, std::move(a), std::move(b)));
}

#undef TESSEL_NOINLINE

}  // namespace

absl::StatusOr<CExprPtr> Compiler::CompileExpr(const Expr& e, const StmtNode* where) {
  if (depth_ >= kMaxNesting) return TooDeep(where);
  ++depth_;
  absl::StatusOr<CExprPtr> r = CompileExprNode(e, where);
  --depth_;
  return r;
}

absl::StatusOr<CExprPtr> Compiler::CompileExprNode(const Expr& e, const StmtNode* where) {
  // Each kind compiles in its own (not inlined) function, so that the recursion
  // through deep expressions carries only the frame of the kind at hand.
  if (!e || e->dtype.lanes() < 1) return CompileMalformed(*this, e, where);
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm: return CompileLeaf(*this, e, where);
    case NodeKind::kNot: return CompileNot(*this, e, where);
    case NodeKind::kSelect: return CompileSelect(*this, e, where);
    case NodeKind::kCast: return CompileCast(*this, e, where);
    case NodeKind::kRamp: return CompileRamp(*this, e, where);
    case NodeKind::kBroadcast: return CompileBroadcast(*this, e, where);
    case NodeKind::kCall: return CompileCall(*this, e, where);
    case NodeKind::kBufferLoad: return CompileLoad(*this, e, where);
    default: break;
  }
  if (isa<BinaryNode>(e)) return CompileBinary(*this, e, where);
  return CompileMalformed(*this, e, where);
}

}  // namespace tessel::ir::interp
