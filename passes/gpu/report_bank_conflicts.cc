// report-bank-conflicts: runs each GPU function in the reference interpreter on
// seeded random inputs and logs its shared-memory bank conflicts, statement by
// statement (the model is ir/interpreter.h's BankConflicts). The functions are
// left as they are: the pass is a measurement that needs no GPU.
//
//   tessel-opt mm.tsl --pipeline='default-schedule{target="cuda"},lower,report-bank-conflicts'
//     --print-pass-log
//   report-bank-conflicts: mm: shared 1.50x the wavefronts without conflicts;
//     A_shared load 2.00 wavefronts per request (1.00 without conflicts, 4096 requests)
//     in C_local[...] = ...; B_shared store 1.00 (1.00, 512) in B_shared[...] = ...
//
// Inputs are random (seed check-semantics.seed); shape variables take the values
// of check-semantics.shape-vars. A function without thread-bound loops is skipped,
// as is one that would execute more than `max-steps` statements.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/interpreter.h"
#include "ir/status_macros.h"
#include "passes/gpu/kernel_launch.h"
#include "passes/instruments/semantic_check.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

std::string Site(const ir::BankConflictSite& s) {
  const double per = static_cast<double>(s.wavefronts) / static_cast<double>(s.requests);
  const double ideal = static_cast<double>(s.ideal) / static_cast<double>(s.requests);
  return absl::StrFormat(
      "%s %s %.2f wavefronts per request (%.2f without conflicts, %d requests) in %s", s.buffer,
      s.store ? "store" : "load", per, ideal, s.requests, s.statement);
}

class ReportBankConflictsPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "report-bank-conflicts",
            .description =
                "Logs the shared-memory bank conflicts of each GPU function, measured by "
                "running it in the reference interpreter on random inputs",
            .options = {IntOption("max-steps", int64_t{1} << 25,
                                  "Most statements a function's run may execute")}};
  }
  explicit ReportBankConflictsPass(PassOptions options)
      : FunctionPass(Info(), std::move(options)) {}

  std::string SkipReason(const ir::PrimFunc& func) const override {
    return HasThreadBinding(func) ? "" : "no thread-bound loops";
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    TESSEL_ASSIGN_OR_RETURN(ShapeVars shape_vars, ShapeVarValues(ctx));
    absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(
        func, static_cast<uint64_t>(ctx.GetConfigInt("check-semantics.seed")), shape_vars);
    if (!args.ok()) {
      ctx.log().RecordSkipped(this->name(), name,
                              absl::StrCat(args.status().message(),
                                           "; give shape variables in check-semantics.shape-vars"));
      return func;
    }
    ir::BankConflicts banks;
    ir::RunOptions run;
    run.max_steps = options().GetInt("max-steps");
    run.bank_conflicts = &banks;
    if (absl::Status s = ir::Run(func, *args, run, name); !s.ok()) {
      ctx.log().RecordSkipped(this->name(), name, std::string(s.message()));
      return func;
    }
    int64_t wavefronts = 0, ideal = 0;
    for (const ir::BankConflictSite& s : banks.sites) {
      wavefronts += s.wavefronts;
      ideal += s.ideal;
    }
    if (banks.sites.empty()) {
      ctx.log().RecordNote(this->name(), absl::StrCat(name, ": no shared-memory access"));
      return func;
    }
    std::string line =
        absl::StrFormat("%s: shared %.2fx the wavefronts without conflicts", name,
                        static_cast<double>(wavefronts) / static_cast<double>(ideal));
    for (const ir::BankConflictSite& s : banks.sites) absl::StrAppend(&line, "; ", Site(s));
    ctx.log().RecordNote(this->name(), line);
    return func;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(ReportBankConflictsPass);

}  // namespace tessel::passes
