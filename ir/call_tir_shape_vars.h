// The callee's shape variables in a call_tir, bound from the call: each variable
// that is a whole dimension of a parameter takes the matching dimension of the
// value passed for it (arguments, then outputs), the first such dimension winning.
//
//   func @copy[n](A: f32[n], B: f32[n])   call_tir @copy(x) on x: f32[4]   ->   {n: 4}
//
// Used by the verifier, which then checks every dimension against the binding,
// and by fuse-tir, which substitutes it into the callee's body. Parameters that
// are scalars or whose rank differs from the passed value's bind nothing; a
// variable whose dtype differs from the dimension's stays unbound.
#ifndef TESSEL_IR_CALL_TIR_SHAPE_VARS_H_
#define TESSEL_IR_CALL_TIR_SHAPE_VARS_H_

#include <vector>

#include "ir/function.h"
#include "ir/substitute.h"

namespace tessel::ir {

VarMap CallTirShapeVars(const PrimFunc& callee, const std::vector<Buffer>& passed);

}  // namespace tessel::ir

#endif  // TESSEL_IR_CALL_TIR_SHAPE_VARS_H_
