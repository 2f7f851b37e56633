// compute_at and reverse_compute_at: one negative test for each rule that
// schedule_compute_at_test.cc does not reach (reverse_compute_at shares some
// rules with compute_at; each primitive gets its own test, since its message
// names it). Each shows the message and that the failed call left the module
// and the trace as they were.
#include "absl/strings/str_replace.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// Producer B into T, consumer C of `c_source` (T, or A for no consumer of
// B); `b_iter` and `c_iter` are the blocks' iter var headers, `c_extent` the
// extent of C's loop, `after` statements after C's nest.
struct Pipeline {
  std::string b_iter = "vi: spatial[0, 8] = i";
  std::string c_iter = "vi_1: spatial[0, 8] = i_1";
  std::string c_extent = "8";
  std::string c_source = "T";
  std::string after = "";  // An initializer, so that designated initializers may omit it.

  std::string Text() const {
    return absl::StrCat(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer T: f32[8]
    for i in range(0, 8) {
      block B()", b_iter, R"() {
        reads(A[vi])
        writes(T[vi])
        T[vi] = A[vi] * 2.0f32
      }
    }
    for i_1 in range(0, )", c_extent, R"() {
      block C()", c_iter, R"() {
        reads()", c_source, R"([vi_1])
        writes(C[vi_1])
        C[vi_1] = )", c_source, R"([vi_1] + 1.0f32
      }
    }
    )", after, R"(
  }
})");
  }
};

TEST(ScheduleRulesComputeAt, OpaqueIterVar) {
  Schedule sch = MustSchedule(Pipeline{.b_iter = "vi: opaque[0, 8] = i"}.Text());
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeAt(b, i1); },
                       {"sch.compute_at(block=", "compute_at: block B has opaque iter var vi; its "
                                                 "loops cannot be regenerated",
                        ">>"});
}

TEST(ScheduleRulesComputeAt, NoConsumerUnderTheLoop) {
  Schedule sch = MustSchedule(Pipeline{.c_source = "A"}.Text());
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeAt(b, i1); },
                       {"compute_at: block B has no consumer under loop i_1", ">>"});
}

// C reads only elements of T that B never writes: at C's loop, B has nothing
// to compute.
TEST(ScheduleRulesComputeAt, NeededRangeIsEmpty) {
  Schedule sch = MustSchedule(absl::StrReplaceAll(
      Pipeline{}.Text(), {{"A: f32[8]", "A: f32[16]"},
                          {"alloc_buffer T: f32[8]", "alloc_buffer T: f32[16]"},
                          {"T[vi_1]", "T[vi_1 + 8]"}}));
  BlockRV b = Must(sch.GetBlock("B"));
  LoopRV i1 = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeAt(b, i1); },
                       {"compute_at: the range of iter var vi of block B needed at this loop is "
                        "empty",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeAt, AlreadyUnderTheLoop) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer T: f32[8]
    for i in range(0, 8) {
      block B(vi: spatial[0, 8] = i) {
        reads(A[vi])
        writes(T[vi])
        T[vi] = A[vi] * 2.0f32
      }
      block C(vi_1: spatial[0, 8] = i) {
        reads(T[vi_1])
        writes(C[vi_1])
        C[vi_1] = T[vi_1] + 1.0f32
      }
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV i = Must(sch.GetLoops(c))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeAt(c, i); },
                       {"sch.reverse_compute_at(block=",
                        "reverse_compute_at: block C is already under loop i", ">>"});
}

TEST(ScheduleRulesReverseComputeAt, LoopInAnotherScope) {
  Schedule sch = MustSchedule(Pipeline{}.Text());
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> i = Must(sch.Split(Must(sch.GetLoops(b))[0], {std::nullopt, 4}));
  Must(sch.Blockize(i[1]));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeAt(c, i[1]); },
                       {"reverse_compute_at: loop i_1 is not in the scope of block C (they must "
                        "have the same enclosing block)",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeAt, ConsumerMustRunItsWholeDomain) {
  Schedule sch = MustSchedule(Pipeline{.c_extent = "4"}.Text());
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeAt(c, i); },
                       {"reverse_compute_at: block C does not run every point of its domain once",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeAt, ConsumerIsNotTheOnlyWriter) {
  Schedule sch = MustSchedule(Pipeline{.after = R"(for i_2 in range(0, 8) {
      block D(vi_2: spatial[0, 8] = i_2) {
        reads(C[vi_2])
        writes(C[vi_2])
        C[vi_2] = C[vi_2] * 3.0f32
      }
    })"}.Text());
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeAt(c, i); },
                       {"reverse_compute_at: block C is not the only writer of C", ">>"});
}

// C reads T and U, which the two producers under i_0 write for different
// elements in the same iteration: no one range of C's iter var fits both.
TEST(ScheduleRulesReverseComputeAt, ProducersDisagreeOnTheRange) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], C: f32[8]) {
  block root() {
    alloc_buffer T: f32[8]
    alloc_buffer U: f32[8]
    for i_0 in range(0, 2) {
      for i_1 in range(0, 4) {
        block P(vi: spatial[0, 8] = i_0 * 4 + i_1) {
          reads(A[vi])
          writes(T[vi])
          T[vi] = A[vi] * 2.0f32
        }
      }
      for j in range(0, 4) {
        block Q(vj: spatial[0, 8] = (1 - i_0) * 4 + j) {
          reads(A[vj])
          writes(U[vj])
          U[vj] = A[vj] + 3.0f32
        }
      }
    }
    for k in range(0, 8) {
      block C(vk: spatial[0, 8] = k) {
        reads(T[vk], U[vk])
        writes(C[vk])
        C[vk] = T[vk] + U[vk]
      }
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  LoopRV i0 = Must(sch.GetLoops(Must(sch.GetBlock("P"))))[0];
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeAt(c, i0); },
                       {"reverse_compute_at: the regions produced for block C give iter var vk the "
                        "ranges [i_0 * 4, i_0 * 4 + 3] and [4 - i_0 * 4, 7 - i_0 * 4], which are "
                        "not provably the same",
                        ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
