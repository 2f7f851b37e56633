// check-semantics: catches passes that silently change what a program computes.
//
// Before the pipeline, every function runs in the reference interpreter
// (ir/interpreter.h) on seeded random inputs; after each pass, every function
// the pass changed runs again on the same inputs and its buffers are compared
// with the reference. The first difference stops the pipeline and names the pass,
// the function, the buffer and the first differing index:
//
//   check-semantics: pass 'unroll' is the first to change the results of function
//   'f': <parameter 'B' differs first at index [3]: expected 1.5, got 2.5>
//
// Cheap to switch on: unchanged functions (same object) are not re-run, and
// functions estimated to execute more statements than the work limit are skipped
// with a note saying so. Config (passes/pass_config.h):
//   check-semantics.seed        seed of the random inputs (default 1)
//   check-semantics.work-limit  statements a function may execute to be checked
//                               (default 4194304)
#ifndef TESSEL_PASSES_INSTRUMENTS_SEMANTIC_CHECK_H_
#define TESSEL_PASSES_INSTRUMENTS_SEMANTIC_CHECK_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "passes/instrument.h"
#include "passes/pass_context.h"

namespace tessel::passes {

// Skip notes go to `diag` and to the pass log.
std::shared_ptr<PassInstrument> MakeSemanticCheckInstrument(std::ostream* diag);

// How many statements running `func` executes, from constant loop extents; -1
// when a loop extent is not constant. Saturates at a very large value.
int64_t EstimateWork(const ir::PrimFunc& func);

using ShapeVars = std::vector<std::pair<std::string, int64_t>>;
// check-semantics.shape-vars as (name, value) pairs: "n=37" -> ("n", 37); the
// values of shape variables wherever tessel runs functions on random inputs.
absl::StatusOr<ShapeVars> ShapeVarValues(const PassContext& ctx);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_SEMANTIC_CHECK_H_
