// The runtime over code tessel compiles: a Module over the JIT (Module::FromCompiled)
// and over an exported library (ExportModule of codegen's object), both from
// tests/c/kernels.tsl, called with NDArrays on several thread counts, refusing bad
// arguments, and timed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "codegen/emit.h"
#include "codegen/jit.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/time_evaluator.h"
#include "codegen/target.h"
#include "ir/parser.h"

namespace tessel::runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};

ir::IRModule KernelModule() {
  std::ifstream in(absl::StrCat(TESSEL_SOURCE_DIR, "/tests/c/kernels.tsl"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(text.str(), "kernels.tsl");
  EXPECT_TRUE(mod.ok()) << mod.status();
  return *mod;
}

absl::StatusOr<Module> JitModule(const ir::IRModule& mod) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse("llvm");
  if (!target.ok()) return target.status();
  absl::StatusOr<std::shared_ptr<codegen::JitModule>> jit = codegen::JitCompile(mod, *target);
  if (!jit.ok()) return jit.status();
  std::shared_ptr<codegen::JitModule> engine = *jit;
  return Module::FromCompiled(
      mod, [engine](const std::string& name) { return engine->Lookup(name); }, engine);
}

// Checks vector_add on n elements with `threads` threads.
void CheckVectorAdd(const Module& m, int64_t n, int threads) {
  tessel_set_num_threads(threads);
  NDArray a = *NDArray::Zeros({n}, kF32), b = *NDArray::Zeros({n}, kF32);
  NDArray c = *NDArray::Zeros({n}, kF32);
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(a.data())[i] = static_cast<float>(i);
    static_cast<float*>(b.data())[i] = 0.25f * static_cast<float>(i);
  }
  NDArray count = *NDArray::Zeros({}, DLDataType{kDLInt, 32, 1});
  *static_cast<int32_t*>(count.data()) = static_cast<int32_t>(n);
  absl::Status s = m.Call("vector_add", {a, b, c, count});
  ASSERT_TRUE(s.ok()) << s;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(static_cast<float*>(c.data())[i], 1.25f * static_cast<float>(i)) << i;
  }
  tessel_set_num_threads(0);
}

TEST(RuntimeJitModule, CallsJitCompiledFunctions) {
  absl::StatusOr<Module> m = JitModule(KernelModule());
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->FunctionNames(), (std::vector<std::string>{"vector_add", "axpy"}));
  for (int threads : {1, 2, 3}) {
    for (int64_t n : {1, 17, 1000}) CheckVectorAdd(*m, n, threads);
  }
  NDArray x = *NDArray::Zeros({4, 250}, kF32), y = *NDArray::Zeros({4, 250}, kF32);
  NDArray alpha = *NDArray::Zeros({}, kF32);
  *static_cast<float*>(alpha.data()) = 3.0f;
  for (int i = 0; i < 1000; ++i) static_cast<float*>(x.data())[i] = static_cast<float>(i % 5);
  ASSERT_TRUE(m->Call("axpy", {x, y, alpha}).ok());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(static_cast<float*>(y.data())[i], 3.0f * (i % 5));

  NDArray wrong = *NDArray::Zeros({4, 251}, kF32);
  absl::Status bad = m->Call("axpy", {x, wrong, alpha});
  EXPECT_THAT(bad.message(), HasSubstr("axpy(X: f32[4, 250], Y: f32[4, 250], a: f32): argument 1 "
                                       "(Y): expected shape [4, 250], given [4, 251]"));
  EXPECT_EQ(static_cast<float*>(y.data())[1], 3.0f) << "nothing ran";

  TimeOptions o;
  o.number = 2;
  o.repeat = 3;
  absl::StatusOr<TimeResult> r = TimeFunction(*m, "axpy", {x, y, alpha}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seconds_per_call.size(), 3u);
  EXPECT_EQ(r->total_calls, 7);
}

TEST(RuntimeJitModule, ExportedObjectMatchesTheJit) {
  ir::IRModule mod = KernelModule();
  std::string pattern = (fs::temp_directory_path() / "tessel_jit_export_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  fs::path dir(pattern);
  absl::StatusOr<std::string> object = codegen::EmitObject(mod, *codegen::Target::Parse("llvm"));
  ASSERT_TRUE(object.ok()) << object.status();
  std::string lib = (dir / "kernels.so").string();
  absl::Status s = ExportModule(mod, *object, lib);
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<Module> m = Module::LoadLibrary(lib);
  ASSERT_TRUE(m.ok()) << m.status();
  for (int threads : {1, 2}) CheckVectorAdd(*m, 999, threads);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tessel::runtime
