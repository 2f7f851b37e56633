// Graph functions (ir/graph_function.h): text, structural identity, the
// verifier, the reference run (ir/graph/interpreter.h) and `legalize`.
#include <cmath>

#include "gtest/gtest.h"
#include "ir/graph/interpreter.h"
#include "ir/graph/op_registry.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/verifier.h"
#include "passes/graph/legalize.h"

namespace tessel::ir {
namespace {

constexpr char kMlp[] = R"(graph @mlp(x: f32[2, 3], w: f32[3, 2], b: f32[2]) {
  h: f32[2, 2] = matmul(x, w)
  hb: f32[2, 2] = add(h, b)
  y: f32[2, 2] = relu(hb)
  return y, h
}
)";

IRModule Parse(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text, "<test>");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : IRModule();
}

HostBuffer Filled(std::vector<int64_t> shape, std::vector<double> values) {
  HostBuffer b = HostBuffer::Zeros(DataType::Float(32), std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) b.SetFloat(static_cast<int64_t>(i), values[i]);
  return b;
}

TEST(GraphFunction, PrintsAndParsesBack) {
  IRModule m = Parse(kMlp);
  ASSERT_EQ(m->graph_functions.size(), 1u);
  EXPECT_EQ(PrintModule(m), kMlp);
  IRModule again = Parse(PrintModule(m));
  EXPECT_TRUE(StructuralEqual(m, again));
  EXPECT_EQ(StructuralHash(m), StructuralHash(again));
}

TEST(GraphFunction, IdentityIgnoresNamesButNotCallsOrAttributes) {
  IRModule m = Parse(kMlp);
  IRModule r = Parse(R"(graph @mlp(a: f32[2, 3], c: f32[3, 2], d: f32[2]) {
  p: f32[2, 2] = matmul(a, c)
  q: f32[2, 2] = add(p, d)
  out: f32[2, 2] = relu(q)
  return out, p
}
)");
  EXPECT_TRUE(StructuralEqual(m, r)) << AssertStructuralEqual(m, r);
  EXPECT_EQ(StructuralHash(m), StructuralHash(r));

  std::string other_op = kMlp;
  other_op.replace(other_op.find("relu"), 4, "tanh");
  EXPECT_FALSE(StructuralEqual(m, Parse(other_op)));
  EXPECT_NE(StructuralHash(m), StructuralHash(Parse(other_op)));

  std::string with_attr = kMlp;
  with_attr.replace(with_attr.find("matmul(x, w)"), 12, "matmul(x, w) {transpose_a = false}");
  EXPECT_FALSE(StructuralEqual(m, Parse(with_attr)));

  // Which value is returned is part of the function.
  std::string swapped = kMlp;
  swapped.replace(swapped.find("return y, h"), 11, "return h, y");
  absl::Status why = AssertStructuralEqual(m, Parse(swapped));
  EXPECT_FALSE(why.ok());
  EXPECT_NE(why.message().find("results[0]"), std::string::npos) << why;
}

TEST(GraphFunction, ModulesOfPrimFuncsKeepTheirHash) {
  // The persisted hash of a module without graph functions must not move
  // (tuning databases store it): a fixed value, as version 1 defines it.
  IRModule m = Parse("func @f(A: f32[4]) {\n  A[0] = 1.0f32\n}\n");
  EXPECT_EQ(StructuralHash(m), StructuralHash(MakeIRModule(m->functions)));
  auto n = MakeNode<IRModuleNode>(*m);
  n->graph_functions = Parse(kMlp)->graph_functions;
  EXPECT_NE(StructuralHash(m), StructuralHash(IRModule(std::move(n))));
}

TEST(GraphFunction, NamesAreUniqueAcrossBothKinds) {
  absl::StatusOr<IRModule> m =
      ParseModule(std::string(kMlp) + "func @mlp(A: f32[1]) {\n  A[0] = 1.0f32\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("function 'mlp' is defined twice"), std::string::npos)
      << m.status();
  IRModule g = Parse(kMlp);
  absl::StatusOr<IRModule> built = MakeIRModuleChecked(
      {{"mlp", Parse("func @f(A: f32[1]) {\n  A[0] = 1.0f32\n}\n")->functions[0].second}},
      g->graph_functions);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.status().message().find("'mlp' is defined twice"), std::string::npos);
}

TEST(GraphFunction, FactoryRefusesMalformedBindings) {
  Buffer x = MakeBuffer("x", DataType::Float(32), {IntImm32(4)});
  Buffer y = MakeBuffer("y", DataType::Float(32), {IntImm32(4)});
  Buffer z = MakeBuffer("z", DataType::Float(32), {IntImm32(4)});
  GraphBinding two_outputs{{y, z}, GraphCall{GraphCall::Kind::kOp, "relu", {x}, {}}};
  absl::StatusOr<GraphFunc> g = MakeGraphFuncChecked({x}, {two_outputs}, {y});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("an operator defines one"), std::string::npos) << g.status();
  EXPECT_FALSE(MakeGraphFuncChecked({x}, {}, {}).ok());  // Returns nothing.
  GraphBinding no_callee{{y}, GraphCall{GraphCall::Kind::kOp, "", {x}, {}}};
  EXPECT_FALSE(MakeGraphFuncChecked({x}, {no_callee}, {y}).ok());
  GraphBinding missing_arg{{y}, GraphCall{GraphCall::Kind::kOp, "relu", {Buffer()}, {}}};
  EXPECT_FALSE(MakeGraphFuncChecked({x}, {missing_arg}, {y}).ok());
}

TEST(GraphFunction, VerifierRefusesAValueUsedBeforeItsBinding) {
  // The parser cannot produce this; a builder can.
  Buffer x = MakeBuffer("x", DataType::Float(32), {IntImm32(4)});
  Buffer y = MakeBuffer("y", DataType::Float(32), {IntImm32(4)});
  Buffer z = MakeBuffer("z", DataType::Float(32), {IntImm32(4)});
  GraphFunc g =
      ValueOrDie(MakeGraphFuncChecked({x},
                                      {GraphBinding{{z}, {GraphCall::Kind::kOp, "relu", {y}, {}}},
                                       GraphBinding{{y}, {GraphCall::Kind::kOp, "relu", {x}, {}}}},
                                      {z}));
  IRModule m = ValueOrDie(MakeIRModuleChecked({}, {{"main", g}}));
  absl::Status s = VerifyModule(m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(
      s.message(),
      "verify: graph function 'main': binding 0 (z): argument 'y' is used before it is defined");
  GraphFunc twice = ValueOrDie(
      MakeGraphFuncChecked({x}, {GraphBinding{{x}, {GraphCall::Kind::kOp, "relu", {x}, {}}}}, {x}));
  s = VerifyModule(ValueOrDie(MakeIRModuleChecked({}, {{"main", twice}})));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("value 'x' is defined twice"), std::string::npos) << s;
}

TEST(GraphInterpreter, RunsOperatorsAndReturnsEveryResult) {
  IRModule m = Parse(kMlp);
  HostBuffer x = Filled({2, 3}, {1, 2, 3, -1, -2, -3});
  HostBuffer w = Filled({3, 2}, {1, 0, 0, 1, 1, 1});
  HostBuffer b = Filled({2}, {0.5, -10});
  absl::StatusOr<std::vector<HostBuffer>> out = graph::RunGraph(m, "mlp", {x, w, b});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  // h = x @ w = [[4, 5], [-4, -5]]; y = relu(h + b) = [[4.5, 0], [0, 0]].
  const double h[] = {4, 5, -4, -5}, y[] = {4.5, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*out)[1].GetFloat(i), h[i]) << i;
    EXPECT_EQ((*out)[0].GetFloat(i), y[i]) << i;
  }
  EXPECT_EQ(x.GetFloat(0), 1.0);  // Inputs are not written.
}

TEST(GraphInterpreter, WrongInputsNameTheInput) {
  IRModule m = Parse(kMlp);
  HostBuffer x = HostBuffer::Zeros(DataType::Float(32), {2, 3});
  HostBuffer w = HostBuffer::Zeros(DataType::Float(32), {3, 5});
  HostBuffer b = HostBuffer::Zeros(DataType::Float(32), {2});
  absl::StatusOr<std::vector<HostBuffer>> out = graph::RunGraph(m, "mlp", {x, w, b});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "graph function 'mlp': input 1 ('w') is f32[3, 5]; the parameter is f32[3, 2]");
  out = graph::RunGraph(m, "mlp", {x, w});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "graph function 'mlp' takes 3 inputs, got 2");
  HostBuffer xi = HostBuffer::Zeros(DataType::Int(32), {2, 3});
  EXPECT_FALSE(
      graph::RunGraph(m, "mlp", {xi, HostBuffer::Zeros(DataType::Float(32), {3, 2}), b}).ok());
  EXPECT_EQ(graph::RunGraph(m, "nope", {}).status().code(), absl::StatusCode::kNotFound);
}

TEST(GraphInterpreter, SymbolicShapesBindFromTheInputs) {
  IRModule m = Parse(R"(graph @rows[n](x: f32[n, 4]) {
  y: f32[n, 4] = softmax(x)
  s: f32[n] = sum(y) {axes = [1]}
  return s
}
)");
  for (int64_t n : {1, 3}) {
    absl::StatusOr<std::vector<HostBuffer>> in =
        graph::RandomGraphInputs(m->graph_functions[0].second, 7, {{"n", n}});
    ASSERT_TRUE(in.ok()) << in.status();
    absl::StatusOr<std::vector<HostBuffer>> out = graph::RunGraph(m, "rows", *in);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), std::vector<int64_t>{n});
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR((*out)[0].GetFloat(i), 1.0, 1e-6);
  }
}

TEST(Legalize, KeepsResultsAndSharesEqualKernels) {
  IRModule m = Parse(std::string(kMlp) + R"(
graph @again(x: f32[2, 2]) {
  y: f32[2, 2] = relu(x)
  return y
}
)");
  int legalized = 0, added = 0;
  absl::StatusOr<IRModule> out = passes::LegalizeGraphOps(m, &legalized, &added);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(legalized, 4);
  EXPECT_EQ(added, 3);  // matmul, add, relu: both relus are on f32[2, 2].
  ASSERT_TRUE(VerifyModule(*out).ok()) << VerifyModule(*out);
  for (const auto& [name, g] : (*out)->graph_functions) {
    for (const GraphBinding& b : g->bindings) EXPECT_EQ(b.call.kind, GraphCall::Kind::kCallTir);
    EXPECT_TRUE(graph::CheckSameGraphResults(m, *out, name, 3).ok()) << name;
  }
  // Nothing left to legalize: the very same module comes back.
  absl::StatusOr<IRModule> again = passes::LegalizeGraphOps(*out);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->same_as(*out));
}

TEST(Legalize, FailsWithoutChangingTheModule) {
  IRModule m = Parse(R"(graph @g(x: f32[4]) {
  y: f32[4] = relu(x)
  z: f32[4] = softmax(y) {axis = 3}
  return z
}
)");
  std::string before = PrintModule(m);
  absl::StatusOr<IRModule> out = passes::LegalizeGraphOps(m);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("binding of 'z': operator 'softmax'"), std::string::npos)
      << out.status();
  EXPECT_EQ(PrintModule(m), before);
}

TEST(OpRegistry, EveryOpTakesItsDocumentedAttributesOnly) {
  std::vector<std::string> names = graph::GraphOpNames();
  EXPECT_GE(names.size(), 40u);
  EXPECT_TRUE(graph::IsGraphOp("layer_norm"));
  EXPECT_FALSE(graph::IsGraphOp("frobnicate"));
  Buffer x = MakeBuffer("x", DataType::Float(32), {IntImm32(4)});
  GraphCall call{GraphCall::Kind::kOp, "relu", {x}, {{"alpha", AttrValue(1.0)}}};
  absl::StatusOr<graph::LegalizedOp> op = graph::InferGraphOp(call, "y");
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(), "operator 'relu' has no attribute 'alpha' (it takes none)");
  call.attrs.clear();
  op = graph::InferGraphOp(call, "y");
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(TensorTypeText(op->output), "f32[4]");
  EXPECT_EQ(op->func->params.size(), 2u);
}

}  // namespace
}  // namespace tessel::ir
