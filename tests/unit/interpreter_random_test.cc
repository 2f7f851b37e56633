// Units for the differential-testing half of ir/interpreter.h: HostBuffer,
// RandomArgs (seeded, platform-independent), CloneArgs, CompareArgs and
// CheckSameResults, which must accept an equivalent rewrite and pinpoint a wrong one.
//
//   CheckSameResults(add, add_split_loop, 1)   -> OK
//   CheckSameResults(add, add_wrong_at_5, 1)   -> "parameter 'C' (f32[4, 4]) differs at
//                                                  flat index 5, index [1, 1]: ..."
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "tests/unit/interpreter_test_util.h"

namespace tessel::ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace ::tessel::ir::testing;  // NOLINT: the shared builders.

TEST(InterpHostBufferTest, CopiesShareCloneCopiesAndAccessorsConvert) {
  HostBuffer a = HostBuffer::Zeros(kF32, {2, 3});
  EXPECT_EQ(a.size(), 6);
  HostBuffer shared = a, copy = a.Clone();
  a.SetFloat(4, 1.25);
  EXPECT_EQ(shared.GetFloat(4), 1.25);
  EXPECT_EQ(copy.GetFloat(4), 0.0);
  EXPECT_EQ(a.GetInt(4), 1) << "GetInt truncates";
  a.SetInt(0, 16777217);
  EXPECT_EQ(a.GetFloat(0), 16777216.0) << "rounded to f32";
  HostBuffer u8 = HostBuffer::Zeros(DataType::UInt(8), {2});
  u8.SetInt(0, 300);
  u8.SetFloat(1, -3.5);
  EXPECT_EQ(u8.GetInt(0), 44);
  EXPECT_EQ(u8.GetInt(1), 0) << "float -> unsigned saturates at 0";
  HostBuffer b = HostBuffer::Zeros(DataType::Bool(), {1});
  b.SetInt(0, 7);
  EXPECT_EQ(b.GetInt(0), 1);
  HostBuffer h = HostBuffer::Zeros(kF16, {1});
  h.SetFloat(0, 0.1);
  EXPECT_EQ(h.GetFloat(0), 0.0999755859375);
  EXPECT_EQ(HostBuffer::Zeros(kF32, {}).size(), 1) << "a rank-0 buffer holds one element";
}

// C = A + B over f32[4, 4]; `wrong_at` >= 0 makes element wrong_at compute A - B.
PrimFunc AddFunc(int64_t wrong_at, bool split) {
  Buffer a = Buf("A", kF32, {4, 4}), b = Buf("B", kF32, {4, 4}), c = Buf("C", kF32, {4, 4});
  Var i = IVar("i"), j = IVar("j");
  Expr sum = Add(Load(a, {i, j}), Load(b, {i, j}));
  if (wrong_at >= 0) {
    Expr here = EQ(Add(Mul(i, IntImm32(4)), j), IntImm32(wrong_at));
    sum = Select(here, Sub(Load(a, {i, j}), Load(b, {i, j})), sum);
  }
  if (!split) return Fn({a, b, c}, Loop(i, 4, Loop(j, 4, Store(c, sum, {i, j}))));
  // The same loop nest over a flattened index x = i * 4 + j, split as x = xo * 2 + xi.
  Var xo = IVar("xo"), xi = IVar("xi");
  Expr x = Add(Mul(xo, IntImm32(2)), xi);
  Stmt body = ValueOrDie(MakeLetStmt(i, FloorDiv(x, IntImm32(4)),
                                     ValueOrDie(MakeLetStmt(j, FloorMod(x, IntImm32(4)),
                                                            Store(c, sum, {i, j})))));
  return Fn({a, b, c}, Loop(xo, 8, Loop(xi, 2, body)));
}

TEST(InterpRandomTest, RandomArgsAreSeededDeterministicAndInRange) {
  Buffer f = Buf("F", kF32, {64}), i8 = Buf("I", DataType::Int(8), {64});
  Buffer u = Buf("U", DataType::UInt(16), {64}), b = Buf("Q", DataType::Bool(), {64});
  Var alpha = MakeVar("alpha", kF32), n = IVar("n");
  PrimFunc fn = Fn({f, i8, u, b}, ValueOrDie(MakeEvaluate(IntImm32(0))), {alpha, n});
  absl::StatusOr<std::vector<Arg>> r1 = RandomArgs(fn, 42), r2 = RandomArgs(fn, 42);
  absl::StatusOr<std::vector<Arg>> r3 = RandomArgs(fn, 43);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok()) << r1.status();
  EXPECT_TRUE(CompareArgs(*r1, *r2, fn, {0, 0}).ok());
  EXPECT_FALSE(CompareArgs(*r1, *r3, fn, {0, 0}).ok());
  const HostBuffer& hf = std::get<HostBuffer>((*r1)[0]);
  const HostBuffer& hi = std::get<HostBuffer>((*r1)[1]);
  const HostBuffer& hu = std::get<HostBuffer>((*r1)[2]);
  const HostBuffer& hq = std::get<HostBuffer>((*r1)[3]);
  int negatives = 0, trues = 0;
  for (int64_t k = 0; k < 64; ++k) {
    EXPECT_TRUE(hf.GetFloat(k) >= -1 && hf.GetFloat(k) < 1);
    EXPECT_TRUE(hi.GetInt(k) >= -8 && hi.GetInt(k) <= 8);
    EXPECT_TRUE(hu.GetInt(k) >= 0 && hu.GetInt(k) <= 8);
    negatives += hi.GetInt(k) < 0;
    trues += hq.GetInt(k);
  }
  EXPECT_GT(negatives, 0);
  EXPECT_GT(trues, 0);
  EXPECT_LT(trues, 64);
  // Scalars are drawn first: alpha is the first splitmix64 output (seed 42) mapped
  // to [-1, 1), which pins the generator down exactly.
  uint64_t z = 42 + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  double first = static_cast<double>(z >> 11) * 0x1p-52 - 1.0;
  EXPECT_EQ(std::get<double>((*r1)[4]), static_cast<double>(static_cast<float>(first)));
  int64_t nv = std::get<int64_t>((*r1)[5]);
  EXPECT_TRUE(nv >= 1 && nv <= 8);
}

TEST(InterpRandomTest, RandomArgsNeedValuesForSymbolicShapes) {
  Var n = IVar("n"), i = IVar("i");
  Buffer a = MakeBuffer("A", kF32, {n, IntImm32(3)}), b = MakeBuffer("B", kF32, {Mul(n, IntImm32(2))});
  PrimFunc fn = Fn({a, b}, ValueOrDie(MakeEvaluate(IntImm32(0))));
  absl::StatusOr<std::vector<Arg>> missing = RandomArgs(fn, 1);
  EXPECT_THAT(Msg(missing.status()), HasSubstr("parameter 'A' has a symbolic shape; no value was given for 'n'"));
  absl::StatusOr<std::vector<Arg>> args = RandomArgs(fn, 1, {{"n", 5}});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(std::get<HostBuffer>((*args)[0]).shape(), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(std::get<HostBuffer>((*args)[1]).shape(), (std::vector<int64_t>{10}));
  EXPECT_THAT(Msg(RandomArgs(fn, 1, {{"n", -2}}).status()), HasSubstr("negative or too large"));
  EXPECT_TRUE(ir::Run(fn, *args).ok());
}

TEST(InterpRandomTest, CloneArgsAreIndependent) {
  PrimFunc fn = AddFunc(-1, false);
  absl::StatusOr<std::vector<Arg>> args = RandomArgs(fn, 3);
  ASSERT_TRUE(args.ok());
  std::vector<Arg> copy = CloneArgs(*args);
  ASSERT_TRUE(ir::Run(fn, copy).ok());
  const HostBuffer& orig_c = std::get<HostBuffer>((*args)[2]);
  const HostBuffer& new_c = std::get<HostBuffer>(copy[2]);
  const HostBuffer& a = std::get<HostBuffer>(copy[0]);
  const HostBuffer& b = std::get<HostBuffer>(copy[1]);
  for (int64_t k = 0; k < 16; ++k) {
    EXPECT_EQ(new_c.GetFloat(k), static_cast<double>(static_cast<float>(a.GetFloat(k)) +
                                                      static_cast<float>(b.GetFloat(k))));
  }
  EXPECT_FALSE(CompareArgs(*args, copy, fn).ok()) << "the originals were not written";
  EXPECT_NE(orig_c.data(), new_c.data());
}

TEST(InterpRandomTest, CompareArgsUsesToleranceTreatsNaNAsEqualAndNamesTheIndex) {
  Buffer c = Buf("C", kF32, {2, 3});
  PrimFunc fn = Fn({c}, ValueOrDie(MakeEvaluate(IntImm32(0))));
  HostBuffer e = HostBuffer::Zeros(kF32, {2, 3});
  e.SetFloat(0, NAN);
  e.SetFloat(4, 1.5);
  HostBuffer a = e.Clone();
  a.SetFloat(4, 1.5 + 1e-6);
  EXPECT_TRUE(CompareArgs({Arg(e)}, {Arg(a)}, fn).ok()) << "within rtol, NaN == NaN";
  a.SetFloat(4, 1.75);
  a.SetFloat(5, 9);
  absl::Status s = CompareArgs({Arg(e)}, {Arg(a)}, fn);
  EXPECT_THAT(Msg(s), AllOf(HasSubstr("parameter 'C' (f32[2, 3]) differs at flat index 4, index [1, 1]"),
                            HasSubstr("expected 1.5, got 1.75"), HasSubstr("2 of 6 elements differ")));
  CompareOptions loose;
  loose.atol = 10;
  EXPECT_TRUE(CompareArgs({Arg(e)}, {Arg(a)}, fn, loose).ok());
  EXPECT_THAT(Msg(CompareArgs({Arg(e)}, {Arg(HostBuffer::Zeros(kF32, {6}))}, fn)),
              HasSubstr("the actual buffer is f32[6]"));
  EXPECT_THAT(Msg(CompareArgs({Arg(e)}, {}, fn)), HasSubstr("1 parameters but 1 and 0 arguments"));
}

TEST(InterpRandomTest, CompareArgsHoldsANarrowFloatToItsOwnPrecision) {
  Buffer h = Buf("H", DataType::Float(16), {2});
  PrimFunc fn = Fn({h}, ValueOrDie(MakeEvaluate(IntImm32(0))));
  HostBuffer e = HostBuffer::Zeros(DataType::Float(16), {2});
  e.SetFloat(0, 1.0);
  HostBuffer a = e.Clone();
  a.SetFloat(0, 1.0 + 4 * std::ldexp(1.0, -10));  // Four units of f16 away.
  EXPECT_TRUE(CompareArgs({Arg(e)}, {Arg(a)}, fn).ok()) << "an f16 sum reordered";
  a.SetFloat(0, 1.0625);  // 64 units: a wrong result, not a reordering.
  EXPECT_THAT(Msg(CompareArgs({Arg(e)}, {Arg(a)}, fn)),
              AllOf(HasSubstr("parameter 'H' (f16[2]) differs at flat index 0"),
                    HasSubstr("rtol 0.0078125")));
  // f32 keeps the asked tolerance: the same four units of f16 are far outside it.
  Buffer c = Buf("C", kF32, {2});
  HostBuffer e32 = HostBuffer::Zeros(kF32, {2});
  e32.SetFloat(0, 1.0);
  HostBuffer a32 = e32.Clone();
  a32.SetFloat(0, 1.0 + 4 * std::ldexp(1.0, -10));
  EXPECT_FALSE(
      CompareArgs({Arg(e32)}, {Arg(a32)}, Fn({c}, ValueOrDie(MakeEvaluate(IntImm32(0))))).ok());
}

TEST(InterpRandomTest, CheckSameResultsAcceptsAnEquivalentRewriteAndPinpointsAWrongOne) {
  PrimFunc ref = AddFunc(-1, false);
  for (uint64_t seed : {1, 2, 3}) {
    absl::Status same = CheckSameResults(ref, AddFunc(-1, true), seed);
    EXPECT_TRUE(same.ok()) << same;
  }
  absl::Status wrong = CheckSameResults(ref, AddFunc(5, true), 7);
  EXPECT_THAT(Msg(wrong), AllOf(HasSubstr("CheckSameResults (seed 7)"),
                                HasSubstr("parameter 'C' (f32[4, 4]) differs at flat index 5, index [1, 1]"),
                                HasSubstr("1 of 16 elements differ")));
  // A failing run is reported as such, not as a difference.
  PrimFunc noop = Fn({Buf("A", kF32, {4, 4}), Buf("B", kF32, {4, 4}), Buf("C", kF32, {4, 4})},
                    ValueOrDie(MakeEvaluate(IntImm32(0))));
  EXPECT_TRUE(CheckSameResults(noop, noop, 1).ok());
  Buffer a = Buf("A", kF32, {4, 4}), b = Buf("B", kF32, {4, 4}), c = Buf("C", kF32, {4, 4});
  Var i = IVar("i");
  PrimFunc bad = Fn({a, b, c}, Loop(i, 5, Store(c, Load(a, {i, i}), {i, i})));
  EXPECT_THAT(Msg(CheckSameResults(ref, bad, 1)),
              AllOf(HasSubstr("the second function failed"), HasSubstr("index [4, 4]")));
  PrimFunc other_sig = Fn({Buf("A", kF32, {4, 4})}, ValueOrDie(MakeEvaluate(IntImm32(0))));
  EXPECT_THAT(Msg(CheckSameResults(ref, other_sig, 1)), HasSubstr("take 3 and 1 parameters"));
}

}  // namespace
}  // namespace tessel::ir
