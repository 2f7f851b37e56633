// Shared helpers for the te unit tests: build a PrimFunc from tensors, check it
// (verifier, .tsl print round trip), run it in the reference interpreter on
// seeded random inputs, and read the results back as row-major arrays.
//
//   Tensor x = F32("x", {3, 5});
//   Tensor y = Must(ops::Relu(x));
//   TeRun r = MustRun({x, y});                 // verified, round-tripped, run
//   EXPECT_NEAR(r.At(1, {2, 4}), std::max(r.At(0, {2, 4}), 0.0), 1e-6);
//
// The reference computations live in each test beside the op they check; they
// share nothing with the op library but these accessors.
#ifndef TESSEL_TESTS_UNIT_TE_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_TE_TEST_UTIL_H_

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/op_util.h"
#include "ir/verifier.h"

namespace tessel::ir::te::testing {

inline constexpr DataType kF32 = DataType::Float(32);
inline constexpr DataType kI32 = DataType::Int(32);

// Unwraps a StatusOr; an error ends the test (GoogleTest reports the exception
// with the status message).
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) throw std::runtime_error(v.status().ToString());
  return *std::move(v);
}

inline Tensor Input(const std::string& name, Shape shape, DataType t = kF32) {
  return Must(Placeholder(shape, t, name));
}

// Row-major flat index of `idx` in `shape`.
inline int64_t Flat(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

// Calls fn(idx) for every multi-index of `shape`, in row-major order.
inline void ForEachIndex(const std::vector<int64_t>& shape,
                         const std::function<void(const std::vector<int64_t>&)>& fn) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t f = 0; f < n; ++f) {
    int64_t rest = f;
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    fn(idx);
  }
}

// A function built from tensors and run once.
struct TeRun {
  PrimFunc func;
  std::vector<Arg> args;

  HostBuffer& Buffer(int param) { return std::get<HostBuffer>(args[param]); }
  double At(int param, const std::vector<int64_t>& idx) {
    HostBuffer& b = Buffer(param);
    return b.GetFloat(Flat(b.shape(), idx));
  }
  int64_t IntAt(int param, const std::vector<int64_t>& idx) {
    HostBuffer& b = Buffer(param);
    return b.GetInt(Flat(b.shape(), idx));
  }
  const std::vector<int64_t>& Shape(int param) { return Buffer(param).shape(); }
};

// The print of a module parses back to the same text and an equal structure.
inline absl::Status CheckRoundTrip(const IRModule& mod) {
  std::string text = PrintModule(mod);
  absl::StatusOr<IRModule> back = ParseModule(text, "te_test");
  if (!back.ok()) return absl::InternalError(absl::StrCat("reparse: ", back.status().message(), "\n", text));
  if (PrintModule(*back) != text) return absl::InternalError("the reprint differs:\n" + text);
  return AssertStructuralEqual(mod, *back);
}

// Builds `params` into a function, verifies it and checks its round trip, then
// fills the inputs with seeded random values, lets `prepare` adjust them, and runs.
inline absl::StatusOr<TeRun> BuildAndRun(
    const std::vector<FuncArg>& params, uint64_t seed = 1,
    const std::vector<std::pair<std::string, int64_t>>& symbolic = {},
    const std::function<void(std::vector<Arg>&)>& prepare = nullptr) {
  absl::StatusOr<PrimFunc> f = CreatePrimFunc(params, "main");
  if (!f.ok()) return f.status();
  if (absl::Status s = VerifyFunction(*f, "main"); !s.ok()) {
    return absl::InternalError(absl::StrCat(s.message(), "\n", PrintFunction(*f, "main")));
  }
  if (absl::Status s = CheckRoundTrip(MakeIRModule({{"main", *f}})); !s.ok()) return s;
  absl::StatusOr<std::vector<Arg>> args = RandomArgs(*f, seed, symbolic);
  if (!args.ok()) return args.status();
  if (prepare) prepare(*args);
  if (absl::Status s = Run(*f, *args); !s.ok()) {
    return absl::InternalError(absl::StrCat(s.message(), "\n", PrintFunction(*f, "main")));
  }
  return TeRun{*f, *std::move(args)};
}

inline TeRun MustRun(const std::vector<FuncArg>& params, uint64_t seed = 1,
                     const std::vector<std::pair<std::string, int64_t>>& symbolic = {},
                     const std::function<void(std::vector<Arg>&)>& prepare = nullptr) {
  return Must(BuildAndRun(params, seed, symbolic, prepare));
}

// Expects every element of output `param` to match want(idx) within tolerance.
inline void ExpectAll(TeRun& r, int param,
                      const std::function<double(const std::vector<int64_t>&)>& want,
                      double rtol = 1e-5, double atol = 1e-5) {
  int bad = 0;
  ForEachIndex(r.Shape(param), [&](const std::vector<int64_t>& idx) {
    double got = r.At(param, idx), exp = want(idx);
    bool ok = (std::isnan(got) && std::isnan(exp)) || got == exp ||
              std::fabs(got - exp) <= atol + rtol * std::fabs(exp);
    if (!ok && bad++ < 5) {
      std::string where;
      for (int64_t i : idx) where += std::to_string(i) + " ";
      ADD_FAILURE() << "param " << param << " at [ " << where << "]: got " << got << ", want " << exp;
    }
  });
  EXPECT_EQ(bad, 0) << bad << " elements differ";
}

// The message of a failed StatusOr, or a failure when it succeeded.
template <typename T>
std::string ErrorOf(const absl::StatusOr<T>& v) {
  if (v.ok()) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return std::string(v.status().message());
}

}  // namespace tessel::ir::te::testing

#endif  // TESSEL_TESTS_UNIT_TE_TEST_UTIL_H_
