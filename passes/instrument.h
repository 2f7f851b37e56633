// Pass instruments: hooks the pass manager calls around a pipeline and around
// every pass in it. Printing IR, timing, dumping, reproducers, verification and
// the semantic check are all instruments (passes/instruments/); users write their
// own the same way.
//
//   class CountPasses : public PassInstrument {
//    public:
//     int n = 0;
//     std::string name() const override { return "count-passes"; }
//     absl::Status AfterPass(const Pass& pass, const ir::IRModule& before,
//                            const ir::IRModule& after, PassContext& ctx) override {
//       if (!pass.is_pipeline()) ++n;
//       return absl::OkStatus();
//     }
//   };
//   ctx.instruments.push_back(std::make_shared<CountPasses>());
//
// Order: Before* hooks run in the order of ctx.instruments, After* hooks in
// reverse, so the first instrument is the outermost. A hook that returns an error
// stops the pipeline; the error then goes to every instrument's OnFailure, as does
// a failing pass. Pass hooks see pipelines too (a nested pipeline is a pass with
// is_pipeline() true) but not the top-level pipeline, which has the pipeline hooks.
#ifndef TESSEL_PASSES_INSTRUMENT_H_
#define TESSEL_PASSES_INSTRUMENT_H_

#include <string>

#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::passes {

class Pass;
class PassContext;

// What went wrong, for OnFailure.
struct PassFailure {
  const Pass* pass = nullptr;  // Null when the failure is outside any pass.
  ir::IRModule input;          // The module the pass ran on.
  ir::IRModule output;         // What it produced; null when the pass itself failed.
  absl::Status error;          // The message the pipeline will return.
};

class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;

  virtual absl::Status BeforePipeline(const ir::IRModule& mod, PassContext& ctx) {
    return absl::OkStatus();
  }
  virtual absl::Status AfterPipeline(const ir::IRModule& mod, PassContext& ctx) {
    return absl::OkStatus();
  }
  virtual absl::Status BeforePass(const Pass& pass, const ir::IRModule& mod, PassContext& ctx) {
    return absl::OkStatus();
  }
  // `before` is the pass's input; `after.same_as(before)` when it changed nothing.
  virtual absl::Status AfterPass(const Pass& pass, const ir::IRModule& before,
                                 const ir::IRModule& after, PassContext& ctx) {
    return absl::OkStatus();
  }
  virtual void OnFailure(const PassFailure& failure, PassContext& ctx) {}
};

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENT_H_
