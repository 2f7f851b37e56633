// parallel, vectorize, unroll and bind: before/after IR, the interpreter on
// random inputs, and the thread-axis rules; the other refusals are lit cases
// (tests/lit/schedule/loop-kinds.tsl, loop-kinds-errors.tsl).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr const char* kMatmul = R"(
func @mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) {
  for i in range(0, 16) {
    for j in range(0, 16) {
      for k in range(0, 16) {
        block C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k) {
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
})";

struct Mm {
  Mm() : sch(MustSchedule(kMatmul)), original(sch.func()) {
    l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  }
  Schedule sch;
  PrimFunc original;
  std::vector<LoopRV> l;
};

TEST(ScheduleLoopKind, ParallelVectorizeUnroll) {
  Mm t;
  Must(t.sch.Parallel(t.l[0]));
  Must(t.sch.Vectorize(t.l[1]));
  Must(t.sch.Unroll(t.l[2]));  // Unrolling a reduction keeps its order.
  ExpectFunc(t.sch, R"(
func @mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) {
  for i in parallel(0, 16) {
    for j in vectorized(0, 16) {
      for k in unrolled(0, 16) {
        block C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k) {
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
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(t.sch.trace().AsPython(),
            "b0 = sch.get_block(name=\"C\")\n"
            "l1, l2, l3 = sch.get_loops(block=b0)\n"
            "sch.parallel(loop=l1)\n"
            "sch.vectorize(loop=l2)\n"
            "sch.unroll(loop=l3)\n");
}

TEST(ScheduleLoopKind, ParallelOverAFusedLoop) {
  // The fused loop determines vi and vj together (digits 16 and 1).
  Mm t;
  LoopRV f = Must(t.sch.Fuse({t.l[0], t.l[1]}));
  Must(t.sch.Parallel(f));
  ExpectSameResults(t.original, t.sch);
  // And its split parts, each a digit of it.
  Mm u;
  LoopRV g = Must(u.sch.Fuse({u.l[0], u.l[1]}));
  std::vector<LoopRV> parts = Must(u.sch.Split(g, {std::nullopt, 8}));
  Must(u.sch.Parallel(parts[0]));
  Must(u.sch.Vectorize(parts[1]));
  ExpectSameResults(u.original, u.sch);
}

TEST(ScheduleLoopKind, Bind) {
  Mm t;
  Must(t.sch.Bind(t.l[0], "blockIdx.x"));
  Must(t.sch.Bind(t.l[1], "threadIdx.x"));
  ExpectFunc(t.sch, R"(
func @mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) {
  for i in thread_binding(0, 16, "blockIdx.x") {
    for j in thread_binding(0, 16, "threadIdx.x") {
      for k in range(0, 16) {
        block C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k) {
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
  ExpectSameResults(t.original, t.sch);
  EXPECT_THAT(t.sch.trace().AsPython(),
              ::testing::HasSubstr("sch.bind(loop=l1, thread_axis=\"blockIdx.x\")\n"));
}

TEST(ScheduleLoopKind, BindSameAxisOnSiblingLoops) {
  // Two loop nests one after the other may both use threadIdx.x.
  Schedule sch = MustSchedule(R"(
func @f(A: f32[32], B: f32[32]) {
  for i in range(0, 32) {
    block B(vi: spatial[0, 32] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
  for i2 in range(0, 32) {
    block C(vi: spatial[0, 32] = i2) {
      reads(B[vi])
      writes(A[vi])
      A[vi] = B[vi] * 2.0f32
    }
  }
})");
  PrimFunc original = sch.func();
  Must(sch.Bind(Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0], "threadIdx.x"));
  Must(sch.Bind(Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0], "threadIdx.x"));
  ExpectSameResults(original, sch);
}

// The refusals of parallel, vectorize, unroll and bind are the lit cases of
// tests/lit/schedule/loop-kinds.tsl and loop-kinds-errors.tsl; what the rules
// still allow beside them stays here.
TEST(ScheduleLoopKind, ARerunBlockAllowsItsOwnLoopParallelAndTheOtherUnrolled) {
  // Every iteration of r runs the same instance of B (r cannot be parallel).
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], B: f32[8]) {
  for r in range(0, 4) {
    for j in range(0, 8) {
      block B(vj: spatial[0, 8] = j) {
        reads(A[vj])
        writes(B[vj])
        B[vj] = A[vj] * 2.0f32
      }
    }
  }
})");
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  Must(sch.Parallel(l[1]));  // j is fine.
  Must(sch.Unroll(l[0]));    // Unroll has no independence rule.
}

TEST(ScheduleLoopKind, DependentIterationsStillUnrollAndLocalDataFlowIsParallel) {
  // A block writing one place in every iteration (not parallel) still unrolls.
  Schedule same = MustSchedule(R"(
func @f(A: f32[8], S: f32[1]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(S[0])
      S[0] = A[vi]
    }
  }
})");
  Must(same.Unroll(Must(same.GetLoops(Must(same.GetBlock("B"))))[0]));
  // The same pipeline where Q reads only what P wrote in this iteration.
  Schedule local = MustSchedule(R"(
func @f(A: f32[8], T: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block P(vi: spatial[0, 8] = i) {
      reads(A[vi])
      writes(T[vi])
      T[vi] = A[vi] + 1.0f32
    }
    block Q(vi: spatial[0, 8] = i) {
      reads(T[vi])
      writes(B[vi])
      B[vi] = T[vi] * 3.0f32
    }
  }
})");
  PrimFunc original = local.func();
  Must(local.Parallel(Must(local.GetLoops(Must(local.GetBlock("P"))))[0]));
  ExpectSameResults(original, local);
}

TEST(ScheduleLoopKind, ParallelNeedsNoConstantExtent) {
  Schedule sch = MustSchedule(R"(
func @f(n: i32, A: f32[n], B: f32[n]) {
  for i in range(0, n) {
    block B(vi: spatial[0, n] = i) { reads(A[vi]) writes(B[vi]) B[vi] = A[vi] * 2.0f32 }
  }
})");
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  Must(sch.Parallel(i));  // Threads need no constant trip count (vectorize does).
}

TEST(ScheduleLoopKind, RuleThreadAxes) {
  Mm t;
  ExpectFailsUnchanged(
      t.sch, [&] { return t.sch.Bind(t.l[0], "threadIdx.w"); },
      {"sch.bind(loop=l1, thread_axis=\"threadIdx.w\")", "unknown thread axis 'threadIdx.w'"});
  Must(t.sch.Bind(t.l[0], "threadIdx.x"));
  ExpectFailsUnchanged(
      t.sch, [&] { return t.sch.Bind(t.l[1], "threadIdx.x"); },
      {"loop i around loop j is already bound to threadIdx.x",
       "an axis can be bound only once on a path", ">>   for i in thread_binding"});
  Mm u;
  Must(u.sch.Bind(u.l[1], "vthread"));
  ExpectFailsUnchanged(u.sch, [&] { return u.sch.Bind(u.l[0], "vthread"); },
                       {"loop j inside loop i is already bound to vthread"});
  Must(u.sch.Bind(u.l[0], "blockIdx.y"));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
