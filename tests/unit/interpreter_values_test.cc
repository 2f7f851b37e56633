// Units for the interpreter's value semantics: every binary operator on every
// dtype (integer wraparound, truncating vs floor division), f16/bf16 rounding,
// casts, and every intrinsic against libm. References are computed directly in
// C++: native integer types widened to __int128, float/double arithmetic, and
// bit-level float -> f16/bf16 rounding written independently of the interpreter's.
//
//   i8: 100 + 100 -> -56      u8: 0 - 1 -> 255      i32: -7 // 2 -> -4, -7 / 2 -> -3
//   f16: 2048 + 1 -> 2048     bf16(i64 2^24 + 2^16 + 1) -> 2^24 + 2^17
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/intrinsics.h"
#include "tests/unit/interpreter_test_util.h"

namespace tessel::ir {
namespace {

using namespace ::tessel::ir::testing;  // NOLINT: the shared builders.

// ---- Independent references -------------------------------------------------------

// float -> IEEE binary16 bits, round to nearest even, from the float's bits.
uint16_t RefF16Bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  auto round_shift = [](uint32_t m, int shift) {
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
  };
  if (ax < 0x38800000u) {  // Below 2^-14: a subnormal half, m * 2^-24.
    int e = static_cast<int>(ax >> 23);
    if (e < 102) return static_cast<uint16_t>(sign);
    return static_cast<uint16_t>(sign | round_shift((ax & 0x7fffffu) | 0x800000u, 126 - e));
  }
  return static_cast<uint16_t>(sign | round_shift(ax - 0x38000000u, 13));
}

double RefDecodeF16(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double s = (h & 0x8000) ? -1 : 1;
  if (e == 31) return m ? std::nan("") : s * INFINITY;
  return e == 0 ? s * m * 0x1p-24 : s * (1024 + m) * std::pow(2.0, e - 25);
}

uint16_t RefBF16Bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

double RefDecodeBF16(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

bool SameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

const NodeKind kArith[] = {NodeKind::kAdd, NodeKind::kSub, NodeKind::kMul, NodeKind::kDiv,
                           NodeKind::kMod, NodeKind::kFloorDiv, NodeKind::kFloorMod,
                           NodeKind::kMin, NodeKind::kMax};
const NodeKind kCompare[] = {NodeKind::kEQ, NodeKind::kNE, NodeKind::kLT,
                             NodeKind::kLE, NodeKind::kGT, NodeKind::kGE};

template <typename T>
bool RefCompare(NodeKind k, T x, T y) {
  switch (k) {
    case NodeKind::kEQ: return x == y;
    case NodeKind::kNE: return x != y;
    case NodeKind::kLT: return x < y;
    case NodeKind::kLE: return x <= y;
    case NodeKind::kGT: return x > y;
    default: return x >= y;
  }
}

// The result of `a op b` in T, returned as GetInt would (u64 by bit pattern).
template <typename T>
int64_t RefInt(NodeKind k, T a, T b) {
  using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
  W x = a, y = b, r = 0;
  W fmod = ((x % y) + y) % y;  // Floor modulo by a different route than the interpreter's.
  switch (k) {
    case NodeKind::kAdd: r = x + y; break;
    case NodeKind::kSub: r = x - y; break;
    case NodeKind::kMul: r = x * y; break;
    case NodeKind::kDiv: r = x / y; break;
    case NodeKind::kMod: r = x % y; break;
    case NodeKind::kFloorDiv: r = (x - fmod) / y; break;
    case NodeKind::kFloorMod: r = fmod; break;
    case NodeKind::kMin: r = x < y ? x : y; break;
    default: r = x > y ? x : y; break;
  }
  // Reduce modulo 2^bits (C++20 integral conversions are modular).
  return static_cast<int64_t>(static_cast<T>(static_cast<unsigned __int128>(r)));
}

template <typename T>
T RefFloatT(NodeKind k, T x, T y) {
  switch (k) {
    case NodeKind::kAdd: return x + y;
    case NodeKind::kSub: return x - y;
    case NodeKind::kMul: return x * y;
    case NodeKind::kDiv: return x / y;
    case NodeKind::kFloorDiv: return std::floor(x / y);
    case NodeKind::kFloorMod: {
      T f = std::floor(x / y);
      T p = y * f;
      return x - p;
    }
    default: {
      if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
      bool min = k == NodeKind::kMin;
      if (x == y) return (std::signbit(x) == min) ? x : y;
      return (x < y) == min ? x : y;
    }
  }
}

double RefFloat(NodeKind k, double a, double b, DataType t) {
  if (t == kF64) return RefFloatT<double>(k, a, b);
  float r = RefFloatT<float>(k, static_cast<float>(a), static_cast<float>(b));
  if (t == kF32) return r;
  return t == kF16 ? RefDecodeF16(RefF16Bits(r)) : RefDecodeBF16(RefBF16Bits(r));
}

// Runs C[i] = A[i] op B[i] over the buffers' length and returns C.
HostBuffer RunBinary(NodeKind k, const HostBuffer& ha, const HostBuffer& hb) {
  int64_t n = ha.size();
  Buffer a = Buf("A", ha.dtype(), {n}), b = Buf("B", ha.dtype(), {n});
  Var i = IVar("i");
  Expr e = ValueOrDie(MakeBinary(k, Load(a, {i}), Load(b, {i})));
  Buffer c = Buf("C", e->dtype, {n});
  HostBuffer hc = HostBuffer::Zeros(e->dtype, {n});
  absl::Status s = ir::Run(Fn({a, b, c}, Loop(i, n, Store(c, e, {i}))), {Arg(ha), Arg(hb), Arg(hc)});
  EXPECT_TRUE(s.ok()) << NodeKindName(k) << " " << ha.dtype().ToString() << ": " << s;
  return hc;
}

template <typename T>
void CheckIntegerType(DataType t) {
  using L = std::numeric_limits<T>;
  std::vector<int64_t> av, bv;
  if constexpr (std::is_signed_v<T>) {
    av = {100, -100, 7, -7, 7, -7, L::min(), L::max(), L::min(), 0, 5, L::max(), -1, 3, L::min()};
    bv = {100, -100, 2, 2, -2, -2, -1, 1, 1, 5, 3, L::max(), L::min(), 3, L::max()};
  } else {
    av = {200, 0, static_cast<int64_t>(L::max()), 7, 100, static_cast<int64_t>(L::max()), 1, 255};
    bv = {100, 1, static_cast<int64_t>(L::max()), 2, 200, 2, static_cast<int64_t>(L::max()), 3};
  }
  HostBuffer ha = IntBuffer(t, av), hb = IntBuffer(t, bv);
  for (NodeKind k : kArith) {
    HostBuffer hc = RunBinary(k, ha, hb);
    for (size_t x = 0; x < av.size(); ++x) {
      T a = static_cast<T>(av[x]), b = static_cast<T>(bv[x]);
      EXPECT_EQ(hc.GetInt(x), RefInt<T>(k, a, b))
          << t.ToString() << " " << +a << " " << BinaryOpSymbol(k) << " " << +b;
    }
  }
  for (NodeKind k : kCompare) {
    HostBuffer hc = RunBinary(k, ha, hb);
    for (size_t x = 0; x < av.size(); ++x) {
      T a = static_cast<T>(av[x]), b = static_cast<T>(bv[x]);
      EXPECT_EQ(hc.GetInt(x), RefCompare<T>(k, a, b) ? 1 : 0)
          << t.ToString() << " " << +a << " " << BinaryOpSymbol(k) << " " << +b;
    }
  }
}

TEST(InterpValueTest, EveryBinaryOperatorOnEveryIntegerType) {
  CheckIntegerType<int8_t>(DataType::Int(8));
  CheckIntegerType<int16_t>(DataType::Int(16));
  CheckIntegerType<int32_t>(DataType::Int(32));
  CheckIntegerType<int64_t>(DataType::Int(64));
  CheckIntegerType<uint8_t>(DataType::UInt(8));
  CheckIntegerType<uint16_t>(DataType::UInt(16));
  CheckIntegerType<uint32_t>(DataType::UInt(32));
  CheckIntegerType<uint64_t>(DataType::UInt(64));
}

TEST(InterpValueTest, EveryBinaryOperatorOnEveryFloatType) {
  std::vector<double> av = {1.5, -7.5, 7.5, 0.1, 1e30, -0.0, 3, 1e-30, 2.5, 5, 65504, -0.0, NAN};
  std::vector<double> bv = {2.25, 2, -2, 0.3, 1e30, 0.0, 0, 3, -2.5, 1e-3, 32, -0.0, 1};
  for (DataType t : {kF16, kBF16, kF32, kF64}) {
    HostBuffer ha = FloatBuffer(t, av), hb = FloatBuffer(t, bv);
    for (NodeKind k : kArith) {
      if (k == NodeKind::kMod) continue;  // '%' is integer-only (MakeBinary refuses it).
      HostBuffer hc = RunBinary(k, ha, hb);
      for (size_t x = 0; x < av.size(); ++x) {
        double a = ha.GetFloat(x), b = hb.GetFloat(x);
        EXPECT_PRED2(SameFloat, hc.GetFloat(x), RefFloat(k, a, b, t))
            << t.ToString() << " " << a << " " << BinaryOpSymbol(k) << " " << b;
      }
    }
    for (NodeKind k : kCompare) {
      HostBuffer hc = RunBinary(k, ha, hb);
      for (size_t x = 0; x < av.size(); ++x) {
        double a = ha.GetFloat(x), b = hb.GetFloat(x);
        EXPECT_EQ(hc.GetInt(x), RefCompare(k, a, b) ? 1 : 0) << t.ToString() << " " << a << " "
                                                             << BinaryOpSymbol(k) << " " << b;
      }
    }
  }
}

TEST(InterpValueTest, LogicalOperatorsOnBool) {
  DataType t = DataType::Bool();
  HostBuffer ha = IntBuffer(t, {0, 0, 1, 1}), hb = IntBuffer(t, {0, 1, 0, 1});
  HostBuffer hand = RunBinary(NodeKind::kAnd, ha, hb), hor = RunBinary(NodeKind::kOr, ha, hb);
  HostBuffer heq = RunBinary(NodeKind::kEQ, ha, hb);
  for (int64_t x = 0; x < 4; ++x) {
    bool a = ha.GetInt(x), b = hb.GetInt(x);
    EXPECT_EQ(hand.GetInt(x), a && b);
    EXPECT_EQ(hor.GetInt(x), a || b);
    EXPECT_EQ(heq.GetInt(x), a == b);
  }
}

TEST(InterpValueTest, WraparoundOfNarrowIntegers) {
  EXPECT_EQ(RunBinary(NodeKind::kAdd, IntBuffer(DataType::Int(8), {100}),
                      IntBuffer(DataType::Int(8), {100})).GetInt(0), -56);
  EXPECT_EQ(RunBinary(NodeKind::kMul, IntBuffer(DataType::Int(8), {-128}),
                      IntBuffer(DataType::Int(8), {-1})).GetInt(0), -128);
  EXPECT_EQ(RunBinary(NodeKind::kDiv, IntBuffer(DataType::Int(8), {-128}),
                      IntBuffer(DataType::Int(8), {-1})).GetInt(0), -128);
  EXPECT_EQ(RunBinary(NodeKind::kAdd, IntBuffer(DataType::UInt(8), {200}),
                      IntBuffer(DataType::UInt(8), {100})).GetInt(0), 44);
  EXPECT_EQ(RunBinary(NodeKind::kSub, IntBuffer(DataType::UInt(8), {0}),
                      IntBuffer(DataType::UInt(8), {1})).GetInt(0), 255);
  EXPECT_EQ(RunBinary(NodeKind::kDiv, IntBuffer(kI64, {std::numeric_limits<int64_t>::min()}),
                      IntBuffer(kI64, {-1})).GetInt(0), std::numeric_limits<int64_t>::min());
}

TEST(InterpValueTest, TruncatingAndFloorDivisionOnNegatives) {
  struct Row { int64_t a, b, div, mod, fdiv, fmod; };
  const Row rows[] = {{-7, 2, -3, -1, -4, 1}, {7, -2, -3, 1, -4, -1},
                      {-7, -2, 3, -1, 3, -1}, {7, 2, 3, 1, 3, 1}, {-8, 2, -4, 0, -4, 0}};
  for (DataType t : {DataType::Int(8), kI32, kI64}) {
    std::vector<int64_t> av, bv;
    for (const Row& r : rows) {
      av.push_back(r.a);
      bv.push_back(r.b);
    }
    HostBuffer ha = IntBuffer(t, av), hb = IntBuffer(t, bv);
    HostBuffer div = RunBinary(NodeKind::kDiv, ha, hb), mod = RunBinary(NodeKind::kMod, ha, hb);
    HostBuffer fdiv = RunBinary(NodeKind::kFloorDiv, ha, hb);
    HostBuffer fmod = RunBinary(NodeKind::kFloorMod, ha, hb);
    for (size_t x = 0; x < std::size(rows); ++x) {
      EXPECT_EQ(div.GetInt(x), rows[x].div) << rows[x].a << " / " << rows[x].b;
      EXPECT_EQ(mod.GetInt(x), rows[x].mod) << rows[x].a << " % " << rows[x].b;
      EXPECT_EQ(fdiv.GetInt(x), rows[x].fdiv) << rows[x].a << " // " << rows[x].b;
      EXPECT_EQ(fmod.GetInt(x), rows[x].fmod) << rows[x].a << " %% " << rows[x].b;
    }
  }
}

TEST(InterpValueTest, FloatMinMaxPropagateNaNAndOrderSignedZeros) {
  HostBuffer a = FloatBuffer(kF32, {-0.0, 0.0, NAN, 1}), b = FloatBuffer(kF32, {0.0, -0.0, 1, NAN});
  HostBuffer mn = RunBinary(NodeKind::kMin, a, b), mx = RunBinary(NodeKind::kMax, a, b);
  EXPECT_TRUE(std::signbit(mn.GetFloat(0)) && std::signbit(mn.GetFloat(1)));
  EXPECT_TRUE(!std::signbit(mx.GetFloat(0)) && !std::signbit(mx.GetFloat(1)));
  for (int64_t x : {2, 3}) EXPECT_TRUE(std::isnan(mn.GetFloat(x)) && std::isnan(mx.GetFloat(x)));
}

// Casts every value of `in` (dtype `from`) to `to` through the interpreter.
HostBuffer RunCast(DataType to, const HostBuffer& in) {
  int64_t n = in.size();
  Buffer a = Buf("A", in.dtype(), {n}), c = Buf("C", to, {n});
  Var i = IVar("i");
  HostBuffer hc = HostBuffer::Zeros(to, {n});
  absl::Status s = ir::Run(Fn({a, c}, Loop(i, n, Store(c, Cast(to, Load(a, {i})), {i}))), {Arg(in), Arg(hc)});
  EXPECT_TRUE(s.ok()) << s;
  return hc;
}

const uint16_t* Bits16(const HostBuffer& b) { return static_cast<const uint16_t*>(b.data()); }

TEST(InterpValueTest, F16AndBF16RoundToNearestEvenWhenStored) {
  std::vector<double> vals = {0.1, 65504, 65519, 65520, 1e6, 1 + 0x1p-11, 1 + 3 * 0x1p-11, 0x1p-25,
                              3 * 0x1p-25, 0x1p-24, 0x1p-14, -0.0, -2.5e-6, 1 + 0x1p-8,
                              1 + 3 * 0x1p-8, 3.0e38, -1e-40, 1.0f / 3};
  uint64_t s = 12345;  // A sweep over many magnitudes and both signs.
  for (int k = 0; k < 3000; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float f = std::ldexp(static_cast<float>((s >> 40) & 0xffffff) / 0x1p24f,
                         static_cast<int>((s >> 20) % 80) - 40);
    vals.push_back((s >> 10) & 1 ? -f : f);
  }
  HostBuffer in = FloatBuffer(kF32, vals);
  HostBuffer h = RunCast(kF16, in), b = RunCast(kBF16, in);
  for (size_t x = 0; x < vals.size(); ++x) {
    float f = static_cast<float>(in.GetFloat(x));
    EXPECT_EQ(Bits16(h)[x], RefF16Bits(f)) << "f16 of " << f;
    EXPECT_EQ(Bits16(b)[x], RefBF16Bits(f)) << "bf16 of " << f;
    EXPECT_PRED2(SameFloat, h.GetFloat(x), RefDecodeF16(RefF16Bits(f)));
  }
  EXPECT_EQ(Bits16(h)[0], 0x2e66) << "0.1 as f16";
  // Rounded once from the source: via f32 these would round twice and differ.
  HostBuffer i64 = IntBuffer(kI64, {(int64_t{1} << 24) + (int64_t{1} << 16) + 1});
  EXPECT_EQ(RunCast(kBF16, i64).GetFloat(0), 0x1p24 + 0x1p17);
  EXPECT_EQ(RunCast(kF16, FloatBuffer(kF64, {1 + 0x1p-11 + 0x1p-40})).GetFloat(0), 1 + 0x1p-10);
  // f16 arithmetic rounds each result to f16: 2049 and 2051 are not halves.
  HostBuffer a = FloatBuffer(kF16, {2048, 2048}), c = FloatBuffer(kF16, {1, 3});
  HostBuffer sum = RunBinary(NodeKind::kAdd, a, c);
  EXPECT_EQ(sum.GetFloat(0), 2048);
  EXPECT_EQ(sum.GetFloat(1), 2052);
}

TEST(InterpValueTest, CastsFollowCWithSaturatingFloatToInt) {
  HostBuffer f = FloatBuffer(kF32, {2.7, -2.7, 3e9, -3e9, NAN, 300, -5, 0.5, 0, INFINITY});
  HostBuffer to_i32 = RunCast(kI32, f);
  std::vector<int64_t> i32 = {2, -2, 2147483647, -2147483648LL, 0, 300, -5, 0, 0, 2147483647};
  for (size_t x = 0; x < i32.size(); ++x) EXPECT_EQ(to_i32.GetInt(x), i32[x]) << f.GetFloat(x);
  HostBuffer to_u8 = RunCast(DataType::UInt(8), f);
  std::vector<int64_t> u8 = {2, 0, 255, 0, 0, 255, 0, 0, 0, 255};
  for (size_t x = 0; x < u8.size(); ++x) EXPECT_EQ(to_u8.GetInt(x), u8[x]) << f.GetFloat(x);
  HostBuffer to_bool = RunCast(DataType::Bool(), f);
  for (size_t x = 0; x < u8.size(); ++x) {
    EXPECT_EQ(to_bool.GetInt(x), f.GetFloat(x) != 0 ? 1 : 0) << f.GetFloat(x);
  }
  HostBuffer ints = IntBuffer(kI32, {300, -1, 16777217, -129});
  HostBuffer i8 = RunCast(DataType::Int(8), ints), u8b = RunCast(DataType::UInt(8), ints);
  HostBuffer f32 = RunCast(kF32, ints), u64 = RunCast(DataType::UInt(64), ints);
  for (size_t x = 0; x < 4; ++x) {
    int32_t v = static_cast<int32_t>(ints.GetInt(x));
    EXPECT_EQ(i8.GetInt(x), static_cast<int8_t>(v));
    EXPECT_EQ(u8b.GetInt(x), static_cast<uint8_t>(v));
    EXPECT_EQ(f32.GetFloat(x), static_cast<float>(v));
    EXPECT_EQ(static_cast<uint64_t>(u64.GetInt(x)), static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  HostBuffer umax = IntBuffer(DataType::UInt(64), {-1});  // 2^64 - 1
  EXPECT_EQ(RunCast(kF64, umax).GetFloat(0), 18446744073709551616.0);
  EXPECT_EQ(RunCast(kF64, IntBuffer(DataType::Bool(), {1})).GetFloat(0), 1.0);
  EXPECT_EQ(RunCast(DataType::UInt(64), FloatBuffer(kF64, {1e30})).GetInt(0), -1) << "saturates";
}

// C[i] = name(A[i] [, B[i] [, D[i]]]) through the interpreter.
HostBuffer RunIntrinsic(const std::string& name, int arity, const HostBuffer& x,
                        const HostBuffer& y, const HostBuffer& z) {
  int64_t n = x.size();
  DataType t = x.dtype();
  Buffer a = Buf("A", t, {n}), b = Buf("B", t, {n}), d = Buf("D", t, {n}), c = Buf("C", t, {n});
  Var i = IVar("i");
  std::vector<Expr> args = {Load(a, {i}), Load(b, {i}), Load(d, {i})};
  args.resize(arity);
  HostBuffer hc = HostBuffer::Zeros(t, {n});
  absl::Status s = ir::Run(Fn({a, b, d, c}, Loop(i, n, Store(c, Intrinsic(name, args), {i}))),
                       {Arg(x), Arg(y), Arg(z), Arg(hc)});
  EXPECT_TRUE(s.ok()) << name << ": " << s;
  return hc;
}

template <typename T>
T RefIntrinsic(const std::string& name, T a, T b, T c) {
  if (name == "exp") return std::exp(a);
  if (name == "log") return std::log(a);
  if (name == "sqrt") return std::sqrt(a);
  if (name == "rsqrt") return T(1) / std::sqrt(a);
  if (name == "tanh") return std::tanh(a);
  if (name == "erf") return std::erf(a);
  if (name == "sigmoid") return T(1) / (T(1) + std::exp(-a));
  if (name == "fabs") return std::fabs(a);
  if (name == "floor") return std::floor(a);
  if (name == "ceil") return std::ceil(a);
  if (name == "pow") return std::pow(a, b);
  if (name == "fma") return std::fma(a, b, c);
  ADD_FAILURE() << "no reference for intrinsic " << name;
  return a;
}

TEST(InterpValueTest, EveryIntrinsicMatchesLibm) {
  std::vector<double> xs = {0.5, 1.7, -1.3, 0.01, 3.0, -0.0, 20.5, -7.25};
  std::vector<double> ys = {2.0, 0.5, 3.0, -1.5, 1.25, 2.0, 0.1, 2.0};
  std::vector<double> zs = {0.25, -1.0, 1e-3, 7.0, -2.5, 0.0, 1.0, 3.0};
  for (DataType t : {kF32, kF64, kF16}) {
    HostBuffer x = FloatBuffer(t, xs), y = FloatBuffer(t, ys), z = FloatBuffer(t, zs);
    for (const IntrinsicInfo& info : AllIntrinsics()) {
      HostBuffer c = RunIntrinsic(info.name, info.arity, x, y, z);
      for (size_t k = 0; k < xs.size(); ++k) {
        double a = x.GetFloat(k), b = y.GetFloat(k), d = z.GetFloat(k), expect;
        if (t == kF64) {
          expect = RefIntrinsic<double>(info.name, a, b, d);
        } else {
          float r = RefIntrinsic<float>(info.name, static_cast<float>(a), static_cast<float>(b),
                                        static_cast<float>(d));
          expect = t == kF32 ? r : RefDecodeF16(RefF16Bits(r));
        }
        EXPECT_PRED2(SameFloat, c.GetFloat(k), expect) << info.name << " " << t.ToString() << " at " << a;
      }
    }
  }
  HostBuffer ints = IntBuffer(kI32, {-5, 7, std::numeric_limits<int32_t>::min(), 0});
  HostBuffer abs = RunIntrinsic("fabs", 1, ints, ints, ints);
  EXPECT_EQ(abs.GetInt(0), 5);
  EXPECT_EQ(abs.GetInt(1), 7);
  EXPECT_EQ(abs.GetInt(2), std::numeric_limits<int32_t>::min()) << "|INT_MIN| wraps";
  EXPECT_EQ(abs.GetInt(3), 0);
}

}  // namespace
}  // namespace tessel::ir
