// Task extraction: one task per distinct function (structure, not names or
// attributes), weighted by its copies; scheduled and dispatched functions are none.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/te/workloads.h"
#include "metaschedule/tasks.h"

namespace tessel::metaschedule {
namespace {

std::string Workload(const std::string& name, const std::string& as,
                     const std::string& attrs = "") {
  absl::StatusOr<ir::IRModule> m = ir::te::BuildWorkload(name);
  EXPECT_TRUE(m.ok()) << m.status();
  std::string text = ir::PrintModule(*m);
  text.replace(text.find("@" + name), name.size() + 1, "@" + as);
  if (!attrs.empty()) text.replace(text.find(") {"), 3, ") attrs {" + attrs + "} {");
  return text;
}

// In a model, a kernel weighs as often as the graph calls it: legalize shares one
// relu among three calls of the same shape.
TEST(ExtractTasks, KernelsOfAModelWeighByCallCount) {
  absl::StatusOr<ir::IRModule> mod =
      ir::ParseModule(R"(graph @main(x: f32[64, 64], w: f32[64, 64]) {
  h: f32[64, 64] = call_tir @mm(x, w)
  a: f32[64, 64] = call_tir @relu(h)
  b: f32[64, 64] = call_tir @relu(a)
  c: f32[64, 64] = call_tir @mm(b, w)
  d: f32[64, 64] = call_tir @relu(c)
  return d
}
)" + Workload("matmul_64x64x64_f32", "mm") +
                      Workload("softmax_16x33", "alone") +
                      R"(func @relu(A: f32[64, 64], B: f32[64, 64]) {
  for i in range(0, 64) {
    for j in range(0, 64) {
      block relu(vi: spatial[0, 64] = i, vj: spatial[0, 64] = j) {
        reads(A[vi, vj])
        writes(B[vi, vj])
        B[vi, vj] = max(A[vi, vj], 0.0f32)
      }
    }
  }
}
)");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::vector<TuningTask>> tasks = ExtractTasks(*mod, "llvm");
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].name, "mm");
  EXPECT_EQ((*tasks)[0].weight, 2);
  EXPECT_EQ((*tasks)[1].name, "alone");
  EXPECT_EQ((*tasks)[1].weight, 1);  // No graph calls it: it stands for itself.
  EXPECT_EQ((*tasks)[2].name, "relu");
  EXPECT_EQ((*tasks)[2].weight, 3);
}

TEST(ExtractTasks, OnePerDistinctFunctionWeightedByCopies) {
  const std::string text =
      Workload("matmul_17x31x23_f32", "mm_a") + Workload("softmax_16x33", "softmax") +
      Workload("matmul_17x31x23_f32", "mm_b", "global_symbol = \"b\"") +
      Workload("matmul_64x64x64_f32", "mm_scheduled", "scheduled = true") +
      Workload("matmul_17x31x23_f32", "mm_dispatched", "dispatched = \"onednn\", scheduled = true");
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(text);
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::vector<TuningTask>> tasks = ExtractTasks(*mod, "llvm");
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].name, "mm_a");
  EXPECT_EQ((*tasks)[0].weight, 2);
  EXPECT_EQ((*tasks)[0].functions, (std::vector<std::string>{"mm_a", "mm_b"}));
  EXPECT_EQ((*tasks)[0].target, "llvm");
  EXPECT_EQ((*tasks)[0].hash.size(), 16u);
  EXPECT_EQ((*tasks)[1].name, "softmax");
  EXPECT_EQ((*tasks)[1].weight, 1);
}

}  // namespace
}  // namespace tessel::metaschedule
