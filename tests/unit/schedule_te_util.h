// te functions for the schedule units: a matmul C = A @ B and a schedule of
// any tensors, so primitives are tested on what the op library makes.
//
//   Schedule sch = TeMatmulSchedule(17, 31, 23);      // block "C", function "mm"
//   Schedule conv = TeSchedule({data, kernel, out}, "conv");
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_TE_UTIL_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_TE_UTIL_H_

#include <string>
#include <vector>

#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/matmul.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {

inline Schedule TeSchedule(const std::vector<te::Tensor>& args, const std::string& name) {
  std::vector<te::FuncArg> fargs(args.begin(), args.end());
  return Must(Schedule::Create(Must(te::CreateModule(fargs, name))));
}

// f32 C[m, n] = A[m, k] @ B[k, n] as function "mm", block "C".
inline Schedule TeMatmulSchedule(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = Must(te::Placeholder({m, k}, DataType::Float(32), "A"));
  te::Tensor b = Must(te::Placeholder({k, n}, DataType::Float(32), "B"));
  te::Tensor c = Must(te::ops::Matmul(a, b, {.name = "C"}));
  return TeSchedule({a, b, c}, "mm");
}

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_TE_UTIL_H_
