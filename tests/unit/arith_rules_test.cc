// The rule table and its pattern language: every rule parses, has a unique
// name and fires on an example (no dead rules); the language's syntax errors;
// matching (commutative operands, repeated variables, constants); and the
// checks every rule gets for free (side effects, types, overflow).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/pattern.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::C;
using testing::Fd;
using testing::Fm;
using ::testing::HasSubstr;
using testing::I32;
using testing::Str;
using testing::operator+;
using testing::operator-;
using testing::operator*;

struct Example {
  const char* rule;
  Expr input;
  const char* output;  // After the whole simplifier.
};

TEST(Rules, EveryRuleFiresOnItsExample) {
  Var x = I32("x"), y = I32("y"), z = I32("z");
  Var p = MakeVar("p", DataType::Bool()), q = MakeVar("q", DataType::Bool());
  const std::vector<Example> examples = {
      {"min-of-max", Min(Max(x, y), x), "x"},
      {"max-of-min", Max(y, Min(x, y)), "y"},
      {"min-of-min", Min(Min(x, y), y), "min(y, x)"},
      {"max-of-max", Max(x, Max(y, x)), "max(x, y)"},
      {"min-min-const", Min(Min(x, C(5)), C(3)), "min(x, 3)"},
      {"max-max-const", Max(Max(x, C(2)), C(7)), "max(x, 7)"},
      {"min-common-add", Min(x + y, z + x), "x + min(y, z)"},
      {"max-common-add", Max(y + x, x + z), "x + max(y, z)"},
      {"min-common-sub", Min(x - y, x - z), "x - max(y, z)"},
      {"max-common-sub", Max(x - y, x - z), "x - min(y, z)"},
      {"min-scaled", Min(x * 4, y * 4), "min(x, y) * 4"},
      {"max-scaled", Max(x * 2, y * 2), "max(x, y) * 2"},
      {"min-common-sub", Min(x * -3, y * -3), "0 - max(x, y) * 3"},  // 0 - x*3, 0 - y*3
      {"min-floordiv", Min(Fd(x, 4), Fd(y, 4)), "min(x, y) // 4"},
      {"max-floordiv", Max(Fd(x, 4), Fd(y, 4)), "max(x, y) // 4"},
      {"floordiv-cancel", FloorDiv(x * y, y), "x"},
      {"floormod-cancel", FloorMod(y * x, y), "0"},
      {"floordiv-of-zero", FloorDiv(C(0), y), "0"},
      {"floormod-of-zero", FloorMod(C(0), y), "0"},
      {"floordiv-lt", LT(Fd(x, 4), C(3)), "x < 12"},
      {"lt-floordiv", LT(C(3), Fd(x, 4)), "15 < x"},
      {"not-not", Not(Not(p)), "p"},
      // x and z are unbounded: x + 1 and z - 1 may wrap, so the comparisons
      // keep their sides (y is bounded, see below).
      {"not-lt", Not(LT(x, z)), "z <= x"},
      {"not-le", Not(LE(x + 1, z - 1)), "z - 1 < x + 1"},
      {"not-gt", Not(GT(x + 1, z)), "x < z"},
      {"not-ge", Not(GE(x + 1, z)), "x + 1 < z"},
      {"not-eq", Not(EQ(x, z)), "x != z"},
      {"not-ne", Not(NE(x, z)), "x == z"},
      {"and-true", And(p, Bool(true)), "p"},
      {"and-false", And(p, Bool(false)), "false"},
      {"or-true", Or(Bool(true), p), "true"},
      {"or-false", Or(p, Bool(false)), "p"},
      {"select-same", Select(p, x + 1, x + 1), "x + 1"},
      {"select-not", Select(Not(p), x, y), "select(p, y, x)"},
      {"select-min", Select(LT(x, y), x, y), "min(x, y)"},
      {"select-max", Select(LT(x, y), y, x), "max(x, y)"},
  };
  absl::flat_hash_set<std::string> covered;
  for (const Example& ex : examples) {
    RuleCounts counts;
    Analyzer ana;
    ana.Bind(y, ConstIntBound::Range(1, 100));  // A divisor that is never 0.
    ana.set_rule_counts(&counts);
    EXPECT_EQ(Str(ana.Simplify(ex.input)), ex.output) << ex.rule << ": " << Str(ex.input);
    EXPECT_GE(counts[ex.rule], 1) << ex.rule << " did not fire on " << Str(ex.input);
    covered.insert(ex.rule);
  }
  absl::flat_hash_set<std::string> names;
  for (const RewriteRule& r : IndexRules().rules()) {
    EXPECT_TRUE(names.insert(r.name()).second) << "rule listed twice: " << r.name();
    EXPECT_TRUE(covered.contains(r.name())) << "rule without an example: " << r.name();
  }
  (void)q;
}

TEST(Rules, WorkDoneOutsideTheTable) {
  // What looks like a missing rule is decided by bounds or by the context.
  Var x = I32("x");
  Var p = MakeVar("p", DataType::Bool());
  Analyzer ana;
  EXPECT_EQ(Str(ana.Simplify(Min(x, x))), "x");
  EXPECT_EQ(Str(ana.Simplify(And(p, p))), "p");
  EXPECT_EQ(Str(ana.Simplify(Or(p, Not(p)))), "true");
  EXPECT_EQ(Str(ana.Simplify(And(Not(p), p))), "false");
}

TEST(Rules, PatternSyntaxErrors) {
  auto error = [](const char* text) {
    absl::StatusOr<RewriteRule> r = RewriteRule::Parse("r", text);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_EQ(error("min(x, y) => x"), "ok");
  EXPECT_THAT(error("min(x, y) x"), HasSubstr("expected '=>'"));
  EXPECT_THAT(error("min(x, y) => z"), HasSubstr("variable 'z' is not bound by the left side"));
  EXPECT_THAT(error("x => x"), HasSubstr("the left side must be an operation"));
  EXPECT_THAT(error("min(x) => x"), HasSubstr("min takes 2 operands"));
  EXPECT_THAT(error("(x + y => x"), HasSubstr("expected ')'"));
  EXPECT_THAT(error("x + => x"), HasSubstr("expected an operand at column 5"));
  EXPECT_THAT(error("x + y => x y"), HasSubstr("unexpected text"));
  EXPECT_THAT(error("-x + y => x"), HasSubstr("'-' applies to integer literals only"));
  EXPECT_THAT(error("a+b+c+d+e+f+g+h+i+j+k+l+m => a"), HasSubstr("too many variables"));
}

TEST(Rules, MatchingCommutesAndBindsConsistently) {
  Var x = I32("x"), y = I32("y");
  Analyzer ana;
  RewriteRule r = ParseRuleOrDie("t", "x * c1 + x * c2 => x * (c1 + c2)");
  EXPECT_EQ(Str(*r.Apply(x * 2 + x * 3, ana)), "x * 5");
  EXPECT_EQ(Str(*r.Apply(Mul(C(2), x) + Mul(x, C(3)), ana)), "x * 5");
  EXPECT_FALSE(r.Apply(x * 2 + y * 3, ana));      // x must match the same expression twice.
  EXPECT_FALSE(r.Apply(x * y + x * 3, ana));      // c1 must be a constant.
  EXPECT_FALSE(r.Apply(Sub(x * 2, x * 3), ana));  // A different operator.
  // A match that fails late backtracks into the other operand order.
  RewriteRule s = ParseRuleOrDie("s", "x * y + x => x * (y + 1)");
  EXPECT_EQ(Str(*s.Apply(y * x + x, ana)), "x * (y + 1)");
  // Constants fold exactly; a result that does not fit rejects the rule.
  RewriteRule big = ParseRuleOrDie("b", "x * c1 + c2 => x + c1 * c2");
  EXPECT_FALSE(big.Apply(x * 65536 + IntImm32(65536), ana));
}

TEST(Rules, NeverDropOrRepeatACall) {
  Var y = I32("y");
  Expr call = ValueOrDie(MakeCall(DataType::Int(32), CallNode::Callee::kExtern, "f", {}));
  Analyzer ana;
  RewriteRule drop = ParseRuleOrDie("d", "x * 0 + y => y");
  EXPECT_FALSE(drop.Apply(call * 0 + y, ana));
  EXPECT_TRUE(drop.Apply(y * 0 + y, ana));
  RewriteRule repeat = ParseRuleOrDie("r", "x - y => x * 2 - y - x");
  EXPECT_FALSE(repeat.Apply(call - y, ana));
  EXPECT_TRUE(repeat.Apply(y - call, ana));
  // The simplifier keeps calls too: f() - f() is not 0, f() * 0 keeps the call.
  EXPECT_EQ(Str(ana.Simplify(call - call)), "@f(): i32 - @f(): i32");
  EXPECT_EQ(Str(ana.Simplify(call * 0 + 1)), "@f(): i32 * 0 + 1");
  EXPECT_EQ(Str(ana.Simplify(Select(Bool(true), y, call))), "select(true, y, @f(): i32)");
}

TEST(Rules, OnlyIndexTypes) {
  DataType f32 = DataType::Float(32);
  Var a = MakeVar("a", f32), b = MakeVar("b", f32);
  Analyzer ana;
  // !(a < b) is not b <= a for floats (NaN).
  EXPECT_EQ(Str(ana.Simplify(Not(LT(a, b)))), "!(a < b)");
  EXPECT_EQ(Str(ana.Simplify(Min(a, a))), "min(a, a)");
  Var u = MakeVar("u", DataType::UInt(32));
  EXPECT_EQ(
      Str(ana.Simplify(Min(u * IntImm(DataType::UInt(32), 2), u * IntImm(DataType::UInt(32), 2)))),
      "min(u * 2u32, u * 2u32)");
}

TEST(Rules, CheckedOverflowModeGuardsValueDependentRules) {
  Var x = I32("x"), y = I32("y"), z = I32("z");
  RewriteRule r = ParseRuleOrDie("m", "min(x + y, x + z) => x + min(y, z)");
  Analyzer checked(AnalyzerOptions{.assume_no_overflow = false});
  // x + y may wrap for unknown i32 values; then min of wrapped sums differs.
  EXPECT_FALSE(r.Apply(Min(x + y, x + z), checked));
  checked.Bind(x, testing::R(0, 100));
  checked.Bind(y, testing::R(0, 100));
  checked.Bind(z, testing::R(0, 100));
  EXPECT_TRUE(r.Apply(Min(x + y, x + z), checked));
  // New operands of value-dependent operations must fit in both modes.
  RewriteRule n = ParseRuleOrDie("n", "min(x, y) => min(x + 1, y + 1) - 1");
  Analyzer assume;
  Var w = I32("w");
  EXPECT_FALSE(n.Apply(Min(w, z), assume));
  assume.Bind(w, testing::R(0, 10));
  assume.Bind(z, testing::R(0, 10));
  EXPECT_TRUE(n.Apply(Min(w, z), assume));
}

}  // namespace
}  // namespace tessel::ir::arith
