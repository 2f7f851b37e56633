// Shared by the codegen units: parse a module, JIT it, run it on the interpreter's
// random arguments and compare.
//
//   EXPECT_OK(CheckAgainstInterpreter(kText, {.seed = 3}));   // JIT == interpreter
//
// The parallel-for entry point is supplied by the test (serially or on threads)
// through JitOptions::symbols, so these tests do not depend on the runtime library.
#ifndef TESSEL_TESTS_UNIT_CODEGEN_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_CODEGEN_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/jit.h"
#include "ir/interpreter.h"

namespace tessel::codegen::testing {

// Runs [0, extent) in one call on the calling thread.
int32_t SerialParallelFor(int64_t extent, TesselParallelBody body, void* closure);
// Splits [0, extent) over 3 std::threads (odd on purpose: uneven chunks).
int32_t ThreadedParallelFor(int64_t extent, TesselParallelBody body, void* closure);
// How many times ThreadedParallelFor ran a chunk on a thread other than the caller's.
int64_t ThreadedChunksRun();

JitOptions TestJitOptions(bool threads = false);

absl::StatusOr<ir::IRModule> Parse(const std::string& text);

// Calls `name` of `jit` with `args` (buffers by data pointer, scalars by address
// in the C type of the parameter).
absl::Status CallJit(const JitModule& jit, const std::string& name, const ir::PrimFunc& func,
                     const std::vector<ir::Arg>& args);

struct CheckOptions {
  uint64_t seed = 1;
  ir::CompareOptions compare = {};
  bool threads = false;
  std::string target = "llvm";
};

// Parses `text` (one function), JIT-compiles it and compares its results with the
// interpreter's on the same random inputs.
absl::Status CheckAgainstInterpreter(const std::string& text, const CheckOptions& opts = {});

}  // namespace tessel::codegen::testing

#define EXPECT_OK(expr)                          \
  do {                                           \
    absl::Status s_ = (expr);                    \
    EXPECT_TRUE(s_.ok()) << s_.message();        \
  } while (0)
#define ASSERT_OK(expr)                          \
  do {                                           \
    absl::Status s_ = (expr);                    \
    ASSERT_TRUE(s_.ok()) << s_.message();        \
  } while (0)

#endif  // TESSEL_TESTS_UNIT_CODEGEN_TEST_UTIL_H_
