// Signatures: dtype spellings, descriptions, the metadata text (round trip and every
// refusal), and signatures of parsed PrimFuncs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/signature.h"
#include "ir/packed_functions.h"
#include "ir/parser.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};

FunctionSignature Scale() {
  return FunctionSignature{"scale",
                           {ParamSignature::Buffer("A", kF32, {Dim::Const(4), Dim::Var("n")}),
                            ParamSignature::Scalar("n", kI64), ParamSignature::Scalar("s", kF32)}};
}

TEST(RuntimeSignature, DTypesPrintAndParse) {
  for (const char* text : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16",
                           "f32", "f64", "bool", "f32x4", "boolx8"}) {
    DLDataType t;
    ASSERT_TRUE(ParseDType(text, &t)) << text;
    EXPECT_EQ(DTypeToString(t), text);
  }
  DLDataType t;
  for (const char* bad :
       {"", "f", "x32", "q32", "f32x", "f32x1", "f32x0", "f999", "i-8", "bool8"}) {
    EXPECT_FALSE(ParseDType(bad, &t)) << bad;
  }
  EXPECT_EQ(DTypeToString(DLDataType{kDLComplex, 64, 1}), "dtype(code=5, bits=64, lanes=1)");
  EXPECT_TRUE(IsSupportedDType(DLDataType{kDLBoolCode, 8, 1}));
  EXPECT_FALSE(IsSupportedDType(DLDataType{kDLFloat, 32, 4}));
  EXPECT_FALSE(IsSupportedDType(DLDataType{kDLBfloat, 32, 1}));
  EXPECT_FALSE(IsSupportedDType(DLDataType{kDLComplex, 64, 1}));
  EXPECT_EQ(DTypeBytes(DLDataType{kDLBoolCode, 8, 1}), 1);
  EXPECT_EQ(DTypeBytes(DLDataType{kDLFloat, 16, 1}), 2);
}

TEST(RuntimeSignature, DescribesAndRoundTrips) {
  FunctionSignature s = Scale();
  EXPECT_EQ(DescribeSignature(s), "scale(A: f32[4, n], n: i64, s: f32)");
  EXPECT_EQ(ValidateSignature(s), "");
  std::string text = SerializeSignatures({s, FunctionSignature{"nothing", {}}});
  EXPECT_EQ(text,
            "tessel-module 2\n"
            "function scale 3\n"
            "buffer A f32 2 4 n\n"
            "scalar n i64\n"
            "scalar s f32\n"
            "function nothing 0\n");
  std::vector<FunctionSignature> back;
  std::string error;
  ASSERT_TRUE(ParseSignatures(text, &back, &error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(SerializeSignatures(back), text);
  EXPECT_EQ(DescribeSignature(back[1]), "nothing()");
  EXPECT_TRUE(back[0].params[0].written) << "'buffer' may be written";

  std::string inputs = "tessel-module 2\nfunction f 2\ninput A f32 1 4\nbuffer B f32 1 4\n";
  ASSERT_TRUE(ParseSignatures(inputs, &back, &error)) << error;
  EXPECT_FALSE(back[0].params[0].written);
  EXPECT_TRUE(back[0].params[1].written);
  EXPECT_EQ(SerializeSignatures(back), inputs);
}

// The features an exported library's code needs: a line after the header, read
// back in order; a line after the functions is refused.
TEST(RuntimeSignature, CpuFeaturesRoundTrip) {
  std::string text = SerializeSignatures({Scale()}, {"avx2", "avx512f", "fma"});
  EXPECT_THAT(text, ::testing::StartsWith("tessel-module 2\ncpu-features avx2 avx512f fma\n"));
  std::vector<FunctionSignature> back;
  std::vector<std::string> features;
  std::string error;
  ASSERT_TRUE(ParseSignatures(text, &back, &error, &features)) << error;
  EXPECT_EQ(features, (std::vector<std::string>{"avx2", "avx512f", "fma"}));
  EXPECT_EQ(SerializeSignatures(back, features), text);
  // A library from before the line: no features, nothing to check.
  ASSERT_TRUE(ParseSignatures(SerializeSignatures({Scale()}), &back, &error, &features));
  EXPECT_TRUE(features.empty());
  EXPECT_FALSE(ParseSignatures("tessel-module 2\nfunction f 0\ncpu-features avx2\n", &back, &error,
                               &features));
  EXPECT_THAT(error, HasSubstr("metadata line 3: 'cpu-features' after a function"));
}

TEST(RuntimeSignature, ValidateRefusesWhatCannotBeCalled) {
  FunctionSignature s = Scale();
  s.name = "my-func";
  EXPECT_THAT(ValidateSignature(s), HasSubstr("function name 'my-func' is not a C identifier"));
  s = Scale();
  s.params[2].name = "A";
  EXPECT_THAT(ValidateSignature(s), HasSubstr("two parameters named 'A'"));
  s = Scale();
  s.params[0].dtype = DLDataType{kDLComplex, 64, 1};
  EXPECT_THAT(ValidateSignature(s), HasSubstr("parameter A has unsupported dtype"));
  s = Scale();
  s.params[0].shape[0] = Dim::Const(-1);
  EXPECT_THAT(ValidateSignature(s), HasSubstr("negative dimension -1 in A"));
  s = Scale();
  s.params[0].shape[1] = Dim::Var("n m");
  EXPECT_THAT(ValidateSignature(s), HasSubstr("dimension name 'n m' of A is not an identifier"));
  s = Scale();
  s.params[1].dtype = kF32;
  EXPECT_THAT(ValidateSignature(s), HasSubstr("scalar n names a dimension but has dtype f32"));
}

TEST(RuntimeSignature, ParseRefusesBadMetadata) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"", "empty metadata"},
      {"tessel-module\n", "line 1: expected 'tessel-module <version>'"},
      {"tessel-module 1\n", "built for tessel ABI version 1, this runtime implements version 2"},
      {"tessel-module 2\nbuffer A f32 1 4\n", "line 2: a parameter outside a function's list"},
      {"tessel-module 2\nfunction f 2\nscalar n i64\n", "function f lists too few parameters"},
      {"tessel-module 2\nfunction f 2\nscalar n i64\nfunction g 0\n", "function f lists too few"},
      {"tessel-module 2\nfunction f x\n", "expected 'function <name> <num_params>'"},
      {"tessel-module 2\nfunction f 1\nbuffer A q32 1 4\n", "line 3: unknown dtype 'q32'"},
      {"tessel-module 2\nfunction f 1\nbuffer A f32 2 4\n",
       "expected 'buffer <name> <dtype> <ndim>"},
      {"tessel-module 2\nfunction f 1\nscalar n i64 4\n", "expected 'scalar <name> <dtype>'"},
      {"tessel-module 2\nfunction f 1\nvector A f32\n", "unknown entry 'vector'"},
      {"tessel-module 2\nfunction f 1\nscalar n\n", "expected a name and a dtype"},
      {"tessel-module 2\nfunction f-g 0\n", "function name 'f-g' is not a C identifier"},
      {"tessel-module 2\nfunction f 0\nfunction f 0\n", "two functions named 'f'"},
      {"tessel-module 2\nfunction f 1\nbuffer A f32 1 -3\n", "negative dimension -3 in A"},
  };
  for (const Case& c : cases) {
    std::vector<FunctionSignature> out = {Scale()};
    std::string error;
    EXPECT_FALSE(ParseSignatures(c.text, &out, &error)) << c.text;
    EXPECT_THAT(error, HasSubstr(c.error)) << c.text;
    EXPECT_EQ(out.size(), 1u) << "the output is left alone on failure";
  }
}

absl::StatusOr<FunctionSignature> SignatureOfText(const std::string& text) {
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(text);
  if (!mod.ok()) return mod.status();
  return SignatureOf((*mod)->functions[0].first, (*mod)->functions[0].second);
}

TEST(RuntimeSignature, OfPrimFunc) {
  absl::StatusOr<FunctionSignature> s = SignatureOfText(R"(
func @scale[m](A: f32[m, 8], B: bf16[n], C: bool[2], n: i32, s: f64) attrs {global_symbol = "scale_v1"} {
  for i in range(0, 2) {
    C[i] = true
  }
})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(DescribeSignature(*s),
            "scale_v1(A: f32[m, 8], B: bf16[n], C: bool[2], n: i32, s: f64)");
  EXPECT_EQ(s->params[2].dtype.code, kDLBoolCode);
  // Only C is stored into: A and B are inputs, listed as such in the metadata.
  EXPECT_FALSE(s->params[0].written);
  EXPECT_FALSE(s->params[1].written);
  EXPECT_TRUE(s->params[2].written);
  EXPECT_THAT(SerializeSignatures({*s}), HasSubstr("input A f32 2 m 8\ninput B bf16 1 n\n"
                                                   "buffer C bool 1 2\n"));

  absl::StatusOr<FunctionSignature> plain = SignatureOfText("func @f(A: u8[3]) {\n}\n");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->name, "f");
}

// Flattening declares 1-D views of N-D parameters; a store through a view writes the
// parameter it views.
TEST(RuntimeSignature, WritesThroughViewsCount) {
  absl::StatusOr<FunctionSignature> s = SignatureOfText(R"(
func @c2(A: f32[4, 4], C: f32[4, 4]) {
  decl_buffer A_1d: f32[16] = A
  decl_buffer C_1d: f32[16] = C
  for i in range(0, 16) {
    C_1d[i] = A_1d[i]
  }
})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->params[0].written);
  EXPECT_TRUE(s->params[1].written);
}

// A buffer whose address a packed call takes is written where the callee registered
// that position as written, and at any position of a callee that registered none.
TEST(RuntimeSignature, PackedCallsWriteWhereTheirCalleeSays) {
  const std::string text = R"(
func @k(A: f32[4], B: f32[4], C: f32[4]) {
  evaluate @NAME(address_of(A[0]), address_of(B[0]), address_of(C[0])): packed
})";
  auto with_name = [&](const std::string& name) {
    std::string t = text;
    t.replace(t.find("NAME"), 4, name);
    return SignatureOfText(t);
  };
  ir::RegisterPackedFunction(
      "signature_test_writes_c", [](const int64_t*, int32_t) { return absl::OkStatus(); },
      std::vector<int32_t>{2});
  absl::StatusOr<FunctionSignature> s = with_name("signature_test_writes_c");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->params[0].written);
  EXPECT_FALSE(s->params[1].written);
  EXPECT_TRUE(s->params[2].written);
  s = with_name("signature_test_unregistered");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->params[0].written && s->params[1].written && s->params[2].written);
}

TEST(RuntimeSignature, OfPrimFuncRefusesUncallableParameters) {
  absl::StatusOr<FunctionSignature> s =
      SignatureOfText("func @f(A: f32[4, 4] strides [8, 1]) {\n}\n");
  EXPECT_THAT(s.status().message(), HasSubstr("function f, parameter A: explicit strides"));
  s = SignatureOfText("func @f(A: f32[4] offset 2) {\n}\n");
  EXPECT_THAT(s.status().message(), HasSubstr("parameter A: a non-zero elem_offset"));
  s = SignatureOfText("func @f[n](A: f32[n * 2]) {\n}\n");
  EXPECT_THAT(s.status().message(), HasSubstr("extent n * 2 is neither a constant nor a variable"));
  s = SignatureOfText("func @f(p: handle) {\n}\n");
  EXPECT_THAT(s.status().message(),
              HasSubstr("parameter p: a scalar of type handle cannot be passed"));
  s = SignatureOfText("func @f(v: f32x4) {\n}\n");
  EXPECT_THAT(s.status().message(), HasSubstr("parameter v: a scalar of type f32x4"));

  // Extents and scalars are matched by name in a call: two variables with one name
  // would be tied together, so they are refused.
  ir::Var n1 = ir::MakeVar("n", ir::DataType::Int(32));
  ir::Var n2 = ir::MakeVar("n", ir::DataType::Int(32));
  ir::Buffer a = ir::MakeBuffer("A", ir::DataType::Float(32), {n1});
  ir::PrimFunc f = ir::MakePrimFunc({ir::Param::OfBuffer(a), ir::Param::OfVar(n2)}, ir::Seq({}));
  s = SignatureOf("f", f);
  EXPECT_THAT(s.status().message(),
              HasSubstr("function f, parameter n: another variable of the function has this name"));
  ir::Buffer b = ir::MakeBuffer("B", ir::DataType::Float(32), {n2});
  f = ir::MakePrimFunc({ir::Param::OfBuffer(a), ir::Param::OfBuffer(b)}, ir::Seq({}));
  s = SignatureOf("f", f);
  EXPECT_THAT(s.status().message(),
              HasSubstr("parameter B: extent n is another variable than the one of that name"));
}

TEST(RuntimeSignature, DTypeMapping) {
  for (ir::DataType t :
       {ir::DataType::Int(8), ir::DataType::UInt(64), ir::DataType::Float(16),
        ir::DataType::BFloat(16), ir::DataType::Bool(), ir::DataType::Float(32, 8)}) {
    absl::StatusOr<DLDataType> dl = ToDLDataType(t);
    ASSERT_TRUE(dl.ok()) << t.ToString();
    absl::StatusOr<ir::DataType> back = ToIRDataType(*dl);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, t);
    EXPECT_EQ(DTypeToString(*dl), t.ToString());
  }
  EXPECT_FALSE(ToDLDataType(ir::DataType::Handle()).ok());
  EXPECT_THAT(ToIRDataType(DLDataType{kDLComplex, 64, 1}).status().message(),
              HasSubstr("DLPack dtype dtype(code=5, bits=64, lanes=1) has no tessel equivalent"));
}

}  // namespace
}  // namespace tessel::runtime
