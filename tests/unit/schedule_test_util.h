// Helpers shared by the schedule units (tests/unit/schedule_*_test.cc).
//
//   Schedule sch = MustSchedule(R"(func @f(A: f32[64]) { for i in range(0, 64) { ... } })");
//   LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
//   ExpectFunc(sch, R"(func @f(A: f32[64]) { for i_0 in range(0, 4) { ... } })");
//   ExpectSameResults(sch);          // the original and the scheduled function agree
//   ExpectFailsUnchanged(sch, [&] { return sch.Parallel(k); }, "is reduce");
//
// Expected IR is written as .tsl and compared structurally (names of loop
// variables do not matter; block names do), printing both sides on a mismatch.
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_

#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"

namespace tessel::ir::schedule::testing {

// Unwraps a StatusOr; an error ends the test with the status message.
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) throw std::runtime_error(std::string(v.status().ToString()));
  return *std::move(v);
}
inline void Must(const absl::Status& s) {
  if (!s.ok()) throw std::runtime_error(std::string(s.ToString()));
}

inline IRModule ParseOrDie(const std::string& text) { return Must(ParseModule(text, "<test>")); }

inline Schedule MustSchedule(const std::string& text, uint64_t seed = 1) {
  return Must(Schedule::Create(ParseOrDie(text), "", seed));
}

// The current function equals the (only) function of `expected` structurally.
inline void ExpectFunc(const Schedule& sch, const std::string& expected) {
  IRModule want = ParseOrDie(expected);
  PrimFunc w = want->functions.front().second;
  absl::Status eq = AssertStructuralEqual(sch.func(), w);
  EXPECT_TRUE(eq.ok()) << eq.message() << "\n--- got:\n"
                       << PrintFunction(sch.func(), sch.func_name()) << "\n--- want:\n"
                       << PrintFunction(w, sch.func_name());
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
}

// The scheduled function computes what `original` computes, on three seeds.
inline void ExpectSameResults(const PrimFunc& original, const Schedule& sch) {
  for (uint64_t seed : {1, 2, 3}) {
    absl::Status s = CheckSameResults(original, sch.func(), seed);
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << PrintFunction(sch.func(), sch.func_name());
  }
}

// `step` fails with a message containing each of `parts`, and leaves the
// schedule's module and trace exactly as they were.
inline void ExpectFailsUnchanged(Schedule& sch, const std::function<absl::Status()>& step,
                                 const std::vector<std::string>& parts) {
  IRModule before = sch.mod();
  size_t trace_size = sch.trace().instructions().size();
  absl::Status s = step();
  ASSERT_FALSE(s.ok()) << "expected a failure";
  for (const std::string& p : parts) {
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(p));
  }
  EXPECT_TRUE(sch.mod().same_as(before)) << "the module changed on failure";
  EXPECT_EQ(sch.trace().instructions().size(), trace_size) << "the trace grew on failure";
}

// The f32 matmul C[vi, vj] += A[vi, vk] * B[vk, vj] over loops i, j, k (with
// C's init), as .tsl: the fixture most schedule tests start from.
inline std::string MatmulText(int m, int n, int k, const std::string& name = "mm") {
  return absl::StrCat("func @", name, "(A: f32[", m, ", ", k, "], B: f32[", k, ", ", n,
                      "], C: f32[", m, ", ", n, "]) {\n  for i in range(0, ", m,
                      ") {\n    for j in range(0, ", n, ") {\n      for k in range(0, ", k,
                      ") {\n        block C(vi: spatial[0, ", m, "] = i, vj: spatial[0, ", n,
                      "] = j, vk: reduce[0, ", k, R"(] = k) {
          reads(A[vi, vk], B[vk, vj])
          writes(C[vi, vj])
          init {
            C[vi, vj] = 0.0f32
          }
          C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        }
      }
    }
  }
})");
}

template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& v) {
  return v.status();
}
inline absl::Status StatusOf(const absl::Status& s) { return s; }

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_
