// Warp matrix products in the interpreter (ir/interpreter_gpu_mma.cc): each warp's
// lanes load their fragments of A and B in PTX's m16n8k16 layout, one
// mma_m16n8k16 per 16 steps of k, and the result equals the plain matmul; a block
// of partial warps, a missing barrier and a misplaced call are clear errors.
//
//   for ty in thread_binding(0, W, "threadIdx.y"):      one warp per 16 rows
//     for tx in thread_binding(0, 32, "threadIdx.x"):   its lanes
//       a[r] = A[...], b[r] = B[...]                    fragments
//       d[ramp(0, 1, 4)] = mma_m16n8k16(a[..], b[..], d[..])
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "tests/unit/interpreter_test_util.h"

namespace tessel::ir {
namespace {

using ::testing::HasSubstr;
using testing::kF16;
using testing::kF32;
using testing::Msg;

// C[16 W, 8] = A[16 W, 32] * B[32, 8]: warp ty owns rows 16 ty ..; k in two
// steps of 16; `threads_x` lanes along x (32 for whole warps).
std::string MmaKernel(int warps, int threads_x) {
  return absl::StrReplaceAll(R"(func @mma(A: f16[M, 32], B: f16[32, 8], C: f32[M, 8]) {
  for ty in thread_binding(0, W, "threadIdx.y") {
    for tx in thread_binding(0, TX, "threadIdx.x") {
      allocate a: f16[8] scope "local" {
        allocate b: f16[4] scope "local" {
          allocate d: f32[4] scope "local" {
            for r in unrolled(0, 4) {
              d[r] = 0.0f32
            }
            for k0 in range(0, 2) {
              for r in unrolled(0, 8) {
                a[r] = A[ty * 16 + tx // 4 % 8 + r // 2 % 2 * 8, k0 * 16 + tx % 4 * 2 + r % 2 + r // 4 * 8]
              }
              for r in unrolled(0, 4) {
                b[r] = B[k0 * 16 + tx % 4 * 2 + r % 2 + r // 2 * 8, tx // 4 % 8]
              }
              d[ramp(0, 1, 4)] = mma_m16n8k16(a[ramp(0, 1, 8)], b[ramp(0, 1, 4)], d[ramp(0, 1, 4)])
            }
            if tx < 32 {
              for r in unrolled(0, 4) {
                C[ty * 16 + tx // 4 + r // 2 * 8, tx % 4 * 2 + r % 2] = d[r]
              }
            }
          }
        }
      }
    }
  }
})",
                             {{"M", absl::StrCat(16 * warps)},
                              {"W", absl::StrCat(warps)},
                              {"TX", absl::StrCat(threads_x)}});
}

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? (*m)->functions.front().second : PrimFunc();
}

// Small integers: every product and sum is exact in f32, so the result is exact.
HostBuffer Filled(DataType t, std::vector<int64_t> shape, int seed) {
  HostBuffer h = HostBuffer::Zeros(t, shape);
  for (int64_t i = 0; i < h.size(); ++i) h.SetFloat(i, (i * 7 + seed * 3) % 9 - 4);
  return h;
}

TEST(InterpGpuMmaTest, WarpsComputeTheMatmul) {
  for (int warps : {1, 3}) {
    const int64_t m = 16 * warps;
    HostBuffer a = Filled(kF16, {m, 32}, 1), b = Filled(kF16, {32, 8}, 2);
    HostBuffer c = HostBuffer::Zeros(kF32, {m, 8});
    absl::Status s = ir::Run(Parse(MmaKernel(warps, 32)), {Arg(a), Arg(b), Arg(c)});
    ASSERT_TRUE(s.ok()) << s;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < 8; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 32; ++k) want += a.GetFloat(i * 32 + k) * b.GetFloat(k * 8 + j);
        ASSERT_EQ(c.GetFloat(i * 8 + j), want)
            << "warps " << warps << " at [" << i << ", " << j << "]";
      }
    }
  }
}

TEST(InterpGpuMmaTest, PartialWarpsAreRefused) {
  // 48 threads along x: a warp and a half, each lane's indices still in bounds.
  HostBuffer a = Filled(kF16, {16, 32}, 1), b = Filled(kF16, {32, 8}, 2);
  HostBuffer c = HostBuffer::Zeros(kF32, {16, 8});
  absl::Status s = ir::Run(Parse(MmaKernel(1, 48)), {Arg(a), Arg(b), Arg(c)});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(s), HasSubstr("mma_m16n8k16 is a warp's: every lane of 32 takes part, but the "
                                "block has 48 threads, not whole warps"));
  for (int64_t i = 0; i < c.size(); ++i) EXPECT_EQ(c.GetFloat(i), 0) << i;
}

TEST(InterpGpuMmaTest, FragmentsFromSharedMemoryNeedABarrier) {
  // The warp stages A's 16 x 16 tile in shared memory, then loads its fragments
  // from it: another lane's element, so a barrier must come between.
  const std::string kernel = R"(func @staged(A: f16[16, 16], B: f16[16, 8], C: f32[16, 8]) {
  allocate S: f16[16, 16] scope "shared" {
    for tx in thread_binding(0, 32, "threadIdx.x") {
      allocate a: f16[8] scope "local" {
        allocate b: f16[4] scope "local" {
          allocate d: f32[4] scope "local" {
            for r in unrolled(0, 8) {
              S[tx // 2, tx % 2 * 8 + r] = A[tx // 2, tx % 2 * 8 + r]
            }
            BARRIER
            for r in unrolled(0, 8) {
              a[r] = S[tx // 4 + r // 2 % 2 * 8, tx % 4 * 2 + r % 2 + r // 4 * 8]
            }
            for r in unrolled(0, 4) {
              b[r] = B[tx % 4 * 2 + r % 2 + r // 2 * 8, tx // 4]
              d[r] = 1.0f32
            }
            d[ramp(0, 1, 4)] = mma_m16n8k16(a[ramp(0, 1, 8)], b[ramp(0, 1, 4)], d[ramp(0, 1, 4)])
            for r in unrolled(0, 4) {
              C[tx // 4 + r // 2 * 8, tx % 4 * 2 + r % 2] = d[r]
            }
          }
        }
      }
    }
  }
})";
  HostBuffer a = Filled(kF16, {16, 16}, 3), b = Filled(kF16, {16, 8}, 4);
  HostBuffer c = HostBuffer::Zeros(kF32, {16, 8});
  absl::Status s =
      ir::Run(Parse(absl::StrReplaceAll(kernel, {{"BARRIER", "evaluate sync_threads()"}})),
              {Arg(a), Arg(b), Arg(c)});
  ASSERT_TRUE(s.ok()) << s;
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 8; ++j) {
      double want = 1;  // d starts at 1: the accumulator is C.
      for (int64_t k = 0; k < 16; ++k) want += a.GetFloat(i * 16 + k) * b.GetFloat(k * 8 + j);
      ASSERT_EQ(c.GetFloat(i * 8 + j), want) << i << ", " << j;
    }
  }
  s = ir::Run(Parse(absl::StrReplaceAll(kernel, {{"BARRIER", ""}})), {Arg(a), Arg(b), Arg(c)});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(s), HasSubstr("data race on 'S'"));
}

TEST(InterpGpuMmaTest, MisplacedCallsAreClearErrors) {
  // Not the whole value of a store: the verifier says what it must be.
  absl::StatusOr<IRModule> m = ParseModule(R"(func @f(a: f16[8], b: f16[4], d: f32[4]) {
  for tx in thread_binding(0, 32, "threadIdx.x") {
    d[ramp(0, 1, 4)] = mma_m16n8k16(a[ramp(0, 1, 8)], b[ramp(0, 1, 4)], d[ramp(0, 1, 4)]) + d[ramp(0, 1, 4)]
  }
})");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::Status v = VerifyModule(*m);
  EXPECT_THAT(Msg(v),
              HasSubstr("mma_m16n8k16(...) is a collective: the whole value of a store, e.g. "
                        "D[ramp(0, 1, 4)] = mma_m16n8k16(a, b, c)"));
  // Fragments of the wrong width or type.
  m = ParseModule(R"(func @f(a: f32[8], b: f16[4], d: f32[4]) {
  for tx in thread_binding(0, 32, "threadIdx.x") {
    d[ramp(0, 1, 4)] = mma_m16n8k16(a[ramp(0, 1, 8)], b[ramp(0, 1, 4)], d[ramp(0, 1, 4)])
  }
})");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(Msg(m.status()), HasSubstr("takes a lane's fragments a: f16x8, b: f16x4, c: f32x4"));
  // Outside a kernel: no warp to run it.
  PrimFunc host = Parse(R"(func @f(a: f16[8], b: f16[4], d: f32[4]) {
  d[ramp(0, 1, 4)] = mma_m16n8k16(a[ramp(0, 1, 8)], b[ramp(0, 1, 4)], d[ramp(0, 1, 4)])
})");
  HostBuffer a = HostBuffer::Zeros(kF16, {8}), b = HostBuffer::Zeros(kF16, {4});
  HostBuffer d = HostBuffer::Zeros(kF32, {4});
  absl::Status s = ir::Run(host, {Arg(a), Arg(b), Arg(d)});
  EXPECT_THAT(Msg(s), HasSubstr("is a collective of a GPU kernel's warps"));
}

}  // namespace
}  // namespace tessel::ir
