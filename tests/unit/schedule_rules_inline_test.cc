// compute_inline and reverse_compute_inline: one negative test for each rule
// that schedule_compute_inline_test.cc does not reach. Each shows the message
// and that the failed call left the module and the trace as they were.
#include "absl/strings/str_join.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// A function of `params` whose root block allocates B: f32[8] and holds `nests`.
std::string Root(const std::string& params, const std::vector<std::string>& nests) {
  return absl::StrCat("func @f(", params, ") {\n  block root() {\n    alloc_buffer B: f32[8]\n",
                      absl::StrJoin(nests, "\n"), "\n  }\n}");
}

// One loop `loop` around one block `header` with `body`.
std::string Nest(const std::string& loop, const std::string& header, const std::string& body) {
  return absl::StrCat(loop, " {\n", header, " {\n", body, "\n}\n}");
}

// The producer B = A * 2 (or `body`) over i.
std::string Producer(const std::string& body = "reads(A[vi])\n writes(B[vi])\n B[vi] = A[vi] * 2.0f32") {
  return Nest("for i in range(0, 8)", "block B(vi: spatial[0, 8] = i)", body);
}

// The consumer C = B + 1 over i_1, its loop extent and domain `n`, its load
// index `idx`.
std::string Consumer(const std::string& n = "8", const std::string& idx = "vi_1") {
  return Nest(absl::StrCat("for i_1 in range(0, ", n, ")"),
              absl::StrCat("block C(vi_1: spatial[0, ", n, "] = i_1)"),
              absl::StrCat("reads(B[", idx, "])\n writes(C[vi_1])\n C[vi_1] = B[", idx,
                           "] + 1.0f32"));
}

TEST(ScheduleRulesComputeInline, BlockWithBlocksInside) {
  Schedule sch = MustSchedule(Root("A: f32[8], C: f32[8]", {Producer(), Consumer()}));
  BlockRV b = Must(sch.GetBlock("B"));
  std::vector<LoopRV> i = Must(sch.Split(Must(sch.GetLoops(b))[0], {std::nullopt, 4}));
  BlockRV outer = Must(sch.Blockize(i[1]));
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeInline(outer); },
                       {"sch.compute_inline(block=", "compute_inline: block B_o has blocks inside it",
                        ">>"});
}

TEST(ScheduleRulesComputeInline, BodyIsNotOneStore) {
  Schedule sch = MustSchedule(Root(
      "A: f32[8], C: f32[8]",
      {Producer("reads(A[vi])\n writes(B[vi])\n if vi < 4 {\n B[vi] = A[vi]\n } else {\n"
                " B[vi] = 0.0f32\n }"),
       Consumer()}));
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeInline(b); },
                       {"compute_inline: the body of block B is not a single buffer store", ">>"});
}

TEST(ScheduleRulesComputeInline, ValueUsesAnIterVarTheStoreDoesNotIndex) {
  Schedule sch = MustSchedule(
      Root("A: f32[8, 4], C: f32[8]",
           {Nest("for i in range(0, 8) {\nfor j in range(0, 4)",
                 "block B(vi: spatial[0, 8] = i, vj: spatial[0, 4] = j)",
                 "reads(A[vi, vj])\n writes(B[vi])\n B[vi] = A[vi, vj]") + "\n}",
            Consumer()}));
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.ComputeInline(b); },
      {"compute_inline: the value stored by block B uses iter var vj, which is not an index of "
       "the store",
       ">>"});
}

TEST(ScheduleRulesComputeInline, BlockReadsTheBufferItWrites) {
  Schedule sch = MustSchedule(
      Root("A: f32[8], C: f32[8]",
           {Producer("reads(B[vi])\n writes(B[vi])\n B[vi] = B[vi] * 2.0f32"), Consumer()}));
  BlockRV b = Must(sch.GetBlock("B"));
  ExpectFailsUnchanged(sch, [&] { return sch.ComputeInline(b); },
                       {"compute_inline: block B reads the buffer B it writes", ">>"});
}

TEST(ScheduleRulesReverseComputeInline, LoadIndexIsNotAnIterVar) {
  Schedule sch =
      MustSchedule(Root("A: f32[8], C: f32[8]", {Producer(), Consumer("8", "7 - vi_1")}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeInline(c); },
                       {"sch.reverse_compute_inline(block=",
                        "reverse_compute_inline: block C reads B at 7 - vi_1; each index must be "
                        "a distinct iter var of the block",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeInline, NotEveryIterVarIndexesTheLoad) {
  Schedule sch = MustSchedule(Root(
      "A: f32[8], C: f32[8, 2]",
      {Producer(), Nest("for i_1 in range(0, 8) {\nfor j in range(0, 2)",
                        "block C(vi_1: spatial[0, 8] = i_1, vj: spatial[0, 2] = j)",
                        "reads(B[vi_1])\n writes(C[vi_1, vj])\n C[vi_1, vj] = B[vi_1] + 1.0f32") +
                       "\n}"}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeInline(c); },
                       {"not every iter var of block C indexes its load of B, so its instances do "
                        "not map onto the producer's",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeInline, DomainsMustSpanTheBuffer) {
  Schedule sch = MustSchedule(Root("A: f32[8], C: f32[4]", {Producer(), Consumer("4")}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeInline(c); },
                       {"the domains of block C and its producer do not both span B's shape", ">>"});
}

TEST(ScheduleRulesReverseComputeInline, ConsumerMustRunItsWholeDomain) {
  Schedule sch = MustSchedule(Root(
      "A: f32[8], C: f32[8]",
      {Producer(), Nest("for i_1 in range(0, 4)", "block C(vi_1: spatial[0, 8] = i_1)",
                        "reads(B[vi_1])\n writes(C[vi_1])\n C[vi_1] = B[vi_1] + 1.0f32")}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeInline(c); },
                       {"reverse_compute_inline: block C does not run every point of its domain "
                        "once",
                        ">>"});
}

TEST(ScheduleRulesReverseComputeInline, BlockBetweenTouchesTheConsumersBuffers) {
  Schedule sch = MustSchedule(Root(
      "A: f32[8], C: f32[8], E: f32[8]",
      {Producer(),
       Nest("for i_2 in range(0, 8)", "block X(vi_2: spatial[0, 8] = i_2)",
            "reads(C[vi_2])\n writes(E[vi_2])\n E[vi_2] = C[vi_2]"),
       Consumer()}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.ReverseComputeInline(c); },
                       {"reverse_compute_inline: block X between the producer and block C touches "
                        "a buffer block C reads or writes",
                        ">>"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
