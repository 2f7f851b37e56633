// Units for the verifier's provable out-of-bounds accesses (ir/verify_bounds.cc):
// an index affine in loop variables with constant ranges, reaching outside its
// buffer on some iteration that nothing guards, is refused with the buffer,
// the index and the function named; guarded or non-affine accesses are left
// for the interpreter.
//
//   for i in range(0, 4) { B[i] = A[i * 1000000] }
//   -> "verify: function 'f': load of buffer 'A': index i * 1000000 reaches
//       3000000 in dimension 0, outside [0, 4) ..."
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/verifier.h"

namespace tessel::ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The verifier's message for the module `text`; empty when it verifies.
std::string VerifyText(const std::string& text) {
  absl::StatusOr<IRModule> mod = ParseModule(text, "<test>");
  if (!mod.ok()) return "parse: " + std::string(mod.status().message());
  return std::string(VerifyModule(*mod).message());
}

TEST(VerifierBoundsTest, RefusesAnAffineBlockIndexReachingOutside) {
  // What te.compute((4, 4), lambda i, j: A[i * 1000000, j]) makes.
  const std::string msg = VerifyText(R"(
func @f(A: f32[4, 4], B: f32[4, 4]) {
  for i in range(0, 4) {
    for j in range(0, 4) {
      block B(vi: spatial[0, 4] = i, vj: spatial[0, 4] = j) {
        reads(A[vi * 1000000, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi * 1000000, vj]
      }
    }
  }
}
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("function 'f'"), HasSubstr("block 'B'"),
                         HasSubstr("load of buffer 'A': index vi * 1000000 reaches 3000000 in "
                                   "dimension 0, outside [0, 4)")));
}

TEST(VerifierBoundsTest, RefusesFlatLoweredIndicesStoresAndNegativeCorners) {
  EXPECT_THAT(VerifyText(R"(
func @f(A: f32[16], B: f32[16]) {
  for i in range(0, 4) {
    for j in range(0, 4) {
      B[i * 4 + j] = A[i * 4000000 + j]
    }
  }
}
)"),
              HasSubstr("load of buffer 'A': index i * 4000000 + j reaches 12000003"));
  EXPECT_THAT(VerifyText(R"(
func @f(A: f32[8]) {
  for i in range(0, 8) {
    A[i - 1] = 0.0f32
  }
}
)"),
              HasSubstr("store of buffer 'A': index i - 1 reaches -1 in dimension 0"));
  // i - i + 8 is the constant 8, whatever the loop.
  EXPECT_THAT(VerifyText(R"(
func @f(A: f32[8]) {
  for i in range(0, 8) {
    A[i - i + 8] = 0.0f32
  }
}
)"),
              HasSubstr("reaches 8 in dimension 0, outside [0, 8)"));
}

TEST(VerifierBoundsTest, RefusesVectorLanesPastTheEnd) {
  EXPECT_THAT(VerifyText(R"(
func @f(A: f32[64], C: f32[64]) {
  for i in range(0, 4) {
    C[ramp(i * 16, 1, 16)] = A[ramp(i * 16 + 1, 1, 16)]
  }
}
)"),
              HasSubstr("load of buffer 'A': index ramp(i * 16 + 1, 1, 16) reaches 64"));
}

TEST(VerifierBoundsTest, AcceptsExactFitsAndWhatItCannotProve) {
  // Exactly the buffer: the corners are 0 and 15.
  EXPECT_EQ(VerifyText(R"(
func @f(A: f32[16], B: f32[4, 4]) {
  for i in range(0, 4) {
    for j in range(0, 4) {
      block B(vi: spatial[0, 4] = i, vj: spatial[0, 4] = j) {
        reads(A[vi * 4 + vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi * 4 + vj]
      }
    }
  }
}
)"),
            "");
  // A tail guard (an if, a block predicate), a zero-trip loop, a clamp and a
  // symbolic extent keep the corner from being certain.
  EXPECT_EQ(VerifyText(R"(
func @f(A: f32[30], n: i32) {
  for i in range(0, 2) {
    for j in range(0, 16) {
      if i * 16 + j < 30 {
        A[i * 16 + j] = 0.0f32
      }
      block T(vi: spatial[0, 30] = i * 16 + j) where i * 16 + j < 30 {
        writes(A[vi])
        A[vi] = 1.0f32
      }
      A[min(i * 16 + j, 29)] = 2.0f32
    }
  }
  for k in range(0, 0) {
    A[k + 100] = 0.0f32
  }
  for m in range(0, n) {
    A[m] = 0.0f32
  }
}
)"),
            "");
}

TEST(VerifierBoundsTest, LeavesIndicesThatMayWrapAlone) {
  // i * 1073741824 wraps in i32 for i >= 2: the exact corners do not say
  // where the access lands, so the verifier does not claim one.
  EXPECT_EQ(VerifyText(R"(
func @f(A: f32[8]) {
  for i in range(0, 4) {
    A[i * 1073741824] = 0.0f32
  }
}
)"),
            "");
}

}  // namespace
}  // namespace tessel::ir
