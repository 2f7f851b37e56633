// Units for the elementwise and broadcasting ops: each run in the interpreter and
// checked against a direct C++ computation, including numpy broadcasting corner
// cases (size-1 dimensions, rank mismatch, scalars), and every refusal.
//
//   Add(a: f32[4, 1, 3], b: f32[5, 1]) -> f32[4, 5, 3], checked element by element
#include <cmath>
#include <functional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/ops/broadcast.h"
#include "ir/te/ops/elementwise.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

struct UnaryCase {
  const char* name;
  std::function<absl::StatusOr<Tensor>(const Tensor&)> op;
  std::function<double(double)> ref;
  bool positive_inputs;
};

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(TeUnaryTest, EveryUnaryOpMatchesItsFormula) {
  const UnaryCase cases[] = {
      {"relu", [](const Tensor& x) { return ops::Relu(x); }, [](double v) { return std::max(v, 0.0); }, false},
      {"neg", [](const Tensor& x) { return ops::Neg(x); }, [](double v) { return -v; }, false},
      {"abs", [](const Tensor& x) { return ops::Abs(x); }, [](double v) { return std::fabs(v); }, false},
      {"exp", [](const Tensor& x) { return ops::Exp(x); }, [](double v) { return std::exp(v); }, false},
      {"log", [](const Tensor& x) { return ops::Log(x); }, [](double v) { return std::log(v); }, true},
      {"sqrt", [](const Tensor& x) { return ops::Sqrt(x); }, [](double v) { return std::sqrt(v); }, true},
      {"rsqrt", [](const Tensor& x) { return ops::Rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); }, true},
      {"tanh", [](const Tensor& x) { return ops::Tanh(x); }, [](double v) { return std::tanh(v); }, false},
      {"erf", [](const Tensor& x) { return ops::Erf(x); }, [](double v) { return std::erf(v); }, false},
      {"sigmoid", [](const Tensor& x) { return ops::Sigmoid(x); }, &Sigmoid, false},
      {"silu", [](const Tensor& x) { return ops::Silu(x); }, [](double v) { return v * Sigmoid(v); }, false},
      {"gelu_erf", [](const Tensor& x) { return ops::Gelu(x); },
       [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, false},
      {"gelu_tanh", [](const Tensor& x) { return ops::Gelu(x, ops::GeluForm::kTanh); },
       [](double v) {
         return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
       }, false},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor x = Input("x", {3, 7});
    Tensor y = Must(c.op(x));
    TeRun r = MustRun({x, y}, 11, {}, [&](std::vector<Arg>& args) {
      HostBuffer& in = std::get<HostBuffer>(args[0]);
      for (int64_t e = 0; e < in.size(); ++e) {
        double v = 3 * in.GetFloat(e);  // Spread over [-3, 3] to reach the curves' tails.
        in.SetFloat(e, c.positive_inputs ? std::fabs(v) + 0.05 : v);
      }
    });
    ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return c.ref(r.At(0, i)); }, 1e-5, 1e-6);
  }
}

TEST(TeUnaryTest, IntegerOpsAndCasts) {
  Tensor x = Input("x", {9}, kI32);
  Tensor relu = Must(ops::Relu(x)), neg = Must(ops::Neg(x)), abs = Must(ops::Abs(x));
  Tensor f = Must(ops::Cast(x, kF32));
  TeRun r = MustRun({x, relu, neg, abs, f});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return std::max<double>(r.IntAt(0, i), 0); });
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return -r.IntAt(0, i); });
  ExpectAll(r, 3, [&](const std::vector<int64_t>& i) { return std::abs(r.IntAt(0, i)); });
  ExpectAll(r, 4, [&](const std::vector<int64_t>& i) { return r.IntAt(0, i); });
  EXPECT_EQ(f.dtype(), kF32);
  // f32 -> i32 truncates toward zero; f32 -> f16 rounds.
  Tensor g = Input("g", {5});
  Tensor gi = Must(ops::Cast(g, kI32)), gh = Must(ops::Cast(g, DataType::Float(16)));
  TeRun s = MustRun({g, gi, gh}, 2, {}, [](std::vector<Arg>& args) {
    HostBuffer& in = std::get<HostBuffer>(args[0]);
    const double v[] = {2.75, -2.75, 0.5, 1e-4, 7};
    for (int e = 0; e < 5; ++e) in.SetFloat(e, v[e]);
  });
  ExpectAll(s, 1, [&](const std::vector<int64_t>& i) { return std::trunc(s.At(0, i)); });
  ExpectAll(s, 2, [&](const std::vector<int64_t>& i) { return s.At(0, i); }, 1e-3, 1e-7);
}

TEST(TeUnaryTest, RefusesWhatTheirRulesExclude) {
  Tensor i = Input("i", {3}, kI32);
  Tensor b = Input("b", {3}, DataType::Bool());
  EXPECT_THAT(ErrorOf(ops::Exp(i)), HasSubstr("exp: tensor 'i' has type i32, expected a float type"));
  EXPECT_THAT(ErrorOf(ops::Gelu(i)), HasSubstr("gelu: tensor 'i' has type i32"));
  EXPECT_THAT(ErrorOf(ops::Relu(b)), HasSubstr("relu: tensor 'b' has type bool, expected a number type"));
  EXPECT_THAT(ErrorOf(ops::Relu(Tensor())), HasSubstr("relu: the input is an undefined tensor"));
  EXPECT_THAT(ErrorOf(ops::Cast(i, DataType::Float(32, 4))),
              HasSubstr("cast: cannot cast to f32x4, expected a scalar value type"));
}

// numpy's rule: align at the last axis; a size-1 (or missing) axis repeats.
std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& in_shape,
                                    const std::vector<int64_t>& out) {
  std::vector<int64_t> idx;
  size_t skip = out.size() - in_shape.size();
  for (size_t d = 0; d < in_shape.size(); ++d) idx.push_back(in_shape[d] == 1 ? 0 : out[d + skip]);
  return idx;
}

struct BinaryCase {
  const char* name;
  std::function<absl::StatusOr<Tensor>(const ops::Operand&, const ops::Operand&)> op;
  std::function<double(double, double)> ref;
};

TEST(TeBroadcastTest, BinaryOpsBroadcastLikeNumpy) {
  const BinaryCase cases[] = {
      {"add", [](auto& a, auto& b) { return ops::Add(a, b); }, [](double x, double y) { return x + y; }},
      {"sub", [](auto& a, auto& b) { return ops::Sub(a, b); }, [](double x, double y) { return x - y; }},
      {"mul", [](auto& a, auto& b) { return ops::Mul(a, b); }, [](double x, double y) { return x * y; }},
      {"div", [](auto& a, auto& b) { return ops::Div(a, b); }, [](double x, double y) { return x / y; }},
      {"max", [](auto& a, auto& b) { return ops::Maximum(a, b); }, [](double x, double y) { return std::max(x, y); }},
      {"min", [](auto& a, auto& b) { return ops::Minimum(a, b); }, [](double x, double y) { return std::min(x, y); }},
  };
  // Shape pairs: equal, size-1 dims on both sides, rank mismatch, scalar-like.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 5}, {3, 5}}, {{4, 1, 3}, {5, 1}}, {{1, 6}, {7, 1}}, {{2, 3, 4}, {4}}, {{1}, {3, 2}},
  };
  for (const BinaryCase& c : cases) {
    for (const auto& [sa, sb] : shapes) {
      SCOPED_TRACE(std::string(c.name) + " " + std::to_string(sa.size()) + "d x " +
                   std::to_string(sb.size()) + "d");
      Tensor a = Input("a", sa), b = Input("b", sb);
      Tensor y = Must(c.op(a, b));
      TeRun r = MustRun({a, b, y}, 4, {}, [](std::vector<Arg>& args) {
        HostBuffer& d = std::get<HostBuffer>(args[1]);  // Keep divisors away from 0.
        for (int64_t e = 0; e < d.size(); ++e) d.SetFloat(e, d.GetFloat(e) >= 0 ? d.GetFloat(e) + 0.5 : d.GetFloat(e) - 0.5);
      });
      ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
        return c.ref(r.At(0, BroadcastIndex(sa, i)), r.At(1, BroadcastIndex(sb, i)));
      });
    }
  }
}

TEST(TeBroadcastTest, OutputShapesFollowTheRule) {
  Tensor a = Input("a", {4, 1, 3}), b = Input("b", {5, 1});
  Tensor y = Must(ops::Add(a, b));
  EXPECT_EQ(ops::ShapeString(y.shape()), "[4, 5, 3]");
  Tensor one = Input("one", {1, 1});
  EXPECT_EQ(ops::ShapeString(Must(ops::Mul(one, Input("c", {1}))).shape()), "[1, 1]");
  Var n = SizeVar("n");
  Tensor s = Input("s", {n, 1}), t = Input("t", {1, n});
  EXPECT_EQ(ops::ShapeString(Must(ops::Sub(s, t)).shape()), "[n, n]");
}

TEST(TeBroadcastTest, ScalarsAndNumbersTakeTheTensorsType) {
  Tensor a = Input("a", {2, 3});
  Var alpha = MakeVar("alpha", kF32);
  Tensor y = Must(ops::Mul(a, alpha));
  Tensor z = Must(ops::Sub(1.5, y));
  TeRun r = MustRun({a, alpha, z});
  double s = std::get<double>(r.args[1]);
  ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return 1.5 - r.At(0, i) * s; });
  Tensor k = Input("k", {4}, kI32);
  Tensor q = Must(ops::Div(k, 3));  // Integers truncate toward zero.
  TeRun ri = MustRun({k, q});
  ExpectAll(ri, 1, [&](const std::vector<int64_t>& i) { return ri.IntAt(0, i) / 3; });
  Tensor p = Must(ops::Power(Input("p", {3}), 2.0));
  TeRun rp = MustRun({p.op()->inputs[0], p});
  ExpectAll(rp, 1, [&](const std::vector<int64_t>& i) { return std::pow(rp.At(0, i), 2.0); });
}

TEST(TeBroadcastTest, WhereBroadcastsConditionAndArms) {
  Tensor c = Input("c", {3, 1}, DataType::Bool());
  Tensor a = Input("a", {4}), b = Input("b", {3, 4});
  Tensor y = Must(ops::Where(c, a, b));
  Tensor z = Must(ops::Where(c, b, 0.0, "T_where0"));
  TeRun r = MustRun({c, a, b, y, z});
  ExpectAll(r, 3, [&](const std::vector<int64_t>& i) {
    return r.IntAt(0, {i[0], 0}) ? r.At(1, {i[1]}) : r.At(2, i);
  });
  ExpectAll(r, 4, [&](const std::vector<int64_t>& i) { return r.IntAt(0, {i[0], 0}) ? r.At(2, i) : 0.0; });
  Tensor bt = Must(ops::BroadcastTo(a, {IntImm32(2), IntImm32(3), IntImm32(4)}));
  TeRun rb = MustRun({a, bt});
  ExpectAll(rb, 1, [&](const std::vector<int64_t>& i) { return rb.At(0, {i[2]}); });
}

TEST(TeBroadcastTest, RefusesMismatchedShapesAndTypes) {
  Tensor a = Input("a", {2, 3}), b = Input("b", {4, 3}), i = Input("i", {3}, kI32);
  EXPECT_THAT(ErrorOf(ops::Add(a, b)),
              HasSubstr("add: cannot broadcast shapes [2, 3] and [4, 3] (output dimension 0: [2] vs [4])"));
  EXPECT_THAT(ErrorOf(ops::Mul(a, i)), HasSubstr("multiply: operand types differ (f32 vs i32)"));
  EXPECT_THAT(ErrorOf(ops::Add(1.0, 2.0)), HasSubstr("add: at least one operand must be a tensor"));
  EXPECT_THAT(ErrorOf(ops::Add(i, 0.5)), HasSubstr("add: the constant 0.5 is not a value of type i32"));
  EXPECT_THAT(ErrorOf(ops::Power(i, i)), HasSubstr("power: operands of type i32, expected a float type"));
  Tensor flag = Input("flag", {3}, DataType::Bool());
  EXPECT_THAT(ErrorOf(ops::Add(flag, flag)), HasSubstr("expected a number type"));
  EXPECT_THAT(ErrorOf(ops::Where(a, a, a)), HasSubstr("where: the condition has type f32, expected bool"));
  EXPECT_THAT(ErrorOf(ops::Where(flag, 1.0, 0.0)), HasSubstr("where: at least one operand must be"));
  EXPECT_THAT(ErrorOf(ops::Where(1.0, a, a)), HasSubstr("the condition must be a bool tensor"));
  Var n = SizeVar("n"), m = SizeVar("m");
  EXPECT_THAT(ErrorOf(ops::Add(Input("s", {n}), Input("t", {m}))),
              HasSubstr("cannot broadcast shapes [n] and [m]"));
  EXPECT_THAT(ErrorOf(ops::Add(a, Expr())), HasSubstr("add: an operand is missing"));
  EXPECT_THAT(ErrorOf(ops::Add(a, MakeVar("v", DataType::Float(32, 4)))),
              HasSubstr("add: operand types differ (f32 vs f32x4)"));
  EXPECT_THAT(ErrorOf(ops::Add(MakeVar("v", DataType::Float(32, 4)), 1.0)),
              HasSubstr("add: a scalar operand has vector type f32x4"));
  EXPECT_THAT(ErrorOf(ops::BroadcastTo(b, {IntImm32(3)})), HasSubstr("broadcast_to: cannot broadcast shape [4, 3]"));
  EXPECT_THAT(ErrorOf(ops::BroadcastTo(b, {IntImm32(5), IntImm32(3)})),
              HasSubstr("broadcast_to: cannot broadcast shapes [4, 3] and [5, 3]"));
}

}  // namespace
}  // namespace tessel::ir::te
