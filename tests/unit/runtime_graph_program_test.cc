// Graph programs: the metadata text (round trip and every refusal), the checks of
// a program, and the runner over a hand-written kernel: results, storage reuse as
// shapes change, products of variables, and refused arguments with nothing run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codegen/runtime/graph_runner.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};

// add_one(A: f32[n], B: f32[n]): B = A + 1, in the packed ABI.
extern "C" int32_t AddOneKernel(void* const* args, int32_t) {
  const auto* a = static_cast<const DLTensor*>(args[0]);
  auto* b = static_cast<DLTensor*>(args[1]);
  for (int64_t i = 0; i < a->shape[0]; ++i)
    static_cast<float*>(b->data)[i] = static_cast<const float*>(a->data)[i] + 1.0f;
  return 0;
}

const FunctionSignature kAddOne{"add_one",
                                {ParamSignature::Buffer("A", kF32, {Dim::Var("n")}, false),
                                 ParamSignature::Buffer("B", kF32, {Dim::Var("n")})}};

ProductDim Var(const char* v, int64_t factor = 1) { return ProductDim{factor, {v}}; }

// x -> t -> u -> y (each + 1); t and u in storages 0 and 1; returns y and x.
GraphProgram Chain() {
  GraphProgram g;
  g.name = "chain";
  g.num_inputs = 2;
  g.num_storages = 2;
  g.values = {{"x", kF32, {Var("n")}, GraphProgram::kInput},
              {"z", kF32, {Var("n", 2)}, GraphProgram::kInput},
              {"t", kF32, {Var("n")}, 0},
              {"u", kF32, {Var("n")}, 1},
              {"y", kF32, {Var("n")}, GraphProgram::kResult}};
  g.kernels = {{"add_one", {0, 2}, 1}, {"add_one", {2, 3}, 1}, {"add_one", {3, 4}, 1}};
  g.results = {4, 0};
  return g;
}

TEST(RuntimeGraphProgram, TextRoundTrip) {
  const std::string text = SerializeGraphPrograms({Chain()});
  EXPECT_THAT(text, HasSubstr("graph chain 5 2 3 2\n"));
  EXPECT_THAT(text, HasSubstr("value z f32 1 2*n input\n"));
  EXPECT_THAT(text, HasSubstr("value t f32 1 n storage 0\n"));
  EXPECT_THAT(text, HasSubstr("kernel add_one 2 3 4 1\nresults 2 4 0\n"));
  std::vector<GraphProgram> back;
  std::string error;
  // After the functions' lines, which the graph reader skips.
  ASSERT_TRUE(ParseGraphPrograms("tessel-module 2\nfunction f 0\n" + text, &back, &error)) << error;
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(SerializeGraphPrograms(back), text);
  EXPECT_EQ(DescribeSignature(back[0].CallSignature()),
            "chain(x: f32[n], z: f32[dim_product_0], y: f32[n], result_1: f32[n])");
}

TEST(RuntimeGraphProgram, ParseRefusesEachMalformedLine) {
  const std::string good = SerializeGraphPrograms({Chain()});
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"graph chain 5 2\n", "expected 'graph <name> <values> <storages> <kernels> <inputs>'"},
      {replace("2*n input", "2*n* input"), "bad dimension '2*n*'"},
      {replace("n storage 0", "n somewhere"), "expected the role"},
      {replace("kernel add_one 2 3 4 1", "kernel add_one 3 3 4 1"), "expected 'kernel"},
      {replace("results 2 4 0", "results 2 4"), "expected 'results <n> <ids...>'"},
      {replace("kernel add_one 2 0 2 1", "kernel add_one 2 3 2 1"), "'u' is read before written"},
      {replace("results 2 4 0", "results 1 2"), "result 't' has a storage"},
      {good.substr(0, good.find("results")), "the last graph section ends early"},
      {replace("value x", "bogus x"), "unknown graph entry 'bogus'"},
      {"graph g 0 0 0 0\nresults 0\n", "no results"},
  };
  for (const auto& [text, want] : cases) {
    std::vector<GraphProgram> out;
    std::string error;
    EXPECT_FALSE(ParseGraphPrograms(text, &out, &error)) << text;
    EXPECT_THAT(error, HasSubstr(want)) << text;
    EXPECT_THAT(error, HasSubstr("metadata line")) << text;
  }
}

// Library files are input too: every mutation of a good section either parses
// into a program that validates or is refused, never a crash.
TEST(RuntimeGraphProgram, MutatedTextIsParsedOrRefused) {
  const std::string good = SerializeGraphPrograms({Chain()});
  const std::string alphabet = "0123456789 *n\n-xgraphvalueresultstorage";
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = good;
    for (int edits = 1 + next() % 4; edits > 0 && !text.empty(); --edits) {
      const size_t at = next() % text.size();
      switch (next() % 3) {
        case 0:
          text.erase(at, 1 + next() % 3);
          break;
        case 1:
          text[at] = alphabet[next() % alphabet.size()];
          break;
        default:
          text.insert(at, 1, alphabet[next() % alphabet.size()]);
          break;
      }
    }
    std::vector<GraphProgram> out;
    std::string error;
    if (ParseGraphPrograms(text, &out, &error)) {
      ++parsed;
      for (const GraphProgram& g : out) EXPECT_EQ(ValidateGraphProgram(g), "") << text;
    } else {
      EXPECT_THAT(error, HasSubstr("metadata line")) << text;
    }
  }
  EXPECT_GT(parsed, 0);  // Some mutations keep it well formed (a renamed value, ...).
}

TEST(RuntimeGraphProgram, ValidateNamesWhatIsWrong) {
  GraphProgram g = Chain();
  g.values[2].role = GraphProgram::kInput;
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("inputs come first, and only inputs"));
  g = Chain();
  g.values[2].role = 7;
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("value 't': storage out of range"));
  g = Chain();
  g.kernels[1].args = {2, 2};
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("'t' is written twice"));
  g = Chain();
  g.results = {0};
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("'y' is marked a result but is not returned"));
  g = Chain();
  g.values[3].role = 0;  // u is written while t, in the same storage, is still read.
  EXPECT_THAT(ValidateGraphProgram(g),
              HasSubstr("'t' and 'u' are live at once but share storage 0"));
  EXPECT_EQ(ValidateGraphProgram(Chain()), "");
}

class RuntimeGraphRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    auto resolve = [](const std::string& f, GraphRunner::Kernel* out) -> std::string {
      if (f != "add_one") return "no function " + f;
      *out = GraphRunner::Kernel{&kAddOne, &AddOneKernel, 0, "", {}};
      return "";
    };
    ASSERT_EQ(GraphRunner::Create(Chain(), resolve, &runner_), "");
  }

  // Runs the chain on x = 0, 1, ..., n-1 (n <= 32); "" or the runner's message.
  std::string Run(int64_t n, int64_t z_extent, int64_t y_extent) {
    for (int64_t i = 0; i < kMax; ++i) {
      x_[i] = static_cast<float>(i);
      z_[i] = 0;
      y_[i] = -1;
      x_copy_[i] = -1;
    }
    shapes_ = {n, z_extent, y_extent, n};
    tensors_ = {Tensor(x_, &shapes_[0]), Tensor(z_, &shapes_[1]), Tensor(y_, &shapes_[2]),
                Tensor(x_copy_, &shapes_[3])};
    std::vector<DLTensor*> args;
    for (DLTensor& t : tensors_) args.push_back(&t);
    return runner_.Run(args.data(), static_cast<int32_t>(args.size())).message;
  }

  std::vector<float> Y(int64_t n) const { return std::vector<float>(y_, y_ + n); }

  static DLTensor Tensor(float* data, int64_t* shape) {
    DLTensor t{};
    t.data = data;
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = 1;
    t.dtype = kF32;
    t.shape = shape;
    return t;
  }

  static constexpr int64_t kMax = 64;
  GraphRunner runner_;
  // 64-byte aligned, as the runtime's checks require of every argument.
  alignas(64) float x_[kMax], z_[kMax], y_[kMax], x_copy_[kMax];
  std::vector<int64_t> shapes_;
  std::vector<DLTensor> tensors_;
};

TEST_F(RuntimeGraphRunner, RunsTheKernelsInOrderAndGrowsItsStorage) {
  ASSERT_EQ(Run(5, 10, 5), "");
  EXPECT_EQ(Y(5), (std::vector<float>{3, 4, 5, 6, 7}));
  // A parameter returned as it is: copied into its result.
  EXPECT_EQ(std::vector<float>(x_copy_, x_copy_ + 5), std::vector<float>(x_, x_ + 5));
  EXPECT_EQ(runner_.last_call().planned_bytes, 2 * 5 * 4);
  EXPECT_EQ(runner_.last_call().unplanned_bytes, 2 * 5 * 4);
  ASSERT_EQ(Run(9, 18, 9), "");
  EXPECT_EQ(y_[8], 11.0f);
  // A profiled call times each kernel, in launch order.
  std::vector<DLTensor*> args;
  for (DLTensor& t : tensors_) args.push_back(&t);
  std::vector<double> seconds;
  ASSERT_EQ(runner_.Run(args.data(), 4, &seconds).message, "");
  ASSERT_EQ(seconds.size(), 3u);
  for (double s : seconds) EXPECT_GE(s, 0.0);
  EXPECT_EQ(runner_.last_call().shapes[2], (std::vector<int64_t>{9}));
  ASSERT_EQ(Run(2, 4, 2), "");
  EXPECT_EQ(Y(2), (std::vector<float>{3, 4}));
  std::vector<std::vector<int64_t>> shapes;
  ASSERT_EQ(
      runner_.ResultShapes(std::vector<DLTensor*>{&tensors_[0], &tensors_[1]}.data(), 2, &shapes),
      "");
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{{2}, {2}}));
}

TEST_F(RuntimeGraphRunner, RefusesWrongExtentsBeforeRunning) {
  // z must hold 2 * n elements: a product the signature alone cannot check.
  EXPECT_THAT(Run(5, 9, 5), HasSubstr("argument 1 (z): expected shape [10], given [9]"));
  EXPECT_EQ(Y(5), std::vector<float>(5, -1));
  EXPECT_THAT(Run(5, 10, 6), HasSubstr("argument 2 (y)"));
  EXPECT_EQ(Y(6), std::vector<float>(6, -1));
}

TEST(RuntimeGraphRunnerCreate, RefusesAKernelItCannotResolve) {
  GraphRunner r;
  auto none = [](const std::string& f, GraphRunner::Kernel*) -> std::string {
    return "the library has no function " + f;
  };
  EXPECT_EQ(GraphRunner::Create(Chain(), none, &r),
            "graph chain: kernel add_one: the library has no function add_one");
  const FunctionSignature three{"add_one",
                                {kAddOne.params[0], kAddOne.params[1], kAddOne.params[1]}};
  auto wrong = [&](const std::string&, GraphRunner::Kernel* out) -> std::string {
    *out = GraphRunner::Kernel{&three, &AddOneKernel, 0, "", {}};
    return "";
  };
  EXPECT_THAT(GraphRunner::Create(Chain(), wrong, &r),
              HasSubstr("kernel add_one takes 3 arguments, the graph passes 2"));
  // A kernel that may store into its input would change the graph's values.
  const FunctionSignature in_place{
      "add_one", {ParamSignature::Buffer("A", kF32, {Dim::Var("n")}), kAddOne.params[1]}};
  auto writes = [&](const std::string&, GraphRunner::Kernel* out) -> std::string {
    *out = GraphRunner::Kernel{&in_place, &AddOneKernel, 0, "", {}};
    return "";
  };
  EXPECT_THAT(GraphRunner::Create(Chain(), writes, &r),
              HasSubstr("kernel add_one may write its argument 0 (A), which the graph only reads"));
}

TEST(RuntimeGraphRunnerCreate, AKernelThatCannotRunHereIsRefusedAtTheCall) {
  GraphRunner r;
  auto foreign = [](const std::string&, GraphRunner::Kernel* out) -> std::string {
    *out = GraphRunner::Kernel{&kAddOne, &AddOneKernel, 0, "compiled for avx512f", {}};
    return "";
  };
  ASSERT_EQ(GraphRunner::Create(Chain(), foreign, &r), "");
  std::vector<int64_t> shape = {1};
  alignas(64) float x[16] = {0}, z[16] = {0}, y[16] = {0}, xc[16] = {0};
  std::vector<int64_t> zs = {2};
  DLTensor t[4] = {};
  float* data[4] = {x, z, y, xc};
  for (int i = 0; i < 4; ++i) {
    t[i].data = data[i];
    t[i].device = DLDevice{kDLCPU, 0};
    t[i].ndim = 1;
    t[i].dtype = kF32;
    t[i].shape = i == 1 ? zs.data() : shape.data();
  }
  DLTensor* args[4] = {&t[0], &t[1], &t[2], &t[3]};
  CallOutcome o = r.Run(args, 4);
  EXPECT_EQ(o.kind, CallOutcome::kKernelFailed);
  EXPECT_EQ(o.message, "graph chain: kernel add_one: compiled for avx512f");
}

TEST(RuntimeGraphProgram, AProductDimensionIsNamedAsNoVariableIs) {
  GraphProgram g = Chain();
  g.values[0].shape = {Var("dim_product_0")};
  for (size_t v = 2; v < g.values.size(); ++v) g.values[v].shape = {Var("dim_product_0")};
  g.values[1].shape = {Var("dim_product_0", 2)};
  EXPECT_EQ(DescribeSignature(g.CallSignature()),
            "chain(x: f32[dim_product_0], z: f32[dim_product_1], y: f32[dim_product_0], "
            "result_1: f32[dim_product_0])");
}

// add(A: f32[n], B: f32[n], C: f32[n]): C = A + B.
extern "C" int32_t AddKernel(void* const* args, int32_t) {
  const auto* a = static_cast<const DLTensor*>(args[0]);
  const auto* b = static_cast<const DLTensor*>(args[1]);
  auto* c = static_cast<DLTensor*>(args[2]);
  for (int64_t i = 0; i < a->shape[0]; ++i) {
    static_cast<float*>(c->data)[i] =
        static_cast<const float*>(a->data)[i] + static_cast<const float*>(b->data)[i];
  }
  return 0;
}

const FunctionSignature kAdd{"add",
                             {ParamSignature::Buffer("A", kF32, {Dim::Var("n")}, false),
                              ParamSignature::Buffer("B", kF32, {Dim::Var("n")}, false),
                              ParamSignature::Buffer("C", kF32, {Dim::Var("n")})}};

// y = x + c, c a constant of 4 floats at offset 64 of the library's constants.
GraphProgram WithConstant() {
  GraphProgram g;
  g.name = "biased";
  g.num_inputs = 1;
  g.values = {{"x", kF32, {ProductDim{4, {}}}, GraphProgram::kInput},
              {"c", kF32, {ProductDim{4, {}}}, GraphProgram::kConstant, nullptr, 64},
              {"y", kF32, {ProductDim{4, {}}}, GraphProgram::kResult}};
  g.kernels = {{"add", {0, 1, 2}, 1}};
  g.results = {2};
  return g;
}

TEST(RuntimeGraphProgram, ConstantsAreReadFromTheLibrarysBytes) {
  const std::string text = SerializeGraphPrograms({WithConstant()});
  EXPECT_THAT(text, HasSubstr("value c f32 1 4 constant 64\n"));
  std::vector<GraphProgram> back;
  std::string error;
  ASSERT_TRUE(ParseGraphPrograms(text, &back, &error)) << error;
  auto add = [](const std::string&, GraphRunner::Kernel* out) -> std::string {
    *out = GraphRunner::Kernel{&kAdd, &AddKernel, 0, "", {}};
    return "";
  };
  GraphRunner r;
  // Before its bytes are placed, a constant has none: refused, not read from nowhere.
  EXPECT_THAT(GraphRunner::Create(back[0], add, &r), HasSubstr("constant 'c' has no data"));
  alignas(64) float blob[32] = {0};
  for (int i = 0; i < 4; ++i) blob[16 + i] = 10.0f * (i + 1);
  EXPECT_EQ(PlaceConstants(&back[0], blob, 64 + 8),
            "graph biased: constant 'c' reaches past the library's 72 bytes of constants");
  ASSERT_EQ(PlaceConstants(&back[0], blob, sizeof(blob)), "");
  ASSERT_EQ(GraphRunner::Create(back[0], add, &r), "");
  alignas(64) float x[16] = {1, 2, 3, 4}, y[16] = {0};
  std::vector<int64_t> shape = {4};
  DLTensor t[2] = {};
  float* data[2] = {x, y};
  for (int i = 0; i < 2; ++i) {
    t[i].data = data[i];
    t[i].device = DLDevice{kDLCPU, 0};
    t[i].ndim = 1;
    t[i].dtype = kF32;
    t[i].shape = shape.data();
  }
  DLTensor* args[2] = {&t[0], &t[1]};
  ASSERT_EQ(r.Run(args, 2).message, "");
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(std::vector<float>(blob + 16, blob + 20), (std::vector<float>{10, 20, 30, 40}));
}

TEST(RuntimeGraphProgram, ValidateRefusesConstantsThatCannotBe) {
  GraphProgram g = WithConstant();
  g.kernels[0].args = {0, 1, 1};  // Writes the constant.
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("'c' is written twice"));
  g = WithConstant();
  g.values[1].shape = {Var("n")};
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("constant 'c' has a variable size"));
  g = WithConstant();
  g.values[1].offset = 3;
  EXPECT_THAT(ValidateGraphProgram(g), HasSubstr("constant 'c': bad size or offset"));
}

}  // namespace
}  // namespace tessel::runtime
