// A pass: a named IRModule -> IRModule transformation with an opt level, the
// passes it requires, and typed options.
//
//   class DoubleStores : public FunctionPass {      // one PrimFunc at a time
//    public:
//     static PassInfo Info() {
//       return {.name = "double-stores", .description = "Multiplies stored values by 2",
//               .opt_level = 1, .options = {IntOption("times", 1, "How often")}};
//     }
//     explicit DoubleStores(PassOptions o) : FunctionPass(Info(), std::move(o)) {}
//     absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& f, const std::string& name,
//                                                PassContext& ctx) const override { ... }
//   };
//   TESSEL_REGISTER_PASS(DoubleStores);            // passes/pass_registry.h
//
// A pass returns the very same object for anything it does not change (DESIGN.md
// decision 2), so "did this pass change f" is a pointer test. Passes are immutable
// once built and are shared through PassPtr.
#ifndef TESSEL_PASSES_PASS_H_
#define TESSEL_PASSES_PASS_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "passes/pass_options.h"

namespace tessel::passes {

class PassContext;

struct PassInfo {
  // Every field has a default initializer so that designated initializers may
  // leave any out without warnings: {.name = "x", .opt_level = 1}.
  std::string name = {};         // kebab-case, unique in the registry.
  std::string description = {};  // One line.
  // The pass runs when the context's opt level is at least this (or when the
  // context requires it by name).
  int opt_level = 0;
  // Passes that must have run earlier in the same pipeline; the pass manager runs
  // any that have not, with default options, just before this one.
  std::vector<std::string> required = {};
  std::vector<OptionSpec> options = {};
  // A function pass skips functions whose attr `scheduled` is true: for passes
  // that would undo or disturb a schedule someone already chose.
  bool skips_scheduled = false;
};

class Pass {
 public:
  Pass(PassInfo info, PassOptions options);
  virtual ~Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;

  const PassInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }
  const PassOptions& options() const { return options_; }

  // The transformation itself. Callers go through the pass manager
  // (passes/pass_manager.h) so that instruments, gating and logging happen;
  // calling Run directly runs just this pass.
  virtual absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const = 0;

  // True for pipelines (Sequential, combinators, aliases). Instruments that look
  // at IR (printing, verifying, checking semantics) act on the passes inside.
  virtual bool is_pipeline() const { return false; }

  // The pass in pipeline text: "name" or "name{factor=4,names=[a,b]}".
  virtual std::string ToString() const;

 private:
  PassInfo info_;
  PassOptions options_;
};

using PassPtr = std::shared_ptr<const Pass>;

// A pass over the whole module (it may add, remove or rename functions):
// subclass and override Run. The name says which kind a pass is.
using ModulePass = Pass;

// A pass applied to each PrimFunc of the module in turn. The module is rebuilt
// only when a function changed, keeping function order and module attrs.
//
// Functions are skipped when their attrs say so:
//   skip_passes = ["simplify", ...]   (or ["*"] for every function pass)
//   scheduled = true                  (only for passes with `skips_scheduled`)
// Skips are written to the pass log with their reason.
// The skip reason of a function a pass with `skips_scheduled` leaves alone.
inline constexpr char kSkippedAsScheduled[] = "it is already scheduled";

// What one run of a FunctionPass did, for its CheckOutcome.
struct FunctionPassOutcome {
  std::vector<std::string> changed;  // Functions RunOnFunction rewrote, in module order.
  // (function, why) for every function the pass skipped, as its log records them.
  std::vector<std::pair<std::string, std::string>> skipped;
};

class FunctionPass : public Pass {
 public:
  using Pass::Pass;
  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const final;

  // Why `func` is skipped, or "" when it is not.
  virtual std::string SkipReason(const ir::PrimFunc& func) const;

 protected:
  // Called once every function ran, with the module the pass was given; an error
  // fails the pass, leaving the module as it was. The default accepts anything. A
  // pass whose doing nothing means a mistake (manual-schedule: a trace that fits no
  // function) refuses here.
  virtual absl::Status CheckOutcome(const ir::IRModule& mod,
                                    const FunctionPassOutcome& outcome) const;

  // Returns `func` itself when nothing changes. `name` is the function's name in
  // the module, for messages and the log.
  virtual absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func,
                                                     const std::string& name,
                                                     PassContext& ctx) const = 0;
};

// Passes from plain functions, for C++ users who do not want a class.
using ModulePassFn = std::function<absl::StatusOr<ir::IRModule>(
    const ir::IRModule& mod, const PassOptions& options, PassContext& ctx)>;
using FunctionPassFn =
    std::function<absl::StatusOr<ir::PrimFunc>(const ir::PrimFunc& func, const std::string& name,
                                               const PassOptions& options, PassContext& ctx)>;

// `options` defaults to every declared option at its default.
PassPtr MakeModulePass(PassInfo info, ModulePassFn fn);
PassPtr MakeModulePass(PassInfo info, PassOptions options, ModulePassFn fn);
PassPtr MakeFunctionPass(PassInfo info, FunctionPassFn fn);
PassPtr MakeFunctionPass(PassInfo info, PassOptions options, FunctionPassFn fn);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PASS_H_
