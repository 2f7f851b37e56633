// Evaluating a scalar expression at chosen values of the loads it makes: how
// dispatch recognises what an elementwise block computes by meaning, not by how
// it is written (epilogue.cc, normalization.cc).
//
//   e = exp(X[vi, vj] - M[vi])
//   ProbeValue(e, {X -> 1.5, M -> 0.25}) == exp(1.25)
//   ProbeValue(e, {X -> 1.5})            == nullopt   (M has no value)
#ifndef TESSEL_DISPATCH_PROBE_H_
#define TESSEL_DISPATCH_PROBE_H_

#include <functional>
#include <optional>

#include "ir/expr.h"
#include "ir/substitute.h"

namespace tessel::dispatch {

// The value of a load, or nullopt when the probe gives it none.
using LoadValue = std::function<std::optional<double>(const ir::BufferLoadNode*)>;

// The value of `e` in double precision with each load replaced by `load`'s value;
// nullopt when `e` uses anything else (a variable, an unknown call, an integer
// cast of a float) or a load without a value. Intrinsics: exp, log, erf, tanh,
// sigmoid, sqrt, rsqrt, fabs, pow, fma.
std::optional<double> ProbeValue(const ir::Expr& e, const LoadValue& load);

// `e` with the given variables set, simplified (to a constant when nothing else is
// left): an index expression evaluated at a point of its iteration space.
ir::Expr EvalAt(const ir::Expr& e, const ir::VarMap& values);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_PROBE_H_
