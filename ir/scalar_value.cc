// Scalar values, dtype conversions and element I/O for the interpreter.
//
//   RoundToDtype(65520.0, f16)      -> inf     (ties to even past the largest half)
//   CastLane(i64 2^24+2^16+1 -> bf16) -> 2^24+2^17  (rounded once, from the integer)
//   CastLane(f32 3e9 -> i32)        -> 2147483647   (saturates; see scalar_value.h)
//
// Every rounding is done once, directly from the exact source value, so that no
// conversion rounds twice (rounding i64 -> f32 -> bf16 can differ from i64 -> bf16).
#include "ir/scalar_value.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tessel::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Rounds a finite double to `p` significant bits with normal exponents down to
// `emin` (below that, subnormal spacing), ties to even, overflow past `max_finite`
// to infinity. v / ulp is exact (a power-of-two scaling) and below 2^p, so
// nearbyint (the default rounding mode: nearest even) does the only rounding.
double RoundToPrecision(double v, int p, int emin, double max_finite) {
  if (!std::isfinite(v) || v == 0) return v;
  int e;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  int q = std::max(e - p, emin - p + 1);
  double r = std::ldexp(std::nearbyint(std::ldexp(v, -q)), q);
  if (std::fabs(r) > max_finite) return std::copysign(kInf, v);
  return r;
}

// An integer magnitude as a double, exact when it fits in 53 bits; otherwise the
// dropped bits are folded into the lowest kept bit ("round to odd"), which keeps
// a later rounding to <= 51 bits correct.
double MagnitudeStickyDouble(uint64_t mag) {
  int width = 64 - std::countl_zero(mag);
  if (width <= 53) return static_cast<double>(mag);
  int s = width - 53;
  uint64_t kept = (mag >> s) | ((mag & ((uint64_t{1} << s) - 1)) != 0 ? 1 : 0);
  return std::ldexp(static_cast<double>(kept), s);
}

Lane IntToFloat(int64_t v, bool is_unsigned, Repr to) {
  if (to == Repr::kF64) {
    return FloatLane(is_unsigned ? static_cast<double>(static_cast<uint64_t>(v))
                                 : static_cast<double>(v));
  }
  if (to == Repr::kF32) {
    return FloatLane(is_unsigned ? static_cast<float>(static_cast<uint64_t>(v))
                                 : static_cast<float>(v));
  }
  bool neg = !is_unsigned && v < 0;
  uint64_t mag = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  double d = MagnitudeStickyDouble(mag);
  return FloatLane(RoundToRepr(neg ? -d : d, to));
}

// Float -> integer: truncate, saturate to [lo, hi] (given as exact doubles for
// the comparisons), NaN -> 0.
int64_t FloatToInt(double v, DataType to) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  int bits = to.bits();
  if (to.is_uint()) {
    if (t <= 0) return 0;
    if (bits == 64) {
      if (t >= 18446744073709551616.0) return -1;  // UINT64_MAX's bit pattern.
      return static_cast<int64_t>(static_cast<uint64_t>(t));
    }
    double hi = std::ldexp(1.0, bits) - 1;
    return static_cast<int64_t>(t >= hi ? hi : t);
  }
  double lim = std::ldexp(1.0, bits - 1);  // 2^(bits-1), exact.
  if (t >= lim) return bits == 64 ? std::numeric_limits<int64_t>::max()
                                  : static_cast<int64_t>(lim) - 1;
  if (t < -lim) return bits == 64 ? std::numeric_limits<int64_t>::min()
                                  : -static_cast<int64_t>(lim);
  return static_cast<int64_t>(t);
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void StoreBytes(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

Repr ReprOf(DataType t) {
  switch (t.code()) {
    case DataType::Code::kInt: return Repr::kInt;
    case DataType::Code::kUInt: return Repr::kUInt;
    case DataType::Code::kBool: return Repr::kBool;
    case DataType::Code::kBFloat: return Repr::kBF16;
    case DataType::Code::kFloat:
      return t.bits() == 16 ? Repr::kF16 : t.bits() == 32 ? Repr::kF32 : Repr::kF64;
    case DataType::Code::kHandle: return Repr::kInt;
  }
  return Repr::kInt;
}

IntWrap IntWrap::For(DataType t) {
  IntWrap w;
  int bits = t.is_bool() ? 1 : std::max(1, std::min(64, t.bits()));
  if (t.is_uint() || t.is_bool()) {
    w.is_signed = false;
    w.mask = bits == 64 ? ~0ull : (uint64_t{1} << bits) - 1;
  } else {
    w.shift = 64 - bits;
  }
  return w;
}

bool IntFits(int64_t v, DataType t) {
  if (t.is_bool()) return v == 0 || v == 1;
  if (t.bits() >= 64) return t.is_int() || t.is_uint();
  if (t.is_uint()) return v >= 0 && v < (int64_t{1} << t.bits());
  int64_t lim = int64_t{1} << (t.bits() - 1);
  return v >= -lim && v < lim;
}

double RoundToRepr(double v, Repr r) {
  switch (r) {
    case Repr::kF16: return RoundToPrecision(v, 11, -14, 65504.0);
    case Repr::kBF16: return RoundToPrecision(v, 8, -126, 0x1.fep127);
    case Repr::kF32: return std::isnan(v) ? v : static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

double RoundToDtype(double v, DataType t) { return RoundToRepr(v, ReprOf(t)); }

Lane CastLane(Lane v, DataType from, DataType to) {
  Repr rf = ReprOf(from), rt = ReprOf(to);
  if (rt == Repr::kBool) {
    return IntLane(IsFloatRepr(rf) ? (v.f != 0 ? 1 : 0) : (v.i != 0 ? 1 : 0));
  }
  if (IsFloatRepr(rt)) {
    if (IsFloatRepr(rf)) return FloatLane(RoundToRepr(v.f, rt));
    return IntToFloat(v.i, rf == Repr::kUInt, rt);
  }
  if (IsFloatRepr(rf)) return IntLane(FloatToInt(v.f, to));
  return IntLane(IntWrap::For(to)(v.i));
}

uint16_t EncodeF16(double v) {
  v = RoundToRepr(v, Repr::kF16);
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return sign | 0x7e00;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e): biased exponent e - 1 + 15.
  if (e - 1 < -14) {  // Subnormal: a = m * 2^-24.
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  }
  uint16_t mant = static_cast<uint16_t>(std::ldexp(a, 11 - e) - 1024);  // 10 fraction bits.
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10) | mant;
}

double DecodeF16(uint16_t bits) {
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exp == 0x1f) {
    return mant ? std::copysign(std::numeric_limits<double>::quiet_NaN(), sign) : sign * kInf;
  }
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

uint16_t EncodeBF16(double v) {
  v = RoundToRepr(v, Repr::kBF16);
  float f = static_cast<float>(v);  // Exact: bf16 values are f32 values.
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>(((bits >> 16) & 0x8000) | 0x7fc0);
  return static_cast<uint16_t>(bits >> 16);
}

double DecodeBF16(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

ElementReader ReaderFor(DataType t) {
  switch (ReprOf(t)) {
    case Repr::kBool: return [](const uint8_t* p) { return IntLane(*p != 0 ? 1 : 0); };
    case Repr::kF16: return [](const uint8_t* p) { return FloatLane(DecodeF16(Load<uint16_t>(p))); };
    case Repr::kBF16:
      return [](const uint8_t* p) { return FloatLane(DecodeBF16(Load<uint16_t>(p))); };
    case Repr::kF32: return [](const uint8_t* p) { return FloatLane(Load<float>(p)); };
    case Repr::kF64: return [](const uint8_t* p) { return FloatLane(Load<double>(p)); };
    case Repr::kInt:
      switch (t.bits()) {
        case 8: return [](const uint8_t* p) { return IntLane(Load<int8_t>(p)); };
        case 16: return [](const uint8_t* p) { return IntLane(Load<int16_t>(p)); };
        case 32: return [](const uint8_t* p) { return IntLane(Load<int32_t>(p)); };
        default: return [](const uint8_t* p) { return IntLane(Load<int64_t>(p)); };
      }
    case Repr::kUInt:
      switch (t.bits()) {
        case 8: return [](const uint8_t* p) { return IntLane(Load<uint8_t>(p)); };
        case 16: return [](const uint8_t* p) { return IntLane(Load<uint16_t>(p)); };
        case 32: return [](const uint8_t* p) { return IntLane(Load<uint32_t>(p)); };
        default: return [](const uint8_t* p) { return IntLane(Load<int64_t>(p)); };
      }
  }
  return [](const uint8_t* p) { return IntLane(0); };
}

ElementWriter WriterFor(DataType t) {
  switch (ReprOf(t)) {
    case Repr::kBool: return [](uint8_t* p, Lane v) { *p = v.i != 0 ? 1 : 0; };
    case Repr::kF16: return [](uint8_t* p, Lane v) { StoreBytes(p, EncodeF16(v.f)); };
    case Repr::kBF16: return [](uint8_t* p, Lane v) { StoreBytes(p, EncodeBF16(v.f)); };
    case Repr::kF32: return [](uint8_t* p, Lane v) { StoreBytes(p, static_cast<float>(v.f)); };
    case Repr::kF64: return [](uint8_t* p, Lane v) { StoreBytes(p, v.f); };
    case Repr::kInt:
    case Repr::kUInt:
      switch (t.bits()) {
        case 8: return [](uint8_t* p, Lane v) { StoreBytes(p, static_cast<uint8_t>(v.i)); };
        case 16: return [](uint8_t* p, Lane v) { StoreBytes(p, static_cast<uint16_t>(v.i)); };
        case 32: return [](uint8_t* p, Lane v) { StoreBytes(p, static_cast<uint32_t>(v.i)); };
        default: return [](uint8_t* p, Lane v) { StoreBytes(p, v.i); };
      }
  }
  return [](uint8_t*, Lane) {};
}

}  // namespace tessel::ir
