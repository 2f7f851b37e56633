// manual-schedule: applies a schedule -- a trace (a JSON file, a Python file,
// or `// SCHEDULE:` lines of the input), or a C++ schedule function registered
// by name -- to the functions it fits, so that schedules are pipeline steps
// like any other (docs/schedule.md).
//
//   tessel-opt mm.tsl --pipeline='manual-schedule{script=mm_tile.py}'
//   tessel-opt mm.tsl --pipeline='manual-schedule{trace=mm_tile.json}'
//   tessel-opt mm.tsl --pipeline='manual-schedule{schedule=matmul-cpu-tile,functions=[mm]}'
//   tessel-opt mm.tsl --pipeline='manual-schedule'    # the trace of mm.tsl's // SCHEDULE: lines
//
//   for i in range(0, 1024) {            for i_0 in parallel(0, 32) {
//     for j in range(0, 1024) {    ->      for j_0 in range(0, 16) {
//       for k in range(0, 1024) {            for k in range(0, 1024) {
//         block C(...) ...                     for i_1 in range(0, 32) {
//                                                for j_1 in vectorized(0, 64) { block C(...) ...
//
// A script is the Python that `print(sch.trace)` writes (ir/schedule/trace_python.h).
// With none of trace, script and schedule the trace is read from the
// PassContext config `manual-schedule.inline-script`, which tessel-opt fills
// from the input's `// SCHEDULE:` lines, per chunk with --split-input-file
// (manual_schedule.h). Files are read up to kMaxTracePythonBytes; a longer
// one is an error.
//
// Which functions: those named in `functions`, or, when it is empty, every
// function the schedule fits -- for a trace, every function holding each block
// its get_block instructions name; for a schedule function, every function it
// does not call "not applicable". Functions left out are logged as skips. A
// scheduled function gets the attr `scheduled = true`, and functions that
// already have it are skipped (so a later manual-schedule does not schedule
// twice). `seed` drives sampling instructions that carry no decision.
//
// A schedule that does nothing is a mistake, so it is an error: a name in
// `functions` the module lacks (`functions=[mn]` for mm), or a run that schedules
// no function while none was scheduled already (a trace whose get_block names a
// block no function has). `allow-no-match=true` logs those as skips instead, for
// pipelines run over modules the schedule may not fit.
#include "passes/transforms/manual_schedule.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/read_file.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/schedule_registry.h"
#include "ir/schedule/stmt_index.h"
#include "ir/schedule/trace.h"
#include "ir/schedule/trace_python.h"
#include "ir/status_macros.h"
#include "passes/did_you_mean.h"
#include "passes/pass.h"
#include "passes/pass_config.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

TESSEL_REGISTER_CONFIG(StringOption(kInlineScheduleConfig, "",
                                    "The trace (Python) of a manual-schedule given no trace, "
                                    "script or schedule; tessel-opt sets it from the input's "
                                    "// SCHEDULE: lines"));
TESSEL_REGISTER_CONFIG(StringOption(kInlineScheduleSourceConfig, "// SCHEDULE:",
                                    "Where the inline trace comes from, for messages"));

std::string InlineScheduleScript(absl::string_view input) {
  std::string out;
  bool any = false;
  for (absl::string_view line : absl::StrSplit(input, '\n')) {
    size_t indent = line.find_first_not_of(" \t");
    if (indent != absl::string_view::npos &&
        absl::StartsWith(line.substr(indent), kInlineScheduleMarker)) {
      // Blanks where the marker was keep the columns of the input.
      size_t prefix = indent + sizeof(kInlineScheduleMarker) - 1;
      absl::StrAppend(&out, std::string(prefix, ' '), line.substr(prefix));
      any = true;
    }
    out.push_back('\n');
  }
  return any ? out : std::string();
}

namespace {

namespace sch = ir::schedule;

// A trace file's text; longer than any schedule is an error, not a long read.
absl::StatusOr<std::string> ReadTraceFile(const std::string& path, absl::string_view option) {
  absl::StatusOr<std::string> text =
      ir::ReadFileBounded(path, static_cast<int64_t>(sch::kMaxTracePythonBytes));
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("manual-schedule: option '", option, "': ", text.status().message()));
  }
  return text;
}

class ManualSchedulePass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "manual-schedule",
            .description =
                "Applies a schedule (a trace as JSON, as Python, or in the input's "
                "// SCHEDULE: lines, or a registered C++ schedule function) to the functions "
                "it fits",
            .opt_level = 0,
            .options = {StringOption("trace", "", "Path of a trace JSON file to replay"),
                        StringOption("script", "",
                                     "Path of a Python trace (as print(sch.trace) writes) to "
                                     "replay"),
                        StringOption("schedule", "", "Name of a registered schedule function"),
                        ListOption("functions", {},
                                   "Functions to schedule; empty means every function it fits"),
                        IntOption("seed", 1, "Seed of sampling instructions without a decision"),
                        BoolOption("allow-no-match", false,
                                   "Skip, instead of failing, when a function in 'functions' "
                                   "does not exist or the schedule fits no function")},
            .skips_scheduled = true};
  }

  // `trace` is empty for a schedule function and for the inline form, which
  // is read from the PassContext when the pass runs.
  ManualSchedulePass(PassOptions options, std::optional<sch::Trace> trace,
                     const sch::RegisteredSchedule* fn)
      : FunctionPass(Info(), std::move(options)), trace_(std::move(trace)), fn_(fn) {}

  static absl::StatusOr<PassPtr> Make(PassOptions options) {
    const std::string& json = options.GetString("trace");
    const std::string& script = options.GetString("script");
    const std::string& name = options.GetString("schedule");
    if (!json.empty() + !script.empty() + !name.empty() > 1) {
      return absl::InvalidArgumentError(
          "manual-schedule: give one of the options 'trace' (a JSON file), 'script' (a Python "
          "trace file) and 'schedule' (a registered schedule function), or none to read the "
          "input's // SCHEDULE: lines");
    }
    if (!name.empty()) {
      const sch::RegisteredSchedule* fn = sch::ScheduleRegistry::Global().Lookup(name);
      if (fn == nullptr) {
        std::vector<std::string> names = sch::ScheduleRegistry::Global().Names();
        return absl::InvalidArgumentError(
            absl::StrCat("manual-schedule: option 'schedule': no schedule function named '", name,
                         "'; registered: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
      }
      return std::make_shared<const ManualSchedulePass>(std::move(options), std::nullopt, fn);
    }
    if (json.empty() && script.empty()) {
      return std::make_shared<const ManualSchedulePass>(std::move(options), std::nullopt,
                                                        nullptr);
    }
    const char* option = json.empty() ? "script" : "trace";
    const std::string& path = json.empty() ? script : json;
    TESSEL_ASSIGN_OR_RETURN(std::string text, ReadTraceFile(path, option));
    absl::StatusOr<sch::Trace> trace =
        json.empty() ? sch::ParseTracePython(text, path) : sch::Trace::FromJson(text, path);
    if (!trace.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("manual-schedule: option '", option, "': ", trace.status().message()));
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
    sch::Trace inline_trace;
    if (fn_ == nullptr && !trace_) {
      TESSEL_ASSIGN_OR_RETURN(inline_trace, InlineTrace(ctx));
    }
    const sch::Trace& trace = trace_ ? *trace_ : inline_trace;
    if (fn_ == nullptr && !explicit_list) {
      std::string missing = MissingBlock(trace, func);
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
      if (absl::Status ok = trace.ApplyToSchedule(&*s); !ok.ok()) {
        return absl::Status(ok.code(),
                            absl::StrCat("trace '", TraceSource(ctx), "': ", ok.message()));
      }
      what = "trace";
    }
    auto out = ir::MakeNode<ir::PrimFuncNode>(*s->func());
    out->attrs["scheduled"] = ir::AttrValue(true);
    ctx.log().RecordApplied(this->name(), name, what);
    return ir::PrimFunc(std::move(out));
  }

 protected:
  absl::Status CheckOutcome(const ir::IRModule& mod,
                            const FunctionPassOutcome& outcome) const override {
    if (options().GetBool("allow-no-match")) return absl::OkStatus();
    std::vector<std::string> names;
    for (const auto& [n, f] : mod->functions) names.push_back(n);
    for (const std::string& listed : options().GetList("functions")) {
      if (std::find(names.begin(), names.end(), listed) == names.end()) {
        return absl::NotFoundError(absl::StrCat(
            "option 'functions' names '", listed, "', which the module lacks (functions: ",
            names.empty() ? "none" : absl::StrJoin(names, ", "), ")", DidYouMean(listed, names),
            "; allow-no-match=true skips it"));
      }
    }
    if (!outcome.changed.empty()) return absl::OkStatus();
    std::vector<std::string> why;
    for (const auto& [function, reason] : outcome.skipped) {
      if (reason == kSkippedAsScheduled) return absl::OkStatus();
      why.push_back(absl::StrCat("'", function, "': ", reason));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "the schedule applied to no function (", why.empty() ? "the module has none" :
        absl::StrJoin(why, "; "), "); allow-no-match=true accepts that"));
  }

 private:
  // The inline trace, parsed on each use: it changes with each input chunk.
  static absl::StatusOr<sch::Trace> InlineTrace(const PassContext& ctx) {
    std::string script = ctx.GetConfigString(kInlineScheduleConfig);
    if (script.empty()) {
      return absl::InvalidArgumentError(
          "no trace: give manual-schedule one of the options 'trace', 'script' and 'schedule', "
          "or write the trace in // SCHEDULE: lines of the input (read by tessel-opt)");
    }
    return sch::ParseTracePython(script, ctx.GetConfigString(kInlineScheduleSourceConfig));
  }

  // Where the trace came from, for messages.
  std::string TraceSource(const PassContext& ctx) const {
    if (!options().GetString("trace").empty()) return options().GetString("trace");
    if (!options().GetString("script").empty()) return options().GetString("script");
    return ctx.GetConfigString(kInlineScheduleSourceConfig);
  }

  // The first block a get_block of `trace` names that `func` lacks, or "".
  static std::string MissingBlock(const sch::Trace& trace, const ir::PrimFunc& func) {
    sch::StmtIndex index(func);
    for (const sch::Instruction& inst : trace.instructions()) {
      if (inst.kind != "get_block") continue;
      const ir::AttrValue* n = inst.FindAttr("name");
      if (n == nullptr || !n->is<std::string>()) continue;  // Replay reports it.
      if (index.FindBlock(n->as<std::string>()) < 0) return n->as<std::string>();
    }
    return "";
  }

  std::optional<sch::Trace> trace_;  // From the trace or script option.
  const sch::RegisteredSchedule* fn_;
};

const PassRegistrar kRegisterManualSchedule(ManualSchedulePass::Info(), ManualSchedulePass::Make);

}  // namespace

}  // namespace tessel::passes
