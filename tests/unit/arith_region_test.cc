// Region inference on matmul, a tiled matmul with a non-divisible split, conv2d
// with padding and a stencil: footprints under each loop, regions of block
// bodies, and where the result only covers the accesses (strides, diagonals,
// branches, indirect indices, triangular loops, views).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/region.h"
#include "ir/parser.h"
#include "ir/visitor.h"
#include "tests/unit/arith_test_util.h"

namespace tessel::ir::arith {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<IRModule> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  return (*m)->functions[0].second;
}

// The loop named `name`, or the first block named `name`.
class Find : public IRVisitor {
 public:
  explicit Find(std::string name) : name_(std::move(name)) {}
  const ForNode* loop = nullptr;
  const BlockNode* block = nullptr;
  void VisitFor(const ForNode* op) override {
    if (op->loop_var->name == name_ && loop == nullptr) loop = op;
    IRVisitor::VisitFor(op);
  }
  void VisitBlock(const BlockNode* op) override {
    if (op->name == name_ && block == nullptr) block = op;
    IRVisitor::VisitBlock(op);
  }

 private:
  std::string name_;
};

const ForNode* LoopOf(const PrimFunc& f, const std::string& name) {
  Find find(name);
  find.VisitStmt(f->body);
  EXPECT_NE(find.loop, nullptr) << name;
  return find.loop;
}
Block BlockOf(const PrimFunc& f, const std::string& name) {
  Find find(name);
  find.VisitStmt(f->body);
  EXPECT_NE(find.block, nullptr) << name;
  return GetRef(find.block);
}

struct Strings {
  std::vector<std::string> reads, writes;
};
Strings ToStrings(const absl::StatusOr<AccessRegions>& r) {
  Strings s;
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return s;
  for (const AccessRegion& a : r->reads) s.reads.push_back(AccessRegionToString(a));
  for (const AccessRegion& a : r->writes) s.writes.push_back(AccessRegionToString(a));
  return s;
}

Strings LoopAccess(const PrimFunc& f, const std::string& loop) {
  Analyzer ana;
  return ToStrings(InferLoopAccess(f, LoopOf(f, loop), &ana));
}

const char* kMatmul = R"(func @matmul(A: f32[17, 23], B: f32[23, 31], C: f32[17, 31]) {
  for i in range(0, 17) {
    for j in range(0, 31) {
      for k in range(0, 23) {
        block C(vi: spatial[0, 17] = i, vj: spatial[0, 31] = j, vk: reduce[0, 23] = k) {
          reads(A[vi, vk], B[vk, vj])
          writes(C[vi, vj])
          init {
            C[vi, vj] = 0.0f32
          }
          C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        }
      }
    }
  }
}
)";

TEST(Region, MatmulFootprintUnderEachLoop) {
  PrimFunc f = Parse(kMatmul);
  ASSERT_TRUE(f);
  Strings k = LoopAccess(f, "k");
  EXPECT_THAT(k.reads, ElementsAre("A[i, 0 +: 23]", "B[0 +: 23, j]"));
  EXPECT_THAT(k.writes, ElementsAre("C[i, j]"));
  Strings j = LoopAccess(f, "j");
  EXPECT_THAT(j.reads, ElementsAre("A[i, 0 +: 23]", "B[0 +: 23, 0 +: 31]"));
  EXPECT_THAT(j.writes, ElementsAre("C[i, 0 +: 31]"));
  Strings i = LoopAccess(f, "i");
  EXPECT_THAT(i.reads, ElementsAre("A[0 +: 17, 0 +: 23]", "B[0 +: 23, 0 +: 31]"));
  EXPECT_THAT(i.writes, ElementsAre("C[0 +: 17, 0 +: 31]"));
}

TEST(Region, MatmulBlockBodyRegions) {
  PrimFunc f = Parse(kMatmul);
  ASSERT_TRUE(f);
  Analyzer ana;
  Strings s = ToStrings(InferBlockAccess(BlockOf(f, "C"), &ana));
  // The update reads C as well; init and update write the same point.
  EXPECT_THAT(s.reads, ElementsAre("C[vi, vj]", "A[vi, vk]", "B[vk, vj]"));
  EXPECT_THAT(s.writes, ElementsAre("C[vi, vj]"));
}

TEST(Region, TiledMatmulWithNonDivisibleSplit) {
  // i in [0, 17) split by 8: io in [0, 3), ii in [0, 8), where io * 8 + ii < 17.
  PrimFunc f = Parse(R"(func @tiled(A: f32[17, 23], C: f32[17, 23]) {
  for io in range(0, 3) {
    for ii in range(0, 8) {
      for j in range(0, 23) {
        block C(vi: spatial[0, 17] = io * 8 + ii, vj: spatial[0, 23] = j) where io * 8 + ii < 17 {
          reads(A[vi, vj])
          writes(C[vi, vj])
          C[vi, vj] = A[vi, vj] * 2.0f32
        }
      }
    }
  }
}
)");
  ASSERT_TRUE(f);
  Strings ii = LoopAccess(f, "ii");
  EXPECT_THAT(ii.reads, ElementsAre("A[io * 8 +: min(io * 8 + 7, 16) - io * 8 + 1, 0 +: 23]"));
  EXPECT_THAT(ii.writes, ElementsAre("C[io * 8 +: min(io * 8 + 7, 16) - io * 8 + 1, 0 +: 23]"));
  Strings io = LoopAccess(f, "io");
  EXPECT_THAT(io.reads, ElementsAre("A[0 +: 17, 0 +: 23]"));
}

TEST(Region, Conv2dWithPadding) {
  PrimFunc f = Parse(
      R"(func @conv(data: f32[1, 8, 12, 12], kernel: f32[16, 8, 3, 3], out: f32[1, 16, 12, 12]) {
  block root() {
    alloc_buffer pad: f32[1, 8, 14, 14]
    for i1 in range(0, 8) {
      for i2 in range(0, 14) {
        for i3 in range(0, 14) {
          block pad(vc: spatial[0, 8] = i1, vh: spatial[0, 14] = i2, vw: spatial[0, 14] = i3) {
            reads(data[0, vc, min(max(vh - 1, 0), 11), min(max(vw - 1, 0), 11)])
            writes(pad[0, vc, vh, vw])
            pad[0, vc, vh, vw] = select(vh >= 1 && vh < 13 && (vw >= 1 && vw < 13), data[0, vc, min(max(vh - 1, 0), 11), min(max(vw - 1, 0), 11)], 0.0f32)
          }
        }
      }
    }
    for oc in range(0, 16) {
      for oh in range(0, 12) {
        for ow in range(0, 12) {
          for rc in range(0, 8) {
            for ry in range(0, 3) {
              for rx in range(0, 3) {
                block conv(voc: spatial[0, 16] = oc, voh: spatial[0, 12] = oh, vow: spatial[0, 12] = ow, vrc: reduce[0, 8] = rc, vry: reduce[0, 3] = ry, vrx: reduce[0, 3] = rx) {
                  reads(pad[0, vrc, voh + vry, vow + vrx], kernel[voc, vrc, vry, vrx])
                  writes(out[0, voc, voh, vow])
                  init {
                    out[0, voc, voh, vow] = 0.0f32
                  }
                  out[0, voc, voh, vow] = out[0, voc, voh, vow] + pad[0, vrc, voh + vry, vow + vrx] * kernel[voc, vrc, vry, vrx]
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
  ASSERT_TRUE(f);
  // Under ow (ow and the reduction loops relaxed): a 3-row window of the padded
  // input, all columns (ow + rx spans 0..13).
  Strings ow = LoopAccess(f, "ow");
  EXPECT_THAT(ow.reads, ElementsAre("pad[0, 0 +: 8, oh +: 3, 0 +: 14]",
                                    "kernel[oc, 0 +: 8, 0 +: 3, 0 +: 3]"));
  EXPECT_THAT(ow.writes, ElementsAre("out[0, oc, oh, 0 +: 12]"));
  // Under oh the loop itself relaxes too.
  Strings oh = LoopAccess(f, "oh");
  EXPECT_THAT(oh.reads, ElementsAre("pad[0, 0 +: 8, 0 +: 14, 0 +: 14]",
                                    "kernel[oc, 0 +: 8, 0 +: 3, 0 +: 3]"));
  EXPECT_THAT(oh.writes, ElementsAre("out[0, oc, 0 +: 12, 0 +: 12]"));
  // The padding reads clamp indices: the hull is right but min/max is not affine.
  Strings i2 = LoopAccess(f, "i2");
  EXPECT_THAT(i2.reads, ElementsAre("data[0, i1, 0 +: 12, 0 +: 12] (covers)"));
  EXPECT_THAT(i2.writes, ElementsAre("pad[0, i1, 0 +: 14, 0 +: 14]"));
  // The root block allocates pad: its body regions leave it out.
  Analyzer ana;
  Strings root = ToStrings(InferBlockAccess(BlockOf(f, "root"), &ana));
  EXPECT_THAT(root.reads, ElementsAre("data[0, 0 +: 8, 0 +: 12, 0 +: 12] (covers)",
                                      "kernel[0 +: 16, 0 +: 8, 0 +: 3, 0 +: 3]"));
  EXPECT_THAT(root.writes, ElementsAre("out[0, 0 +: 16, 0 +: 12, 0 +: 12]"));
}

TEST(Region, StencilPointsMerge) {
  PrimFunc f = Parse(R"(func @stencil(A: f32[64], B: f32[64]) {
  for i in range(1, 62) {
    block s(vi: spatial[1, 63] = i) {
      reads(A[vi - 1 +: 3])
      writes(B[vi])
      B[vi] = A[vi - 1] + A[vi] + A[vi + 1]
    }
  }
}
)");
  ASSERT_TRUE(f);
  Analyzer ana;
  Strings body = ToStrings(InferBlockAccess(BlockOf(f, "s"), &ana));
  EXPECT_THAT(body.reads, ElementsAre("A[vi - 1 +: 3]"));
  EXPECT_THAT(body.writes, ElementsAre("B[vi]"));
  Strings loop = LoopAccess(f, "i");
  EXPECT_THAT(loop.reads, ElementsAre("A[0 +: 64]"));
  EXPECT_THAT(loop.writes, ElementsAre("B[1 +: 62]"));
}

// Plain loops (no blocks): what relaxes exactly and what only covers.
TEST(Region, ExactOrCovering) {
  PrimFunc f = Parse(R"(func @f(A: f32[64], D: f32[8, 8], I: i32[8], T: f32[16, 16], V: f32[64]) {
  for i in range(0, 4) {
    for j in range(0, 16) {
      A[i * 16 + j] = 1.0f32
    }
    A[i * 2] = 2.0f32
    D[i, i] = 3.0f32
    if i < 2 {
      V[i] = 4.0f32
    }
    A[I[i]] = 5.0f32
    for t in range(0, i) {
      T[i, t] = 6.0f32
    }
    V[ramp(i * 8, 1, 8)] = broadcast(7.0f32, 8)
    V[ramp(i, 4, 4)] = broadcast(8.0f32, 4)
  }
}
)");
  ASSERT_TRUE(f);
  Strings s = LoopAccess(f, "i");
  EXPECT_THAT(s.reads, ElementsAre("I[0 +: 4]"));
  EXPECT_THAT(s.writes, ElementsAre("A[0 +: 64] (covers)", "D[0 +: 4, 0 +: 4] (covers)",
                                    "V[0 +: 32] (covers)", "T[0 +: 4, 0 +: 3] (covers)"));
  // One loop at a time: the dense ones are exact.
  Strings j = LoopAccess(f, "j");
  EXPECT_THAT(j.writes, ElementsAre("A[i * 16 +: 16]"));
}

TEST(Region, RelaxRegionDirectly) {
  Var i = testing::I32("i"), j = testing::I32("j"), k = testing::I32("k");
  Buffer A = MakeBuffer("A", DataType::Float(32), {IntImm32(64), IntImm32(64)});
  Analyzer ana;
  IntSetMap dom = {{i.get(), IntSet::FromRange(testing::R(0, 4))},
                   {j.get(), IntSet::FromRange(testing::R(0, 16))}};
  auto relax = [&](std::vector<Range> ranges) {
    return AccessRegionToString(RelaxRegion(BufferRegion{A, std::move(ranges)}, dom, &ana));
  };
  using testing::operator*;
  using testing::operator+;
  EXPECT_EQ(relax({{i * 16 + j, IntImm32(1)}, {k, IntImm32(1)}}), "A[0 +: 64, k]");
  EXPECT_EQ(relax({{i * 4, IntImm32(4)}, {j, IntImm32(2)}}), "A[0 +: 16, 0 +: 17]");
  EXPECT_EQ(relax({{i * 8, IntImm32(4)}, {IntImm32(0), IntImm32(1)}}), "A[0 +: 28, 0] (covers)");
  EXPECT_EQ(relax({{i, IntImm32(1)}, {i, IntImm32(1)}}), "A[0 +: 4, 0 +: 4] (covers)");
  EXPECT_EQ(relax({{k * i, IntImm32(1)}, {IntImm32(0), IntImm32(1)}}), "A[0 +: 64, 0] (covers)");
}

TEST(Region, Errors) {
  PrimFunc f = Parse(kMatmul);
  PrimFunc g = Parse(kMatmul);
  ASSERT_TRUE(f && g);
  Analyzer ana;
  absl::StatusOr<AccessRegions> r = InferLoopAccess(f, LoopOf(g, "j"), &ana);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("loop 'j' is not in the function"));
  EXPECT_FALSE(InferBlockAccess(nullptr, &ana).ok());
  EXPECT_FALSE(InferSubtreeAccess(nullptr, &ana).ok());
  EXPECT_FALSE(InferLoopAccess(f, nullptr, &ana).ok());
}

}  // namespace
}  // namespace tessel::ir::arith
