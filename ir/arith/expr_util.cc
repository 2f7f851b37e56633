// Expression helpers for the arithmetic analyses; see expr_util.h.
//
//   CompareExpr(a, b) < 0 for variables a, b     (by name: a deterministic order)
//   IsPure(x + f())   -> false                   (f is an extern call)
//   CollectVars(i * 16 + j + i) -> [i, j]
#include "ir/arith/expr_util.h"

#include "absl/container/flat_hash_set.h"
#include "ir/arith/int_math.h"
#include "ir/buffer.h"
#include "ir/visitor.h"

namespace tessel::ir::arith {

std::optional<int64_t> AsConstInt(const Expr& e) {
  const auto* i = dyn_cast<IntImmNode>(e);
  if (i == nullptr || i->dtype.is_bool()) return std::nullopt;
  return i->value;
}

std::optional<bool> AsConstBool(const Expr& e) {
  const auto* i = dyn_cast<IntImmNode>(e);
  if (i == nullptr || !i->dtype.is_bool()) return std::nullopt;
  return i->value != 0;
}

std::optional<Expr> TryMakeConst(DataType t, int64_t v) {
  absl::StatusOr<Expr> e = MakeIntImm(t, v);
  if (!e.ok()) return std::nullopt;
  return *e;
}

bool FitsInt(DataType t, int64_t v) {
  if (t.bits() >= 64) return true;
  int64_t lo = -(int64_t{1} << (t.bits() - 1)), hi = (int64_t{1} << (t.bits() - 1)) - 1;
  return v >= lo && v <= hi;
}

absl::StatusOr<Expr> ZeroOf(DataType t) {
  return t.is_float() ? MakeFloatImm(t, 0.0) : MakeIntImm(t, 0);
}

namespace {

// A folded constant when it fits `t`, else nothing (the caller builds the node).
std::optional<Expr> Folded(DataType t, std::optional<int64_t> v) {
  if (!v || !t.is_int() || !FitsInt(t, *v)) return std::nullopt;
  return IntImm(t, *v);
}

void AddConjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind() == NodeKind::kAnd) {
    const auto* b = static_cast<const BinaryNode*>(e.get());
    AddConjuncts(b->a, out);
    AddConjuncts(b->b, out);
  } else if (!IsConstTrue(e)) {
    out->push_back(e);
  }
}

}  // namespace

Expr AddE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  int64_t r;
  if (ca && cb && !__builtin_add_overflow(*ca, *cb, &r)) {
    if (auto f = Folded(a->dtype, r)) return *f;
  }
  return Add(a, b);
}

Expr MulE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  int64_t r;
  if (ca && cb && !__builtin_mul_overflow(*ca, *cb, &r)) {
    if (auto f = Folded(a->dtype, r)) return *f;
  }
  return Mul(a, b);
}

Expr FloorDivE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a), cb = AsConstInt(b);
  if (cb && *cb == 1) return a;
  if (ca && cb && *cb != 0) {
    if (auto f = Folded(a->dtype, FloorDivInt(*ca, *cb))) return *f;
  }
  return FloorDiv(a, b);
}

Expr FloorModE(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a), cb = AsConstInt(b);
  if (cb && *cb == 1) return IntImm(a->dtype, 0);
  if (ca && cb && *cb != 0) {
    if (auto f = Folded(a->dtype, FloorModInt(*ca, *cb))) return *f;
  }
  return FloorMod(a, b);
}

bool IsConstTrue(const Expr& e) {
  const auto* imm = dyn_cast<IntImmNode>(e);
  return imm != nullptr && imm->dtype == DataType::Bool() && imm->value != 0;
}

std::vector<Expr> SplitConjuncts(const Expr& e) {
  std::vector<Expr> out;
  if (e) AddConjuncts(e, &out);
  return out;
}

Expr AndE(const Expr& a, const Expr& b) {
  if (!a || IsConstTrue(a)) return b;
  if (IsConstTrue(b)) return a;
  return And(a, b);
}

namespace {

bool DeepEqual(const Expr& a, const Expr& b, bool calls_equal);

bool DeepEqual(const Expr& a, const Expr& b, bool calls_equal) {
  if (a.same_as(b)) return a == nullptr || calls_equal || IsPure(a);
  if (a == nullptr || b == nullptr) return false;
  if (a->kind() != b->kind() || a->dtype != b->dtype) return false;
  switch (a->kind()) {
    case NodeKind::kVar: return false;  // Distinct objects are distinct variables.
    case NodeKind::kIntImm: return cast<IntImmNode>(a)->value == cast<IntImmNode>(b)->value;
    case NodeKind::kFloatImm: {
      // Bit-exact: 0.0 and -0.0 differ, NaN equals the same NaN.
      double x = cast<FloatImmNode>(a)->value, y = cast<FloatImmNode>(b)->value;
      return __builtin_memcmp(&x, &y, sizeof(double)) == 0;
    }
    case NodeKind::kNot: return DeepEqual(cast<NotNode>(a)->a, cast<NotNode>(b)->a, calls_equal);
    case NodeKind::kSelect: {
      const auto* x = cast<SelectNode>(a);
      const auto* y = cast<SelectNode>(b);
      return DeepEqual(x->condition, y->condition, calls_equal) &&
             DeepEqual(x->true_value, y->true_value, calls_equal) &&
             DeepEqual(x->false_value, y->false_value, calls_equal);
    }
    case NodeKind::kCast:
      return DeepEqual(cast<CastNode>(a)->value, cast<CastNode>(b)->value, calls_equal);
    case NodeKind::kBufferLoad: {
      const auto* x = cast<BufferLoadNode>(a);
      const auto* y = cast<BufferLoadNode>(b);
      if (!x->buffer.same_as(y->buffer) || x->indices.size() != y->indices.size()) return false;
      for (size_t i = 0; i < x->indices.size(); ++i) {
        if (!DeepEqual(x->indices[i], y->indices[i], calls_equal)) return false;
      }
      return true;
    }
    case NodeKind::kRamp: {
      const auto* x = cast<RampNode>(a);
      const auto* y = cast<RampNode>(b);
      return x->lanes == y->lanes && DeepEqual(x->base, y->base, calls_equal) &&
             DeepEqual(x->stride, y->stride, calls_equal);
    }
    case NodeKind::kBroadcast: {
      const auto* x = cast<BroadcastNode>(a);
      const auto* y = cast<BroadcastNode>(b);
      return x->lanes == y->lanes && DeepEqual(x->value, y->value, calls_equal);
    }
    case NodeKind::kCall: {
      const auto* x = cast<CallNode>(a);
      const auto* y = cast<CallNode>(b);
      bool intrinsics =
          x->callee == CallNode::Callee::kIntrinsic && y->callee == CallNode::Callee::kIntrinsic;
      if (!(intrinsics || (calls_equal && x->callee == y->callee)) || x->name != y->name ||
          x->args.size() != y->args.size()) {
        return false;
      }
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!DeepEqual(x->args[i], y->args[i], calls_equal)) return false;
      }
      return true;
    }
    default: {
      const auto* x = dyn_cast<BinaryNode>(a);
      const auto* y = dyn_cast<BinaryNode>(b);
      return x != nullptr && y != nullptr && DeepEqual(x->a, y->a, calls_equal) &&
             DeepEqual(x->b, y->b, calls_equal);
    }
  }
}

}  // namespace

bool ExprEqual(const Expr& a, const Expr& b) { return DeepEqual(a, b, false); }
bool ExprIdentical(const Expr& a, const Expr& b) { return DeepEqual(a, b, true); }

namespace {

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

int CompareExpr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return 0;
  if (a == nullptr || b == nullptr) return a == nullptr ? -1 : 1;
  if (int c = Cmp(static_cast<int>(a->kind()), static_cast<int>(b->kind()))) return c;
  switch (a->kind()) {
    case NodeKind::kVar: return Cmp(cast<VarNode>(a)->name, cast<VarNode>(b)->name);
    case NodeKind::kIntImm: return Cmp(cast<IntImmNode>(a)->value, cast<IntImmNode>(b)->value);
    case NodeKind::kFloatImm:
      return Cmp(cast<FloatImmNode>(a)->value, cast<FloatImmNode>(b)->value);
    case NodeKind::kNot: return CompareExpr(cast<NotNode>(a)->a, cast<NotNode>(b)->a);
    case NodeKind::kCast: return CompareExpr(cast<CastNode>(a)->value, cast<CastNode>(b)->value);
    case NodeKind::kBufferLoad: {
      const auto* x = cast<BufferLoadNode>(a);
      const auto* y = cast<BufferLoadNode>(b);
      if (int c = Cmp(x->buffer->name, y->buffer->name)) return c;
      if (int c = Cmp(x->indices.size(), y->indices.size())) return c;
      for (size_t i = 0; i < x->indices.size(); ++i) {
        if (int c = CompareExpr(x->indices[i], y->indices[i])) return c;
      }
      return 0;
    }
    default: {
      const auto* x = dyn_cast<BinaryNode>(a);
      const auto* y = dyn_cast<BinaryNode>(b);
      if (x == nullptr || y == nullptr) return 0;
      if (int c = CompareExpr(x->a, y->a)) return c;
      return CompareExpr(x->b, y->b);
    }
  }
}

namespace {

class PurityCheck : public IRVisitor {
 public:
  bool pure = true;
  void VisitCall(const CallNode* op) override {
    if (op->callee != CallNode::Callee::kIntrinsic) pure = false;
    if (pure) IRVisitor::VisitCall(op);
  }
};

class TrapCheck : public IRVisitor {
 public:
  bool may_trap = false;
  void VisitBufferLoad(const BufferLoadNode* op) override { may_trap = true; }
  void VisitCall(const CallNode* op) override { may_trap = true; }
  void VisitBinary(const BinaryNode* op) override {
    const NodeKind k = op->kind();
    // A division by a non-zero constant cannot fault.
    const IntImmNode* divisor = dyn_cast<IntImmNode>(op->b.get());
    if (op->dtype.is_integer() && (divisor == nullptr || divisor->value == 0) &&
        (k == NodeKind::kDiv || k == NodeKind::kMod || k == NodeKind::kFloorDiv ||
         k == NodeKind::kFloorMod)) {
      may_trap = true;
    }
    if (!may_trap) IRVisitor::VisitBinary(op);
  }
};

// Stops descending once a variable matched: each interior node checks `found`
// before visiting its children.
class VarSearch : public IRVisitor {
 public:
  explicit VarSearch(absl::FunctionRef<bool(const VarNode*)> pred) : pred_(pred) {}
  bool found = false;
  void VisitVar(const VarNode* op) override { found = found || pred_(op); }
  void VisitBinary(const BinaryNode* op) override {
    if (!found) IRVisitor::VisitBinary(op);
  }
  void VisitNot(const NotNode* op) override {
    if (!found) IRVisitor::VisitNot(op);
  }
  void VisitSelect(const SelectNode* op) override {
    if (!found) IRVisitor::VisitSelect(op);
  }
  void VisitCast(const CastNode* op) override {
    if (!found) IRVisitor::VisitCast(op);
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    if (!found) IRVisitor::VisitBufferLoad(op);
  }
  void VisitRamp(const RampNode* op) override {
    if (!found) IRVisitor::VisitRamp(op);
  }
  void VisitBroadcast(const BroadcastNode* op) override {
    if (!found) IRVisitor::VisitBroadcast(op);
  }
  void VisitCall(const CallNode* op) override {
    if (!found) IRVisitor::VisitCall(op);
  }

 private:
  absl::FunctionRef<bool(const VarNode*)> pred_;
};

class VarCollector : public IRVisitor {
 public:
  std::vector<Var> vars;
  absl::flat_hash_set<const VarNode*> seen;
  void VisitVar(const VarNode* op) override {
    if (seen.insert(op).second) vars.push_back(GetRef(op));
  }
};

}  // namespace

bool IsPure(const Expr& e) {
  // Most index expressions are tiny; skip the visitor for the common leaves.
  if (e == nullptr || isa<VarNode>(e) || isa<IntImmNode>(e) || isa<FloatImmNode>(e)) return true;
  PurityCheck check;
  check.VisitExpr(e);
  return check.pure;
}

bool MayTrap(const Expr& e) {
  if (e == nullptr || isa<VarNode>(e) || isa<IntImmNode>(e) || isa<FloatImmNode>(e)) return false;
  TrapCheck check;
  check.VisitExpr(e);
  return check.may_trap;
}

std::vector<Var> CollectVars(const Expr& e) {
  VarCollector c;
  c.VisitExpr(e);
  return std::move(c.vars);
}

bool AnyVar(const Expr& e, absl::FunctionRef<bool(const VarNode*)> pred) {
  if (!e) return false;
  VarSearch search(pred);
  search.VisitExpr(e);
  return search.found;
}

bool UsesVar(const Expr& e, const VarNode* v) {
  return AnyVar(e, [v](const VarNode* u) { return u == v; });
}

}  // namespace tessel::ir::arith
