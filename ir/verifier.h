// Well-formedness checks for IR that the type-checking factories cannot see
// because they need context:
//
// - every variable defined before use and bound exactly once (loop, let, iter
//   var, parameter, symbolic shape); loop variables unique in scope;
// - every buffer bound (parameter, Allocate, DeclBuffer, alloc_buffers) before use;
// - accesses match the buffer's rank and dtype;
// - block bindings legal for their iter kinds (a spatial/reduce iter var's value
//   uses no variables bound inside a block of its own, a reduce block has init
//   only if it has a reduce iter var, ...), iter values inside the iter domains
//   when constant;
// - constant regions and constant indices inside buffer bounds;
// - every load and store of a block inside the regions it declares, where the
//   arith analyzer can tell (ir/verify_regions.h);
// - block names unique in the function; function names unique in the module;
// - graph functions: see VerifyGraphFunction.
//
//   absl::Status s = VerifyModule(mod);
//   // "verify: function 'mm': block 'C': iter var 'vk' is reduce but ..."
#ifndef TESSEL_IR_VERIFIER_H_
#define TESSEL_IR_VERIFIER_H_

#include <string>

#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::ir {

absl::Status VerifyModule(const IRModule& mod);
absl::Status VerifyFunction(const PrimFunc& func, const std::string& name = "main");
// A graph function of `mod` (ir/verify_graph.cc): values defined once before use,
// tensor types, call_tir against its callee's parameters.
absl::Status VerifyGraphFunction(const IRModule& mod, const GraphFunc& func,
                                 const std::string& name);

}  // namespace tessel::ir

#endif  // TESSEL_IR_VERIFIER_H_
