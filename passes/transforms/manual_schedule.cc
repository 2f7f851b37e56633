// manual-schedule: applies a schedule -- a trace from a JSON file, or a C++
// schedule function registered by name -- to the functions it fits, so that
// schedules are pipeline steps like any other (docs/schedule.md).
//
//   tessel-opt mm.tsl --pipeline='manual-schedule{trace=mm_tile.json}'
//   tessel-opt mm.tsl --pipeline='manual-schedule{schedule=matmul-cpu-tile,functions=[mm]}'
//
//   for i in range(0, 1024) {            for i_0 in parallel(0, 32) {
//     for j in range(0, 1024) {    ->      for j_0 in range(0, 16) {
//       for k in range(0, 1024) {            for k in range(0, 1024) {
//         block C(...) ...                     for i_1 in range(0, 32) {
//                                                for j_1 in vectorized(0, 64) { block C(...) ...
//
// Which functions: those named in `functions`, or, when it is empty, every
// function the schedule fits -- for a trace, every function holding each block
// its get_block instructions name; for a schedule function, every function it
// does not call "not applicable". Functions left out are logged as skips. A
// scheduled function gets the attr `scheduled = true`, and functions that
// already have it are skipped (so a later manual-schedule does not schedule
// twice). `seed` drives sampling instructions that carry no decision.
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/schedule_registry.h"
#include "ir/schedule/stmt_index.h"
#include "ir/schedule/trace.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

namespace {

namespace sch = ir::schedule;

class ManualSchedulePass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "manual-schedule",
            .description =
                "Applies a schedule (a trace JSON file, or a registered C++ schedule "
                "function) to the functions it fits",
            .opt_level = 0,
            .options = {StringOption("trace", "", "Path of a trace JSON file to replay"),
                        StringOption("schedule", "", "Name of a registered schedule function"),
                        ListOption("functions", {},
                                   "Functions to schedule; empty means every function it fits"),
                        IntOption("seed", 1, "Seed of sampling instructions without a decision")},
            .skips_scheduled = true};
  }

  ManualSchedulePass(PassOptions options, sch::Trace trace, const sch::RegisteredSchedule* fn)
      : FunctionPass(Info(), std::move(options)), trace_(std::move(trace)), fn_(fn) {}

  static absl::StatusOr<PassPtr> Make(PassOptions options) {
    const std::string& path = options.GetString("trace");
    const std::string& name = options.GetString("schedule");
    if (path.empty() == name.empty()) {
      return absl::InvalidArgumentError(
          "manual-schedule: give exactly one of the options 'trace' (a JSON file) and "
          "'schedule' (a registered schedule function)");
    }
    if (!name.empty()) {
      const sch::RegisteredSchedule* fn = sch::ScheduleRegistry::Global().Lookup(name);
      if (fn == nullptr) {
        std::vector<std::string> names = sch::ScheduleRegistry::Global().Names();
        return absl::InvalidArgumentError(
            absl::StrCat("manual-schedule: option 'schedule': no schedule function named '", name,
                         "'; registered: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
      }
      return std::make_shared<const ManualSchedulePass>(std::move(options), sch::Trace(), fn);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::InvalidArgumentError(
          absl::StrCat("manual-schedule: option 'trace': cannot read '", path, "'"));
    }
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<sch::Trace> trace = sch::Trace::FromJson(text.str(), path);
    if (!trace.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("manual-schedule: option 'trace': ", trace.status().message()));
    }
    return std::make_shared<const ManualSchedulePass>(std::move(options), *std::move(trace),
                                                      nullptr);
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    const std::vector<std::string>& listed = options().GetList("functions");
    const bool explicit_list = !listed.empty();
    if (explicit_list && std::find(listed.begin(), listed.end(), name) == listed.end()) {
      ctx.log().RecordSkipped(this->name(), name, "not in option 'functions'");
      return func;
    }
    if (fn_ == nullptr && !explicit_list) {
      std::string missing = MissingBlock(func);
      if (!missing.empty()) {
        ctx.log().RecordSkipped(this->name(), name,
                                absl::StrCat("the trace needs block '", missing, "'"));
        return func;
      }
    }
    absl::StatusOr<sch::Schedule> s = sch::Schedule::Create(
        ir::MakeIRModule({{name, func}}), name, static_cast<uint64_t>(options().GetInt("seed")));
    if (!s.ok()) return s.status();
    std::string what;
    if (fn_ != nullptr) {
      absl::StatusOr<bool> applied = fn_->fn(*s);
      if (!applied.ok()) {
        return absl::Status(
            applied.status().code(),
            absl::StrCat("schedule '", fn_->name, "': ", applied.status().message()));
      }
      if (!*applied) {
        if (explicit_list) {
          return absl::FailedPreconditionError(
              absl::StrCat("schedule '", fn_->name, "' does not apply to this function"));
        }
        ctx.log().RecordSkipped(this->name(), name,
                                absl::StrCat("schedule '", fn_->name, "' does not apply"));
        return func;
      }
      what = absl::StrCat("schedule ", fn_->name);
    } else {
      if (absl::Status ok = trace_.ApplyToSchedule(&*s); !ok.ok()) {
        return absl::Status(
            ok.code(), absl::StrCat("trace '", options().GetString("trace"), "': ", ok.message()));
      }
      what = "trace";
    }
    auto out = ir::MakeNode<ir::PrimFuncNode>(*s->func());
    out->attrs["scheduled"] = ir::AttrValue(true);
    ctx.log().RecordApplied(this->name(), name, what);
    return ir::PrimFunc(std::move(out));
  }

 private:
  // The first block a get_block of the trace names that `func` lacks, or "".
  std::string MissingBlock(const ir::PrimFunc& func) const {
    sch::StmtIndex index(func);
    for (const sch::Instruction& inst : trace_.instructions()) {
      if (inst.kind != "get_block") continue;
      const ir::AttrValue* n = inst.FindAttr("name");
      if (n == nullptr || !n->is<std::string>()) continue;  // Replay reports it.
      if (index.FindBlock(n->as<std::string>()) < 0) return n->as<std::string>();
    }
    return "";
  }

  sch::Trace trace_;
  const sch::RegisteredSchedule* fn_;
};

const PassRegistrar kRegisterManualSchedule(ManualSchedulePass::Info(), ManualSchedulePass::Make);

}  // namespace

}  // namespace tessel::passes
