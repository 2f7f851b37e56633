// Seeded property tests of the simplifier and the bounds on random integer
// expressions (+ - * / % // %% min max select, comparisons and logic, constants
// and a few bounded variables), evaluated at random points:
// - assume-no-overflow mode: wherever the original expression does not overflow
//   (checked by exact evaluation), the simplified one computes the same value in
//   the interpreter, and the bound of the original contains that value;
// - checked-overflow mode, with edge constants that do overflow: the simplified
//   expression computes exactly what the original computes in the interpreter,
//   wrapping included, and the bound contains every value the interpreter gives;
// - simplifying twice changes nothing more.
#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/stmt_simplify.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::Env;
using testing::Str;

struct VarSpec {
  Var var;
  int64_t lo, hi;  // Inclusive.
};

class ExprGen {
 public:
  ExprGen(uint32_t seed, std::vector<VarSpec> vars, bool edges)
      : rng_(seed), vars_(std::move(vars)), edges_(edges) {}

  Expr Int(int depth) {
    if (depth == 0 || Pick(5) == 0) return Leaf();
    switch (Pick(14)) {
      case 0:
      case 1: return Add(Int(depth - 1), Int(depth - 1));
      case 2: return Sub(Int(depth - 1), Int(depth - 1));
      case 3: return Mul(Int(depth - 1), Pick(2) ? Const() : Int(depth - 1));
      case 4: return FloorDiv(Int(depth - 1), Divisor());
      case 5: return FloorMod(Int(depth - 1), Divisor());
      case 6: return Div(Int(depth - 1), Divisor());
      case 7: return Mod(Int(depth - 1), Divisor());
      case 8: return Min(Int(depth - 1), Int(depth - 1));
      case 9: return Max(Int(depth - 1), Int(depth - 1));
      case 10: return Select(Bool(depth - 1), Int(depth - 1), Int(depth - 1));
      case 11: return Mul(Int(depth - 1), Const());
      default: return Add(Mul(Int(depth - 1), Const()), Int(depth - 1));
    }
  }

  // Index-like: affine sums with power-of-two scales under division and
  // modulo by powers of two, the shapes split and fuse produce.
  Expr Index(int depth) {
    if (depth == 0 || Pick(4) == 0) {
      Expr sum = IntImm32(Pick(40) - 20);
      for (const VarSpec& v : vars_) {
        const int64_t scales[] = {0, 1, 2, 4, 8, 16, -1, 3};
        int64_t c = scales[Pick(8)];
        if (c != 0) sum = Add(Mul(v.var, IntImm32(c)), sum);
      }
      return sum;
    }
    const int64_t pow2[] = {2, 4, 8, 16};
    Expr c = IntImm32(pow2[Pick(4)]);
    switch (Pick(8)) {
      case 0: return FloorDiv(Index(depth - 1), c);
      case 1: return FloorMod(Index(depth - 1), c);
      case 2: {
        Expr a = Index(depth - 1);
        return Add(Mul(FloorDiv(a, c), c), FloorMod(a, c));
      }
      case 3: return Add(Index(depth - 1), Mul(Index(depth - 1), c));
      case 4: return Sub(Index(depth - 1), FloorMod(Index(depth - 1), c));
      case 5: return Min(Index(depth - 1), Index(depth - 1));
      case 6: return Div(Index(depth - 1), c);
      default: return FloorDiv(FloorMod(Index(depth - 1), Mul(c, IntImm32(4))), c);
    }
  }

  Expr Bool(int depth) {
    if (depth <= 0 || Pick(4) != 0) {
      Expr a = Int(std::max(depth - 1, 0)), b = Int(std::max(depth - 1, 0));
      switch (Pick(6)) {
        case 0: return LT(a, b);
        case 1: return LE(a, b);
        case 2: return GT(a, b);
        case 3: return GE(a, b);
        case 4: return EQ(a, b);
        default: return NE(a, b);
      }
    }
    switch (Pick(3)) {
      case 0: return And(Bool(depth - 1), Bool(depth - 1));
      case 1: return Or(Bool(depth - 1), Bool(depth - 1));
      default: return Not(Bool(depth - 1));
    }
  }

  int Pick(int n) { return static_cast<int>(rng_() % n); }

 private:
  Expr Leaf() {
    if (Pick(3) != 0) return vars_[Pick(static_cast<int>(vars_.size()))].var;
    return Const();
  }
  Expr Const() {
    if (edges_ && Pick(6) == 0) {
      const int64_t e[] = {2147483647, -2147483647 - 1, 2147483646, 1 << 30, -(1 << 30)};
      return IntImm32(e[Pick(5)]);
    }
    const int64_t common[] = {1, 2, 4, 8, 16, 32, 64, 3, 7, 100};
    if (Pick(3) == 0) return IntImm32(common[Pick(10)]);
    return IntImm32(Pick(21) - 10);
  }
  Expr Divisor() {
    const int64_t d[] = {1, 2, 3, 4, 8, 16, -1, -2, -3, -4, 5, 7, 32};
    if (edges_ && Pick(8) == 0) return IntImm32(Pick(2) ? -2147483647 - 1 : 2147483647);
    return IntImm32(d[Pick(13)]);
  }

  std::mt19937 rng_;
  std::vector<VarSpec> vars_;
  bool edges_;
};

struct Checked {
  int exprs = 0, changed = 0, samples = 0;
};

// Simplifies a batch of expressions in one analyzer and compares, at random
// points, the original against the simplified one.
void CheckBatch(uint32_t seed, bool assume_no_overflow, bool bind_ranges, bool edges,
                Checked* stats) {
  std::vector<VarSpec> vars = {
      {testing::I32("i"), 0, 15}, {testing::I32("j"), -8, 7}, {testing::I32("k"), 0, 99}};
  ExprGen gen(seed, vars, edges);
  Analyzer ana(AnalyzerOptions{.assume_no_overflow = assume_no_overflow});
  if (bind_ranges) {
    for (const VarSpec& v : vars) ana.Bind(v.var, testing::R(v.lo, v.hi - v.lo + 1));
  }
  std::vector<Expr> originals, simplified;
  for (int n = 0; n < 8; ++n) {
    int kind = gen.Pick(6);
    Expr e = kind == 0   ? gen.Bool(3)
             : kind < 3  ? gen.Index(3)
             : kind == 3 ? LT(gen.Index(2), gen.Index(2))
                         : gen.Int(4);
    Expr s = ana.Simplify(e);
    ASSERT_EQ(s->dtype, e->dtype) << Str(e);
    Expr again = ana.Simplify(s);
    EXPECT_TRUE(ExprIdentical(again, s))
        << "not idempotent: " << Str(e) << "\n  -> " << Str(s) << "\n  -> " << Str(again);
    originals.push_back(e);
    simplified.push_back(s);
    stats->changed += !ExprIdentical(s, e);
  }
  stats->exprs += static_cast<int>(originals.size());
  // Points in the ranges (edges included); without bound ranges also far outside.
  std::vector<std::vector<int64_t>> samples;
  std::mt19937 rng(seed * 7919 + 1);
  for (int s = 0; s < 48; ++s) {
    std::vector<int64_t> row;
    for (const VarSpec& v : vars) {
      int64_t span = v.hi - v.lo + 1;
      int64_t x = v.lo + static_cast<int64_t>(rng() % span);
      if (s < 2) x = s == 0 ? v.lo : v.hi;
      if (!bind_ranges && rng() % 4 == 0) {
        const int64_t far[] = {2147483647, -2147483647 - 1, 1 << 20, -(1 << 20), 65536};
        x = far[rng() % 5];
      }
      row.push_back(x);
    }
    samples.push_back(std::move(row));
  }
  std::vector<Expr> all = originals;
  all.insert(all.end(), simplified.begin(), simplified.end());
  std::vector<Var> var_list;
  for (const VarSpec& v : vars) var_list.push_back(v.var);
  std::optional<std::vector<std::vector<int64_t>>> got =
      testing::EvalInInterpreter(all, var_list, samples);
  ASSERT_TRUE(got.has_value());
  const size_t m = originals.size();
  for (size_t r = 0; r < samples.size(); ++r) {
    Env env;
    for (size_t v = 0; v < vars.size(); ++v) env[vars[v].var.get()] = samples[r][v];
    for (size_t k = 0; k < m; ++k) {
      int64_t orig = (*got)[r][k], simp = (*got)[r][m + k];
      ConstIntBound b = ana.GetConstIntBound(originals[k]);
      std::string where =
          "seed " + std::to_string(seed) + " at i=" + std::to_string(samples[r][0]) +
          " j=" + std::to_string(samples[r][1]) + " k=" + std::to_string(samples[r][2]) + "\n  " +
          Str(originals[k]) + "\n  -> " + Str(simplified[k]);
      if (assume_no_overflow) {
        std::optional<int64_t> exact = testing::EvalExact(originals[k], env);
        if (!exact) continue;  // The original overflows here: outside the assumption.
        ++stats->samples;
        EXPECT_EQ(simp, *exact) << where;
        EXPECT_TRUE(b.contains(*exact))
            << "bound " << b.ToString() << " misses " << *exact << " " << where;
      } else {
        ++stats->samples;
        EXPECT_EQ(simp, orig) << where;
        EXPECT_TRUE(b.contains(orig))
            << "bound " << b.ToString() << " misses " << orig << " " << where;
      }
    }
  }
}

TEST(ArithProperty, SimplifyKeepsValuesAssumingNoOverflow) {
  Checked stats;
  for (uint32_t seed = 0; seed < 300; ++seed) CheckBatch(seed, true, true, false, &stats);
  EXPECT_GT(stats.changed, stats.exprs / 3) << "the generator should give the simplifier work";
  EXPECT_GT(stats.samples, stats.exprs * 24);
}

TEST(ArithProperty, SimplifyKeepsValuesWithUnboundedVariables) {
  Checked stats;
  for (uint32_t seed = 1000; seed < 1200; ++seed) CheckBatch(seed, true, false, false, &stats);
  EXPECT_GT(stats.changed, stats.exprs / 4);
}

TEST(ArithProperty, CheckedModeKeepsWrappingResults) {
  Checked stats;
  for (uint32_t seed = 2000; seed < 2300; ++seed)
    CheckBatch(seed, false, seed % 2 == 0, true, &stats);
  EXPECT_GT(stats.changed, stats.exprs / 4);
}

// Trees over every scalar type with edge constants and loads (as the simplify
// pass sees arbitrary code): in the checked mode the simplified function
// computes exactly what the original does in the interpreter.
class TypedTreeGen {
 public:
  TypedTreeGen(uint32_t seed, DataType t, Buffer a) : rng_(seed), t_(t), a_(std::move(a)) {}

  Expr Gen(int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf();
    switch (Pick(t_.is_float() ? 7 : 12)) {
      case 0: return Add(Gen(depth - 1), Gen(depth - 1));
      case 1: return Sub(Gen(depth - 1), Gen(depth - 1));
      case 2: return Mul(Gen(depth - 1), Gen(depth - 1));
      case 3: return Min(Gen(depth - 1), Gen(depth - 1));
      case 4: return Max(Gen(depth - 1), Gen(depth - 1));
      case 5: return Select(LT(Gen(depth - 1), Gen(depth - 1)), Gen(depth - 1), Gen(depth - 1));
      case 6:
        return Select(And(NE(Gen(depth - 1), Leaf()), Not(GE(Leaf(), Gen(depth - 1)))),
                      Gen(depth - 1), Leaf());
      case 7: return Div(Gen(depth - 1), NonZero());
      case 8: return Mod(Gen(depth - 1), NonZero());
      case 9: return FloorDiv(Gen(depth - 1), NonZero());
      case 10: return FloorMod(Gen(depth - 1), NonZero());
      default: return Cast(t_, Cast(DataType::Int(64), Gen(depth - 1)));
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % n); }
  Expr Leaf() {
    if (Pick(3) == 0) return Load(a_, {IntImm32(Pick(4))});
    if (t_.is_float()) return FloatImm(t_, (Pick(33) - 16) / 4.0);
    return Const(Pick(5) == 0 ? Edge() : Pick(19) - 9);
  }
  int64_t Edge() {
    int bits = t_.bits();
    if (t_.is_uint()) return Pick(2) ? 0 : (bits == 64 ? -1 : (int64_t{1} << bits) - 1);
    int64_t lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    return Pick(2) ? lo : -(lo + 1);
  }
  Expr Const(int64_t v) {
    if (t_.is_uint() && v < 0 && t_.bits() < 64) v = -v;
    return IntImm(t_, v);
  }
  Expr NonZero() {
    int64_t v = 0;
    while (v == 0) v = Pick(2) ? Pick(9) - 4 : Edge();
    return Const(v);
  }

  std::mt19937 rng_;
  DataType t_;
  Buffer a_;
};

TEST(ArithProperty, CheckedModeMatchesInterpreterOnAllTypes) {
  const DataType types[] = {DataType::Int(8),   DataType::Int(32),  DataType::Int(64),
                            DataType::UInt(8),  DataType::UInt(32), DataType::Float(32),
                            DataType::Float(64)};
  int changed = 0;
  for (uint32_t seed = 0; seed < 400; ++seed) {
    DataType t = types[seed % 7];
    Buffer a = MakeBuffer("A", t, {IntImm32(4)});
    Buffer b = MakeBuffer("B", t, {IntImm32(16)});
    TypedTreeGen gen(seed, t, a);
    std::vector<Stmt> stores;
    for (int k = 0; k < 16; ++k) stores.push_back(Store(b, gen.Gen(4), {IntImm32(k)}));
    PrimFunc f = MakePrimFunc({Param::OfBuffer(a), Param::OfBuffer(b)}, Seq(stores));
    Analyzer ana(AnalyzerOptions{.assume_no_overflow = false});
    PrimFunc g = SimplifyFunction(f, &ana);
    changed += !g.same_as(f);
    ASSERT_TRUE(VerifyFunction(g).ok()) << PrintFunction(g, "g");
    absl::Status same = CheckSameResults(f, g, seed);
    EXPECT_TRUE(same.ok()) << t.ToString() << " seed " << seed << ": " << same.message() << "\n"
                           << PrintFunction(f, "f") << "\nsimplified to\n"
                           << PrintFunction(g, "f");
  }
  EXPECT_GT(changed, 120);
}

}  // namespace
}  // namespace tessel::ir::arith
