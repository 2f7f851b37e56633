// The arithmetic kernels of the reference interpreter: one function per
// (operator, value representation), chosen once when an expression is compiled.
//
//   BinFn add = SelectBinFn(NodeKind::kAdd, Repr::kF32);   // adds in float
//   add(a, b, out, 4, IntWrap{});                           // four lanes
//   ApplyIntrinsicLane(Intr::kSigmoid, Repr::kF32, {}, x, x, x)  // 1 / (1 + expf(-x))
//
// Semantics, chosen to match compiled code where C leaves gaps: integers wrap at
// their width (INT_MIN / -1 wraps to INT_MIN, INT_MIN % -1 is 0); f32 computes in
// float, f64 in double, f16 and bf16 in float rounded once per operation (exact
// for + - * /: a float result rounds to 16 bits correctly); float min/max
// propagate NaN and order -0 below +0 (MLIR's minimumf/maximumf); float floormod
// is a - b * floor(a / b); intrinsics call libm in the operand's precision.
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "ir/interpreter_internal.h"

namespace tessel::ir::interp {
namespace {

template <NodeKind K>
int SignedBin(const Lane* a, const Lane* b, Lane* out, int n, IntWrap w) {
  for (int l = 0; l < n; ++l) {
    int64_t x = a[l].i, y = b[l].i, r = 0;
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    if constexpr (K == NodeKind::kAdd) {
      r = static_cast<int64_t>(ux + uy);
    } else if constexpr (K == NodeKind::kSub) {
      r = static_cast<int64_t>(ux - uy);
    } else if constexpr (K == NodeKind::kMul) {
      r = static_cast<int64_t>(ux * uy);
    } else if constexpr (K == NodeKind::kMin) {
      r = x < y ? x : y;
    } else if constexpr (K == NodeKind::kMax) {
      r = x > y ? x : y;
    } else {
      if (y == 0) return l;
      bool is_div = K == NodeKind::kDiv || K == NodeKind::kFloorDiv;
      if (x == std::numeric_limits<int64_t>::min() && y == -1) {
        r = is_div ? x : 0;  // The quotient 2^63 wraps; the remainder is 0.
      } else {
        int64_t q = x / y, m = x % y;
        bool adjust = m != 0 && ((m < 0) != (y < 0));
        if constexpr (K == NodeKind::kDiv) r = q;
        if constexpr (K == NodeKind::kMod) r = m;
        if constexpr (K == NodeKind::kFloorDiv) r = adjust ? q - 1 : q;
        if constexpr (K == NodeKind::kFloorMod) r = adjust ? m + y : m;
      }
    }
    out[l].i = w(r);
  }
  return -1;
}

template <NodeKind K>
int UnsignedBin(const Lane* a, const Lane* b, Lane* out, int n, IntWrap w) {
  for (int l = 0; l < n; ++l) {
    uint64_t x = static_cast<uint64_t>(a[l].i), y = static_cast<uint64_t>(b[l].i), r = 0;
    if constexpr (K == NodeKind::kAdd) {
      r = x + y;
    } else if constexpr (K == NodeKind::kSub) {
      r = x - y;
    } else if constexpr (K == NodeKind::kMul) {
      r = x * y;
    } else if constexpr (K == NodeKind::kMin) {
      r = x < y ? x : y;
    } else if constexpr (K == NodeKind::kMax) {
      r = x > y ? x : y;
    } else {
      if (y == 0) return l;
      r = (K == NodeKind::kDiv || K == NodeKind::kFloorDiv) ? x / y : x % y;
    }
    out[l].i = w(static_cast<int64_t>(r));
  }
  return -1;
}

template <NodeKind K, Repr R>
int FloatBin(const Lane* a, const Lane* b, Lane* out, int n, IntWrap) {
  using T = std::conditional_t<R == Repr::kF64, double, float>;
  for (int l = 0; l < n; ++l) {
    T x = static_cast<T>(a[l].f), y = static_cast<T>(b[l].f), r;
    // One operation per statement: no contraction of a * b + c into an fma.
    if constexpr (K == NodeKind::kAdd) {
      r = x + y;
    } else if constexpr (K == NodeKind::kSub) {
      r = x - y;
    } else if constexpr (K == NodeKind::kMul) {
      r = x * y;
    } else if constexpr (K == NodeKind::kDiv) {
      r = x / y;
    } else if constexpr (K == NodeKind::kMod) {
      r = std::fmod(x, y);  // Refused by MakeBinary; defined here anyway.
    } else if constexpr (K == NodeKind::kFloorDiv) {
      T q = x / y;
      r = std::floor(q);
    } else if constexpr (K == NodeKind::kFloorMod) {
      T q = x / y;
      T f = std::floor(q);
      T p = y * f;
      r = x - p;
    } else {
      if (std::isnan(x) || std::isnan(y)) {
        r = std::numeric_limits<T>::quiet_NaN();
      } else if (x == y) {  // Equal or +-0: min takes the negative zero, max the positive.
        bool pick_x = (K == NodeKind::kMin) == static_cast<bool>(std::signbit(x));
        r = pick_x ? x : y;
      } else {
        r = (K == NodeKind::kMin) == (x < y) ? x : y;
      }
    }
    double d = static_cast<double>(r);
    if constexpr (R == Repr::kF16 || R == Repr::kBF16) d = RoundToRepr(d, R);
    out[l].f = d;
  }
  return -1;
}

template <NodeKind K, typename T>
bool Compare(T x, T y) {
  if constexpr (K == NodeKind::kEQ) return x == y;
  if constexpr (K == NodeKind::kNE) return x != y;
  if constexpr (K == NodeKind::kLT) return x < y;
  if constexpr (K == NodeKind::kLE) return x <= y;
  if constexpr (K == NodeKind::kGT) return x > y;
  if constexpr (K == NodeKind::kGE) return x >= y;
  return false;
}

template <NodeKind K, Repr R>
int CompareBin(const Lane* a, const Lane* b, Lane* out, int n, IntWrap) {
  for (int l = 0; l < n; ++l) {
    bool r;
    if constexpr (IsFloatRepr(R)) {
      r = Compare<K>(a[l].f, b[l].f);
    } else if constexpr (R == Repr::kUInt) {
      r = Compare<K>(static_cast<uint64_t>(a[l].i), static_cast<uint64_t>(b[l].i));
    } else {
      r = Compare<K>(a[l].i, b[l].i);
    }
    out[l].i = r ? 1 : 0;
  }
  return -1;
}

template <NodeKind K>
int LogicBin(const Lane* a, const Lane* b, Lane* out, int n, IntWrap) {
  for (int l = 0; l < n; ++l) {
    bool x = a[l].i != 0, y = b[l].i != 0;
    out[l].i = (K == NodeKind::kAnd ? (x && y) : (x || y)) ? 1 : 0;
  }
  return -1;
}

template <NodeKind K>
BinFn ArithFn(Repr r) {
  switch (r) {
    case Repr::kInt: return SignedBin<K>;
    case Repr::kUInt: return UnsignedBin<K>;
    case Repr::kF16: return FloatBin<K, Repr::kF16>;
    case Repr::kBF16: return FloatBin<K, Repr::kBF16>;
    case Repr::kF32: return FloatBin<K, Repr::kF32>;
    case Repr::kF64: return FloatBin<K, Repr::kF64>;
    case Repr::kBool: return nullptr;
  }
  return nullptr;
}

template <NodeKind K>
BinFn CompareFn(Repr r) {
  switch (r) {
    case Repr::kUInt: return CompareBin<K, Repr::kUInt>;
    case Repr::kInt:
    case Repr::kBool: return CompareBin<K, Repr::kInt>;
    default: return CompareBin<K, Repr::kF64>;  // Exact values: compare as doubles.
  }
}

// libm in the operand's precision: float functions for f32 (and f16/bf16, rounded
// afterwards), double functions for f64.
template <typename T>
T ApplyIntrinsic(Intr id, T a, T b, T c) {
  switch (id) {
    case Intr::kExp: return std::exp(a);
    case Intr::kLog: return std::log(a);
    case Intr::kSqrt: return std::sqrt(a);
    case Intr::kRsqrt: {
      T s = std::sqrt(a);
      return T(1) / s;
    }
    case Intr::kTanh: return std::tanh(a);
    case Intr::kErf: return std::erf(a);
    case Intr::kSigmoid: {
      T e = std::exp(-a);
      T d = T(1) + e;
      return T(1) / d;
    }
    case Intr::kFabs: return std::fabs(a);
    case Intr::kFloor: return std::floor(a);
    case Intr::kCeil: return std::ceil(a);
    case Intr::kPow: return std::pow(a, b);
    case Intr::kFma: return std::fma(a, b, c);
  }
  return a;
}
}  // namespace

BinFn SelectBinFn(NodeKind k, Repr r) {
  switch (k) {
    case NodeKind::kAdd: return ArithFn<NodeKind::kAdd>(r);
    case NodeKind::kSub: return ArithFn<NodeKind::kSub>(r);
    case NodeKind::kMul: return ArithFn<NodeKind::kMul>(r);
    case NodeKind::kDiv: return ArithFn<NodeKind::kDiv>(r);
    case NodeKind::kMod: return ArithFn<NodeKind::kMod>(r);
    case NodeKind::kFloorDiv: return ArithFn<NodeKind::kFloorDiv>(r);
    case NodeKind::kFloorMod: return ArithFn<NodeKind::kFloorMod>(r);
    case NodeKind::kMin: return ArithFn<NodeKind::kMin>(r);
    case NodeKind::kMax: return ArithFn<NodeKind::kMax>(r);
    case NodeKind::kEQ: return CompareFn<NodeKind::kEQ>(r);
    case NodeKind::kNE: return CompareFn<NodeKind::kNE>(r);
    case NodeKind::kLT: return CompareFn<NodeKind::kLT>(r);
    case NodeKind::kLE: return CompareFn<NodeKind::kLE>(r);
    case NodeKind::kGT: return CompareFn<NodeKind::kGT>(r);
    case NodeKind::kGE: return CompareFn<NodeKind::kGE>(r);
    case NodeKind::kAnd: return r == Repr::kBool ? LogicBin<NodeKind::kAnd> : nullptr;
    case NodeKind::kOr: return r == Repr::kBool ? LogicBin<NodeKind::kOr> : nullptr;
    default: return nullptr;
  }
}

std::optional<Intr> IntrinsicId(const std::string& name) {
  static const std::pair<const char*, Intr> kTable[] = {
      {"exp", Intr::kExp},     {"log", Intr::kLog},     {"sqrt", Intr::kSqrt},
      {"rsqrt", Intr::kRsqrt}, {"tanh", Intr::kTanh},   {"erf", Intr::kErf},
      {"sigmoid", Intr::kSigmoid}, {"fabs", Intr::kFabs}, {"floor", Intr::kFloor},
      {"ceil", Intr::kCeil},   {"pow", Intr::kPow},     {"fma", Intr::kFma}};
  for (const auto& [n, id] : kTable) {
    if (name == n) return id;
  }
  return std::nullopt;
}

Lane ApplyIntrinsicLane(Intr id, Repr repr, IntWrap wrap, Lane a, Lane b, Lane c) {
  switch (repr) {
    case Repr::kF64: return FloatLane(ApplyIntrinsic<double>(id, a.f, b.f, c.f));
    case Repr::kF32:
    case Repr::kF16:
    case Repr::kBF16: {
      float r = ApplyIntrinsic<float>(id, static_cast<float>(a.f), static_cast<float>(b.f),
                                      static_cast<float>(c.f));
      return FloatLane(RoundToRepr(r, repr));
    }
    case Repr::kInt:  // Only fabs takes integers: |INT_MIN| wraps to INT_MIN.
      return IntLane(a.i < 0 ? wrap(static_cast<int64_t>(0 - static_cast<uint64_t>(a.i))) : a.i);
    default:
      return a;  // Unsigned fabs.
  }
}

}  // namespace tessel::ir::interp
