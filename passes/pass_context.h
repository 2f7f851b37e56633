// PassContext: everything a pipeline run depends on besides the passes -- opt
// level, disabled and required passes, typed config, instruments -- and the
// per-run log it fills in.
//
//   PassContext ctx;
//   ctx.opt_level = 3;
//   ctx.disabled_passes = {"canonicalize-names"};
//   ctx.instruments.push_back(MakeTimingInstrument(&std::cerr));
//   absl::Status s = ctx.SetConfigFromText("check-semantics.seed", "7");
//   {
//     PassContext::Scope scope(ctx);          // PassContext::Current() is now ctx
//     ...                                     // nested scopes restore the outer one
//   }
//   absl::StatusOr<IRModule> out = RunPipeline(*pipeline, mod, ctx);   // pass_manager.h
//   std::cout << ctx.log().ToString();
#ifndef TESSEL_PASSES_PASS_CONTEXT_H_
#define TESSEL_PASSES_PASS_CONTEXT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "passes/pass_log.h"
#include "passes/pass_options.h"

namespace tessel::passes {

class PassInstrument;

class PassContext {
 public:
  // Passes with a higher opt level are skipped unless listed in required_passes.
  int opt_level = 2;
  // Never run these (by pass name). A required pass that is disabled is an error.
  std::vector<std::string> disabled_passes;
  // Always run these when they appear, whatever their opt level.
  std::vector<std::string> required_passes;
  // Called around the pipeline and every pass, in order before and in reverse
  // order after (so the first is outermost).
  std::vector<std::shared_ptr<PassInstrument>> instruments;

  bool IsDisabled(const std::string& pass) const;
  bool IsRequired(const std::string& pass) const;

  // Typed config (passes/pass_config.h). Unknown keys and values of the wrong
  // type are errors.
  absl::Status SetConfig(const std::string& key, OptionValue value);
  // `text` is written as in pipeline options: 4, true, abc, "a b", [a,b].
  absl::Status SetConfigFromText(const std::string& key, const std::string& text);
  // Values fall back to the registered default. Reading an unregistered key or
  // with the wrong type is a programming error (aborts).
  int64_t GetConfigInt(const std::string& key) const;
  bool GetConfigBool(const std::string& key) const;
  std::string GetConfigString(const std::string& key) const;
  std::vector<std::string> GetConfigList(const std::string& key) const;
  // The explicitly set keys, sorted: "check-semantics.seed=7".
  std::vector<std::string> ConfigToStrings() const;

  PassLog& log() { return log_; }
  const PassLog& log() const { return log_; }

  // The pipeline being run, as text; set by RunPipeline (the reproducer writes it).
  const std::string& pipeline_text() const { return pipeline_text_; }
  void set_pipeline_text(std::string text) { pipeline_text_ = std::move(text); }

  // Seconds spent in each instrument's hooks during the current run, by
  // instrument name: the pass manager adds to it around every hook and clears
  // it when a run starts, so that the timing instrument can show instrument
  // time (check-semantics' interpreter runs) apart from the passes it surrounds.
  std::map<std::string, double>& instrument_seconds() { return instrument_seconds_; }
  const std::map<std::string, double>& instrument_seconds() const { return instrument_seconds_; }

  // The innermost context entered on this thread, or a default one.
  static PassContext& Current();

  // Makes `ctx` current for its lifetime; the previous one is current again after.
  class Scope {
   public:
    explicit Scope(PassContext& ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };

 private:
  const OptionValue& GetConfig(const std::string& key, OptionType type) const;

  std::map<std::string, OptionValue> config_;
  PassLog log_;
  std::string pipeline_text_;
  std::map<std::string, double> instrument_seconds_;
};

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PASS_CONTEXT_H_
