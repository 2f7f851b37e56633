// Constant folding and simple identities; see the header for the rules and the
// semantics they keep.
#include "passes/transforms/arith_fold.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "ir/visitor.h"

namespace tessel::passes {

using ir::BinaryNode;
using ir::DataType;
using ir::Expr;
using ir::FloatImmNode;
using ir::IntImmNode;
using ir::NodeKind;

namespace {

class ExternCallFinder : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kExtern) found = true;
    IRVisitor::VisitCall(op);
  }
};

// `v` reduced to the width of `t`, sign-extended for signed types.
int64_t Wrap(DataType t, uint64_t v) {
  if (t.is_bool()) return static_cast<int64_t>(v & 1);
  int bits = t.bits();
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  v &= mask;
  if (t.is_int() && ((v >> (bits - 1)) & 1)) v |= ~mask;
  return static_cast<int64_t>(v);
}

bool IsArith(NodeKind k) { return k >= NodeKind::kAdd && k <= NodeKind::kMax; }
bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

std::optional<int64_t> FoldInt(NodeKind k, DataType t, int64_t a, int64_t b) {
  bool u = t.is_uint();
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (k) {
    case NodeKind::kAdd:
      return Wrap(t, ua + ub);
    case NodeKind::kSub:
      return Wrap(t, ua - ub);
    case NodeKind::kMul:
      return Wrap(t, ua * ub);
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      if (b == 0) return std::nullopt;  // Stays a run-time error.
      bool quotient = k == NodeKind::kDiv || k == NodeKind::kFloorDiv;
      if (u) return Wrap(t, quotient ? ua / ub : ua % ub);
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        return quotient ? Wrap(t, ua) : 0;  // Wraps, as the interpreter does.
      }
      int64_t q = a / b, r = a % b;
      if ((k == NodeKind::kFloorDiv || k == NodeKind::kFloorMod) && r != 0 &&
          ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return Wrap(t, static_cast<uint64_t>(quotient ? q : r));
    }
    case NodeKind::kMin:
      return u ? (ua < ub ? a : b) : std::min(a, b);
    case NodeKind::kMax:
      return u ? (ua > ub ? a : b) : std::max(a, b);
    case NodeKind::kEQ:
      return a == b;
    case NodeKind::kNE:
      return a != b;
    case NodeKind::kLT:
      return u ? ua < ub : a < b;
    case NodeKind::kLE:
      return u ? ua <= ub : a <= b;
    case NodeKind::kGT:
      return u ? ua > ub : a > b;
    case NodeKind::kGE:
      return u ? ua >= ub : a >= b;
    case NodeKind::kAnd:
      return (a != 0) && (b != 0);
    case NodeKind::kOr:
      return (a != 0) || (b != 0);
    default:
      return std::nullopt;
  }
}

// Folds float arithmetic (f32/f64 only) and comparisons (any float type).
std::optional<Expr> FoldFloat(const BinaryNode* op, double a, double b) {
  NodeKind k = op->kind();
  DataType t = op->a->dtype;
  if (IsCompare(k)) {
    bool r = false;
    switch (k) {
      case NodeKind::kEQ:
        r = a == b;
        break;
      case NodeKind::kNE:
        r = a != b;
        break;
      case NodeKind::kLT:
        r = a < b;
        break;
      case NodeKind::kLE:
        r = a <= b;
        break;
      case NodeKind::kGT:
        r = a > b;
        break;
      default:
        r = a >= b;
        break;
    }
    return ir::Bool(r);
  }
  // Half-precision results would be rounded twice (double, then the interpreter's
  // float) in some cases: leave them to run time.
  if (t.bits() < 32 || t.is_bfloat()) return std::nullopt;
  double r;
  switch (k) {
    case NodeKind::kAdd:
      r = a + b;
      break;
    case NodeKind::kSub:
      r = a - b;
      break;
    case NodeKind::kMul:
      r = a * b;
      break;
    case NodeKind::kDiv:
      r = a / b;
      break;
    case NodeKind::kMin:
    case NodeKind::kMax:
      // NaN and signed zeros are where min/max implementations disagree.
      if (std::isnan(a) || std::isnan(b) || (a == 0 && b == 0)) return std::nullopt;
      r = k == NodeKind::kMin ? std::min(a, b) : std::max(a, b);
      break;
    default:
      return std::nullopt;
  }
  absl::StatusOr<Expr> e = ir::MakeFloatImm(t, r);
  if (!e.ok()) return std::nullopt;
  return *e;
}

const IntImmNode* AsInt(const Expr& e) { return ir::dyn_cast<IntImmNode>(e); }
bool IsInt(const Expr& e, int64_t v) {
  const IntImmNode* i = AsInt(e);
  return i != nullptr && !i->dtype.is_bool() && i->value == v;
}
bool IsFloat(const Expr& e, double v) {
  const auto* f = ir::dyn_cast<FloatImmNode>(e);
  return f != nullptr && f->value == v;
}

std::optional<Expr> Binary(NodeKind k, Expr a, Expr b) {
  absl::StatusOr<Expr> e = ir::MakeBinary(k, std::move(a), std::move(b));
  if (!e.ok()) return std::nullopt;
  return *e;
}

std::optional<Expr> Int(DataType t, int64_t v) {
  absl::StatusOr<Expr> e = ir::MakeIntImm(t, v);
  if (!e.ok()) return std::nullopt;
  return *e;
}

// x + c as the pair (x, c) for x + c and x - c; for signed integer types.
bool SplitOffset(const Expr& e, Expr* base, int64_t* offset) {
  const auto* b = ir::dyn_cast<BinaryNode>(e);
  if (b == nullptr || (b->kind() != NodeKind::kAdd && b->kind() != NodeKind::kSub)) return false;
  const IntImmNode* c = AsInt(b->b);
  if (c == nullptr) return false;
  *base = b->a;
  *offset =
      b->kind() == NodeKind::kAdd ? c->value : Wrap(b->dtype, 0 - static_cast<uint64_t>(c->value));
  return true;
}

// base + offset, written as base - k for negative offsets.
std::optional<Expr> WithOffset(const Expr& base, int64_t offset) {
  DataType t = base->dtype;
  if (offset == 0) return base;
  if (offset < 0 && offset != std::numeric_limits<int64_t>::min()) {
    std::optional<Expr> k = Int(t, -offset);
    if (k) return Binary(NodeKind::kSub, base, *k);
  }
  std::optional<Expr> k = Int(t, offset);
  if (!k) return std::nullopt;
  return Binary(NodeKind::kAdd, base, *k);
}

}  // namespace

bool HasExternCall(const Expr& e) {
  ExternCallFinder f;
  f.VisitExpr(e);
  return f.found;
}

Expr ArithFolder::VisitBinary(const BinaryNode* op) {
  return FoldBinary(IRMutator::VisitBinary(op));
}

Expr ArithFolder::FoldBinary(const Expr& e) {
  const auto* op = ir::dyn_cast<BinaryNode>(e);
  if (op == nullptr) return e;
  NodeKind k = op->kind();
  DataType t = op->a->dtype;
  const IntImmNode* ia = AsInt(op->a);
  const IntImmNode* ib = AsInt(op->b);
  if (ia != nullptr && ib != nullptr) {
    std::optional<int64_t> v = FoldInt(k, t, ia->value, ib->value);
    if (v) {
      if (std::optional<Expr> r = Int(op->dtype, *v)) return Applied("fold-constant", *r);
    }
    return e;
  }
  const auto* fa = ir::dyn_cast<FloatImmNode>(op->a);
  const auto* fb = ir::dyn_cast<FloatImmNode>(op->b);
  if (fa != nullptr && fb != nullptr) {
    if (std::optional<Expr> r = FoldFloat(op, fa->value, fb->value)) {
      return Applied("fold-constant", *r);
    }
    return e;
  }

  if (t.is_bool() && (k == NodeKind::kAnd || k == NodeKind::kOr)) {
    // true && x -> x, false && x -> false, and the same for ||, either side.
    bool is_and = k == NodeKind::kAnd;
    const Expr* sides[2][2] = {{&op->a, &op->b}, {&op->b, &op->a}};
    for (auto& side : sides) {
      const IntImmNode* c = AsInt(*side[0]);
      if (c == nullptr) continue;
      bool neutral = (c->value != 0) == is_and;
      if (neutral) return Applied("identity", *side[1]);
      if (!HasExternCall(*side[1])) return Applied("identity", *side[0]);
    }
    return e;
  }

  if (t.is_integer() && IsArith(k)) {
    switch (k) {
      case NodeKind::kAdd:
        if (IsInt(op->b, 0)) return Applied("identity", op->a);
        if (IsInt(op->a, 0)) return Applied("identity", op->b);
        break;
      case NodeKind::kSub:
        if (IsInt(op->b, 0)) return Applied("identity", op->a);
        break;
      case NodeKind::kMul:
        if (IsInt(op->b, 1)) return Applied("identity", op->a);
        if (IsInt(op->a, 1)) return Applied("identity", op->b);
        if (IsInt(op->b, 0) && !HasExternCall(op->a)) return Applied("identity", op->b);
        if (IsInt(op->a, 0) && !HasExternCall(op->b)) return Applied("identity", op->a);
        break;
      case NodeKind::kDiv:
      case NodeKind::kFloorDiv:
        if (IsInt(op->b, 1)) return Applied("identity", op->a);
        break;
      case NodeKind::kMod:
      case NodeKind::kFloorMod:
        if (IsInt(op->b, 1) && !HasExternCall(op->a)) {
          if (std::optional<Expr> z = Int(t, 0)) return Applied("identity", *z);
        }
        break;
      default:
        break;
    }
    if (t.is_int() && (k == NodeKind::kAdd || k == NodeKind::kMul) && ia != nullptr) {
      // c + x -> x + c, so that constants meet on the right.
      if (std::optional<Expr> r = Binary(k, op->b, op->a)) {
        return Applied("move-constant-right", FoldBinary(*r));
      }
    }
    if (t.is_int() && (k == NodeKind::kAdd || k == NodeKind::kSub) && ib != nullptr) {
      // (x + c1) + c2 -> x + (c1 + c2), and the same with subtractions.
      Expr base;
      int64_t inner = 0;
      if (SplitOffset(op->a, &base, &inner)) {
        uint64_t c2 = static_cast<uint64_t>(ib->value);
        uint64_t sum = static_cast<uint64_t>(inner) + (k == NodeKind::kAdd ? c2 : 0 - c2);
        if (std::optional<Expr> r = WithOffset(base, Wrap(t, sum))) {
          return Applied("reassociate-constants", *r);
        }
      }
    }
    if (t.is_int() && k == NodeKind::kMul && ib != nullptr) {
      // (x * c1) * c2 -> x * (c1 * c2); wrapping multiplication is associative.
      const auto* inner = ir::dyn_cast<BinaryNode>(op->a);
      if (inner != nullptr && inner->kind() == NodeKind::kMul && AsInt(inner->b) != nullptr) {
        uint64_t prod =
            static_cast<uint64_t>(AsInt(inner->b)->value) * static_cast<uint64_t>(ib->value);
        if (std::optional<Expr> c = Int(t, Wrap(t, prod))) {
          if (std::optional<Expr> r = Binary(NodeKind::kMul, inner->a, *c)) {
            return Applied("reassociate-constants", FoldBinary(*r));
          }
        }
      }
    }
    return e;
  }

  if (t.is_float() && t.is_scalar()) {
    // Exact for every value, NaN and infinities included.
    if (k == NodeKind::kMul && IsFloat(op->b, 1.0)) return Applied("identity", op->a);
    if (k == NodeKind::kMul && IsFloat(op->a, 1.0)) return Applied("identity", op->b);
    if (k == NodeKind::kDiv && IsFloat(op->b, 1.0)) return Applied("identity", op->a);
  }
  return e;
}

Expr ArithFolder::VisitNot(const ir::NotNode* op) {
  Expr e = IRMutator::VisitNot(op);
  const auto* n = ir::dyn_cast<ir::NotNode>(e);
  if (n == nullptr) return e;
  if (const IntImmNode* c = AsInt(n->a)) return Applied("fold-constant", ir::Bool(c->value == 0));
  if (const auto* inner = ir::dyn_cast<ir::NotNode>(n->a)) return Applied("identity", inner->a);
  return e;
}

Expr ArithFolder::VisitSelect(const ir::SelectNode* op) {
  Expr e = IRMutator::VisitSelect(op);
  const auto* s = ir::dyn_cast<ir::SelectNode>(e);
  if (s == nullptr) return e;
  if (const IntImmNode* c = AsInt(s->condition)) {
    const Expr& keep = c->value ? s->true_value : s->false_value;
    const Expr& drop = c->value ? s->false_value : s->true_value;
    if (!HasExternCall(drop)) return Applied("constant-select", keep);
  }
  return e;
}

Expr ArithFolder::VisitCast(const ir::CastNode* op) {
  Expr e = IRMutator::VisitCast(op);
  const auto* c = ir::dyn_cast<ir::CastNode>(e);
  if (c == nullptr) return e;
  DataType to = c->dtype, from = c->value->dtype;
  if (to == from) return Applied("identity", c->value);
  if (!to.is_scalar()) return e;
  if (const IntImmNode* i = AsInt(c->value)) {
    if (to.is_integer() || to.is_bool()) {
      int64_t v = to.is_bool() ? (i->value != 0) : Wrap(to, static_cast<uint64_t>(i->value));
      if (std::optional<Expr> r = Int(to, v)) return Applied("fold-constant", *r);
    } else if (to.is_float() && (to.bits() >= 32 && !to.is_bfloat())) {
      // Exact in double up to 2^53, so rounding to the target happens once.
      double d = from.is_uint() ? static_cast<double>(static_cast<uint64_t>(i->value))
                                : static_cast<double>(i->value);
      if (std::fabs(d) <= 9007199254740992.0) {
        absl::StatusOr<Expr> r = ir::MakeFloatImm(to, d);
        if (r.ok()) return Applied("fold-constant", *r);
      }
    }
    return e;
  }
  if (const auto* f = ir::dyn_cast<FloatImmNode>(c->value)) {
    if (to.is_float()) {
      absl::StatusOr<Expr> r =
          ir::MakeFloatImm(to, f->value);  // One rounding from the exact value.
      if (r.ok()) return Applied("fold-constant", *r);
    }
  }
  return e;
}

Expr FoldExpr(const Expr& e, FoldCounts* counts) {
  ArithFolder f(counts);
  return f.VisitExpr(e);
}

}  // namespace tessel::passes
