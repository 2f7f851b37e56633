// One scalar value of any IR dtype as the interpreter holds it, the conversions
// between dtypes, and how an element sits in memory.
//
//   Lane x = IntLane(200);                                   // a u8 200
//   Lane y = CastLane(x, DataType::UInt(8), DataType::Int(8));  // i8 -56 (wraps, as C)
//   Lane h = FloatLane(RoundToDtype(0.1, DataType::Float(16)));  // 0.0999755859375
//   WriteElement(p, DataType::Float(16), h);                 // stores the bits 0x2E66
//
// A Lane is an 8-byte union: integers and bools in `i` (signed types sign-extended,
// unsigned ones zero-extended, u64 by its bit pattern, bool 0/1); floats of every
// width in `f` as a double holding a value exactly representable in the dtype. Keeping
// one representation for all widths lets the evaluator stay a few small loops.
#ifndef TESSEL_IR_SCALAR_VALUE_H_
#define TESSEL_IR_SCALAR_VALUE_H_

#include <cstdint>

#include "ir/dtype.h"

namespace tessel::ir {

union Lane {
  int64_t i;
  double f;
};

inline Lane IntLane(int64_t v) {
  Lane l;
  l.i = v;
  return l;
}
inline Lane FloatLane(double v) {
  Lane l;
  l.f = v;
  return l;
}

// How a scalar dtype is computed with; chosen once per node, not per evaluation.
enum class Repr : uint8_t { kInt, kUInt, kBool, kF16, kBF16, kF32, kF64 };
Repr ReprOf(DataType t);  // Of the element type; handle/void map to kInt.
constexpr bool IsFloatRepr(Repr r) { return r >= Repr::kF16; }

// The integer `v` wrapped to the width of `t` (sign- or zero-extended back to 64
// bits): C's modular conversion. `t` must be an integer or bool type.
struct IntWrap {
  int shift = 0;           // Signed: 64 - bits.
  uint64_t mask = ~0ull;   // Unsigned: low `bits` ones.
  bool is_signed = true;
  static IntWrap For(DataType t);
  int64_t operator()(int64_t v) const {
    if (is_signed) return static_cast<int64_t>(static_cast<uint64_t>(v) << shift) >> shift;
    return static_cast<int64_t>(static_cast<uint64_t>(v) & mask);
  }
};

// Rounds `v` to the nearest value of the float dtype `t` (ties to even, overflow
// to infinity, NaN kept). Identity for f64.
double RoundToDtype(double v, DataType t);
double RoundToRepr(double v, Repr r);

// C-like conversion of one lane between element dtypes, with every case defined:
// int -> int wraps; int -> float rounds to nearest even; float -> float rounds to
// nearest even; anything -> bool is `!= 0` (NaN is true); float -> int truncates
// toward zero and SATURATES to the target range, NaN gives 0 (C leaves these
// undefined; saturation is what LLVM's fptosi.sat and Rust's `as` do).
Lane CastLane(Lane v, DataType from, DataType to);

// Exact IEEE binary16 / bfloat16 encodings (the value is rounded first).
uint16_t EncodeF16(double v);
double DecodeF16(uint16_t bits);
uint16_t EncodeBF16(double v);
double DecodeBF16(uint16_t bits);

// Reads / writes one element of element dtype `t` at `p` (dtype.bytes() bytes).
using ElementReader = Lane (*)(const uint8_t* p);
using ElementWriter = void (*)(uint8_t* p, Lane v);
ElementReader ReaderFor(DataType t);
ElementWriter WriterFor(DataType t);
inline Lane ReadElement(const uint8_t* p, DataType t) { return ReaderFor(t)(p); }
inline void WriteElement(uint8_t* p, DataType t, Lane v) { WriterFor(t)(p, v); }

// Whether the integer `v` is a value of the integer or bool dtype `t` (u64 accepts
// every bit pattern).
bool IntFits(int64_t v, DataType t);

}  // namespace tessel::ir

#endif  // TESSEL_IR_SCALAR_VALUE_H_
