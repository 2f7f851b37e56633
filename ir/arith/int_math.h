// Exact integer helpers shared by the arithmetic analyses: floor division and
// modulo, checked and saturating arithmetic, and the value range of a dtype.
//
//   FloorDivInt(-7, 2) == -4      FloorModInt(-7, 2) == 1
//   CheckedMul(int64_t{1} << 62, 4) == std::nullopt
//   SatAdd(kPosInf, -5) == kPosInf      // infinities absorb finite values
//   DtypeMin(DataType::Int(8)) == -128
//
// Bounds use INT64_MIN / INT64_MAX as -inf / +inf, so the saturating helpers
// treat those two values as infinities, never as numbers.
#ifndef TESSEL_IR_ARITH_INT_MATH_H_
#define TESSEL_IR_ARITH_INT_MATH_H_

#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

#include "ir/dtype.h"

namespace tessel::ir::arith {

inline constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

// Floor division and modulo of exact integers; `b` must not be 0, and
// (kNegInf, -1) is the caller's to avoid.
inline int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// Smallest q with q * b >= a, for b > 0.
inline int64_t CeilDivInt(int64_t a, int64_t b) { return -FloorDivInt(-a, b); }

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline bool IsInf(int64_t v) { return v == kPosInf || v == kNegInf; }

// a + b where an infinite operand wins and a finite overflow becomes infinite.
// (+inf) + (-inf) has no value; callers never ask for it (bounds are ordered).
inline int64_t SatAdd(int64_t a, int64_t b) {
  if (a == kPosInf || b == kPosInf) return kPosInf;
  if (a == kNegInf || b == kNegInf) return kNegInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  return r;
}
inline int64_t SatNeg(int64_t a) {
  if (a == kPosInf) return kNegInf;
  if (a == kNegInf) return kPosInf;
  return -a;
}
inline int64_t SatSub(int64_t a, int64_t b) { return SatAdd(a, SatNeg(b)); }
// 0 * inf is 0: a zero factor pins the product whatever the other one is.
inline int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (IsInf(a) || IsInf(b)) return neg ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? kNegInf : kPosInf;
  return r;
}

inline int64_t Gcd(int64_t a, int64_t b) { return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b); }

// The smallest and largest value of an integer (or bool) dtype. For 64-bit
// types these coincide with the infinities: an unbounded i64 needs no sentinel.
inline int64_t DtypeMin(DataType t) {
  if (t.is_bool() || t.is_uint()) return 0;
  if (t.bits() >= 64) return kNegInf;
  return -(int64_t{1} << (t.bits() - 1));
}
inline int64_t DtypeMax(DataType t) {
  if (t.is_bool()) return 1;
  if (t.bits() >= 64) return kPosInf;
  if (t.is_uint()) return (int64_t{1} << t.bits()) - 1;
  return (int64_t{1} << (t.bits() - 1)) - 1;
}
// True when `v` is a value of `t` (for i64, any finite value).
inline bool FitsDtype(DataType t, int64_t v) {
  if (t.bits() >= 64 && t.is_int()) return !IsInf(v);
  return v >= DtypeMin(t) && v <= DtypeMax(t);
}

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_INT_MATH_H_
