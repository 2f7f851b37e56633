// Helpers shared by the schedule units (tests/unit/schedule_*_test.cc).
//
//   Schedule sch = MustSchedule(R"(func @f(A: f32[64]) { for i in range(0, 64) { ... } })");
//   LoopRV i = Must(sch.GetLoops(Must(sch.GetBlock("B"))))[0];
//   ExpectFunc(sch, R"(func @f(A: f32[64]) { for i_0 in range(0, 4) { ... } })");
//   ExpectSameResults(sch);          // the original and the scheduled function agree
//   ExpectFailsUnchanged(sch, [&] { return sch.Parallel(k); }, "is reduce");
//
// Expected IR is written as .tsl and compared structurally (names of loop
// variables do not matter; block names do), printing both sides on a mismatch.
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_

#include <array>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"

namespace tessel::ir::schedule::testing {

// Unwraps a StatusOr; an error ends the test with the status message.
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) throw std::runtime_error(std::string(v.status().ToString()));
  return *std::move(v);
}
inline void Must(const absl::Status& s) {
  if (!s.ok()) throw std::runtime_error(std::string(s.ToString()));
}

inline IRModule ParseOrDie(const std::string& text) { return Must(ParseModule(text, "<test>")); }

inline Schedule MustSchedule(const std::string& text, uint64_t seed = 1) {
  return Must(Schedule::Create(ParseOrDie(text), "", seed));
}

// The current function equals the (only) function of `expected` structurally.
inline void ExpectFunc(const Schedule& sch, const std::string& expected) {
  IRModule want = ParseOrDie(expected);
  PrimFunc w = want->functions.front().second;
  absl::Status eq = AssertStructuralEqual(sch.func(), w);
  EXPECT_TRUE(eq.ok()) << eq.message() << "\n--- got:\n"
                       << PrintFunction(sch.func(), sch.func_name()) << "\n--- want:\n"
                       << PrintFunction(w, sch.func_name());
  EXPECT_TRUE(VerifyFunction(sch.func(), sch.func_name()).ok());
}

// The scheduled function computes what `original` computes, on three seeds.
inline void ExpectSameResults(const PrimFunc& original, const Schedule& sch) {
  for (uint64_t seed : {1, 2, 3}) {
    absl::Status s = CheckSameResults(original, sch.func(), seed);
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << PrintFunction(sch.func(), sch.func_name());
  }
}

// `step` fails with a message containing each of `parts`, and leaves the
// schedule's module and trace exactly as they were.
inline void ExpectFailsUnchanged(Schedule& sch, const std::function<absl::Status()>& step,
                                 const std::vector<std::string>& parts) {
  IRModule before = sch.mod();
  size_t trace_size = sch.trace().instructions().size();
  absl::Status s = step();
  ASSERT_FALSE(s.ok()) << "expected a failure";
  for (const std::string& p : parts) {
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(p));
  }
  EXPECT_TRUE(sch.mod().same_as(before)) << "the module changed on failure";
  EXPECT_EQ(sch.trace().instructions().size(), trace_size) << "the trace grew on failure";
}

// ---- Fixture text -------------------------------------------------------------------
// The builders below write the .tsl the schedule units share (a matmul under any
// loop nest, a block updating A in place, elementwise stages), so that a test
// states only what its fixture varies. Indentation is cosmetic: the parser and
// the structural comparison ignore it.

// `text` with every line indented by two more spaces.
inline std::string Indented(const std::string& text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, "  ", line, "\n");
  }
  return out;
}

// A loop (its header: "i in range(0, 8)") holding `stmts` in order.
inline std::string LoopText(const std::string& header, const std::vector<std::string>& stmts) {
  return absl::StrCat("for ", header, " {\n", Indented(absl::StrJoin(stmts, "")), "}\n");
}

// One block under a nest of loops. `loops` are loop headers, outermost first
// ("j in range(0, i + 1)", "i in parallel(0, 16)"); `block` is what follows
// `block `: the name, the iter vars, any where-clause or attrs. No reads line
// when `reads` is empty, an init when `init` is not.
struct BlockNest {  // Every member defaults, so designated initializers may skip any.
  std::vector<std::string> loops = {};
  std::string block = {};
  std::string reads = {}, writes = {};
  std::string init = {};
  std::string body = {};
};

inline std::string BlockNestText(const BlockNest& n) {
  std::string inside;
  if (!n.reads.empty()) absl::StrAppend(&inside, "reads(", n.reads, ")\n");
  absl::StrAppend(&inside, "writes(", n.writes, ")\n");
  if (!n.init.empty()) absl::StrAppend(&inside, "init {\n", Indented(n.init), "}\n");
  absl::StrAppend(&inside, n.body, "\n");
  std::string text = absl::StrCat("block ", n.block, " {\n", Indented(inside), "}\n");
  for (auto l = n.loops.rbegin(); l != n.loops.rend(); ++l) text = LoopText(*l, {text});
  return text;
}

// func @<signature> holding `stmts` in order (BlockNestText, StageText, or any
// statement text). `signature` is the name and parameters: "f(A: f32[8])".
inline std::string FuncText(const std::string& signature, const std::vector<std::string>& stmts) {
  return absl::StrCat("func @", signature, " {\n", Indented(absl::StrJoin(stmts, "")), "}\n");
}

// The same with the statements in a root block that allocates `allocs`
// ("T: f32[8, 6]", "T_local: f32[8] scope \"local\"").
inline std::string RootFuncText(const std::string& signature,
                                const std::vector<std::string>& allocs,
                                const std::vector<std::string>& stmts) {
  std::string body;
  for (const std::string& a : allocs) absl::StrAppend(&body, "alloc_buffer ", a, "\n");
  absl::StrAppend(&body, absl::StrJoin(stmts, ""));
  return FuncText(signature, {absl::StrCat("block root() {\n", Indented(body), "}\n")});
}

// The f32 matmul C[vi, vj] += A[vi, vk] * B[vk, vj] (with C's init) as block C
// under `loops`, its iter vars vi, vj, vk bound to `bindings`: the shape loop
// transforms of the matmul leave. `attrs` are the function's, if any.
//   MatmulNestText({"k in range(0, 16)", "j in range(0, 16)", "i in range(0, 16)"},
//                  {"i", "j", "k"})          // the 16x16x16 matmul with i and k swapped
struct MatmulShape {
  int64_t m = 16, n = 16, k = 16;
  std::string name = "mm";
  std::string attrs = {};
};

inline std::string MatmulNestText(const std::vector<std::string>& loops,
                                  const std::array<std::string, 3>& bindings,
                                  const MatmulShape& s = {}) {
  std::string signature = absl::StrCat(s.name, "(A: f32[", s.m, ", ", s.k, "], B: f32[", s.k, ", ",
                                       s.n, "], C: f32[", s.m, ", ", s.n, "])");
  if (!s.attrs.empty()) absl::StrAppend(&signature, " attrs {", s.attrs, "}");
  return FuncText(
      signature,
      {BlockNestText({.loops = loops,
                      .block = absl::StrCat("C(vi: spatial[0, ", s.m, "] = ", bindings[0],
                                            ", vj: spatial[0, ", s.n, "] = ", bindings[1],
                                            ", vk: reduce[0, ", s.k, "] = ", bindings[2], ")"),
                      .reads = "A[vi, vk], B[vk, vj]",
                      .writes = "C[vi, vj]",
                      .init = "C[vi, vj] = 0.0f32",
                      .body = "C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]"})});
}

// The matmul over serial loops i, j, k: the fixture most schedule tests start from.
inline std::string MatmulText(int64_t m, int64_t n, int64_t k, const std::string& name = "mm") {
  return MatmulNestText(
      {absl::StrCat("i in range(0, ", m, ")"), absl::StrCat("j in range(0, ", n, ")"),
       absl::StrCat("k in range(0, ", k, ")")},
      {"i", "j", "k"}, {.m = m, .n = n, .k = k, .name = name});
}

// A function whose one block (`block`: name, iter vars, any where-clause)
// updates A in place at `index`, A[index] = A[index] <update>, under `loops`:
// the fixture rule tests bend (bindings, bounds, loop kinds) to trip one rule.
//   InPlaceText("f(A: f32[8])", {"i in range(0, 8)"}, "B(vi: opaque[0, 8] = i)", "vi")
inline std::string InPlaceText(const std::string& signature, const std::vector<std::string>& loops,
                               const std::string& block, const std::string& index,
                               const std::string& update = "+ 1.0f32") {
  const std::string a = absl::StrCat("A[", index, "]");
  return FuncText(signature, {BlockNestText({.loops = loops,
                                             .block = block,
                                             .reads = a,
                                             .writes = a,
                                             .body = absl::StrCat(a, " = ", a, " ", update)})});
}

// The in-place update over the triangle j <= i of an 8x8 A: loop j's bounds
// use loop i, which reorder, fuse and blockize each refuse.
inline std::string TriangularText(const std::string& name = "f") {
  return InPlaceText(absl::StrCat(name, "(A: f32[8, 8])"),
                     {"i in range(0, 8)", "j in range(0, i + 1)"},
                     "B(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j)", "vi, vj");
}

// Loop i holding two nests: block B copying A into B over loop j, then block
// C setting A[vi, vj] = `c_value` over loop j2 in range(0, `j2_extent`). No nest
// runs through both j and j2, so no loop below i is perfectly nested in it.
inline std::string SiblingNestsText(const std::string& j2_extent, const std::string& c_value) {
  return FuncText(
      "f(A: f32[8, 8], B: f32[8, 8])",
      {LoopText("i in range(0, 8)",
                {BlockNestText({.loops = {"j in range(0, 8)"},
                                .block = "B(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j)",
                                .reads = "A[vi, vj]",
                                .writes = "B[vi, vj]",
                                .body = "B[vi, vj] = A[vi, vj]"}),
                 BlockNestText({.loops = {absl::StrCat("j2 in range(0, ", j2_extent, ")")},
                                .block = "C(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j2)",
                                .reads = "B[vi, vj]",
                                .writes = "A[vi, vj]",
                                .body = absl::StrCat("A[vi, vj] = ", c_value)})})});
}

// A reduction of A's rows into out[vi]: block `block` (name, iter vars vi and
// vk) under `loops`, with the init out[vi] = `init` and the update
// out[vi] = `update` (by default out[vi] + A[vi, vk]).
//   RowReductionText("f(A: f32[8, 8], S: f32[8])", {"i in range(0, 8)", "k in range(0, 8)"},
//                    "S(vi: spatial[0, 8] = i, vk: reduce[0, 8] = 7 - k)", "S")
inline std::string RowReductionText(const std::string& signature,
                                    const std::vector<std::string>& loops, const std::string& block,
                                    const std::string& out = "B",
                                    const std::string& init = "0.0f32", std::string update = "") {
  const std::string o = absl::StrCat(out, "[vi]");
  if (update.empty()) update = absl::StrCat(o, " + A[vi, vk]");
  return FuncText(signature, {BlockNestText({.loops = loops,
                                             .block = block,
                                             .reads = "A[vi, vk]",
                                             .writes = o,
                                             .init = absl::StrCat(o, " = ", init),
                                             .body = absl::StrCat(o, " = ", update)})});
}

// An elementwise stage: block `block` over the box `extents`, loop d
// (`loop_vars[d] in range(0, extents[d])`) bound to the spatial iter var
// `iter_vars[d]`, and the one statement `body`:
//   StageText("T", {8, 6}, "A[vi, vj]", "T[vi, vj]", "T[vi, vj] = A[vi, vj] * 2.0f32")
// `block_attrs` and `loop_attrs` (the outermost loop's) are written as attrs {...}.
struct StageOptions {
  std::vector<std::string> loop_vars = {"i", "j", "k"};
  std::vector<std::string> iter_vars = {"vi", "vj", "vk"};
  std::string block_attrs = {}, loop_attrs = {};
};

inline std::string StageText(const std::string& block, const std::vector<int64_t>& extents,
                             const std::string& reads, const std::string& writes,
                             const std::string& body, const StageOptions& o = {}) {
  std::vector<std::string> loops, vars;
  for (size_t d = 0; d < extents.size(); ++d) {
    loops.push_back(absl::StrCat(o.loop_vars.at(d), " in range(0, ", extents[d], ")"));
    vars.push_back(
        absl::StrCat(o.iter_vars.at(d), ": spatial[0, ", extents[d], "] = ", o.loop_vars[d]));
  }
  if (!o.loop_attrs.empty()) absl::StrAppend(&loops[0], " attrs {", o.loop_attrs, "}");
  std::string header = absl::StrCat(block, "(", absl::StrJoin(vars, ", "), ")");
  if (!o.block_attrs.empty()) absl::StrAppend(&header, " attrs {", o.block_attrs, "}");
  return BlockNestText(
      {.loops = loops, .block = header, .reads = reads, .writes = writes, .body = body});
}

template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& v) {
  return v.status();
}
inline absl::Status StatusOf(const absl::Status& s) { return s; }

// A padded read, guarded in the block by the condition that the index is
// inside A.
inline std::string PaddedReadText() {
  return R"(
func @f(A: f32[6], B: f32[6]) {
  for i in range(0, 6) {
    for r in range(0, 3) {
      block B(vi: spatial[0, 6] = i, vr: reduce[0, 3] = r) {
        reads(A[vi - 1 + vr])
        writes(B[vi])
        init {
          B[vi] = 0.0f32
        }
        if vi - 1 + vr >= 0 && vi - 1 + vr < 6 {
          B[vi] = B[vi] + A[vi - 1 + vr]
        }
      }
    }
  }
})";
}

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_TEST_UTIL_H_
