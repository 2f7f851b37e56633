// Seeded property tests of iter-map detection:
// - completeness on schedules: random sequences of split (divisible or with a
//   predicate), fuse and reorder applied to a block's loops give bindings that
//   must be detected as bijective, each index covering its original extent;
// - soundness: for random affine-looking bindings over small loops, whenever
//   detection says "bijective", enumerating every loop point confirms it (each
//   output point of the product of the extents reached exactly once), and the
//   expression form computes the bindings.
#include <random>

#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/iter_map.h"
#include "ir/substitute.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using testing::Env;
using testing::I32;
using testing::Str;

struct Loop {
  Var var;
  int64_t extent;
};

// A block's loop nest under a random schedule.
struct Schedule {
  std::vector<Loop> loops;
  std::vector<Expr> bindings;  // One per original loop.
  std::vector<int64_t> extents;
  std::vector<Expr> predicates;
  int fresh = 0;

  void Substitute(const VarNode* v, const Expr& e) {
    VarMap m = {{v, e}};
    for (Expr& b : bindings) b = ir::Substitute(b, m);
    for (Expr& p : predicates) p = ir::Substitute(p, m);
  }
  Var NewVar() { return I32("l" + std::to_string(fresh++)); }

  void Split(size_t k, int64_t factor) {
    Loop l = loops[k];
    int64_t outer = (l.extent + factor - 1) / factor;
    Var o = NewVar(), in = NewVar();
    Expr value = Add(Mul(o, IntImm32(factor)), in);
    if (outer * factor != l.extent) predicates.push_back(LT(value, IntImm32(l.extent)));
    Substitute(l.var.get(), value);
    loops[k] = {o, outer};
    loops.insert(loops.begin() + k + 1, Loop{in, factor});
  }
  void Fuse(size_t k) {
    Loop a = loops[k], b = loops[k + 1];
    Var f = NewVar();
    Substitute(a.var.get(), FloorDiv(f, IntImm32(b.extent)));
    Substitute(b.var.get(), FloorMod(f, IntImm32(b.extent)));
    loops[k] = {f, a.extent * b.extent};
    loops.erase(loops.begin() + k + 1);
  }
};

std::vector<IterMapInput> Inputs(const std::vector<Loop>& loops) {
  std::vector<IterMapInput> in;
  for (const Loop& l : loops) in.push_back({l.var, testing::R(0, l.extent)});
  return in;
}

TEST(IterMapProperty, ScheduledBindingsAreBijective) {
  int detected = 0, with_predicate = 0;
  for (uint32_t seed = 0; seed < 2000; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % n); };
    Schedule s;
    int dims = 1 + pick(3);
    for (int d = 0; d < dims; ++d) {
      const int64_t extents[] = {4, 6, 8, 12, 16, 10, 7};
      int64_t e = extents[pick(7)];
      Var v = s.NewVar();
      s.loops.push_back({v, e});
      s.bindings.push_back(v);
      s.extents.push_back(e);
    }
    bool split_with_padding = false;
    for (int step = 0; step < 4; ++step) {
      size_t k = pick(static_cast<int>(s.loops.size()));
      switch (pick(3)) {
        case 0: {
          // Divisible factors only, except a padded split of a loop that is
          // never fused afterwards (its predicate bounds one fused iterator).
          std::vector<int64_t> divisors;
          for (int64_t f = 2; f < s.loops[k].extent; ++f) {
            if (s.loops[k].extent % f == 0) divisors.push_back(f);
          }
          if (!divisors.empty()) {
            s.Split(k, divisors[pick(static_cast<int>(divisors.size()))]);
          } else if (!split_with_padding && s.loops[k].extent > 3 && step == 3) {
            s.Split(k, 2 + pick(2));
            split_with_padding = true;
          }
          break;
        }
        case 1:
          if (k + 1 < s.loops.size() && !split_with_padding) s.Fuse(k);
          break;
        default:
          if (k + 1 < s.loops.size()) std::swap(s.loops[k], s.loops[k + 1]);
          break;
      }
    }
    Expr pred = Bool(true);
    for (const Expr& p : s.predicates) pred = And(pred, p);
    with_predicate += !s.predicates.empty();
    Analyzer ana;
    absl::StatusOr<std::vector<IterSum>> r =
        DetectIterMap(s.bindings, Inputs(s.loops), pred, IterMapLevel::kBijective, &ana);
    std::string where = "seed " + std::to_string(seed) + ", predicate " + Str(pred) + ", bindings:";
    for (const Expr& b : s.bindings) where += " " + Str(b) + ";";
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << where;
    ++detected;
    for (size_t d = 0; d < s.bindings.size(); ++d) {
      const IterSum& sum = (*r)[d];
      ASSERT_EQ(sum.args.size(), 1u) << where;
      EXPECT_EQ(Str(sum.args[0].extent), std::to_string(s.extents[d]))
          << IterSumToString(sum) << " " << where;
      EXPECT_TRUE(IsConstInt(sum.base, 0)) << where;
    }
  }
  EXPECT_EQ(detected, 2000);
  EXPECT_GT(with_predicate, 10);
}

TEST(IterMapProperty, DetectedBijectionsAreBijections) {
  int bijective = 0, rejected = 0;
  for (uint32_t seed = 0; seed < 5000; ++seed) {
    std::mt19937 rng(seed + 1000);
    auto pick = [&](int n) { return static_cast<int>(rng() % n); };
    std::vector<Loop> loops;
    int n = 1 + pick(3);
    for (int k = 0; k < n; ++k) loops.push_back({I32("l" + std::to_string(k)), 2 + pick(5)});
    auto var = [&]() -> Expr { return loops[pick(n)].var; };
    auto term = [&]() -> Expr {
      Expr v = var();
      const int64_t c[] = {1, 2, 3, 4, 6, 8};
      switch (pick(5)) {
        case 0: return FloorDiv(v, IntImm32(c[pick(6)]));
        case 1: return FloorMod(v, IntImm32(c[pick(6)]));
        case 2: return Mul(v, IntImm32(c[pick(6)]));
        default: return v;
      }
    };
    std::vector<Expr> bindings;
    int m = 1 + pick(3);
    for (int k = 0; k < m; ++k) {
      Expr b = term();
      if (pick(2)) b = Add(b, Mul(term(), IntImm32(1 + pick(8))));
      if (pick(4) == 0) b = FloorDiv(b, IntImm32(1 + pick(4)));
      if (pick(4) == 0) b = FloorMod(b, IntImm32(2 + pick(6)));
      bindings.push_back(b);
    }
    Analyzer ana;
    absl::StatusOr<std::vector<IterSum>> r =
        DetectIterMap(bindings, Inputs(loops), nullptr, IterMapLevel::kBijective, &ana);
    if (!r.ok()) {
      ++rejected;
      continue;
    }
    ++bijective;
    // Enumerate: outputs must be distinct, inside [base, base + extent) of each
    // index, and as many as the product of those extents.
    std::vector<int64_t> lo, ext;
    int64_t product = 1;
    for (const IterSum& s : *r) {
      std::optional<int64_t> base = AsConstInt(s.base);
      ASSERT_TRUE(base.has_value());
      int64_t e = s.args.empty() ? 1 : *AsConstInt(s.args[0].extent);
      lo.push_back(*base);
      ext.push_back(e);
      product *= e;
    }
    int64_t points = 1;
    for (const Loop& l : loops) points *= l.extent;
    std::string where = "seed " + std::to_string(seed) + ":";
    for (const Expr& b : bindings) where += " " + Str(b) + ";";
    EXPECT_EQ(points, product) << where;
    std::set<std::vector<int64_t>> seen;
    std::vector<int64_t> idx(loops.size(), 0);
    for (int64_t p = 0; p < points; ++p) {
      Env env;
      int64_t rest = p;
      for (size_t k = 0; k < loops.size(); ++k) {
        env[loops[k].var.get()] = rest % loops[k].extent;
        rest /= loops[k].extent;
      }
      std::vector<int64_t> out;
      for (size_t d = 0; d < bindings.size(); ++d) {
        std::optional<int64_t> v = testing::EvalExact(bindings[d], env);
        std::optional<int64_t> w = testing::EvalExact(IterSumToExpr((*r)[d]), env);
        ASSERT_TRUE(v && w);
        EXPECT_EQ(*v, *w) << where << " expression form of index " << d;
        EXPECT_GE(*v, lo[d]) << where;
        EXPECT_LT(*v, lo[d] + ext[d]) << where;
        out.push_back(*v);
      }
      EXPECT_TRUE(seen.insert(out).second) << "two loop points map to one output: " << where;
    }
  }
  EXPECT_GT(bijective, 40);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace tessel::ir::arith
