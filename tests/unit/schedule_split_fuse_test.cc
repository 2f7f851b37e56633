// split and fuse: before/after IR, the interpreter on random inputs, and one
// negative test per rule (the message, and the schedule left unchanged).
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr const char* kScale = R"(
func @f(A: f32[64, 32], B: f32[64, 32]) {
  for i in range(0, 64) {
    for j in range(0, 32) {
      block B(vi: spatial[0, 64] = i, vj: spatial[0, 32] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj] * 2.0f32
      }
    }
  }
})";

constexpr const char* kOdd = R"(
func @f(A: f32[100], B: f32[100]) {
  for i in range(0, 100) {
    block B(vi: spatial[0, 100] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
})";

struct Fixture {
  explicit Fixture(const char* text) : sch(MustSchedule(text)), original(sch.func()) {}
  std::vector<LoopRV> Loops(const std::string& block = "B") {
    return Must(sch.GetLoops(Must(sch.GetBlock(block))));
  }
  Schedule sch;
  PrimFunc original;
};

TEST(ScheduleSplit, InferredOuterFactor) {
  Fixture t(kScale);
  std::vector<LoopRV> l = t.Loops();
  std::vector<LoopRV> parts = Must(t.sch.Split(l[0], {std::nullopt, 16}));
  ASSERT_EQ(parts.size(), 2u);
  ExpectFunc(t.sch, R"(
func @f(A: f32[64, 32], B: f32[64, 32]) {
  for i_0 in range(0, 4) {
    for i_1 in range(0, 16) {
      for j in range(0, 32) {
        block B(vi: spatial[0, 64] = i_0 * 16 + i_1, vj: spatial[0, 32] = j) {
          reads(A[vi, vj])
          writes(B[vi, vj])
          B[vi, vj] = A[vi, vj] * 2.0f32
        }
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.Get(parts[0]))->loop_var->name, "i_0");
  // The other loop's handle survives; the split one is consumed.
  EXPECT_EQ(Must(t.sch.Get(l[1]))->loop_var->name, "j");
  absl::StatusOr<Ref<const ForNode>> gone = t.sch.Get(l[0]);
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(std::string(gone.status().message()),
              ::testing::HasSubstr("loop handle l1 was consumed by split"));
}

TEST(ScheduleSplit, ThreeWayWithInnerInferredAndUnitFactor) {
  // The unit loop j_1 stays; the binding drops it (it is always 0).
  Fixture t(kScale);
  std::vector<LoopRV> parts = Must(t.sch.Split(t.Loops()[1], {2, 1, std::nullopt}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[64, 32], B: f32[64, 32]) {
  for i in range(0, 64) {
    for j_0 in range(0, 2) {
      for j_1 in range(0, 1) {
        for j_2 in range(0, 16) {
          block B(vi: spatial[0, 64] = i, vj: spatial[0, 32] = j_0 * 16 + j_2) {
            reads(A[vi, vj])
            writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * 2.0f32
          }
        }
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, NonDivisibleGetsAPredicate) {
  Fixture t(kOdd);
  Must(t.sch.Split(t.Loops()[0], {std::nullopt, 32}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[100], B: f32[100]) {
  for i_0 in range(0, 4) {
    for i_1 in range(0, 32) {
      block B(vi: spatial[0, 100] = i_0 * 32 + i_1) where i_0 * 32 + i_1 < 100 {
        reads(A[vi])
        writes(B[vi])
        B[vi] = A[vi] + 1.0f32
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, AllFactorsGivenLargerThanExtent) {
  Fixture t(kOdd);
  Must(t.sch.Split(t.Loops()[0], {7, 16}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[100], B: f32[100]) {
  for i_0 in range(0, 7) {
    for i_1 in range(0, 16) {
      block B(vi: spatial[0, 100] = i_0 * 16 + i_1) where i_0 * 16 + i_1 < 100 {
        reads(A[vi])
        writes(B[vi])
        B[vi] = A[vi] + 1.0f32
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, NonzeroMinAndStatementsOutsideBlocks) {
  // A loop from 4 holding a store outside any block: the guard is an `if`.
  Fixture t(R"(
func @f(A: f32[20], B: f32[20]) {
  for i in range(4, 6) {
    A[i] = A[i] + 1.0f32
    block B(vi: spatial[0, 20] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] * 2.0f32
    }
  }
})");
  Must(t.sch.Split(t.Loops()[0], {std::nullopt, 4}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[20], B: f32[20]) {
  for i_0 in range(0, 2) {
    for i_1 in range(0, 4) {
      if i_0 * 4 + i_1 < 6 {
        A[4 + (i_0 * 4 + i_1)] = A[4 + (i_0 * 4 + i_1)] + 1.0f32
        block B(vi: spatial[0, 20] = i_0 * 4 + i_1 + 4) {
          reads(A[vi])
          writes(B[vi])
          B[vi] = A[vi] * 2.0f32
        }
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleSplit, SymbolicExtentNeedsAnInferredFactor) {
  constexpr const char* kSym = R"(
func @f[n](A: f32[n]) {
  for i in range(0, n) {
    block B(vi: spatial[0, n] = i) {
      reads(A[vi])
      writes(A[vi])
      A[vi] = A[vi] * 2.0f32
    }
  }
})";
  Fixture t(kSym);
  LoopRV i = t.Loops()[0];
  ExpectFailsUnchanged(t.sch,
                       [&] {
                         return StatusOf(t.sch.Split(i, {4, 8}));
                       },
                       {"sch.split(loop=l1, factors=[4, 8])",
                        "cannot show that the factors' product 32 covers the extent n",
                        "let one factor be inferred", ">>"});
  Must(t.sch.Split(i, {std::nullopt, 8}));
  ExpectFunc(t.sch, R"(
func @f[n](A: f32[n]) {
  for i_0 in range(0, (n + 7) // 8) {
    for i_1 in range(0, 8) {
      block B(vi: spatial[0, n] = i_0 * 8 + i_1) where i_0 * 8 + i_1 < n {
        reads(A[vi])
        writes(A[vi])
        A[vi] = A[vi] * 2.0f32
      }
    }
  }
})");
  for (int64_t n : {1, 7, 8, 13}) {
    std::vector<Arg> a = Must(RandomArgs(t.original, 5, {{"n", n}}));
    std::vector<Arg> b = CloneArgs(a);
    Must(ir::Run(t.original, a));
    Must(ir::Run(t.sch.func(), b));
    EXPECT_TRUE(CompareArgs(a, b, t.original).ok()) << "n = " << n;
  }
}

TEST(ScheduleSplit, Rules) {
  Fixture t(kOdd);
  LoopRV i = t.Loops()[0];
  auto split = [&](std::vector<Factor> f) {
    return [&, f] { return StatusOf(t.sch.Split(i, f)); };
  };
  ExpectFailsUnchanged(t.sch, split({32}), {"split needs at least two factors, got 1"});
  ExpectFailsUnchanged(
      t.sch, split({std::nullopt, std::nullopt}),
      {"sch.split(loop=l1, factors=[None, None])", "at most one factor may be None"});
  ExpectFailsUnchanged(t.sch, split({0, std::nullopt}),
                       {"factor 0 is 0; factors must be positive"});
  ExpectFailsUnchanged(t.sch, split({-2, 50}), {"factor 0 is -2"});
  ExpectFailsUnchanged(t.sch, split({5, 16}),
                       {"the factors' product 80 is smaller than the extent 100 of loop i",
                        "the split would drop iterations", ">>   for i in range(0, 100) {"});
  ExpectFailsUnchanged(t.sch, split({int64_t{1} << 40, std::nullopt}),
                       {"does not fit the type i32 of loop i"});
  ExpectFailsUnchanged(t.sch, split({ExprRV{99}, 4}), {"v99 is not a value handle"});
  Must(t.sch.Unroll(i));
  ExpectFailsUnchanged(t.sch, split({std::nullopt, 4}),
                       {"loop i is unrolled; split only serial loops"});
}

TEST(ScheduleFuse, TwoLoops) {
  Fixture t(kScale);
  std::vector<LoopRV> l = t.Loops();
  LoopRV f = Must(t.sch.Fuse({l[0], l[1]}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[64, 32], B: f32[64, 32]) {
  for i_j_fused in range(0, 2048) {
    block B(vi: spatial[0, 64] = i_j_fused // 32, vj: spatial[0, 32] = i_j_fused %% 32) {
      reads(A[vi, vj])
      writes(B[vi, vj])
      B[vi, vj] = A[vi, vj] * 2.0f32
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.Get(f))->loop_var->name, "i_j_fused");
  EXPECT_THAT(std::string(t.sch.Get(l[1]).status().message()),
              ::testing::HasSubstr("loop handle l2 was consumed by fuse"));
  // Split the fused loop again: the bindings simplify back to plain digits.
  std::vector<LoopRV> parts = Must(t.sch.Split(f, {std::nullopt, 32}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[64, 32], B: f32[64, 32]) {
  for i_j_fused_0 in range(0, 64) {
    for i_j_fused_1 in range(0, 32) {
      block B(vi: spatial[0, 64] = i_j_fused_0, vj: spatial[0, 32] = i_j_fused_1) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj] * 2.0f32
      }
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleFuse, ThreeLoopsWithNonzeroMinAndUnitExtent) {
  Fixture t(R"(
func @f(A: f32[8, 1, 12]) {
  for i in range(0, 8) {
    for u in range(0, 1) {
      for k in range(2, 10) {
        block B(vi: spatial[0, 8] = i, vu: spatial[0, 1] = u, vk: spatial[0, 12] = k) {
          reads(A[vi, vu, vk])
          writes(A[vi, vu, vk])
          A[vi, vu, vk] = A[vi, vu, vk] + 1.0f32
        }
      }
    }
  }
})");
  std::vector<LoopRV> l = t.Loops();
  Must(t.sch.Fuse({l[0], l[1], l[2]}));
  ExpectFunc(t.sch, R"(
func @f(A: f32[8, 1, 12]) {
  for i_u_k_fused in range(0, 80) {
    block B(vi: spatial[0, 8] = i_u_k_fused // 10, vu: spatial[0, 1] = 0, vk: spatial[0, 12] = i_u_k_fused %% 10 + 2) {
      reads(A[vi, vu, vk])
      writes(A[vi, vu, vk])
      A[vi, vu, vk] = A[vi, vu, vk] + 1.0f32
    }
  }
})");
  ExpectSameResults(t.original, t.sch);
}

TEST(ScheduleFuse, Rules) {
  Fixture t(R"(
func @f(A: f32[8, 8], B: f32[8, 8]) {
  for i in range(0, 8) {
    for j in range(0, 8) {
      block B(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = A[vi, vj]
      }
    }
    for j2 in range(0, i + 1) {
      block C(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j2) {
        reads(B[vi, vj])
        writes(A[vi, vj])
        A[vi, vj] = B[vi, vj]
      }
    }
  }
})");
  std::vector<LoopRV> b = t.Loops("B");
  ExpectFailsUnchanged(t.sch, [&] { return StatusOf(t.sch.Fuse({})); },
                       {"fuse needs at least one loop"});
  ExpectFailsUnchanged(t.sch,
                       [&] {
                         return StatusOf(t.sch.Fuse({b[0], b[1]}));
                       },
                       {"sch.fuse(l", "loop j is not the whole body of loop i",
                        "fuse needs a perfect nest given outermost first"});
  ExpectFailsUnchanged(t.sch,
                       [&] {
                         return StatusOf(t.sch.Fuse({b[1], b[1]}));
                       },
                       {"loop j is given twice"});
  // A triangular nest: j's extent depends on i.
  Schedule inner = MustSchedule(R"(
func @f(A: f32[8, 8]) {
  for i in range(0, 8) {
    for j in range(0, i + 1) {
      block B(vi: spatial[0, 8] = i, vj: spatial[0, 8] = j) {
        reads(A[vi, vj])
        writes(A[vi, vj])
        A[vi, vj] = A[vi, vj] + 1.0f32
      }
    }
  }
})");
  std::vector<LoopRV> l = Must(inner.GetLoops(Must(inner.GetBlock("B"))));
  ExpectFailsUnchanged(inner,
                       [&] {
                         return StatusOf(inner.Fuse({l[0], l[1]}));
                       },
                       {"the bounds of loop j use a loop being fused"});
  Schedule kinds = MustSchedule(kScale);
  std::vector<LoopRV> k = Must(kinds.GetLoops(Must(kinds.GetBlock("B"))));
  ExpectFailsUnchanged(kinds,
                       [&] {
                         return StatusOf(kinds.Fuse({k[1], k[0]}));
                       },
                       {"loop i is not the whole body of loop j"});
  Must(kinds.Parallel(k[0]));
  ExpectFailsUnchanged(kinds,
                       [&] {
                         return StatusOf(kinds.Fuse({k[0], k[1]}));
                       },
                       {"loop i is parallel; fuse only serial loops"});
  Schedule ann = MustSchedule(kScale);
  std::vector<LoopRV> a = Must(ann.GetLoops(Must(ann.GetBlock("B"))));
  Must(ann.Annotate(a[1], "pragma", AttrValue("x")));
  ExpectFailsUnchanged(ann,
                       [&] {
                         return StatusOf(ann.Fuse({a[0], a[1]}));
                       },
                       {"loop j has annotations; fuse only unannotated loops"});
  Schedule big = MustSchedule(R"(
func @f(A: f32[100000, 100000]) {
  for i in range(0, 100000) {
    for j in range(0, 100000) {
      block B(vi: spatial[0, 100000] = i, vj: spatial[0, 100000] = j) {
        reads(A[vi, vj])
        writes(A[vi, vj])
        A[vi, vj] = A[vi, vj] + 1.0f32
      }
    }
  }
})");
  std::vector<LoopRV> g = Must(big.GetLoops(Must(big.GetBlock("B"))));
  ExpectFailsUnchanged(big,
                       [&] {
                         return StatusOf(big.Fuse({g[0], g[1]}));
                       },
                       {"the fused extent does not fit the type i32 of the loops"});
  Schedule types = MustSchedule(R"(
func @f(A: f32[4, 4]) {
  for i in range(0, 4) {
    for j: i64 in range(0i64, 4i64) {
      block B(vi: spatial[0, 4] = i, vj: i64 spatial[0i64, 4i64] = j) {
        reads(A[vi, vj])
        writes(A[vi, vj])
        A[vi, vj] = A[vi, vj] + 1.0f32
      }
    }
  }
})");
  std::vector<LoopRV> ty = Must(types.GetLoops(Must(types.GetBlock("B"))));
  ExpectFailsUnchanged(types,
                       [&] {
                         return StatusOf(types.Fuse({ty[0], ty[1]}));
                       },
                       {"loop j is i64 but loop i is i32"});
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
