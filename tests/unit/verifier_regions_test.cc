// Units for the verifier's region rule (ir/verify_regions.h): a block's loads
// and stores lie inside the regions it declares. Each refusal names the
// block, the buffer and the access, and a point where it escapes; what the
// analyzer cannot decide is accepted.
//
//   block C(vi, vj, vk) { reads(A[vi, vk], B[vk, vj]) writes(C[vi, vj])
//     C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] }          (no init)
//   -> "block 'C': the load C[vi, vj] reads buffer 'C', of which the block
//       declares no read region"
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/verifier.h"

namespace tessel::ir {
namespace {

using ::testing::HasSubstr;

// The verifier's message on the module's text; "" when it verifies.
std::string Verify(const std::string& text) {
  absl::StatusOr<IRModule> mod = ParseModule(text);
  if (!mod.ok()) return "parse: " + std::string(mod.status().message());
  return std::string(VerifyModule(*mod).message());
}

// A matmul whose update block has `reads` and `init` as given.
std::string Matmul(const std::string& reads, const std::string& init) {
  return R"(
func @mm(A: f32[6, 5], B: f32[5, 7], C: f32[6, 7]) {
  for i in range(0, 6) {
    for j in range(0, 7) {
      for k in range(0, 5) {
        block C(vi: spatial[0, 6] = i, vj: spatial[0, 7] = j, vk: reduce[0, 5] = k) {
          reads()" + reads + R"()
          writes(C[vi, vj])
)" + init + R"(
          C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        }
      }
    }
  }
}
)";
}

TEST(VerifierRegionsTest, AReductionWithAnInitReadsItsAccumulatorThroughItsWrites) {
  EXPECT_EQ(Verify(Matmul("A[vi, vk], B[vk, vj]", "          init {\n            C[vi, vj] = 0.0f32\n          }")), "");
}

// decompose_reduction's update: no init any more, so the load of the
// accumulator must be declared.
TEST(VerifierRegionsTest, RefusesAnUpdateWithoutInitThatReadsAnUndeclaredAccumulator) {
  std::string msg = Verify(Matmul("A[vi, vk], B[vk, vj]", ""));
  EXPECT_THAT(msg, HasSubstr("verify: function 'mm': block 'C': the load C[vi, vj] reads buffer "
                             "'C', of which the block declares no read region"));
  EXPECT_THAT(msg, HasSubstr("in expression: C[vi, vj]"));
  EXPECT_EQ(Verify(Matmul("C[vi, vj], A[vi, vk], B[vk, vj]", "")), "");
}

TEST(VerifierRegionsTest, RefusesALoadPastTheRegionAtTheLastIterationOfAnInnerLoop) {
  std::string msg = Verify(R"(
func @sum4(A: f32[32], B: f32[8]) {
  for i in range(0, 8) {
    block S(vi: spatial[0, 8] = i) {
      reads(B[vi], A[vi * 4 +: 2])
      writes(B[vi])
      B[vi] = 0.0f32
      for k in range(0, 4) {
        B[vi] = B[vi] + A[vi * 4 + k]
      }
    }
  }
}
)");
  EXPECT_THAT(msg, HasSubstr("block 'S': the load A[vi * 4 + k] lies outside the read region "
                             "A[vi * 4 +: 2] of buffer 'A' that the block declares (at k = 3 it "
                             "reads A[vi * 4 + 3])"));
  EXPECT_THAT(msg, HasSubstr("in statement: B[vi] = B[vi] + A[vi * 4 + k]"));
}

TEST(VerifierRegionsTest, RefusesAStoreOutsideItsWriteRegion) {
  std::string msg = Verify(R"(
func @shift(A: f32[9], B: f32[9]) {
  for i in range(0, 8) {
    block S(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi + 1] = A[vi]
    }
  }
}
)");
  EXPECT_THAT(msg, HasSubstr("block 'S': the store B[vi + 1] lies outside the write region B[vi] "
                             "of buffer 'B' that the block declares (for every value of the "
                             "block's iter vars it writes B[vi + 1])"));
}

TEST(VerifierRegionsTest, RefusesARegionTooSmallForTheDomain) {
  std::string msg = Verify(R"(
func @copy(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block S(vi: spatial[0, 8] = i) {
      reads(A[0 +: 4])
      writes(B[vi])
      B[vi] = A[vi]
    }
  }
}
)");
  EXPECT_THAT(msg, HasSubstr("block 'S': the load A[vi] lies outside the read region A[0 +: 4] of "
                             "buffer 'A' that the block declares (at vi = 7 it reads A[7])"));
}

// Undecided: a gather's index is data, an access under an `if` may never run,
// a buffer allocated inside the block is its own.
TEST(VerifierRegionsTest, AcceptsWhatTheAnalyzerCannotShowWrong) {
  EXPECT_EQ(Verify(R"(
func @gather(A: f32[8], idx: i32[4], B: f32[4]) {
  for i in range(0, 4) {
    block G(vi: spatial[0, 4] = i) {
      reads(idx[vi], A[0 +: 2])
      writes(B[vi])
      B[vi] = A[idx[vi]]
    }
  }
}
)"),
            "");
  EXPECT_EQ(Verify(R"(
func @guarded(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block S(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi]
      if vi < 0 {
        B[vi] = A[vi + 1]
      }
    }
  }
}
)"),
            "");
  EXPECT_EQ(Verify(R"(
func @local(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block S(vi: spatial[0, 8] = i) {
      alloc_buffer T: f32[2]
      reads(A[vi])
      writes(B[vi])
      T[0] = A[vi]
      B[vi] = T[0]
    }
  }
}
)"),
            "");
}

// Containment under an `if` uses its condition: the padded read of a halo.
TEST(VerifierRegionsTest, ProvesContainmentUnderTheConditionOfAnIf) {
  EXPECT_EQ(Verify(R"(
func @pad(A: f32[8], B: f32[10]) {
  for i in range(0, 10) {
    block P(vi: spatial[0, 10] = i) {
      reads(A[0 +: 8])
      writes(B[vi])
      if 1 <= vi && vi < 9 {
        B[vi] = A[vi - 1]
      } else {
        B[vi] = 0.0f32
      }
    }
  }
}
)"),
            "");
}

}  // namespace
}  // namespace tessel::ir
