// Constant folding with the interpreter's semantics; see const_fold.h.
//
//   FoldIntOp(kAdd, i8, 100, 100) -> -56      FoldIntOp(kFloorMod, i32, -7, 2) -> 1
//   WrapToDtype(u8, 300) -> 44                FoldIntOp(kDiv, i32, 7, 0) -> nothing
#include "ir/arith/const_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"

namespace tessel::ir::arith {

int64_t WrapToDtype(DataType t, int64_t value) {
  uint64_t v = static_cast<uint64_t>(value);
  if (t.is_bool()) return static_cast<int64_t>(v != 0);
  int bits = t.bits();
  if (bits >= 64) return value;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  v &= mask;
  if (t.is_int() && ((v >> (bits - 1)) & 1)) v |= ~mask;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> FoldIntOp(NodeKind k, DataType t, int64_t a, int64_t b) {
  bool u = t.is_uint();
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  auto wrap = [t](uint64_t v) { return WrapToDtype(t, static_cast<int64_t>(v)); };
  switch (k) {
    case NodeKind::kAdd: return wrap(ua + ub);
    case NodeKind::kSub: return wrap(ua - ub);
    case NodeKind::kMul: return wrap(ua * ub);
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      if (b == 0) return std::nullopt;  // Stays a run-time error.
      bool quotient = k == NodeKind::kDiv || k == NodeKind::kFloorDiv;
      if (u) return wrap(quotient ? ua / ub : ua % ub);
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        return quotient ? wrap(ua) : 0;  // Wraps, as the interpreter does.
      }
      bool floor = k == NodeKind::kFloorDiv || k == NodeKind::kFloorMod;
      int64_t q = floor ? FloorDivInt(a, b) : a / b;
      int64_t r = floor ? FloorModInt(a, b) : a % b;
      return wrap(static_cast<uint64_t>(quotient ? q : r));
    }
    case NodeKind::kMin: return u ? (ua < ub ? a : b) : std::min(a, b);
    case NodeKind::kMax: return u ? (ua > ub ? a : b) : std::max(a, b);
    case NodeKind::kEQ: return a == b;
    case NodeKind::kNE: return a != b;
    case NodeKind::kLT: return u ? ua < ub : a < b;
    case NodeKind::kLE: return u ? ua <= ub : a <= b;
    case NodeKind::kGT: return u ? ua > ub : a > b;
    case NodeKind::kGE: return u ? ua >= ub : a >= b;
    case NodeKind::kAnd: return (a != 0) && (b != 0);
    case NodeKind::kOr: return (a != 0) || (b != 0);
    default: return std::nullopt;
  }
}

namespace {

bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

std::optional<Expr> FoldFloat(const BinaryNode* op, double a, double b) {
  NodeKind k = op->kind();
  DataType t = op->a->dtype;
  if (IsCompare(k)) {
    bool r = false;
    switch (k) {
      case NodeKind::kEQ: r = a == b; break;
      case NodeKind::kNE: r = a != b; break;
      case NodeKind::kLT: r = a < b; break;
      case NodeKind::kLE: r = a <= b; break;
      case NodeKind::kGT: r = a > b; break;
      default: r = a >= b; break;
    }
    return Bool(r);
  }
  // Half-precision results would be rounded twice (double, then the dtype).
  if (t.bits() < 32 || t.is_bfloat()) return std::nullopt;
  double r;
  switch (k) {
    case NodeKind::kAdd: r = a + b; break;
    case NodeKind::kSub: r = a - b; break;
    case NodeKind::kMul: r = a * b; break;
    case NodeKind::kDiv: r = a / b; break;
    case NodeKind::kMin:
    case NodeKind::kMax:
      if (std::isnan(a) || std::isnan(b) || (a == 0 && b == 0)) return std::nullopt;
      r = k == NodeKind::kMin ? std::min(a, b) : std::max(a, b);
      break;
    default: return std::nullopt;
  }
  absl::StatusOr<Expr> e = MakeFloatImm(t, r);
  if (!e.ok()) return std::nullopt;
  return *e;
}

std::optional<Expr> FoldCast(const CastNode* c) {
  DataType to = c->dtype, from = c->value->dtype;
  if (!to.is_scalar()) return std::nullopt;
  if (const auto* i = dyn_cast<IntImmNode>(c->value)) {
    if (to.is_integer() || to.is_bool()) {
      return TryMakeConst(to, to.is_bool() ? (i->value != 0) : WrapToDtype(to, i->value));
    }
    if (to.is_float() && to.bits() >= 32 && !to.is_bfloat()) {
      // Exact in double up to 2^53, so rounding to the target happens once.
      double d = from.is_uint() ? static_cast<double>(static_cast<uint64_t>(i->value))
                                : static_cast<double>(i->value);
      if (std::fabs(d) > 9007199254740992.0) return std::nullopt;
      absl::StatusOr<Expr> r = MakeFloatImm(to, d);
      if (r.ok()) return *r;
    }
    return std::nullopt;
  }
  if (const auto* f = dyn_cast<FloatImmNode>(c->value)) {
    if (!to.is_float()) return std::nullopt;
    absl::StatusOr<Expr> r = MakeFloatImm(to, f->value);  // One rounding from the exact value.
    if (r.ok()) return *r;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Expr> FoldConstant(const Expr& e) {
  if (const auto* op = dyn_cast<BinaryNode>(e)) {
    const auto* ia = dyn_cast<IntImmNode>(op->a);
    const auto* ib = dyn_cast<IntImmNode>(op->b);
    if (ia != nullptr && ib != nullptr) {
      std::optional<int64_t> v = FoldIntOp(op->kind(), op->a->dtype, ia->value, ib->value);
      if (!v) return std::nullopt;
      return TryMakeConst(op->dtype, *v);
    }
    const auto* fa = dyn_cast<FloatImmNode>(op->a);
    const auto* fb = dyn_cast<FloatImmNode>(op->b);
    if (fa != nullptr && fb != nullptr) return FoldFloat(op, fa->value, fb->value);
    return std::nullopt;
  }
  if (const auto* n = dyn_cast<NotNode>(e)) {
    if (std::optional<bool> b = AsConstBool(n->a)) return Bool(!*b);
    return std::nullopt;
  }
  if (const auto* c = dyn_cast<CastNode>(e)) return FoldCast(c);
  return std::nullopt;
}

}  // namespace tessel::ir::arith
