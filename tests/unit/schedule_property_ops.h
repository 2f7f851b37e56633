// The functions the schedule property test (schedule_property_test.cc) draws
// from: every family of the op library (ir/te/ops/) at small, mostly odd
// sizes, alone and in the chains schedules are written for (matmul + bias +
// relu, conv2d + relu, exp -> sum ...), so that each case costs the
// interpreter a few thousand statements at most.
//
//   RandomEngine rng(7);
//   const PropertyOp& op = PropertyOps()[rng.Below(PropertyOps().size())];
//   absl::StatusOr<PropertyFunction> f = op.build(rng);
//   // f->mod: one function named like the op; f->what: "matmul_bias_relu M=5 N=3 K=7"
//
// Sizes are drawn from the case's own generator, so a seed and a case index
// name one function exactly.
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_OPS_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_OPS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/sampling.h"

namespace tessel::ir::schedule::testing {

struct PropertyFunction {
  IRModule mod;      // One function, named after the op.
  std::string what;  // The op and its sizes, for failure reports.
};

struct PropertyOp {
  std::string name;
  std::function<absl::StatusOr<PropertyFunction>(RandomEngine&)> build;
};

// Every op, in a fixed order (the order is part of what a seed means).
const std::vector<PropertyOp>& PropertyOps();

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_OPS_H_
