// Operator-library functions the compute-location units schedule
// (tests/unit/schedule_compute_*_test.cc), built with ir/te so the tests run
// the primitives on the block structure the op library really produces.
//
//   Schedule sch = TeSchedule(MatmulBiasRelu(17, 31, 23));
//   // blocks: T_matmul (reduce), T_add (C + bias[j]), T_relu
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_COMPUTE_TE_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_COMPUTE_TE_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "ir/schedule/ir_util.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {

inline te::Tensor Input(const std::vector<int64_t>& shape, const std::string& name) {
  return Must(te::Placeholder(te::Shape(shape), DataType::Float(32), name));
}

inline IRModule TeModule(const std::vector<te::FuncArg>& args) {
  return Must(te::CreateModule(args, "f"));
}

// relu(A[m, k] @ B[k, n] + bias[n]): blocks T_matmul, T_add, T_relu.
inline IRModule MatmulBiasRelu(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = Input({m, k}, "A"), b = Input({k, n}, "B"), bias = Input({n}, "bias");
  te::Tensor c = Must(te::ops::Matmul(a, b));
  te::Tensor add = Must(te::ops::Add(c, bias));
  return TeModule({a, b, bias, Must(te::ops::Relu(add))});
}

// A padded 3x3 NCHW convolution: blocks conv2d_pad, conv2d.
inline IRModule PaddedConv2D(int64_t c, int64_t hw, int64_t oc) {
  te::Tensor x = Input({1, c, hw, hw}, "X"), w = Input({oc, c, 3, 3}, "W");
  return TeModule({x, w, Must(te::ops::Conv2D(x, w, {.padding = {1}}))});
}

// Softmax over the last axis: T_softmax_maxelem, T_softmax_exp,
// T_softmax_expsum, T_softmax.
inline IRModule SoftmaxRows(int64_t r, int64_t c) {
  te::Tensor x = Input({r, c}, "X");
  return TeModule({x, Must(te::ops::Softmax(x))});
}

inline IRModule LayerNormRows(int64_t r, int64_t c) {
  te::Tensor x = Input({r, c}, "X"), g = Input({c}, "gamma"), b = Input({c}, "beta");
  return TeModule({x, g, b, Must(te::ops::LayerNorm(x, g, b))});
}

inline Schedule TeSchedule(const IRModule& mod) { return Must(Schedule::Create(mod)); }

// B[i] = A[i] * 2 feeding C[i] = B[i] + 1 over n elements, B private.
inline std::string ChainText(int64_t n) {
  return RootFuncText(absl::StrCat("f(A: f32[", n, "], C: f32[", n, "])"),
                      {absl::StrCat("B: f32[", n, "]")},
                      {StageText("B", {n}, "A[vi]", "B[vi]", "B[vi] = A[vi] * 2.0f32"),
                       StageText("C", {n}, "B[vi]", "C[vi]", "C[vi] = B[vi] + 1.0f32")});
}

// A schedule and the function it started from.
struct ComputeFixture {
  explicit ComputeFixture(const std::string& text) : sch(MustSchedule(text)), original(sch.func()) {}
  explicit ComputeFixture(const IRModule& mod) : sch(TeSchedule(mod)), original(sch.func()) {}
  BlockRV Block(const std::string& name) { return Must(sch.GetBlock(name)); }
  std::vector<LoopRV> Loops(const std::string& block) { return Must(sch.GetLoops(Block(block))); }
  Schedule sch;
  PrimFunc original;
};

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_COMPUTE_TE_H_
