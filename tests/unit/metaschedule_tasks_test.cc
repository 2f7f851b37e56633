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
