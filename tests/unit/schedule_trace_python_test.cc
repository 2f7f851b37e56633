// Reading traces back from Python (ir/schedule/trace_python.h): traces of real
// schedules print, parse and print again to the same text and the same JSON,
// and replay to the same function; every refusal names its line and column.
//
//   b0 = sch.get_block(name="C")        parse -> Trace -> AsPython -> the same line
//   l1, = sch.get_loops(block=b0 + 1)   -> t.py:2:30: expected ',' or ')' after an argument ...
#include <cmath>

#include "ir/schedule/schedule_registry.h"
#include "ir/schedule/trace_python.h"
#include "ir/te/workloads.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

const std::string kMatmul = MatmulText(32, 32, 32);

// The loop primitives, both samplers, and annotations by handle and by literal.
Schedule Tiled() {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  std::vector<ExprRV> t = Must(sch.SamplePerfectTile(l[0], 2, 8));
  std::vector<LoopRV> i = Must(sch.Split(l[0], {t[0], t[1]}));
  std::vector<LoopRV> j = Must(sch.Split(l[1], {std::nullopt, 8}));
  Must(sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  LoopRV f = Must(sch.Fuse({i[0], j[0]}));
  Must(sch.Parallel(f));
  Must(sch.Vectorize(j[1]));
  ExprRV u = Must(sch.SampleCategorical({0, 16, 64}, {0.25, 0.25, 0.5}));
  Must(sch.Annotate(l[2], "unroll_max", u));
  Must(sch.Annotate(c, "note", AttrValue("tiled \"C\"\n\tby\\hand")));
  Must(sch.Annotate(c, "weights",
                    AttrValue(AttrValue::List{AttrValue(0.1), AttrValue(-2.5e-07), AttrValue(1e+20),
                                              AttrValue(3.0)})));
  Must(sch.Annotate(
      c, "mixed",
      AttrValue(AttrValue::List{AttrValue(int64_t{-7}), AttrValue(true), AttrValue("x")})));
  return sch;
}

// Caching, compute location (a sampled one, whose decision may be negative),
// and a reduction split off its init.
Schedule Staged() {
  Schedule sch = MustSchedule(kMatmul);
  BlockRV c = Must(sch.GetBlock("C"));
  BlockRV cw = Must(sch.CacheWrite(c, 0, "local"));
  BlockRV cr = Must(sch.CacheRead(c, 0, "local"));
  std::vector<LoopRV> l = Must(sch.GetLoops(c));
  Must(sch.ReverseComputeAt(cw, l[1], /*preserve_unit_loops=*/true));
  Must(sch.SampleComputeLocation(cr, -1));
  Must(sch.DecomposeReduction(c, l[2]));
  Must(sch.Unroll(l[2]));
  return sch;
}

// Prints, parses and prints again; the parsed trace is the same instructions
// (its JSON, which keeps inputs, attrs and decisions apart, is the same).
Trace ExpectRoundTrip(const Trace& trace) {
  const std::string text = trace.AsPython();
  Trace back = Must(ParseTracePython(text, "t.py"));
  EXPECT_EQ(back.AsPython(), text);
  EXPECT_EQ(Must(back.ToJson()), Must(trace.ToJson()));
  return back;
}

TEST(ScheduleTracePython, RealSchedulesRoundTripAndReplay) {
  for (const Schedule& sch : {Tiled(), Staged()}) {
    Trace back = ExpectRoundTrip(sch.trace());
    Schedule fresh = MustSchedule(kMatmul, /*seed=*/99);
    Must(back.ApplyToSchedule(&fresh));
    EXPECT_TRUE(StructuralEqual(fresh.func(), sch.func()));
    ExpectSameResults(MustSchedule(kMatmul).func(), fresh);
  }
  // Every registered schedule function, on a matmul it applies to.
  IRModule mm = Must(te::BuildWorkload("matmul_64x64x64_f32"));
  int applied = 0;
  for (const std::string& name : ScheduleRegistry::Global().Names()) {
    Schedule sch = Must(Schedule::Create(mm));
    absl::StatusOr<bool> ok = ScheduleRegistry::Global().Lookup(name)->fn(sch);
    if (!ok.ok() || !*ok) continue;
    ++applied;
    ExpectRoundTrip(sch.trace());
  }
  EXPECT_GE(applied, 1);
}

TEST(ScheduleTracePython, WhatThePrinterWritesReadsBack) {
  // NaN and the infinities print as float(...) calls: the one call read as a literal.
  Trace special({Instruction{"get_block", {}, {{"name", AttrValue("C")}}, {RV{'b', 0}}, {}},
                 Instruction{"annotate",
                             {TraceValue(RV{'b', 0})},
                             {{"ann_key", AttrValue("x")},
                              {"ann_val", AttrValue(AttrValue::List{AttrValue(std::nan("")),
                                                                    AttrValue(INFINITY),
                                                                    AttrValue(-INFINITY)})}},
                             {},
                             std::nullopt}});
  const std::string text = special.AsPython();
  EXPECT_THAT(text,
              ::testing::HasSubstr("ann_val=[float(\"nan\"), float(\"inf\"), float(\"-inf\")])"));
  EXPECT_EQ(Must(ParseTracePython(text)).AsPython(), text);
  // One result prints as a one-element tuple where the kind returns a tuple.
  Schedule sch = MustSchedule(
      InPlaceText("f(A: f32[8])", {"i in range(0, 8)"}, "B(vi: spatial[0, 8] = i)", "vi"));
  Must(sch.GetLoops(Must(sch.GetBlock("B"))));
  EXPECT_THAT(sch.trace().AsPython(), ::testing::HasSubstr("l1, = sch.get_loops(block=b0)"));
  ExpectRoundTrip(sch.trace());
}

TEST(ScheduleTracePython, HandWrittenLayoutIsRead) {
  // Comments, blank lines, indentation, single quotes, trailing commas, a call
  // continued over lines, and inputs given out of order.
  Trace t = Must(ParseTracePython(R"(
      # tile i by 8
      b0 = sch.get_block(name='C')
      l1, l2, l3 = sch.get_loops(block=b0)

      l4, l5 = sch.split(factors=[None, 8,],
                         loop=l1)  # inner 8
      sch.reorder(l4, l2,
                  l5, l3,)
  )",
                                  "hand.py"));
  EXPECT_EQ(t.AsPython(),
            "b0 = sch.get_block(name=\"C\")\n"
            "l1, l2, l3 = sch.get_loops(block=b0)\n"
            "l4, l5 = sch.split(loop=l1, factors=[None, 8])\n"
            "sch.reorder(l4, l2, l5, l3)\n");
}

TEST(ScheduleTracePython, Errors) {
  auto error = [](const std::string& text) {
    absl::StatusOr<Trace> t = ParseTracePython(text, "t.py");
    return t.ok() ? std::string("ok") : std::string(t.status().message());
  };
  const std::string head = "b0 = sch.get_block(name=\"C\")\nl1, l2, l3 = sch.get_loops(block=b0)\n";
  EXPECT_THAT(error(head + "l4, l5 = sch.spilt(loop=l1, factors=[None, 8])\n"),
              ::testing::HasSubstr("t.py:3:14: unknown instruction 'spilt'\n"
                                   "  l4, l5 = sch.spilt(loop=l1, factors=[None, 8])\n"
                                   "               ^"));
  // Wrong literals.
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=[None, 0.5])"),
              ::testing::HasSubstr("t.py:3:35: input 'factors' holds None, ints, handles and "
                                   "lists of those, not the float 0.5"));
  EXPECT_THAT(error("b0 = sch.get_block(name=None)"),
              ::testing::HasSubstr("t.py:1:25: attr 'name' is None; an attr is an int, a float, "
                                   "a bool, a string or a list"));
  EXPECT_THAT(error("b0 = sch.get_block(name=\"C)"),
              ::testing::HasSubstr("t.py:1:25: the string has no closing quote on its line"));
  EXPECT_THAT(error("b0 = sch.get_block(name=\"\\q\")"),
              ::testing::HasSubstr("t.py:1:26: unknown escape '\\q'"));
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=[0x10])"),
              ::testing::HasSubstr("t.py:3:29: malformed number"));
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=[99999999999999999999])"),
              ::testing::HasSubstr("the int 99999999999999999999 does not fit in 64 bits"));
  EXPECT_THAT(error("b0 = sch.get_block(name=true)"),
              ::testing::HasSubstr("t.py:1:25: 'true' is neither a literal nor a handle"));
  // Handles: undefined, defined twice, not a handle name, a handle as an attr.
  EXPECT_THAT(error(head + "sch.parallel(loop=l7)"),
              ::testing::HasSubstr("t.py:3:19: l7 is used before any instruction defines it"));
  EXPECT_THAT(error("l1 = sch.fuse(l1)"),
              ::testing::HasSubstr("t.py:1:15: l1 is used before any instruction defines it"));
  EXPECT_THAT(error(head + "b0 = sch.get_block(name=\"D\")"),
              ::testing::HasSubstr("t.py:3:1: b0 is defined twice"));
  EXPECT_THAT(error("block = sch.get_block(name=\"C\")"),
              ::testing::HasSubstr("t.py:1:1: 'block' is not a handle name (b<n>, l<n> or v<n>)"));
  EXPECT_THAT(error(head + "sch.annotate(block_or_loop=b0, ann_key=l1, ann_val=1)"),
              ::testing::HasSubstr("t.py:3:40: attr 'ann_key' holds the handle l1; handles are "
                                   "inputs"));
  // Not literals: an expression, a call, a tuple, a name.
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=[1+2])"),
              ::testing::HasSubstr("t.py:3:30: expected ',' or ']' in a list, found '+'; a list "
                                   "holds literals and handles, never expressions"));
  EXPECT_THAT(error("b0 = sch.get_block(name=\"C\")\nl1, = sch.get_loops(block=b0 + 1)"),
              ::testing::HasSubstr("t.py:2:30: expected ',' or ')' after an argument"));
  EXPECT_THAT(error(head + "sch.unroll(loop=l1 + 1)"),
              ::testing::HasSubstr("t.py:3:20: expected ',' or ')' after an argument, found '+'; "
                                   "an argument is a literal, a handle or a list of those, never "
                                   "an expression"));
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=[None, int(\"8\")])"),
              ::testing::HasSubstr("t.py:3:35: a call of 'int' is not a literal"));
  EXPECT_THAT(error("import os"),
              ::testing::HasSubstr("t.py:1:8: expected '=' after the result names, found 'os'"));
  EXPECT_THAT(error("print(1)"),
              ::testing::HasSubstr("t.py:1:6: expected '=' after the result names, found '('"));
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=(None, 8))"),
              ::testing::HasSubstr("t.py:3:28: expected an argument (an int, a float, True, "
                                   "False, None, a string, a handle or a list), found '('"));
  EXPECT_THAT(error(head + "sch.parallel(loop=l1); sch.vectorize(loop=l2)"),
              ::testing::HasSubstr("t.py:3:22: expected the end of the line after the call, "
                                   "found ';'"));
  // Arguments the kind does not take that way.
  EXPECT_THAT(error(head + "sch.parallel(l1)"),
              ::testing::HasSubstr("t.py:3:14: sch.parallel takes keyword arguments only "
                                   "(loop=...)"));
  EXPECT_THAT(error(head + "sch.split(loop=l1, loop=l2)"),
              ::testing::HasSubstr("t.py:3:20: the keyword 'loop' is given twice"));
  EXPECT_THAT(error(head + "sch.split(factors=[None, 4])"),
              ::testing::HasSubstr("t.py:3:5: sch.split: input 'loop' is missing"));
  EXPECT_THAT(error(head + "sch.parallel(loop=l1, decision=1)"),
              ::testing::HasSubstr("t.py:3:23: parallel takes no decision"));
  EXPECT_THAT(error(head + "sch.split(loop=l1,\n  factors=[None, 4]\nsch.parallel(loop=l1)"),
              ::testing::HasSubstr("t.py:5:1: expected ',' or ')' after an argument, found "
                                   "'sch'; the '(' at 3:10 is never closed"));
  // Too deep, too long.
  EXPECT_THAT(error(head + "sch.split(loop=l1, factors=" + std::string(100, '[') +
                    std::string(100, ']') + ")"),
              ::testing::HasSubstr("lists nest deeper than 64"));
  std::string long_text(kMaxTracePythonBytes + 1, '\n');
  EXPECT_THAT(error(long_text),
              ::testing::HasSubstr("t.py: 8388609 bytes is more than the 8 MiB a trace may hold"));
  // Nothing but comments is an empty trace.
  EXPECT_TRUE(Must(ParseTracePython("# nothing yet\n\n")).empty());
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
