// transform_layout, pad_einsum and storage_align: one negative test for each
// rule that schedule_{transform_layout,pad_einsum,cache_scope}_test.cc do not
// reach. Each shows the message and that the failed call left the module and
// the trace as they were.
#include "absl/strings/str_replace.h"
#include "ir/index_map.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// T = A * 2 over i, j (the nest `t_nest` instead where given) into a buffer
// the function allocates (its declaration `alloc`), then C = T + 1.
constexpr const char* kTNest = R"(for i in range(0, 4) {
      for j in range(0, 8) {
        block T(vi: spatial[0, 4] = i, vj: spatial[0, 8] = j) {
          reads(A[vi, vj])
          writes(T[vi, vj])
          T[vi, vj] = A[vi, vj] * 2.0f32
        }
      }
    })";

std::string Staged(const std::string& alloc, const std::string& t_nest = kTNest) {
  return absl::StrCat(R"(
func @f(A: f32[4, 8], C: f32[4, 8]) {
  block root() {
    )", alloc, "\n    ", t_nest, R"(
    for i_1 in range(0, 4) {
      for j_1 in range(0, 8) {
        block C(vi_1: spatial[0, 4] = i_1, vj_1: spatial[0, 8] = j_1) {
          reads(T[vi_1, vj_1])
          writes(C[vi_1, vj_1])
          C[vi_1, vj_1] = T[vi_1, vj_1] + 1.0f32
        }
      }
    }
  }
})");
}

TEST(ScheduleRulesTransformLayout, VectorizedAccess) {
  Schedule sch = MustSchedule(Staged("alloc_buffer T: f32[4, 8]", R"(for i in range(0, 4) {
      block T(vi: spatial[0, 4] = i) {
        reads(A[vi, 0 +: 8])
        writes(T[vi, 0 +: 8])
        T[vi, ramp(0, 1, 8)] = A[vi, ramp(0, 1, 8)] * broadcast(2.0f32, 8)
      }
    })"));
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (j, i)"); },
      {"sch.transform_layout(block=", "is vectorized; transform the layout before vectorizing",
       ">>"});
}

TEST(ScheduleRulesTransformLayout, ExplicitStrides) {
  Schedule sch = MustSchedule(Staged("alloc_buffer T: f32[4, 8] strides [16, 1]"));
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (j, i)"); },
      {"buffer T has explicit strides; only compact buffers are transformed", ">>"});
}

TEST(ScheduleRulesTransformLayout, Int64Extents) {
  Schedule sch = MustSchedule(Staged("alloc_buffer T: f32[4i64, 8i64]"));
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (j, i)"); },
      {"buffer T has i64 extents; index maps are int32", ">>"});
}

TEST(ScheduleRulesTransformLayout, BufferWithAView) {
  Schedule sch = MustSchedule(absl::StrReplaceAll(
      Staged("alloc_buffer T: f32[4, 8]"),
      {{"C[vi_1, vj_1] = T[vi_1, vj_1] + 1.0f32",
        "decl_buffer V: f32[4, 8] = T\n C[vi_1, vj_1] = V[vi_1, vj_1] + 1.0f32"}}));
  BlockRV t = Must(sch.GetBlock("T"));
  ExpectFailsUnchanged(
      sch, [&] { return sch.TransformLayout(t, std::string("T"), "lambda i, j: (j, i)"); },
      {"buffer T is used by a buffer view; transform_layout cannot rewrite views", ">>"});
}

// C[7, 19] = A[7, 5] @ B[5, 19] with `edits` applied.
std::string Einsum(const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  return absl::StrReplaceAll(MatmulText(7, 19, 5), edits);
}

TEST(ScheduleRulesPadEinsum, BlockAllocates) {
  Schedule sch = MustSchedule(Einsum({{"reads(A[vi, vk], B[vk, vj])", "alloc_buffer S: f32[1]\n reads(A[vi, vk], B[vk, vj])"}}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 16, 1}); },
                       {"sch.pad_einsum(block=", "block C allocates buffers; pad_einsum pads blocks "
                                                 "over buffers allocated outside them",
                        ">>"});
}

TEST(ScheduleRulesPadEinsum, Predicate) {
  Schedule sch = MustSchedule(Einsum({{"vk: reduce[0, 5] = k)", "vk: reduce[0, 5] = k) where i < 6"}}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 16, 1}); },
                       {"block C has a predicate; pad_einsum pads a whole iteration domain", ">>"});
}

TEST(ScheduleRulesPadEinsum, ALoopAboveBoundToNoIterVar) {
  Schedule sch = MustSchedule(Einsum({{"for k in range(0, 5) {", "for k in range(0, 5) {\nfor t in range(0, 1) {"},
                                      {"      }\n    }\n  }\n}", "      }\n    }\n  }\n}\n}"}}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 16, 1}); },
                       {"the loops above block C must be exactly the loops its iter vars are bound "
                        "to, one each",
                        ">>"});
}

// Two blocks over i: C's nest and D's copy.
std::string TwoBlocksUnderI(const std::string& between) {
  return absl::StrCat(R"(
func @f(A: f32[7, 5], C: f32[7, 5], D: f32[7]) {
  for i in range(0, 7) {
    for j in range(0, 5) {
      block C(vi: spatial[0, 7] = i, vj: spatial[0, 5] = j) {
        reads(A[vi, vj])
        writes(C[vi, vj])
        C[vi, vj] = A[vi, vj] * 2.0f32
      }
)", between, R"(
  }
})");
}

TEST(ScheduleRulesPadEinsum, NotAPerfectNest) {
  Schedule sch = MustSchedule(TwoBlocksUnderI(R"(    }
    block D(vi_1: spatial[0, 7] = i) {
      reads(A[vi_1, 0])
      writes(D[vi_1])
      D[vi_1] = A[vi_1, 0]
    })"));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 4}); },
                       {"the body of loop i is not a single loop; pad_einsum needs a perfect nest",
                        ">>"});
}

TEST(ScheduleRulesPadEinsum, InnermostLoopHoldsMoreThanTheBlock) {
  Schedule sch = MustSchedule(TwoBlocksUnderI(R"(      block D(vi_1: spatial[0, 7] = i) {
        reads(A[vi_1, 0])
        writes(D[vi_1])
        D[vi_1] = A[vi_1, 0]
      }
    })"));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 4}); },
                       {"the innermost loop holds more than the block", ">>"});
}

TEST(ScheduleRulesPadEinsum, TwoOutputs) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[7], C: f32[7], D: f32[7]) {
  for i in range(0, 7) {
    block C(vi: spatial[0, 7] = i) {
      reads(A[vi])
      writes(C[vi], D[vi])
      C[vi] = A[vi]
      D[vi] = A[vi]
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4}); },
                       {"block C writes 2 buffers; pad_einsum needs exactly one output", ">>"});
}

TEST(ScheduleRulesPadEinsum, BufferIndexedByDifferentIterVars) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[7, 7], C: f32[7, 7]) {
  for i in range(0, 7) {
    for j in range(0, 7) {
      block C(vi: spatial[0, 7] = i, vj: spatial[0, 7] = j) {
        reads(A[0 +: 7, 0 +: 7])
        writes(C[vi, vj])
        C[vi, vj] = A[vi, vj] + A[vj, vi]
      }
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 4}); },
                       {"buffer A is indexed by different iter vars in different accesses", ">>"});
}

TEST(ScheduleRulesPadEinsum, BufferExtentIsNotTheIterVarsExtent) {
  Schedule sch = MustSchedule(Einsum({{"A: f32[7, 5]", "A: f32[10, 5]"}}));
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {4, 16, 1}); },
                       {"dimension 0 of buffer A is not the extent 7 of iter var vi that indexes it",
                        ">>"});
}

TEST(ScheduleRulesPadEinsum, PaddedReduceIterVarIndexesNoLoadOfTheProduct) {
  Schedule sch = MustSchedule(R"(
func @f(A: f32[7], B: f32[7], C: f32[7]) {
  for i in range(0, 7) {
    for k in range(0, 5) {
      block C(vi: spatial[0, 7] = i, vk: reduce[0, 5] = k) {
        reads(A[vi], B[vi])
        writes(C[vi])
        init {
          C[vi] = 0.0f32
        }
        C[vi] = C[vi] + A[vi] * B[vi]
      }
    }
  }
})");
  BlockRV c = Must(sch.GetBlock("C"));
  ExpectFailsUnchanged(sch, [&] { return sch.PadEinsum(c, {1, 4}); },
                       {"no load of the product is indexed by the padded reduce iter var vk", ">>"});
}

TEST(ScheduleRulesStorageAlign, AnnotationThatIsNotAList) {
  Schedule sch = MustSchedule(Staged("alloc_buffer T: f32[4, 8]"));
  BlockRV t = Must(sch.GetBlock("T"));
  Must(sch.Annotate(t, "buffer_dim_align", AttrValue(int64_t{3})));
  ExpectFailsUnchanged(sch, [&] { return sch.StorageAlign(t, 0, 0, 16, 1); },
                       {"sch.storage_align(block=",
                        "block T has a 'buffer_dim_align' annotation that is not a list", ">>"});
}

// An error inside a parenthesised body is reported where it is, not as the
// parse of a parenthesised first index that ends at the first comma.
TEST(IndexMapParse, ErrorsInsideTheTupleNameTheirCause) {
  auto message = [](const std::string& text) {
    absl::StatusOr<IndexMap> m = IndexMap::Parse(text);
    EXPECT_FALSE(m.ok()) << text;
    return std::string(m.status().message());
  };
  EXPECT_THAT(message("lambda i, j: (i, k)"),
              ::testing::HasSubstr("index map, column 18: 'k' is not a parameter of the lambda"));
  EXPECT_THAT(message("lambda i, j: [i, j"), ::testing::HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(message("lambda i, j: (i, j / 2)"),
              ::testing::HasSubstr("'/' is true division in Python"));
  // A parenthesised first index still parses as one.
  IndexMap m = Must(IndexMap::Parse("lambda i, j: (i + 1) * 2, j"));
  EXPECT_EQ(m.ToPython(), "lambda i, j: ((i + 1) * 2, j)");
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
