// default-schedule: schedules every function nobody scheduled by the schedule
// rules of its target, every decision by target-derived heuristics, nothing
// measured (docs/metaschedule.md).
//
//   tessel-opt mm.tsl --pipeline='default-schedule,lower'
//   tessel-opt mm.tsl --pipeline='default-schedule{target="llvm -num-cores=8"}' --print-pass-log
//
//   for i, j, k: block C          ->   for i_0_j_0_fused in parallel(0, 32) {
//                                        block B_global (the packed panel) ...
//                                        for i_1 { C_init; for k { ...unrolled/vectorized C } ...
//
// A function gets `scheduled = true`, so later schedule passes leave it alone,
// and functions already scheduled (by hand, by apply-best) are skipped. The pass
// log records which rule applied to which function, and as notes what each did
// (its decisions); `explain=true` adds why each rule did not apply to each block.
// A function no rule improves stays as it was, logged with the reasons.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "metaschedule/default_schedule.h"
#include "metaschedule/design_space.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::metaschedule {

namespace {

using passes::PassContext;

class DefaultSchedulePass : public passes::FunctionPass {
 public:
  static passes::PassInfo Info() {
    return {.name = "default-schedule",
            .description = "Schedules unscheduled functions by the target's schedule rules and "
                           "heuristic decisions (no measurement)",
            .opt_level = 0,
            .required = {},
            .options = {passes::StringOption("target", "llvm",
                                             "Target the rules schedule for: 'llvm' (this CPU), "
                                             "with -mcpu, -mattr, -num-threads, -num-cores"),
                        passes::BoolOption("explain", false,
                                           "Also log why each rule did not apply to each block")},
            .skips_scheduled = true};
  }

  DefaultSchedulePass(passes::PassOptions options, Machine machine, std::string kind)
      : FunctionPass(Info(), std::move(options)),
        machine_(std::move(machine)),
        kind_(std::move(kind)) {}

  static absl::StatusOr<passes::PassPtr> Make(passes::PassOptions options) {
    const std::string target = options.GetString("target");
    absl::StatusOr<Machine> machine = Machine::FromTarget(target);
    if (!machine.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("default-schedule: option 'target': ", machine.status().message()));
    }
    return std::make_shared<const DefaultSchedulePass>(std::move(options), *std::move(machine),
                                                       TargetKind(target));
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    absl::StatusOr<RuleSchedule> r =
        ScheduleByRules(ir::MakeIRModule({{name, func}}), name, machine_, kind_);
    if (!r.ok()) return r.status();
    auto text = [](std::string* out, const RuleRecord& r) { out->append(r.ToString()); };
    if (r->applied.empty()) {
      ctx.log().RecordSkipped(this->name(), name,
                              absl::StrCat("no schedule rule applies: ",
                                           absl::StrJoin(r->not_applied, "; ", text)));
      return func;
    }
    for (const RuleRecord& a : r->applied) {
      ctx.log().RecordApplied(this->name(), name, a.rule);
      ctx.log().RecordNote(this->name(), absl::StrCat(name, ": ", a.ToString()));
    }
    if (options().GetBool("explain")) {
      for (const RuleRecord& n : r->not_applied) {
        ctx.log().RecordNote(this->name(), absl::StrCat(name, ": not ", n.ToString()));
      }
    }
    auto out = ir::MakeNode<ir::PrimFuncNode>(*r->schedule.func());
    out->attrs["scheduled"] = ir::AttrValue(true);
    return ir::PrimFunc(std::move(out));
  }

 private:
  Machine machine_;
  std::string kind_;
};

const passes::PassRegistrar kRegisterDefaultSchedule(DefaultSchedulePass::Info(),
                                                     DefaultSchedulePass::Make);

}  // namespace

}  // namespace tessel::metaschedule
