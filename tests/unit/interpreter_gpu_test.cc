// The interpreter's GPU mode (ir/interpreter_gpu.cc): kernels run thread by thread,
// barriers in phases, races and divergent barriers are errors that name where.
//
//   func @k(A: f32[8], B: f32[8]) {
//     for bx in thread_binding(0, 2, "blockIdx.x") {
//       allocate S: f32[4] scope "shared" {
//         for tx in thread_binding(0, 4, "threadIdx.x") { ... evaluate sync_threads() ... }
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/unit/interpreter_test_util.h"

namespace tessel::ir {
namespace {

using testing::FloatBuffer;
using ::testing::HasSubstr;
using testing::kF32;
using testing::Msg;

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? (*m)->functions.front().second : PrimFunc();
}

// Each block reverses its 4 elements through shared memory.
std::string Reverse(const std::string& between) {
  return R"(func @reverse(A: f32[8], B: f32[8]) {
  for bx in thread_binding(0, 2, "blockIdx.x") {
    allocate S: f32[4] scope "shared" {
      for tx in thread_binding(0, 4, "threadIdx.x") {
        S[tx] = A[bx * 4 + tx]
        )" +
         between + R"(
        B[bx * 4 + tx] = S[3 - tx]
      }
    }
  }
})";
}

absl::Status RunReverse(const std::string& between, HostBuffer* b) {
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3, 4, 5, 6, 7});
  *b = HostBuffer::Zeros(kF32, {8});
  return ir::Run(Parse(Reverse(between)), {Arg(a), Arg(*b)});
}

TEST(InterpGpuTest, BarrierOrdersSharedMemory) {
  HostBuffer b;
  ASSERT_TRUE(RunReverse("evaluate sync_threads()", &b).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b.GetFloat(i), (i / 4) * 4 + 3 - i % 4) << i;
}

TEST(InterpGpuTest, MissingBarrierIsARace) {
  // Thread 1 loads what thread 0 stored in the same phase.
  PrimFunc f = Parse(R"(func @shift(A: f32[4], B: f32[4]) {
  allocate S: f32[4] scope "shared" {
    for tx in thread_binding(0, 4, "threadIdx.x") {
      S[tx] = A[tx]
      if tx > 0 {
        B[tx] = S[tx - 1]
      }
    }
  }
})");
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3}), b = HostBuffer::Zeros(kF32, {4});
  absl::Status s = ir::Run(f, {Arg(a), Arg(b)});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(s), HasSubstr("data race on 'S' index [0] (shared storage of 'S'): thread "
                                "(threadIdx.x=1) of block (blockIdx.x=0) loads it and thread "
                                "(threadIdx.x=0) of block (blockIdx.x=0) stored to it with no "
                                "sync_threads() between"));
  EXPECT_THAT(Msg(s), HasSubstr("in: B[tx] = S[tx - 1]"));
  // A load that comes before the other thread's store (threads run in order here)
  // reads an element never written, and says that a barrier may be missing.
  HostBuffer c;
  EXPECT_THAT(Msg(RunReverse("", &c)),
              HasSubstr("reads an element of 'S' that was never written since it was allocated "
                        "(in a GPU kernel: a missing sync_threads()?)"));
}

TEST(InterpGpuTest, BarrierInDivergentCodeIsAnError) {
  HostBuffer b;
  absl::Status s = RunReverse("if tx < 2 {\n evaluate sync_threads()\n }", &b);
  EXPECT_THAT(Msg(s), HasSubstr("a barrier under divergent control flow: the condition of the "
                                "if is 1 in thread (threadIdx.x=0)"));
  EXPECT_THAT(Msg(s), HasSubstr("but 0 in thread (threadIdx.x=2)"));
}

TEST(InterpGpuTest, LoopsBoundToOneAxisAreOneThread) {
  // The inner loop bound to threadIdx.x is the same thread: each thread copies one
  // element (not all four, which would be four threads storing one element).
  PrimFunc f = Parse(R"(func @copy(A: f32[4], B: f32[4]) {
  for tx in thread_binding(0, 4, "threadIdx.x") {
    for t2 in thread_binding(0, 4, "threadIdx.x") {
      B[t2] = A[tx] + 1.0f32
    }
  }
})");
  HostBuffer a = FloatBuffer(kF32, {1, 2, 3, 4}), b = HostBuffer::Zeros(kF32, {4});
  ASSERT_TRUE(ir::Run(f, {Arg(a), Arg(b)}).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.GetFloat(i), i + 2);
}

TEST(InterpGpuTest, BlocksRacingOnGlobalMemory) {
  PrimFunc f = Parse(R"(func @sum(A: f32[8], B: f32[1]) {
  for bx in thread_binding(0, 8, "blockIdx.x") {
    B[0] = A[bx]
  }
})");
  HostBuffer a = FloatBuffer(kF32, {1, 2, 3, 4, 5, 6, 7, 8}), b = HostBuffer::Zeros(kF32, {1});
  absl::Status s = ir::Run(f, {Arg(a), Arg(b)});
  EXPECT_THAT(Msg(s), HasSubstr("data race on 'B' index [0] (global storage of 'B'): thread "
                                "(threadIdx.x=0) of block (blockIdx.x=1) stores to it and thread "
                                "(threadIdx.x=0) of block (blockIdx.x=0) stored to it"));
}

TEST(InterpGpuTest, PerThreadStateAcrossBarriers) {
  // A let and a local accumulator above the barriers hold one value per thread.
  PrimFunc f = Parse(R"(func @acc(A: f32[8], B: f32[8]) {
  allocate S: f32[8] scope "shared" {
    for tx in thread_binding(0, 8, "threadIdx.x") {
      let me = 7 - tx
      allocate acc: f32[1] scope "local" {
        acc[0] = 0.0f32
        for k in range(0, 2) {
          S[tx] = A[tx] * f32(k + 1)
          evaluate sync_threads()
          acc[0] = acc[0] + S[me]
          evaluate sync_threads()
        }
        B[tx] = acc[0]
      }
    }
  }
})");
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3, 4, 5, 6, 7}), b = HostBuffer::Zeros(kF32, {8});
  ASSERT_TRUE(ir::Run(f, {Arg(a), Arg(b)}).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b.GetFloat(i), 3 * (7 - i)) << i;
}

TEST(InterpGpuTest, LoopCarriedRaceOnSharedMemory) {
  // Without the second barrier, the next iteration's store races with this one's loads.
  PrimFunc f = Parse(R"(func @acc(A: f32[8], B: f32[8]) {
  allocate S: f32[8] scope "shared" {
    for tx in thread_binding(0, 8, "threadIdx.x") {
      B[tx] = 0.0f32
      for k in range(0, 2) {
        S[tx] = A[tx] * f32(k + 1)
        evaluate sync_threads()
        B[tx] = B[tx] + S[7 - tx]
      }
    }
  }
})");
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3, 4, 5, 6, 7}), b = HostBuffer::Zeros(kF32, {8});
  absl::Status s = ir::Run(f, {Arg(a), Arg(b)});
  EXPECT_THAT(Msg(s), HasSubstr("data race on 'S' index [0]"));
  EXPECT_THAT(Msg(s), HasSubstr("S[tx] = A[tx] * f32(k + 1)"));
}

TEST(InterpGpuTest, LaunchErrors) {
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3}), b = HostBuffer::Zeros(kF32, {4});
  PrimFunc mismatch = Parse(R"(func @m(A: f32[4], B: f32[4]) {
  for tx in thread_binding(0, 4, "threadIdx.x") {
    for t2 in thread_binding(0, 2, "threadIdx.x") {
      B[tx] = A[t2]
    }
  }
})");
  EXPECT_THAT(Msg(ir::Run(mismatch, {Arg(a), Arg(b)})),
              HasSubstr("loops 'tx' and 't2' are both bound to threadIdx.x with different "
                        "extents (4 and 2) in one kernel"));
  PrimFunc wide = Parse(R"(func @w(A: f32[4], B: f32[4]) {
  for tx in thread_binding(0, 64, "threadIdx.x") {
    for ty in thread_binding(0, 32, "threadIdx.y") {
      B[0] = A[0]
    }
  }
})");
  EXPECT_THAT(Msg(ir::Run(wide, {Arg(a), Arg(b)})),
              HasSubstr("a kernel block of 2048 threads; CUDA allows at most 1024"));
  PrimFunc inner = Parse(R"(func @i(A: f32[4], B: f32[4]) {
  for tx in thread_binding(0, 4, "threadIdx.x") {
    let n = tx + 1
    for t2 in thread_binding(0, n, "threadIdx.x") {
      B[tx] = A[t2]
    }
  }
})");
  EXPECT_THAT(Msg(ir::Run(inner, {Arg(a), Arg(b)})),
              HasSubstr("the extent of loop 't2', bound to threadIdx.x, must be known when the "
                        "kernel starts"));
  // Nothing was written by the refused runs.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.GetFloat(i), 0);
}

TEST(InterpGpuTest, SyncThreadsOutsideAKernel) {
  PrimFunc f = Parse(R"(func @s(A: f32[4]) {
  evaluate sync_threads()
  A[0] = 1.0f32
})");
  HostBuffer a = HostBuffer::Zeros(kF32, {4});
  EXPECT_THAT(Msg(ir::Run(f, {Arg(a)})),
              HasSubstr("sync_threads() is a statement of its own inside "
                        "a GPU kernel"));
  EXPECT_EQ(a.GetFloat(0), 0);
}

TEST(InterpGpuTest, SyncThreadsPrintsParsesAndVerifies) {
  PrimFunc f = Parse(Reverse("evaluate sync_threads()"));
  std::string text = PrintFunction(f, "reverse");
  EXPECT_THAT(text, HasSubstr("evaluate sync_threads()"));
  EXPECT_TRUE(VerifyFunction(f).ok());
  absl::StatusOr<IRModule> bad = ParseModule(R"(func @b(A: i32[1]) {
  A[0] = sync_threads()
})");
  ASSERT_TRUE(bad.ok());
  EXPECT_THAT(Msg(VerifyFunction((*bad)->functions.front().second)),
              HasSubstr("sync_threads() is a statement of its own"));
  EXPECT_THAT(Msg(ParseModule("func @b(A: i32[1]) {\n  evaluate sync_threads(1)\n}").status()),
              HasSubstr("'sync_threads' takes 0 arguments, not 1"));
}

TEST(InterpGpuTest, ThreadReductionCombinesEachRowOfThreadIdxX) {
  PrimFunc f = Parse(R"(func @rows(A: f32[2, 4], B: f32[2], M: f32[2]) {
  for ty in thread_binding(0, 2, "threadIdx.y") {
    for tx in thread_binding(0, 4, "threadIdx.x") {
      allocate r: f32[2] scope "local" {
        r[0] = thread_sum_x(A[ty, tx])
        r[1] = thread_max_x(A[ty, tx] * 2.0f32)
        if tx == 0 {
          B[ty] = r[0]
          M[ty] = r[1]
        }
      }
    }
  }
})");
  HostBuffer a = HostBuffer::Zeros(kF32, {2, 4});
  for (int i = 0; i < 8; ++i) a.SetFloat(i, i < 4 ? i + 1 : -(i - 3));
  HostBuffer b = HostBuffer::Zeros(kF32, {2}), m = HostBuffer::Zeros(kF32, {2});
  ASSERT_TRUE(ir::Run(f, {Arg(a), Arg(b), Arg(m)}).ok());
  EXPECT_EQ(b.GetFloat(0), 10);
  EXPECT_EQ(b.GetFloat(1), -10);
  EXPECT_EQ(m.GetFloat(0), 8);
  EXPECT_EQ(m.GetFloat(1), -2);
}

TEST(InterpGpuTest, ThreadReductionIsTheWholeValueOfAStore) {
  absl::StatusOr<IRModule> inside = ParseModule(R"(func @b(A: f32[4], B: f32[4]) {
  for tx in thread_binding(0, 4, "threadIdx.x") {
    B[tx] = thread_sum_x(A[tx]) + 1.0f32
  }
})");
  ASSERT_TRUE(inside.ok());
  EXPECT_THAT(Msg(VerifyFunction((*inside)->functions.front().second)),
              HasSubstr("thread_sum_x(...) is a collective: the whole value of a store"));
  EXPECT_THAT(
      Msg(ParseModule("func @b(A: f32[1]) {\n  A[0] = thread_min_x(A[0], A[0])\n}").status()),
      HasSubstr("'thread_min_x' takes 1 argument, not 2"));
  PrimFunc host = Parse(R"(func @h(A: f32[4], B: f32[1]) {
  B[0] = thread_sum_x(A[0])
})");
  HostBuffer a = FloatBuffer(kF32, {1, 2, 3, 4}), b = HostBuffer::Zeros(kF32, {1});
  EXPECT_THAT(Msg(ir::Run(host, {Arg(a), Arg(b)})),
              HasSubstr("thread_sum_x(...) is a collective of a GPU kernel's threads"));
  EXPECT_EQ(b.GetFloat(0), 0);
}

TEST(InterpGpuTest, FunctionsWithBlocksRunThreadLoopsSerially) {
  // Before lowering, blocks order the threads: the same reverse without a barrier
  // is correct there.
  PrimFunc f = Parse(R"(func @r(A: f32[4], B: f32[4]) {
  block root() {
    alloc_buffer S: f32[4] scope "shared"
    for tx in thread_binding(0, 4, "threadIdx.x") {
      block S(v: spatial[0, 4] = tx) {
        reads(A[v])
        writes(S[v])
        S[v] = A[v]
      }
    }
    for tx in thread_binding(0, 4, "threadIdx.x") {
      block B(v: spatial[0, 4] = tx) {
        reads(S[3 - v])
        writes(B[v])
        B[v] = S[3 - v]
      }
    }
  }
})");
  HostBuffer a = FloatBuffer(kF32, {0, 1, 2, 3}), b = HostBuffer::Zeros(kF32, {4});
  ASSERT_TRUE(ir::Run(f, {Arg(a), Arg(b)}).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.GetFloat(i), 3 - i);
}

}  // namespace
}  // namespace tessel::ir
