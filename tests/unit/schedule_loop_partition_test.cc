// loop_partition: before/after IR, the interpreter on random inputs, one
// negative test per rule (the message, and the schedule left unchanged), and
// the trace as Python and JSON. The primitive is called only through
// Schedule::Apply: it was added as one declaration (docs/schedule.md "Adding a
// primitive") and has no shorthand.
#include "ir/schedule/primitive/loop_partition.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

using primitive::LoopPartition;

// B = A + 1 over 100 elements, then C = B * 2 in its own nest.
const char* kTwoNests = R"(func @f(A: f32[100], B: f32[100], C: f32[100]) {
  for i in range(0, 100) {
    block B(vi: spatial[0, 100] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
  for i2 in range(0, 100) {
    block C(vi: spatial[0, 100] = i2) {
      reads(B[vi])
      writes(C[vi])
      C[vi] = B[vi] * 2.0f32
    }
  }
})";

const char* kPartitioned = R"(func @f(A: f32[100], B: f32[100], C: f32[100]) {
  for i_0 in range(0, 96) {
    block B_0(vi: spatial[0, 100] = i_0) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
  for i_1 in range(0, 4) {
    block B_1(vi: spatial[0, 100] = i_1 + 96) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
  for i2 in range(0, 100) {
    block C(vi: spatial[0, 100] = i2) {
      reads(B[vi])
      writes(C[vi])
      C[vi] = B[vi] * 2.0f32
    }
  }
})";

LoopRV FirstLoop(Schedule& sch, const std::string& block) {
  return Must(sch.GetLoops(Must(sch.GetBlock(block))))[0];
}

TEST(ScheduleLoopPartition, MainPartAndTail) {
  Schedule sch = MustSchedule(kTwoNests);
  PrimFunc original = sch.func();
  LoopRV i = FirstLoop(sch, "B");
  std::vector<LoopRV> pieces = Must(sch.Apply(LoopPartition{i, {96, std::nullopt}}));
  ASSERT_EQ(pieces.size(), 2u);
  ExpectFunc(sch, kPartitioned);
  ExpectSameResults(original, sch);
  EXPECT_EQ(Must(sch.Get(pieces[1]))->loop_var->name, "i_1");
  EXPECT_EQ(sch.trace().instructions().back().ToPython(),
            "l2, l3 = sch.loop_partition(loop=l1, factors=[96, None])");
  // The copied block's handle is consumed; the pieces' blocks have new names.
  EXPECT_FALSE(sch.GetLoops(BlockRV{0}).ok());
  EXPECT_TRUE(sch.GetBlock("B_1").ok());
}

TEST(ScheduleLoopPartition, ReplaysFromJsonOntoAnEqualFunction) {
  Schedule sch = MustSchedule(kTwoNests);
  Must(sch.Apply(LoopPartition{FirstLoop(sch, "C"), {10, 20, std::nullopt}}));
  Trace back = Must(Trace::FromJson(Must(sch.trace().ToJson())));
  Schedule other = MustSchedule(kTwoNests);
  ASSERT_TRUE(back.ApplyToSchedule(&other).ok());
  EXPECT_EQ(PrintFunction(other.func(), "f"), PrintFunction(sch.func(), "f"));
  ExpectSameResults(MustSchedule(kTwoNests).func(), other);
}

TEST(ScheduleLoopPartition, InnerLoopsAndSplitPredicatesAreCopied) {
  // A split loop under the partitioned one: the inner loop and the predicate
  // are copied with fresh variables; the interpreter checks the result.
  Schedule sch = MustSchedule(kTwoNests);
  PrimFunc original = sch.func();
  std::vector<LoopRV> s = Must(sch.Split(FirstLoop(sch, "B"), {std::nullopt, 16}));
  Must(sch.Apply(LoopPartition{s[0], {std::nullopt, 1}}));
  ExpectSameResults(original, sch);
  EXPECT_TRUE(sch.GetBlock("B_0").ok() && sch.GetBlock("B_1").ok());
}

TEST(ScheduleLoopPartition, Refusals) {
  Schedule sch = MustSchedule(kTwoNests);
  LoopRV i = FirstLoop(sch, "B");
  auto partition = [&](std::vector<Factor> f) {
    return [&sch, i, f] { return StatusOf(sch.Apply(LoopPartition{i, f})); };
  };
  ExpectFailsUnchanged(sch, partition({100}), {"loop_partition needs at least two factors"});
  ExpectFailsUnchanged(
      sch, partition({std::nullopt, std::nullopt}),
      {"sch.loop_partition(loop=l1, factors=[None, None])", "at most one factor may be None"});
  ExpectFailsUnchanged(sch, partition({0, std::nullopt}), {"factors must be positive"});
  ExpectFailsUnchanged(sch, partition({60, 60}), {"add up to more than the extent 100"});
  ExpectFailsUnchanged(sch, partition({60, 30}), {"add up to 90, not to the extent 100"});
  ExpectFailsUnchanged(sch, partition({100, std::nullopt}), {"the inferred piece would be empty"});
  Must(sch.Parallel(i));
  ExpectFailsUnchanged(sch, partition({50, 50}),
                       {"is parallel; partition only serial loops", ">>"});
}

TEST(ScheduleLoopPartition, RefusesABodyThatAllocates) {
  Schedule sch = MustSchedule(R"(func @h(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block S() {
      alloc_buffer T: f32[1]
      block W(vi: spatial[0, 8] = i) {
        reads(A[vi])
        writes(T[0])
        T[0] = A[vi]
      }
      block R(vi: spatial[0, 8] = i) {
        reads(T[0])
        writes(B[vi])
        B[vi] = T[0] * 2.0f32
      }
    }
  }
})");
  LoopRV i = FirstLoop(sch, "S");
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.Apply(LoopPartition{i, {4, 4}}));
                       },
                       {"allocates a buffer, which the pieces would share", ">>"});
}

TEST(ScheduleLoopPartition, RefusesASymbolicExtent) {
  Schedule sch = MustSchedule(R"(func @g(A: f32[n], B: f32[n], n: i32) {
  for i in range(0, n) {
    block B(vi: spatial[0, n] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi]
    }
  }
})");
  LoopRV i = FirstLoop(sch, "B");
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.Apply(LoopPartition{i, {4, std::nullopt}}));
                       },
                       {"has no constant extent"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
