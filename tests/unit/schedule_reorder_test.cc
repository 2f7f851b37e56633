// reorder and tile: before/after IR, the interpreter on random inputs, and one
// negative test per rule (the message, and the schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kMatmul = MatmulText(16, 16, 16);

TEST(ScheduleReorder, GivenLoopsTakeTheirPositionsOthersStay) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  Must(sch.Reorder({l[2], l[0]}));
  ExpectFunc(sch, MatmulNestText({"k in range(0, 16)", "j in range(0, 16)", "i in range(0, 16)"},
                                 {"i", "j", "k"}));
  ExpectSameResults(original, sch);
  // Handles follow their loops.
  EXPECT_EQ(Must(sch.Get(l[0]))->loop_var->name, "i");
  Must(sch.Reorder({l[0], l[1], l[2]}));
  ExpectFunc(sch, kMatmul);
  // Already in this order: nothing changes, not even the module object.
  IRModule before = sch.mod();
  Must(sch.Reorder({l[1], l[2]}));
  EXPECT_TRUE(sch.mod().same_as(before));
}

TEST(ScheduleReorder, AfterSplits) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {std::nullopt, 4}));
  std::vector<LoopRV> k = Must(sch.Split(l[2], {std::nullopt, 8}));
  Must(sch.Reorder({i[0], k[0], l[1], k[1], i[1]}));
  ExpectFunc(sch, MatmulNestText({"i_0 in range(0, 4)", "k_0 in range(0, 2)", "j in range(0, 16)",
                                  "k_1 in range(0, 8)", "i_1 in range(0, 4)"},
                                 {"i_0 * 4 + i_1", "j", "k_0 * 8 + k_1"}));
  ExpectSameResults(original, sch);
}

TEST(ScheduleTile, SplitsAndReordersLevelByLevel) {
  Schedule sch = MustSchedule(kMatmul);
  PrimFunc original = sch.func();
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  std::vector<LoopRV> t = Must(sch.Tile({l[0], l[1]}, {{std::nullopt, 4}, {std::nullopt, 8}}));
  ASSERT_EQ(t.size(), 4u);
  ExpectFunc(sch, MatmulNestText({"i_0 in range(0, 4)", "j_0 in range(0, 2)", "i_1 in range(0, 4)",
                                  "j_1 in range(0, 8)", "k in range(0, 16)"},
                                 {"i_0 * 4 + i_1", "j_0 * 8 + j_1", "k"}));
  ExpectSameResults(original, sch);
  // Traced as its parts.
  EXPECT_EQ(sch.trace().AsPython(),
            "b0 = sch.get_block(name=\"C\")\n"
            "l1, l2, l3 = sch.get_loops(block=b0)\n"
            "l4, l5 = sch.split(loop=l1, factors=[None, 4])\n"
            "l6, l7 = sch.split(loop=l2, factors=[None, 8])\n"
            "sch.reorder(l4, l6, l5, l7)\n");
}

TEST(ScheduleTile, FailureUndoesEveryPart) {
  Schedule sch = MustSchedule(kMatmul);
  std::vector<LoopRV> l = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  // The first split would succeed; the second fails: nothing may remain.
  ExpectFailsUnchanged(
      sch,
      [&] {
        return StatusOf(sch.Tile({l[0], l[1]}, {{std::nullopt, 4}, {0, std::nullopt}}));
      },
      {"sch.tile(loops=[l1, l2], factors=[[None, 4], [0, None]])", "factor 0 is 0"});
  EXPECT_EQ(Must(sch.Get(l[0]))->loop_var->name, "i");  // Not consumed after all.
  ExpectFailsUnchanged(sch, [&] { return StatusOf(sch.Tile({l[0]}, {})); },
                       {"tile needs one factor list per loop"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return StatusOf(sch.Tile({l[0], l[1]}, {{4, 4}, {16}}));
                       },
                       {"tile needs factor lists of one length, at least 2"});
}

TEST(ScheduleReorder, RulePathAndPerfectNest) {
  Schedule sch = MustSchedule(SiblingNestsText("8", "B[vi, vj] + 1.0f32"));
  std::vector<LoopRV> b = Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  std::vector<LoopRV> c = Must(sch.GetLoops(Must(sch.GetBlock("C"))));
  ExpectFailsUnchanged(
      sch,
      [&] {
        return sch.Reorder({b[1], c[1]});
      },
      {"sch.reorder(l", "loop j2 is not inside loop j", "reorder needs loops on one path"});
  ExpectFailsUnchanged(sch,
                       [&] {
                         return sch.Reorder({b[1], b[0]});
                       },
                       {"the body of loop i is not a single loop",
                        "reorder needs perfectly nested loops", ">>   for i in range(0, 8) {"});
  ExpectFailsUnchanged(sch, [&] { return sch.Reorder({b[1], b[1]}); }, {"loop j is given twice"});
  std::vector<LoopRV> parts = Must(sch.Split(b[1], {2, 4}));
  ExpectFailsUnchanged(sch,
                       [&] {
                         return sch.Reorder({b[1], parts[0]});
                       },
                       {"loop handle l", "was consumed by split"});
}

TEST(ScheduleReorder, RuleBlockBindings) {
  // Opaque iter var bound to the loops.
  Schedule opaque =
      MustSchedule(InPlaceText("f(A: f32[8, 8])", {"i in range(0, 8)", "j in range(0, 8)"},
                               "B(vi: opaque[0, 8] = i, vj: spatial[0, 8] = j)", "vi, vj"));
  std::vector<LoopRV> o = Must(opaque.GetLoops(Must(opaque.GetBlock("B"))));
  ExpectFailsUnchanged(opaque,
                       [&] {
                         return opaque.Reorder({o[1], o[0]});
                       },
                       {"iter var vi of block B (bound to i) is opaque", ">>       block B("});
  // A binding that is not affine in the loops.
  Schedule nonaffine =
      MustSchedule(InPlaceText("f(A: f32[64])", {"i in range(0, 8)", "j in range(0, 8)"},
                               "B(vi: spatial[0, 64] = i * j)", "vi"));
  std::vector<LoopRV> n = Must(nonaffine.GetLoops(Must(nonaffine.GetBlock("B"))));
  ExpectFailsUnchanged(nonaffine,
                       [&] {
                         return nonaffine.Reorder({n[1], n[0]});
                       },
                       {"the bindings of block B are not an affine map of its loops",
                        "i * j: multiplies two iterators"});
  // A reduction running backwards: reordering could run its init last.
  Schedule backwards = MustSchedule(
      RowReductionText("f(A: f32[8, 8], S: f32[8])", {"i in range(0, 8)", "k in range(0, 8)"},
                       "S(vi: spatial[0, 8] = i, vk: reduce[0, 8] = 7 - k)", "S"));
  std::vector<LoopRV> r = Must(backwards.GetLoops(Must(backwards.GetBlock("S"))));
  // Refused by iter-map detection (a negative scale) or by the rule that reduce
  // bindings grow with their loops, whichever sees it first.
  ExpectFailsUnchanged(backwards, [&] { return backwards.Reorder({r[1], r[0]}); },
                       {"sch.reorder(l2, l1): ", "block S", "7 - k", ">>       block S("});
  // One loop feeding two iter vars with overlapping digits.
  Schedule twice =
      MustSchedule(InPlaceText("f(A: f32[8, 8])", {"i in range(0, 8)", "j in range(0, 8)"},
                               "B(vi: spatial[0, 8] = i, vj: spatial[0, 8] = i %% 4)", "vi, vj"));
  std::vector<LoopRV> w = Must(twice.GetLoops(Must(twice.GetBlock("B"))));
  ExpectFailsUnchanged(twice,
                       [&] {
                         return twice.Reorder({w[1], w[0]});
                       },
                       {"the bindings of block B are not an affine map of its loops",
                        "loop variable i is used twice"});
  // Loop bounds that depend on another loop of the nest.
  Schedule tri = MustSchedule(TriangularText());
  std::vector<LoopRV> t = Must(tri.GetLoops(Must(tri.GetBlock("B"))));
  ExpectFailsUnchanged(tri,
                       [&] {
                         return tri.Reorder({t[1], t[0]});
                       },
                       {"the bounds of loop j use a loop of the nest being reordered"});
  // A fused spatial-and-reduce loop, split: moving its inner part outside would
  // run some of a row's updates before the update its init precedes.
  Schedule mixed = MustSchedule(kMatmul);
  std::vector<LoopRV> m = Must(mixed.GetLoops(Must(mixed.GetBlock("C"))));
  Must(mixed.Reorder({m[0], m[2], m[1]}));
  LoopRV fused = Must(mixed.Fuse({m[0], m[2]}));
  std::vector<LoopRV> parts = Must(mixed.Split(fused, {std::nullopt, 4}));
  ExpectFailsUnchanged(mixed, [&] { return mixed.Reorder({parts[1], parts[0]}); },
                       {"feeds both spatial iter var vi and reduce iter var vk of block C",
                        "could run an update before the init"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
