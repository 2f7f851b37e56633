// Every error the compute DSL, the reducers and CreatePrimFunc report on bad
// input, with the message a user sees. None of them aborts.
//
//   Compute({4}, [&](Var i) { return A(i, 3); }, "C")     // A is 4x3
//   -> "compute 'C': index 3 is out of range [0, 3) in dimension 1 of tensor 'A'"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/expr_ops.h"
#include "ir/te/reducer.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT

TEST(TePlaceholderErrorTest, RefusesBadNamesShapesAndTypes) {
  EXPECT_THAT(ErrorOf(Placeholder({4}, kF32, "a b")),
              HasSubstr("placeholder name 'a b' is not an identifier"));
  EXPECT_THAT(ErrorOf(Placeholder({4}, kF32, "")), HasSubstr("is not an identifier"));
  EXPECT_THAT(ErrorOf(Placeholder({4, -2}, kF32, "A")),
              HasSubstr("placeholder 'A': extent 1 is negative (-2)"));
  EXPECT_THAT(ErrorOf(Placeholder(std::vector<Expr>{FloatImm(kF32, 2)}, kF32, "A")),
              HasSubstr("extent 0 has type f32, expected a scalar integer"));
  EXPECT_THAT(ErrorOf(Placeholder(std::vector<Expr>{IntImm32(2), IntImm(DataType::Int(64), 3)},
                                  kF32, "A")),
              HasSubstr("extents mix index types i32 and i64"));
  EXPECT_THAT(ErrorOf(Placeholder(std::vector<Expr>{nullptr}, kF32, "A")),
              HasSubstr("extent 0 is missing"));
  EXPECT_THAT(ErrorOf(Placeholder({4}, DataType::Handle(), "A")),
              HasSubstr("element type handle is not a scalar value type"));
  EXPECT_THAT(ErrorOf(Placeholder({4}, DataType::Float(32, 4), "A")),
              HasSubstr("element type f32x4"));
}

class TeComputeErrorTest : public ::testing::Test {
 protected:
  Tensor a_ = Input("A", {4, 3});
  Tensor b_ = Input("B", {4});
};

TEST_F(TeComputeErrorTest, FcomputeArityMustMatchTheRank) {
  EXPECT_THAT(ErrorOf(Compute({4, 3}, [&](Var i) { return b_(i); }, "C")),
              HasSubstr("compute 'C': fcompute takes 1 index but the shape has rank 2"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i, Var j, Var k) { return b_(i); }, "C")),
              HasSubstr("fcompute takes 3 indices but the shape has rank 1"));
}

TEST_F(TeComputeErrorTest, TensorsMustBeIndexedWithTheirRankOfIntegers) {
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return a_(i); }, "C")),
              HasSubstr("compute 'C': tensor 'A' has rank 2 but is indexed with 1 index"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(i, i, 0); }, "C")),
              HasSubstr("tensor 'B' has rank 1 but is indexed with 3 indices"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(FloatImm(kF32, 1)); }, "C")),
              HasSubstr("index 0 of tensor 'B' has type f32, expected a scalar integer"));
}

TEST_F(TeComputeErrorTest, ConstantIndicesMustBeInRange) {
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return a_(i, 3); }, "C")),
              HasSubstr("compute 'C': index 3 is out of range [0, 3) in dimension 1 of tensor 'A'"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(-1); }, "C")),
              HasSubstr("index -1 is out of range [0, 4) in dimension 0 of tensor 'B'"));
}

TEST_F(TeComputeErrorTest, ReduceAxesBelongInsideTheirReduction) {
  IterVar k = ReduceAxis(3, "k");
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return a_(i, k.var); }, "C")),
              HasSubstr("compute 'C': reduce axis 'k' is used outside a reduction over it"));
  IterVar r = ReduceAxis(3, "r");
  // A reduction over r whose source also uses k.
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(a_(i, r.var) + a_(i, k.var), {r}); }, "C")),
              HasSubstr("reduce axis 'k' is used outside a reduction over it"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(a_(i, k.var), {k, k}); }, "C")),
              HasSubstr("reduce axis 'k' is listed twice"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(b_(i), {}); }, "C")),
              HasSubstr("a reduction needs at least one reduce axis"));
  IterVar spatial{MakeVar("s", kI32), Range{IntImm32(0), IntImm32(3)}, IterKind::kSpatial};
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(a_(i, spatial.var), {spatial}); }, "C")),
              HasSubstr("axis 's' is not a reduce axis (make it with ReduceAxis)"));
  IterVar empty = ReduceAxis(5, 5, "e");
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(b_(i), {empty}); }, "C")),
              HasSubstr("reduce axis 'e' has an empty domain (extent 0)"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) {
                return ReduceSum(b_(i), {IterVar{i, Range{IntImm32(0), IntImm32(4)}, IterKind::kReduce}});
              }, "C")),
              HasSubstr("reduces over its own index 'i0'"));
}

TEST_F(TeComputeErrorTest, ReduceDomainsMayNotDependOnIndices) {
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) -> ComputeBody {
                IterVar k = ReduceAxis(0, i, "k");
                return ReduceSum(b_(k.var), {k});
              }, "C")),
              HasSubstr("the domain of reduce axis 'k' depends on index 'i0'; use a reduction condition instead"));
}

TEST_F(TeComputeErrorTest, IndicesOfAnotherComputeAreRefused) {
  Var leaked;
  Tensor c = Must(Compute({4}, [&](Var i) { leaked = i; return b_(i); }, "C"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var j) { return c(leaked); }, "D")),
              HasSubstr("compute 'D': uses index 'i0' of compute 'C'"));
}

TEST_F(TeComputeErrorTest, BodiesReadOnlyTensorsAndHaveScalarValues) {
  Buffer raw = MakeBuffer("raw", kF32, {IntImm32(4)});
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return Load(raw, {i}); }, "C")),
              HasSubstr("reads buffer 'raw', which is not a tensor made by Placeholder or Compute"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return Broadcast(b_(i), 4); }, "C")),
              HasSubstr("vector expressions (Broadcast) are not allowed"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return Expr(); }, "C")),
              HasSubstr("compute 'C': a value of the body is missing"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) -> ComputeBody {
                return absl::InvalidArgumentError("no such weight");
              }, "C")),
              HasSubstr("compute 'C': no such weight"));
}

TEST_F(TeComputeErrorTest, TuplesNeedComputeMultiAndNamesMustFit) {
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ComputeBody::Tuple({b_(i), b_(i)}); }, "C")),
              HasSubstr("the body has 2 outputs; use ComputeMulti for tuples"));
  EXPECT_THAT(ErrorOf(ComputeMulti({4}, [&](Var i) { return ComputeBody::Tuple({b_(i), b_(i)}); }, "C",
                                   {.output_names = {"x"}})),
              HasSubstr("1 output names for 2 outputs"));
  EXPECT_THAT(ErrorOf(ComputeMulti({4}, [&](Var i) { return ComputeBody::Tuple({}); }, "C")),
              HasSubstr("compute 'C': no values"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(i); }, "C", {.axis_names = {"i", "j"}})),
              HasSubstr("2 axis names for rank 1"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(i); }, "C", {.axis_names = {"9"}})),
              HasSubstr("axis name '9' is not an identifier"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return b_(i); }, "no good")),
              HasSubstr("compute name 'no good' is not an identifier"));
}

TEST_F(TeComputeErrorTest, ReductionsCheckTheirSourcesAgainstTheReducer) {
  IterVar k = ReduceAxis(3, "k");
  Tensor flags = Input("flags", {4, 3}, DataType::Bool());
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(flags(i, k.var), {k}); }, "C")),
              HasSubstr("compute 'C': reducer 'sum' needs a scalar number type, not bool"));
  CommReducer pair = Must(MakeCommReducer(
      "pair", {kF32, kF32},
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        return std::vector<Expr>{x[0] + y[0], x[1] + y[1]};
      },
      {FloatImm(kF32, 0), FloatImm(kF32, 0)}));
  EXPECT_THAT(ErrorOf(ComputeMulti({4}, [&](Var i) { return Reduce(pair, {a_(i, k.var)}, {k}); }, "C")),
              HasSubstr("reducer 'pair' combines 2 values but 1 were given"));
  Tensor ints = Input("ints", {4, 3}, kI32);
  EXPECT_THAT(ErrorOf(ComputeMulti({4}, [&](Var i) {
                return Reduce(pair, {a_(i, k.var), ints(i, k.var)}, {k});
              }, "C")),
              HasSubstr("reducer 'pair' expects f32 for value 1 but the source is i32"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(a_(i, k.var), {k}, i + 1); }, "C")),
              HasSubstr("the reduction condition has type i32, expected bool"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(Expr(), {k}); }, "C")),
              HasSubstr("ReduceSum: the source is missing"));
}

TEST_F(TeComputeErrorTest, ReduceAxesNeedAVariableAndAnIntegerDomain) {
  IterVar no_var{Var(), Range{IntImm32(0), IntImm32(3)}, IterKind::kReduce};
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(b_(i), {no_var}); }, "C")),
              HasSubstr("compute 'C': a reduce axis is missing"));
  IterVar float_dom = ReduceAxis(FloatImm(kF32, 3), "f");
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(b_(i), {float_dom}); }, "C")),
              HasSubstr("reduce axis 'f' needs an integer domain of its own type"));
  // [i32, i64): the extent cannot be formed.
  IterVar mixed = ReduceAxis(IntImm32(0), MakeVar("e", DataType::Int(64)), "m");
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return ReduceSum(b_(i), {mixed}); }, "C")),
              HasSubstr("reduce axis 'm' needs an integer domain of its own type"));
}

TEST_F(TeComputeErrorTest, ValuesMustBeScalarsAndNamesIdentifiers) {
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return Ramp(i, IntImm32(1), 4); }, "C")),
              HasSubstr("vector expressions (Ramp) are not allowed"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return Load(b_.buffer(), {Ramp(i, IntImm32(1), 4)}); }, "C")),
              HasSubstr("index 0 of tensor 'B' has type i32x4, expected a scalar integer"));
  Var vec = MakeVar("vec", DataType::Float(32, 4));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) { return vec; }, "C")),
              HasSubstr("compute 'C': a value has type f32x4, expected a scalar number or bool"));
  EXPECT_THAT(ErrorOf(ComputeMulti({4}, [&](Var i) { return ComputeBody::Tuple({b_(i), b_(i)}); }, "C",
                                   {.output_names = {"ok", "not ok"}})),
              HasSubstr("output name 'not ok' is not an identifier"));
  EXPECT_THAT(ErrorOf(Compute({4}, [&](Var i) {
                return ComputeBody::Reduction(nullptr, {b_(i)}, {});
              }, "C")),
              HasSubstr("compute 'C': the reducer is missing"));
}

TEST(TeReducerErrorTest, CombinersUseOnlyTheirOperandsAndMatchTheirTypes) {
  auto add = [](const std::vector<Var>& x, const std::vector<Var>& y) {
    return std::vector<Expr>{x[0] + y[0]};
  };
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {kF32}, add, {})),
              HasSubstr("reducer 'r': 0 identities for 1 elements"));
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {kF32}, add, {IntImm32(0)})),
              HasSubstr("reducer 'r': element 0: identity has type i32, expected f32"));
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {}, add, {})), HasSubstr("no element types"));
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {DataType::Handle()}, add, {IntImm32(0)})),
              HasSubstr("element 0 has type handle"));
  EXPECT_THAT(ErrorOf(MakeCommReducer(
                  "r", {kF32, kF32}, add, {FloatImm(kF32, 0), FloatImm(kF32, 0)})),
              HasSubstr("the combiner returns 1 values for 2 elements"));
  EXPECT_THAT(ErrorOf(MakeCommReducer(
                  "r", {kF32}, [](const std::vector<Var>& x, const std::vector<Var>& y) {
                    return std::vector<Expr>{LT(x[0], y[0])};
                  }, {FloatImm(kF32, 0)})),
              HasSubstr("element 0 of the combiner has type bool, expected f32"));
  Var other = MakeVar("z", kF32);
  EXPECT_THAT(ErrorOf(MakeCommReducer(
                  "r", {kF32}, [&](const std::vector<Var>& x, const std::vector<Var>& y) {
                    return std::vector<Expr>{x[0] + other};
                  }, {FloatImm(kF32, 0)})),
              HasSubstr("element 0 of the combiner uses variable 'z', which is not an operand"));
  Tensor t = Input("T", {2});
  EXPECT_THAT(ErrorOf(MakeCommReducer(
                  "r", {kF32}, [&](const std::vector<Var>& x, const std::vector<Var>& y) {
                    return std::vector<Expr>{x[0] + t(0)};
                  }, {FloatImm(kF32, 0)})),
              HasSubstr("reads buffer 'T'; it may use only its operands"));
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {kF32}, add, {other})),
              HasSubstr("identity uses variable 'z'"));
  EXPECT_THAT(ErrorOf(MakeCommReducer("r", {kF32}, add, {Expr()})),
              HasSubstr("reducer 'r': element 0: identity is missing"));
  EXPECT_THAT(ErrorOf(MakeCommReducer(
                  "r", {kF32}, [](const std::vector<Var>&, const std::vector<Var>&) {
                    return std::vector<Expr>{Expr()};
                  }, {FloatImm(kF32, 0)})),
              HasSubstr("reducer 'r': element 0 of the combiner is missing"));
}

TEST(TeCreatePrimFuncErrorTest, ArgumentsMustBeCompleteAndDistinct) {
  Tensor a = Input("A", {4});
  Tensor b = Must(Compute({4}, [&](Var i) { return a(i) + 1.0; }, "B"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({}, "f")), HasSubstr("CreatePrimFunc 'f': no arguments"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({b}, "f")),
              HasSubstr("CreatePrimFunc 'f': placeholder 'A' is read by compute 'B' but is not an "
                        "argument; pass it as a parameter"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, b, a}, "f")), HasSubstr("tensor 'A' is passed twice"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, Tensor(), b}, "f")),
              HasSubstr("argument 1 is an undefined tensor"));
  Var s = MakeVar("s", kF32);
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, s, s, b}, "f")), HasSubstr("variable 's' is passed twice"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a}, "f")),
              HasSubstr("computes nothing: no argument is the result of a compute"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, b}, "1f")),
              HasSubstr("function name '1f' is not an identifier"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, MakeVar("h", DataType::Handle()), b}, "f")),
              HasSubstr("scalar parameter 'h' has type handle"));
}

TEST(TeCreatePrimFuncErrorTest, EveryVariableMustBeBoundByTheFunction) {
  Var n = SizeVar("n");
  // n appears only inside an extent expression: nothing binds it.
  Tensor a = Input("A", {n * 2});
  Tensor b = Must(Compute({n * 2}, [&](Var i) { return a(i); }, "B"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({a, b}, "f")),
              HasSubstr("the shape of tensor 'A' uses variable 'n', which is not bound in the "
                        "function: pass it as a scalar parameter or make it a whole extent"));
  EXPECT_TRUE(CreatePrimFunc({a, n, b}, "f").ok());  // Passed as a scalar, it is bound.
  Var alpha = MakeVar("alpha", kF32);
  Tensor c = Input("C", {3});
  Tensor d = Must(Compute({3}, [&](Var i) { return c(i) * alpha; }, "D"));
  EXPECT_THAT(ErrorOf(CreatePrimFunc({c, d}, "f")),
              HasSubstr("compute 'D' uses variable 'alpha', which is not bound in the function"));
}

}  // namespace
}  // namespace tessel::ir::te
