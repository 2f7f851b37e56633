// Float constants round-trip through `.tsl` bit-exactly: every f16 and bf16 value,
// NaN payloads, signed zeros, subnormals, and random f32/f64 bit patterns.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/tsl_test_util.h"

namespace tessel::ir {
namespace {

using namespace ::tessel::ir::testing;  // NOLINT: the shared test helpers.
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- Floats: bit-exact per dtype ----------------------------------------------------

// Stores each value into its own element of a buffer of `dtype`, round-trips the
// module, and checks every stored value's bits.
void ExpectFloatsRoundTrip(DataType dtype, const std::vector<double>& values) {
  Buffer a = MakeBuffer("A", dtype, {IntImm32(static_cast<int64_t>(values.size()))});
  std::vector<Stmt> stores;
  for (size_t k = 0; k < values.size(); ++k) {
    Expr v = ValueOrDie(MakeFloatImm(dtype, values[k]));
    ASSERT_EQ(Bits(cast<FloatImmNode>(v)->value), Bits(values[k])) << "not exact in " << dtype.ToString();
    stores.push_back(Store(a, v, {IntImm32(static_cast<int64_t>(k))}));
  }
  IRModule m = One(MakePrimFunc({Param::OfBuffer(a)}, Seq(stores)));
  std::string text = PrintModule(m);
  absl::StatusOr<IRModule> back = ParseModule(text);
  ASSERT_TRUE(back.ok()) << back.status();
  const auto* seq = cast<SeqStmtNode>((*back)->functions[0].second->body);
  ASSERT_EQ(seq->seq.size(), values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    double got = cast<FloatImmNode>(cast<BufferStoreNode>(seq->seq[k])->value)->value;
    ASSERT_EQ(Bits(got), Bits(values[k])) << dtype.ToString() << " value " << values[k] << " printed as "
                                          << FormatFloat(values[k], dtype);
  }
  EXPECT_EQ(PrintModule(*back), text);
}

double HalfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double mag = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
  if (exp == 31) mag = std::numeric_limits<double>::infinity();
  return (h & 0x8000) ? -mag : mag;
}

double BFloatToDouble(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<double> NaNs() {
  return {FromBits(0x7ff8000000000000ull), FromBits(0xfff8000000000000ull), FromBits(0x7ff0000000000001ull),
          FromBits(0x7ff8000000000001ull), FromBits(0xffffffffffffffffull), FromBits(0x7ffc0000deadbeefull)};
}

TEST(FloatTest, EveryHalfAndBFloatValueRoundTripsExactly) {
  std::vector<double> half, bf;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1f) != 31 || (h & 0x3ff) == 0) half.push_back(HalfToDouble(static_cast<uint16_t>(h)));
    double b = BFloatToDouble(static_cast<uint16_t>(h));
    if (!std::isnan(b)) bf.push_back(b);
  }
  for (double n : NaNs()) {
    half.push_back(n);
    bf.push_back(n);
  }
  ExpectFloatsRoundTrip(kF16, half);
  ExpectFloatsRoundTrip(kBF16, bf);
}

TEST(FloatTest, SingleAndDoubleEdgeCasesAndRandomPatternsRoundTripExactly) {
  std::mt19937_64 rng(12345);  // Fixed seed: reproducible patterns.
  std::vector<double> f32 = {0.0, -0.0, 1.0, 0.1, 1.0 / 3, 16777217.0, std::numeric_limits<float>::denorm_min(),
                             std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                             -std::numeric_limits<float>::max(), std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (double& v : f32) v = static_cast<float>(v);
  std::vector<double> f64 = {0.0, -0.0, 0.1, 1.0 / 3, 1e308, 2.2250738585072014e-308, 2.2250738585072009e-308,
                             std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::infinity(), 9007199254740993.0};
  for (int k = 0; k < 5000; ++k) {
    uint32_t b32 = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &b32, 4);
    if (!std::isnan(f)) f32.push_back(f);
    f64.push_back(FromBits(rng()));  // NaN patterns included: any double is a valid f64 value.
  }
  for (double n : NaNs()) f32.push_back(n);
  ExpectFloatsRoundTrip(kF32, f32);
  ExpectFloatsRoundTrip(kF64, f64);
}

}  // namespace
}  // namespace tessel::ir
