// cache_read, cache_write and reindex: one negative test for each rule that
// schedule_cache_{reindex,write,scope}_test.cc do not reach. Each shows the
// message and that the failed call left the module and the trace as they were.
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// B's reads name A, but its body loads only S: reindex has no access of A to
// take the indices from.
TEST(ScheduleRulesReindex, DeclaredBufferNeverAccessed) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[8], S: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    block B(vi: spatial[0, 8] = i) {
      reads(A[vi], S[vi])
      writes(B[vi])
      B[vi] = S[vi] + 1.0f32
    }
  }
})");
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return sch.Reindex(b, 0, /*is_write=*/false).status(); },
                       {"sch.reindex(block=", "block B declares buffer A but never accesses it",
                        ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
