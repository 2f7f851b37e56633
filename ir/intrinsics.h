// The math intrinsics an IR `Call` may name, with their arity. Every operand and
// the result share one float dtype (vectors allowed); `fabs` also takes integers.
//
//   exp log sqrt rsqrt tanh erf sigmoid fabs floor ceil   (one operand)
//   pow                                                    (two)
//   fma                                                    (three: a * b + c)
//
// The interpreter evaluates them with libm; codegen maps them to MLIR `math`.
#ifndef TESSEL_IR_INTRINSICS_H_
#define TESSEL_IR_INTRINSICS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tessel::ir {

struct IntrinsicInfo {
  const char* name;
  int arity;
  bool allows_integers;
};

// Null when `name` is not an intrinsic.
const IntrinsicInfo* LookupIntrinsic(absl::string_view name);
// Every intrinsic, in a fixed order (for messages and tests).
const std::vector<IntrinsicInfo>& AllIntrinsics();

}  // namespace tessel::ir

#endif  // TESSEL_IR_INTRINSICS_H_
