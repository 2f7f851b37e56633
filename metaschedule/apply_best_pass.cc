// apply-best: schedules each function by the fastest record a tuning database
// holds for it and the target, replaying the record's trace; what has no record
// is left for the next pass (docs/metaschedule.md).
//
//   tessel-opt model.tsl
//   --pipeline='apply-best{db="tuning.db",target="llvm"},default-schedule,lower'
//
//   func @mm (a workload of tuning.db, 3 records for "llvm")
//     -> the best record's trace replayed: tiled, packed, parallel; `scheduled = true`
//   pass log: mm: applied record; mm: record 2 (0.0255 ms), the fastest that replays of 3, ...
//
// The workload is found by structure (hash, then structural_equal), never by name;
// the target string must match the record's exactly. A record whose trace no longer
// replays (the function differs in a block's name, a primitive refuses) is reported
// in the log and the next fastest is tried; a function with no usable record stays
// as it was, with the reason logged. Functions already scheduled are skipped.
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/trace.h"
#include "metaschedule/database/database.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::metaschedule {
namespace {

using passes::PassContext;

constexpr int kTried = 8;  // Records tried, fastest first, before giving up on a function.

class ApplyBestPass : public passes::FunctionPass {
 public:
  static passes::PassInfo Info() {
    return {.name = "apply-best",
            .description =
                "Schedules each function by the fastest record of a tuning database "
                "for the target (replaying its trace); others are left as they are",
            .opt_level = 0,
            .required = {},
            .options = {passes::StringOption("db", "", "The tuning database file (required)"),
                        passes::StringOption("target", "llvm",
                                             "The target string the records must have been "
                                             "measured for, exactly")},
            .skips_scheduled = true};
  }

  ApplyBestPass(passes::PassOptions options, std::shared_ptr<Database> db)
      : FunctionPass(Info(), std::move(options)), db_(std::move(db)) {}

  static absl::StatusOr<passes::PassPtr> Make(passes::PassOptions options) {
    const std::string path = options.GetString("db");
    if (path.empty()) return absl::InvalidArgumentError("apply-best: option 'db' is required");
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path, /*create=*/false);
    if (!db.ok()) {
      return absl::Status(db.status().code(),
                          absl::StrCat("apply-best: option 'db': ", db.status().message()));
    }
    return std::make_shared<const ApplyBestPass>(std::move(options),
                                                 std::shared_ptr<Database>(*std::move(db)));
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    const std::string target = options().GetString("target");
    absl::StatusOr<std::vector<TuningRecord>> best = db_->Best(func, target, kTried);
    if (!best.ok()) return best.status();
    if (best->empty()) {
      ctx.log().RecordSkipped(this->name(), name,
                              absl::StrCat("no record for target \"", target, "\""));
      return func;
    }
    for (const TuningRecord& r : *best) {
      absl::StatusOr<ir::PrimFunc> scheduled = Replay(func, name, r);
      if (!scheduled.ok()) {
        ctx.log().RecordNote(this->name(),
                             absl::StrCat(name, ": record ", r.id, " does not replay (",
                                          scheduled.status().message(), "); trying the next"));
        continue;
      }
      ctx.log().RecordApplied(this->name(), name, "record");
      ctx.log().RecordNote(
          this->name(),
          absl::StrFormat("%s: record %d (%.4f ms), the fastest that replays of %d, %s", name, r.id,
                          r.MeanSeconds() * 1e3, best->size(), r.created_at));
      return scheduled;
    }
    ctx.log().RecordSkipped(this->name(), name,
                            absl::StrCat("none of its ", best->size(), " fastest records replays"));
    return func;
  }

 private:
  // The function scheduled by the record's trace, marked scheduled.
  static absl::StatusOr<ir::PrimFunc> Replay(const ir::PrimFunc& func, const std::string& name,
                                             const TuningRecord& r) {
    absl::StatusOr<ir::schedule::Trace> trace =
        ir::schedule::Trace::FromJson(r.trace_json, absl::StrCat("record ", r.id));
    if (!trace.ok()) return trace.status();
    absl::StatusOr<ir::schedule::Schedule> sch =
        ir::schedule::Schedule::Create(ir::MakeIRModule({{name, func}}), name);
    if (!sch.ok()) return sch.status();
    if (absl::Status s = trace->ApplyToSchedule(&*sch); !s.ok()) return s;
    auto out = ir::MakeNode<ir::PrimFuncNode>(*sch->func());
    out->attrs["scheduled"] = ir::AttrValue(true);
    out->attrs["tuned_record"] = ir::AttrValue(r.id);
    return ir::PrimFunc(std::move(out));
  }

  std::shared_ptr<Database> db_;
};

const passes::PassRegistrar kRegisterApplyBest(ApplyBestPass::Info(), ApplyBestPass::Make);

}  // namespace
}  // namespace tessel::metaschedule
