// reindex and cache_read: before/after IR, the interpreter on random inputs,
// the trace, and one negative test per rule (the message, and the schedule
// left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr const char* kTranspose = R"(
func @t(A: f32[8, 16], B: f32[16, 8]) {
  for i in range(0, 16) {
    for j in range(0, 8) {
      block B(vi: spatial[0, 16] = i, vj: spatial[0, 8] = j) {
        reads(A[vj, vi])
        writes(B[vi, vj])
        B[vi, vj] = A[vj, vi] * 2.0f32
      }
    }
  }
})";

TEST(ScheduleReindex, ReadFollowsTheIterVars) {
  Schedule sch = MustSchedule(kTranspose);
  PrimFunc original = sch.func();
  BlockRV b = Must(sch.GetBlock("B"));
  BlockRV r = Must(sch.Reindex(b, 0, false));
  ExpectFunc(sch, R"(
func @t(A: f32[8, 16], B: f32[16, 8]) {
  block root() {
    alloc_buffer A_reindex: f32[16, 8]
    for ax0 in range(0, 16) {
      for ax1 in range(0, 8) {
        block A_reindex(v0: spatial[0, 16] = ax0, v1: spatial[0, 8] = ax1) {
          reads(A[v1, v0])
          writes(A_reindex[v0, v1])
          A_reindex[v0, v1] = A[v1, v0]
        }
      }
    }
    for i in range(0, 16) {
      for j in range(0, 8) {
        block B(vi: spatial[0, 16] = i, vj: spatial[0, 8] = j) {
          reads(A_reindex[vi, vj])
          writes(B[vi, vj])
          B[vi, vj] = A_reindex[vi, vj] * 2.0f32
        }
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(r))->name, "A_reindex");
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr("b1 = sch.reindex(block=b0, buffer_index=0, is_write=False)"));
  Schedule replay = MustSchedule(kTranspose);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

// A matmul's output: the reduction accumulates in C_reindex[vi, vj], copied out after.
TEST(ScheduleReindex, WriteOfAReduction) {
  Schedule sch = MustSchedule(MatmulText(6, 7, 5));
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  Must(sch.Reindex(c, 0, true));
  Must(sch.Reindex(c, 1, false));  // B[vk, vj]: dims in iter var order (vj, vk).
  std::string printed = PrintFunction(sch.func(), sch.func_name());
  EXPECT_THAT(printed, ::testing::HasSubstr("alloc_buffer C_reindex: f32[6, 7]"));
  EXPECT_THAT(printed, ::testing::HasSubstr("alloc_buffer B_reindex: f32[7, 5]"));
  EXPECT_THAT(printed, ::testing::HasSubstr("C_reindex[vi, vj] = C_reindex[vi, vj] + A[vi, vk] * "
                                            "B_reindex[vj, vk]"));
  ExpectSameResults(original, sch);
}

// The copy loads only inside A and writes every element of A_reindex (zero
// where the index is outside A, which the block's guard never reads), so the
// whole region the block declares is written.
TEST(ScheduleReindex, PaddedReadIsCopiedInsideAndZeroOutside) {
  Schedule sch = MustSchedule(PaddedReadText());
  PrimFunc original = sch.func();
  Must(sch.Reindex(Must(sch.GetBlock("B")), 0, false));
  ExpectFunc(sch, R"(
func @f(A: f32[6], B: f32[6]) {
  block root() {
    alloc_buffer A_reindex: f32[6, 3]
    for ax0 in range(0, 6) {
      for ax1 in range(0, 3) {
        block A_reindex(v0: spatial[0, 6] = ax0, v1: spatial[0, 3] = ax1) {
          reads(A[v0 - 1 + v1])
          writes(A_reindex[v0, v1])
          if v0 - 1 + v1 >= 0 && v0 - 1 + v1 < 6 {
            A_reindex[v0, v1] = A[v0 - 1 + v1]
          } else {
            A_reindex[v0, v1] = 0.0f32
          }
        }
      }
    }
    for i in range(0, 6) {
      for r in range(0, 3) {
        block B(vi: spatial[0, 6] = i, vr: reduce[0, 3] = r) {
          reads(A_reindex[vi, vr])
          writes(B[vi])
          init {
            B[vi] = 0.0f32
          }
          if vi - 1 + vr >= 0 && vi - 1 + vr < 6 {
            B[vi] = B[vi] + A_reindex[vi, vr]
          }
        }
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  IRModule reparsed = ParseOrDie(PrintFunction(sch.func(), sch.func_name()));
  EXPECT_TRUE(StructuralEqual(reparsed->functions.front().second, sch.func()));
}

// A second copy of the reindexed read (a second reindex, or a cache_read of
// it) copies every element of A_reindex: each must have been written.
TEST(ScheduleReindex, SecondCopyOfAPaddedReadReadsOnlyWrittenElements) {
  Schedule twice = MustSchedule(PaddedReadText());
  PrimFunc original = twice.func();
  BlockRV b = Must(twice.GetBlock("B"));
  Must(twice.Reindex(b, 0, false));
  Must(twice.Reindex(b, 0, false));
  EXPECT_THAT(PrintFunction(twice.func(), twice.func_name()),
              ::testing::HasSubstr("A_reindex_reindex[v0_1, v1_1] = A_reindex[v0_1, v1_1]"));
  ExpectSameResults(original, twice);

  Schedule cached = MustSchedule(PaddedReadText());
  BlockRV c = Must(cached.GetBlock("B"));
  Must(cached.Reindex(c, 0, false));
  Must(cached.CacheRead(c, 0, "local"));
  EXPECT_THAT(PrintFunction(cached.func(), cached.func_name()),
              ::testing::HasSubstr("A_reindex_local[v0_1, v1_1] = A_reindex[v0_1, v1_1]"));
  ExpectSameResults(original, cached);
}

TEST(ScheduleReindex, Rules) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], B: f32[8], C: f32[8]) {
  for i in range(0, 7) {
    block B(vi: spatial[0, 7] = i) {
      reads(A[vi], A[vi + 1], B[vi])
      writes(B[vi])
      B[vi] = A[vi] + A[vi + 1] + B[vi]
    }
  }
  for i_1 in range(0, 8) {
    for k in range(0, 8) {
      block C(vi_1: spatial[0, 8] = i_1, vk: reduce[0, 8] = k) {
        reads(A[vk])
        writes(C[vk])
        init {
          C[vk] = 0.0f32
        }
        C[vk] = C[vk] + A[vk]
      }
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 3, false)); },
                       {"sch.reindex(block=b0, buffer_index=3, is_write=False)",
                        "read buffer index 3 is out of range", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 0, false)); },
                       {"block B accesses buffer A at different indices; reindex needs one "
                        "pattern",
                        ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 2, false)); },
                       {"block B also writes buffer B; reindex it as a write buffer", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(c, 0, true)); },
                       {"block C writes buffer C at an index using reduce iter var vk; reindex "
                        "needs spatial ones",
                        ">>"});
}

TEST(ScheduleReindex, WriteUnderAPredicate) {
  Schedule sch = MustSchedule(kTranspose);
  BlockRV b = Must(sch.GetBlock("B"));
  Must(sch.Split(Must(sch.GetLoops(b))[0], {std::nullopt, 5}));
  ExpectFailsUnchanged(
      sch, [&] { return StatusOf(sch.Reindex(b, 0, true)); },
      {"block B has a predicate; reindex a written buffer before splitting", ">>"});
}

// A loop inside the block (as tensorize's outer block has) indexes the buffer.
TEST(ScheduleReindex, IndicesUseOnlyIterVars) {
  Schedule sch = MustSchedule(R"(
func @l(A: f32[4, 3], B: f32[4]) {
  for i in range(0, 4) {
    block B(vi: spatial[0, 4] = i) {
      reads(A[vi, 0 +: 3])
      writes(B[vi])
      for j in range(0, 3) {
        B[vi] = A[vi, j]
      }
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 0, false)); },
                       {"reindex: block B accesses buffer A at j, which uses a loop of its body",
                        ">>"});
}

// A vector access (tensorize's body) has no scalar index to reindex by.
TEST(ScheduleReindex, IndicesAreScalar) {
  Schedule sch = MustSchedule(R"(
func @v(A: f32[4, 8], B: f32[4, 8]) {
  for i in range(0, 4) {
    block B(vi: spatial[0, 4] = i) {
      reads(A[vi, 0 +: 8])
      writes(B[vi, 0 +: 8])
      B[vi, ramp(0, 1, 8)] = A[vi, ramp(0, 1, 8)]
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 0, false)); },
                       {"reindex: block B accesses buffer A at the vector index", ">>"});
}

// A cache_read copy of a strided read runs only the rows the read uses, not
// its whole domain; the reindex copy would cover the domain, reading elements
// the block never wrote.
TEST(ScheduleReindex, BlockMustRunItsWholeDomain) {
  Schedule sch = MustSchedule(R"(
func @s(A: f32[4, 5], B: f32[2, 5]) {
  for i in range(0, 2) {
    for j in range(0, 5) {
      block B(vi: spatial[0, 2] = i, vj: spatial[0, 5] = j) {
        reads(A[vi * 2, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi * 2, vj] + 1.0f32
      }
    }
  }
})");
  Must(sch.CacheRead(Must(sch.GetBlock("B")), 0, "local"));
  BlockRV copy = Must(sch.GetBlock("A_local"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(copy, 0, true)); },
                       {"reindex: block A_local does not run every point of its domain once",
                        ">>"});
}

// After blockize the accesses are the inner block's, at its iter vars.
TEST(ScheduleReindex, NotOfAnOuterBlock) {
  Schedule sch = MustSchedule(kTranspose);
  BlockRV outer = Must(sch.Blockize(Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0]));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(outer, 0, true)); },
                       {"holds inner block B, whose iter vars index B; reindex the inner block",
                        ">>"});
}

// After decompose_reduction the update block reads its accumulator without
// an init (declared in its reads); blockize makes it the only writer
// of its scope. A new buffer in the accumulator's place would be read before
// it is written: reindex and cache_write refuse.
TEST(ScheduleReindex, DecomposedUpdateWithoutInitIsRefused) {
  Schedule sch = MustSchedule(RowReductionText(
      "r(A: f32[4, 5], B: f32[4])", {"i in range(0, 4)", "k in range(0, 5)"},
      "B(vi: spatial[0, 4] = i, vk: reduce[0, 5] = k)"));
  BlockRV b = Must(sch.GetBlock("B"));
  Must(sch.DecomposeReduction(b, Must(sch.GetLoops(b))[0]));
  Must(sch.Blockize(Must(sch.GetLoops(b))[0]));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Reindex(b, 0, true)); },
                       {"reindex: block B reads buffer B, which it writes, without an init: its "
                        "reindex buffer would be read before it is written",
                        ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheWrite(b, 0, "local")); },
                       {"block B reads buffer B, which it writes, without an init: its cache "
                        "would be read before it is written",
                        ">>"});
}

// cache_read: the copy covers what the readers read, before the first one.
TEST(ScheduleCacheRead, MatmulOperandIntoShared) {
  Schedule sch = MustSchedule(MatmulText(16, 16, 16));
  PrimFunc original = sch.func();
  BlockRV c = Must(sch.GetBlock("C"));
  BlockRV a = Must(sch.CacheRead(c, 0, "shared"));
  ExpectFunc(sch, R"(
func @mm(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) {
  block root() {
    alloc_buffer A_shared: f32[16, 16] scope "shared"
    for ax0 in range(0, 16) {
      for ax1 in range(0, 16) {
        block A_shared(v0: spatial[0, 16] = ax0, v1: spatial[0, 16] = ax1) {
          reads(A[v0, v1])
          writes(A_shared[v0, v1])
          A_shared[v0, v1] = A[v0, v1]
        }
      }
    }
    for i in range(0, 16) {
      for j in range(0, 16) {
        for k in range(0, 16) {
          block C(vi: spatial[0, 16] = i, vj: spatial[0, 16] = j, vk: reduce[0, 16] = k) {
            reads(A_shared[vi, vk], B[vk, vj])
            writes(C[vi, vj])
            init {
              C[vi, vj] = 0.0f32
            }
            C[vi, vj] = C[vi, vj] + A_shared[vi, vk] * B[vk, vj]
          }
        }
      }
    }
  }
})");
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(a))->name, "A_shared");
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr(
                  "b1 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\")"));
}

// Two readers inside one loop: the copy goes in that loop, covering one row.
TEST(ScheduleCacheRead, ReadersInOneLoopShareACopyThere) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8, 6], B: f32[8, 6], C: f32[8, 6]) {
  for i in range(0, 8) {
    for j in range(0, 6) {
      block B(vi: spatial[0, 8] = i, vj: spatial[0, 6] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj] + 1.0f32
      }
    }
    for j_1 in range(0, 6) {
      block C(vi_1: spatial[0, 8] = i, vj_1: spatial[0, 6] = j_1) {
        reads(A[vi_1, vj_1])
        writes(C[vi_1, vj_1])
        C[vi_1, vj_1] = A[vi_1, vj_1] * 2.0f32
      }
    }
  }
})");
  PrimFunc original = sch.func();
  Must(sch.CacheRead(Must(sch.GetBlock("C")), 0, "local"));
  std::string printed = PrintFunction(sch.func(), sch.func_name());
  EXPECT_THAT(printed, ::testing::HasSubstr("for ax0 in range(0, 1)"));
  EXPECT_THAT(printed, ::testing::HasSubstr("block A_local(v0: spatial[0, 8] = i + ax0"));
  EXPECT_THAT(printed, ::testing::HasSubstr("B[vi, vj] = A_local[vi, vj] + 1.0f32"));
  ExpectSameResults(original, sch);
}

TEST(ScheduleCacheRead, Rules) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], D: f32[8]) {
  block root() {
    alloc_buffer T: f32[8]
    for i in range(0, 8) {
      block R(vi: spatial[0, 8] = i) {
        reads(T[vi])
        writes(D[vi])
        D[vi] = T[vi]
      }
    }
    for i_1 in range(0, 8) {
      block T(vi_1: spatial[0, 8] = i_1) {
        reads(A[vi_1], T[vi_1])
        writes(T[vi_1])
        T[vi_1] = A[vi_1]
      }
    }
  }
})");
  BlockRV r = Must(sch.GetBlock("R"));
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheRead(r, 1, "local")); },
                       {"read buffer index 1 is out of range: block R reads 1 buffer (T)", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheRead(r, 0, "l1")); },
                       {"unknown storage scope 'l1'", ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheRead(t, 1, "local")); },
                       {"block T also writes buffer T; cache_read stages only a buffer the block "
                        "reads (use cache_write)",
                        ">>"});
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.CacheRead(r, 0, "local")); },
                       {"block T writes buffer T after the copy's place", ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
