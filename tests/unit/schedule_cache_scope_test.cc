// set_scope and storage_align: before/after IR, the interpreter on random
// inputs, the trace, and one negative test per rule (the message, and the
// schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// T = A * 2 feeding D = T + 1 over 8x6, T allocated as `alloc` (its shape and
// any scope) and block T carrying the attrs `t_attrs`.
std::string TwoStages(const std::string& alloc, const std::string& t_attrs) {
  return RootFuncText("f(A: f32[8, 6], D: f32[8, 6])", {alloc},
                      {StageText("T", {8, 6}, "A[vi, vj]", "T[vi, vj]",
                                 "T[vi, vj] = A[vi, vj] * 2.0f32", {.block_attrs = t_attrs}),
                       StageText("D", {8, 6}, "T[vi_1, vj_1]", "D[vi_1, vj_1]",
                                 "D[vi_1, vj_1] = T[vi_1, vj_1] + 1.0f32",
                                 {.loop_vars = {"i_1", "j_1"}, .iter_vars = {"vi_1", "vj_1"}})});
}

const std::string kTwoStages = TwoStages("T: f32[8, 6]", "");

TEST(ScheduleSetScope, MovesTheBufferEverywhere) {
  Schedule sch = MustSchedule(kTwoStages);
  PrimFunc original = sch.func();
  BlockRV t = Must(sch.GetBlock("T"));
  Must(sch.SetScope(t, 0, "shared"));
  ExpectFunc(sch, TwoStages("T: f32[8, 6] scope \"shared\"", ""));
  ExpectSameResults(original, sch);
  EXPECT_THAT(
      sch.trace().AsPython(),
      ::testing::HasSubstr("sch.set_scope(block=b0, buffer_index=0, storage_scope=\"shared\")"));
  // The same scope again changes nothing.
  IRModule before = sch.mod();
  Must(sch.SetScope(t, 0, "shared"));
  EXPECT_TRUE(sch.mod().same_as(before));
}

TEST(ScheduleSetScope, Rules) {
  Schedule sch = MustSchedule(kTwoStages);
  BlockRV t = Must(sch.GetBlock("T"));
  BlockRV d = Must(sch.GetBlock("D"));
  ExpectFailsUnchanged(sch, [&] { return sch.SetScope(t, 1, "local"); },
                       {"sch.set_scope(block=b0, buffer_index=1, storage_scope=\"local\")",
                        "write buffer index 1 is out of range: block T writes 1 buffer (T)", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.SetScope(t, 0, "register"); },
                       {"unknown storage scope 'register'", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.SetScope(d, 0, "local"); },
                       {"buffer D is a parameter of the function; only a buffer the function "
                        "allocates can change its scope",
                        ">>"});
}

TEST(ScheduleStorageAlign, RecordsTheAnnotation) {
  Schedule sch = MustSchedule(kTwoStages);
  PrimFunc original = sch.func();
  BlockRV t = Must(sch.GetBlock("T"));
  Must(sch.StorageAlign(t, 0, 0, 32, 1));
  ExpectFunc(sch, TwoStages("T: f32[8, 6]", "buffer_dim_align = [[[0, 32, 1]]]"));
  // Another axis adds an entry; the same axis again replaces it.
  Must(sch.StorageAlign(t, 0, -1, 8, 0));
  Must(sch.StorageAlign(t, 0, 0, 16, 3));
  ExpectFunc(sch, TwoStages("T: f32[8, 6]", "buffer_dim_align = [[[0, 16, 3], [1, 8, 0]]]"));
  ExpectSameResults(original, sch);
  EXPECT_THAT(sch.trace().AsPython(),
              ::testing::HasSubstr(
                  "sch.storage_align(block=b0, buffer_index=0, axis=0, factor=32, offset=1)"));
  Schedule replay = MustSchedule(kTwoStages);
  Must(Must(Trace::FromJson(Must(sch.trace().ToJson()))).ApplyToSchedule(&replay));
  EXPECT_TRUE(StructuralEqual(replay.func(), sch.func()));
}

TEST(ScheduleStorageAlign, Rules) {
  Schedule sch = MustSchedule(kTwoStages);
  BlockRV t = Must(sch.GetBlock("T"));
  BlockRV d = Must(sch.GetBlock("D"));
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 2, 0, 32, 1); },
                       {"write buffer index 2 is out of range", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(d, 0, 0, 32, 1); },
                       {"buffer D is a parameter of the function", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 0, 2, 32, 1); },
                       {"axis 2 is out of range for buffer T of 2 dimensions", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 0, -3, 32, 1); },
                       {"axis -3 is out of range"});
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 0, 0, 0, 0); },
                       {"factor 0 must be at least 1", ">>"});
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 0, 0, 8, 8); },
                       {"offset 8 must be in [0, factor) = [0, 8)", ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
