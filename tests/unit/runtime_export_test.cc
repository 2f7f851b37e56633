// Export and load: the hand-written kernels of tests/c (kernels.c, signatures from
// kernels.tsl) exported with ExportLibrary, loaded through Module and through the C
// API, called with NDArrays; every export and load refusal; in-process modules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/runtime/cpu_features.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/tessel_runtime.h"
#include "ir/parser.h"

extern "C" int32_t tessel_packed_vector_add(void* const* args, int32_t num_args);
extern "C" int32_t tessel_packed_axpy(void* const* args, int32_t num_args);

namespace tessel::runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in) << path;
  return text.str();
}

ir::IRModule KernelModule() {
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(
      ReadFile(std::string(TESSEL_SOURCE_DIR) + "/tests/c/kernels.tsl"), "kernels.tsl");
  EXPECT_TRUE(mod.ok()) << mod.status();
  return *mod;
}

std::vector<FunctionSignature> KernelSignatures() {
  absl::StatusOr<std::vector<FunctionSignature>> sigs = SignaturesOf(KernelModule());
  EXPECT_TRUE(sigs.ok()) << sigs.status();
  return *sigs;
}

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tessel_export_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::vector<std::string> objects_ = {TESSEL_TEST_KERNELS_OBJECT};
};

NDArray Scalar(int32_t v) {
  NDArray a = *NDArray::Zeros({}, DLDataType{kDLInt, 32, 1});
  *static_cast<int32_t*>(a.data()) = v;
  return a;
}

TEST_F(ExportTest, ExportsLoadsAndCalls) {
  std::string lib = Path("my-kernels.so");
  ASSERT_TRUE(ExportLibrary(objects_, KernelSignatures(), lib).ok());
  ASSERT_TRUE(fs::exists(lib));
  std::ifstream header(Path("my-kernels.h"));
  std::stringstream h;
  h << header.rdbuf();
  EXPECT_THAT(h.str(), HasSubstr("/* vector_add(A: f32[n], B: f32[n], C: f32[n], n: i32)"));
  EXPECT_THAT(h.str(),
              HasSubstr("static inline int32_t my_kernels_axpy(TesselModule* tessel_module_, "
                        "DLTensor* X, DLTensor* Y, DLTensor* a)"));

  absl::StatusOr<Module> m = Module::LoadLibrary(lib);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->FunctionNames(), (std::vector<std::string>{"vector_add", "axpy"}));
  EXPECT_EQ(m->library_path(), lib);
  NDArray a = *NDArray::Zeros({37}, kF32), b = *NDArray::Zeros({37}, kF32),
          c = *NDArray::Zeros({37}, kF32);
  for (int i = 0; i < 37; ++i) {
    static_cast<float*>(a.data())[i] = static_cast<float>(i);
    static_cast<float*>(b.data())[i] = 100.0f;
  }
  ASSERT_TRUE(m->Call("vector_add", {a, b, c, Scalar(37)}).ok());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(static_cast<float*>(c.data())[i], 100.0f + i);

  absl::Status bad = m->Call("vector_add", {a, b, c, Scalar(36)});
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(),
              HasSubstr("argument 0 (A): dimension 0 is n = 37, but argument 3 (n) gave n = 36"));
  EXPECT_THAT(m->Call("vector_add", {a, b, NDArray(), Scalar(37)}).message(),
              HasSubstr("argument 2 (C): the DLTensor pointer is NULL"));
  EXPECT_EQ(m->Call("mul", {a}).code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(m->Call("mul", {a}).message(),
              HasSubstr("no function 'mul' in " + lib + " (it has: vector_add, axpy)"));

  // The module keeps the library open after the handle that loaded it is gone.
  Module copy = *m;
  m = Module();
  EXPECT_TRUE(copy.Call("vector_add", {a, b, c, Scalar(37)}).ok());
}

TEST_F(ExportTest, ABareFileNameMeansTheFileHere) {
  fs::path saved = fs::current_path();
  fs::current_path(dir_);
  absl::Status s = ExportLibrary(objects_, KernelSignatures(), "bare.so");
  absl::StatusOr<Module> m = Module::LoadLibrary("bare.so");
  fs::current_path(saved);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->FunctionNames().size(), 2u);
}

TEST_F(ExportTest, ExportsAModuleFromObjectBytes) {
  std::string lib = Path("from_bytes.so");
  ASSERT_TRUE(ExportModule(KernelModule(), ReadFile(TESSEL_TEST_KERNELS_OBJECT), lib).ok());
  absl::StatusOr<Module> m = Module::LoadLibrary(lib);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->FunctionNames(), (std::vector<std::string>{"vector_add", "axpy"}));
  EXPECT_TRUE(fs::exists(Path("from_bytes.h")));
  absl::Status bad = ExportModule(KernelModule(), "not an object", Path("bad.so"));
  EXPECT_THAT(bad.message(), HasSubstr("the link command failed"));
  EXPECT_FALSE(fs::exists(Path("bad.h")));
}

TEST_F(ExportTest, TheCApiLoadsTheSameLibrary) {
  std::string lib = Path("kernels.so");
  ASSERT_TRUE(ExportLibrary(objects_, KernelSignatures(), lib).ok());
  TesselModule* m = tessel_module_load(lib.c_str());
  ASSERT_NE(m, nullptr) << tessel_last_error();
  EXPECT_EQ(tessel_module_num_functions(m), 2);
  EXPECT_STREQ(tessel_module_function_name(m, 1), "axpy");
  EXPECT_EQ(tessel_module_function_name(m, -1), nullptr);
  EXPECT_STREQ(tessel_last_error(), "tessel_module_function_name: index -1 out of range [0, 2)");
  EXPECT_NE(tessel_module_call(m, nullptr, nullptr, 0), 0);
  EXPECT_STREQ(tessel_last_error(), "tessel_module_call: the function name is NULL");
  EXPECT_NE(tessel_module_call(m, "axpy", nullptr, 3), 0);
  EXPECT_THAT(
      tessel_last_error(),
      HasSubstr("axpy(X: f32[4, 250], Y: f32[4, 250], a: f32): the argument array is NULL"));
  tessel_module_free(m);

  EXPECT_NE(tessel_module_call(nullptr, "axpy", nullptr, 0), 0);
  EXPECT_STREQ(tessel_last_error(), "tessel_module_call: the module is NULL");
  EXPECT_EQ(tessel_module_num_functions(nullptr), -1);
  EXPECT_EQ(tessel_module_function_name(nullptr, 0), nullptr);
  EXPECT_EQ(tessel_module_load(nullptr), nullptr);
  EXPECT_STREQ(tessel_last_error(), "tessel_module_load: the path is NULL");
  tessel_module_free(nullptr);
}

// A library compiled for features this CPU lacks loads, and refuses every call
// (C API and C++ Module) naming them, instead of dying with SIGILL. avx512er
// (Xeon Phi) and fma4 (AMD's Bulldozer) never met in one CPU: no host has both.
TEST_F(ExportTest, ALibraryForAnotherCpuIsRefusedAtTheCall) {
  std::string lib = Path("foreign.so");
  ExportOptions options;
  options.cpu_features = {"avx512er", "fma4", "sse2"};
  ASSERT_TRUE(ExportLibrary(objects_, KernelSignatures(), lib, options).ok());
  TesselModule* m = tessel_module_load(lib.c_str());
  ASSERT_NE(m, nullptr) << tessel_last_error();
  EXPECT_NE(tessel_module_call(m, "axpy", nullptr, 3), 0);
  EXPECT_THAT(tessel_last_error(),
              HasSubstr("axpy: refused: " + lib + " was compiled for CPU features this machine "
                        "lacks ("));
  EXPECT_THAT(tessel_last_error(), ::testing::Not(HasSubstr("sse2")));
  tessel_module_free(m);
  absl::StatusOr<Module> loaded = Module::LoadLibrary(lib);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  absl::Status call = loaded->Call("axpy", absl::Span<DLTensor* const>());
  EXPECT_THAT(call.message(), HasSubstr("was compiled for CPU features this machine lacks"));
  // What this CPU has is no reason to refuse.
  options.cpu_features = {"sse2"};
  ASSERT_TRUE(ExportLibrary(objects_, KernelSignatures(), lib, options).ok());
  loaded = Module::LoadLibrary(lib);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->Find("axpy")->cannot_run.empty());
}

TEST(CpuFeatures, MissingAreTheKnownOnesTheHostLacks) {
  const std::set<std::string> host = {"sse2", "avx2", "sse4.1", "avx512fp16"};
  EXPECT_EQ(CpuFeaturesMissing({"sse2", "avx2", "sse4.1", "avx512fp16", "amx-tile", "made-up"},
                               host),
            (std::vector<std::string>{"amx-tile"}));
  // Every x86-64 CPU has these; a library for the host is never refused on it.
  const std::set<std::string> here = HostCpuFeatures();
  for (const char* f : {"64bit", "sse", "sse2", "cx8", "cmov", "fxsr"}) {
    EXPECT_EQ(here.count(f), 1u) << f;
  }
  EXPECT_TRUE(CpuFeaturesMissing({"sse2", "64bit"}).empty());
}

TEST_F(ExportTest, ExportRefusals) {
  std::string lib = Path("k.so");
  std::vector<FunctionSignature> sigs = KernelSignatures();
  EXPECT_THAT(ExportLibrary({Path("missing.o")}, sigs, lib).message(),
              HasSubstr("export_library: no object file " + Path("missing.o")));
  std::vector<FunctionSignature> twice = {sigs[0], sigs[0]};
  EXPECT_THAT(ExportLibrary(objects_, twice, lib).message(),
              HasSubstr("two functions named vector_add"));
  std::vector<FunctionSignature> bad = {FunctionSignature{"a-b", {}}};
  EXPECT_THAT(ExportLibrary(objects_, bad, lib).message(),
              HasSubstr("'a-b' is not a C identifier"));
  // A function the objects do not define: caught at export, not by the loading program.
  std::vector<FunctionSignature> extra = sigs;
  extra.push_back(FunctionSignature{"softmax", {}});
  EXPECT_THAT(ExportLibrary(objects_, extra, lib).message(),
              HasSubstr("the metadata lists softmax but the library has no tessel_packed_softmax"));
  ExportOptions failing;
  failing.compiler = "false";
  absl::Status s = ExportLibrary(objects_, sigs, Path("k2.so"), failing);
  EXPECT_THAT(s.message(), HasSubstr("the link command failed (exit status 1)"));
  EXPECT_FALSE(fs::exists(Path("k2.h"))) << "no header for a library that was not written";
  EXPECT_THAT(ExportLibrary(objects_, sigs, Path("") + "/").message(), HasSubstr("names no file"));
}

TEST_F(ExportTest, LoadRefusals) {
  EXPECT_THAT(Module::LoadLibrary(Path("none.so")).status().message(),
              HasSubstr("cannot load " + Path("none.so")));
  // A shared library, but not a tessel one: the process's libm, by its full path (a
  // bare name means a file in the current directory, never a search).
  Dl_info libm;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(static_cast<double (*)(double)>(&::cos)), &libm), 0);
  EXPECT_THAT(Module::LoadLibrary(libm.dli_fname).status().message(),
              HasSubstr(std::string(libm.dli_fname) +
                        ": not a tessel library (no tessel_module_metadata symbol)"));
  EXPECT_THAT(Module::LoadLibrary("libm.so.6").status().message(),
              HasSubstr("cannot load libm.so.6: cannot open"));
  // A library whose metadata is malformed, built by hand.
  std::string src = Path("bad.c");
  std::ofstream(src) << "const char* tessel_module_metadata(void) { return \"tessel-module "
                        "2\\nfunction f 2\\n\"; }\n";
  std::string cmd = "cc -shared -fPIC -o " + Path("bad.so") + " " + src;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_THAT(
      Module::LoadLibrary(Path("bad.so")).status().message(),
      HasSubstr("bad.so: bad metadata: metadata line 2: function f lists too few parameters"));
  EXPECT_EQ(tessel_module_load(Path("bad.so").c_str()), nullptr);
  // A library of ABI version 1 (buffers as bare data pointers) is refused by version.
  std::ofstream(Path("old.c")) << "const char* tessel_module_metadata(void) { return "
                                  "\"tessel-module 1\\nfunction f 0\\n\"; }\n";
  cmd = "cc -shared -fPIC -o " + Path("old.so") + " " + Path("old.c");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_THAT(Module::LoadLibrary(Path("old.so")).status().message(),
              HasSubstr("library built for tessel ABI version 1, this runtime implements version "
                        "2 (export it again with this tessel)"));
  EXPECT_THAT(tessel_last_error(), HasSubstr("bad metadata"));
}

TEST_F(ExportTest, MetadataSourceEscapesAndRoundTrips) {
  std::string source = MetadataSource(KernelSignatures());
  EXPECT_THAT(source, HasSubstr("const char* tessel_module_metadata(void) {"));
  EXPECT_THAT(source, HasSubstr("\"function vector_add 4\\n\""));
  std::string header =
      HeaderSource({FunctionSignature{"f", {ParamSignature::Scalar("int", kF32)}}}, "lib");
  EXPECT_THAT(header, HasSubstr("lib_f(TesselModule* tessel_module_, DLTensor* int_)"))
      << "a C keyword as parameter name is renamed";
  EXPECT_THAT(header, HasSubstr("#define LIB_F_NUM_ARGS 1"));
}

TEST(InProcessModule, CallsLinkedFunctions) {
  FunctionSignature sig = KernelSignatures()[0];
  absl::StatusOr<Module> m = Module::FromFunctions(
      {Module::Function{sig, tessel_packed_vector_add, 0, ""}}, std::make_shared<int>(0));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->library_path(), "");
  NDArray a = *NDArray::Zeros({5}, kF32), b = *NDArray::Zeros({5}, kF32),
          c = *NDArray::Zeros({5}, kF32);
  static_cast<float*>(a.data())[4] = 2.0f;
  static_cast<float*>(b.data())[4] = 3.0f;
  NDArray n = Scalar(5);
  std::vector<DLTensor*> args = {a.dltensor(), b.dltensor(), c.dltensor(), n.dltensor()};
  ASSERT_TRUE(m->Call("vector_add", absl::MakeConstSpan(args)).ok());
  EXPECT_EQ(static_cast<float*>(c.data())[4], 5.0f);
  absl::StatusOr<const Module::Function*> f = m->GetFunction("vector_add");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(CallFunction(**f, absl::MakeConstSpan(args)).ok());
  EXPECT_THAT(Module().Call("f", std::vector<NDArray>{}).message(), HasSubstr("(it has: none)"));
}

TEST(InProcessModule, FromCompiledIRModule) {
  auto lookup = [](const std::string& name) -> absl::StatusOr<TesselPackedFunc> {
    if (name == "vector_add") return tessel_packed_vector_add;
    if (name == "axpy") return tessel_packed_axpy;
    return absl::NotFoundError("no " + name);
  };
  absl::StatusOr<Module> m = Module::FromCompiled(KernelModule(), lookup, nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  NDArray x = *NDArray::Zeros({4, 250}, kF32), y = *NDArray::Zeros({4, 250}, kF32);
  NDArray a = *NDArray::Zeros({}, kF32);
  static_cast<float*>(x.data())[999] = 3.0f;
  *static_cast<float*>(a.data()) = 2.0f;
  ASSERT_TRUE(m->Call("axpy", {x, y, a}).ok());
  EXPECT_EQ(static_cast<float*>(y.data())[999], 6.0f);

  auto failing = [](const std::string& name) -> absl::StatusOr<TesselPackedFunc> {
    return absl::NotFoundError("the JIT has no " + name);
  };
  EXPECT_THAT(Module::FromCompiled(KernelModule(), failing, nullptr).status().message(),
              HasSubstr("the JIT has no vector_add"));
  absl::StatusOr<ir::IRModule> strided =
      ir::ParseModule("func @f(A: f32[4, 4] strides [8, 1]) {\n}\n");
  ASSERT_TRUE(strided.ok());
  EXPECT_THAT(Module::FromCompiled(*strided, lookup, nullptr).status().message(),
              HasSubstr("explicit strides"));
}

TEST(InProcessModule, Refusals) {
  FunctionSignature sig = KernelSignatures()[0];
  EXPECT_THAT(Module::FromFunctions({Module::Function{sig, nullptr, 0, ""}}, nullptr).status().message(),
              HasSubstr("function vector_add has no entry point"));
  EXPECT_THAT(Module::FromFunctions({Module::Function{sig, tessel_packed_vector_add, 0, ""},
                                     Module::Function{sig, tessel_packed_vector_add, 0, ""}},
                                    nullptr)
                  .status()
                  .message(),
              HasSubstr("two functions named vector_add"));
  sig.params[1].name = "A";
  EXPECT_THAT(Module::FromFunctions({Module::Function{sig, tessel_packed_vector_add, 0, ""}}, nullptr)
                  .status()
                  .message(),
              HasSubstr("two parameters named 'A'"));
}

}  // namespace
}  // namespace tessel::runtime
