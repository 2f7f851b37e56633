// The pass manager: runs a pipeline on a module under a PassContext.
//
//   PassContext ctx;
//   ctx.instruments.push_back(MakeVerifyEachInstrument());
//   absl::StatusOr<PassPtr> p = ParsePipeline("simplify,remove-no-op");
//   absl::StatusOr<ir::IRModule> out = RunPipeline(**p, mod, ctx);
//   // on failure: "pass 'remove-no-op' failed: function 'f': ..." and every
//   // instrument's OnFailure has been called (e.g. a reproducer written)
//
// For each pass (ExecutePass):
// 1. skip it if disabled (a disabled pipeline skips all it holds), or if its
//    opt level is above the context's and the context does not require it (the
//    skip goes to the log);
// 2. run first any pass it requires that has not run yet in this pipeline
//    (whatever that pass's opt level: the requiring pass depends on it);
// 3. instruments' BeforePass; the pass; the log records which functions changed
//    (pointer test per function); instruments' AfterPass (reverse order);
// 4. on any error, instruments' OnFailure, then the error is returned.
#ifndef TESSEL_PASSES_PASS_MANAGER_H_
#define TESSEL_PASSES_PASS_MANAGER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/function.h"
#include "passes/pass.h"
#include "passes/pass_context.h"

namespace tessel::passes {

// Runs a whole pipeline: enters `ctx` (PassContext::Current() is ctx inside),
// clears its log, records the pipeline text, and calls the pipeline hooks around
// the run. A top-level Sequential gets no pass hooks of its own.
absl::StatusOr<ir::IRModule> RunPipeline(const Pass& pipeline, const ir::IRModule& mod,
                                         PassContext& ctx);
// Under PassContext::Current().
absl::StatusOr<ir::IRModule> RunPipeline(const Pass& pipeline, const ir::IRModule& mod);
// Parses `text` (passes/pipeline.h) and runs it.
absl::StatusOr<ir::IRModule> RunPipeline(absl::string_view text, const ir::IRModule& mod,
                                         PassContext& ctx);

// Runs one pass inside a running pipeline, steps 1-4 above. Pipelines call this
// for each pass they hold.
absl::StatusOr<ir::IRModule> ExecutePass(const Pass& pass, const ir::IRModule& mod,
                                         PassContext& ctx);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PASS_MANAGER_H_
