// The pass manager: gating, required passes, instrument hooks and the log.
#include "passes/pass_manager.h"

#include <chrono>
#include <map>

#include "absl/strings/str_cat.h"
#include "passes/instrument.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"

namespace tessel::passes {

namespace {

// Runs one instrument hook, adding its wall time to the instrument's row of
// ctx.instrument_seconds() (what the timing instrument reports it under).
template <typename Hook>
auto Timed(PassContext& ctx, const PassInstrument& inst, Hook hook) {
  auto start = std::chrono::steady_clock::now();
  auto result = hook();
  ctx.instrument_seconds()[inst.name()] +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

absl::Status Fail(PassContext& ctx, const Pass* pass, const ir::IRModule& input,
                  const ir::IRModule& output, absl::Status error) {
  PassFailure failure{pass, input, output, error};
  for (const auto& inst : ctx.instruments) inst->OnFailure(failure, ctx);
  return error;
}

// Which functions `pass` changed, added or removed: by name and pointer, for
// PrimFuncs and graph functions alike.
template <typename List>
void RecordChangedIn(const Pass& pass, const List& before, const List& after, PassContext& ctx) {
  std::map<std::string, const ir::Node*> old_funcs;
  for (const auto& [name, f] : before) old_funcs[name] = f.get();
  for (const auto& [name, f] : after) {
    auto it = old_funcs.find(name);
    if (it == old_funcs.end()) {
      ctx.log().RecordAdded(pass.name(), name);
      continue;
    }
    if (it->second != f.get()) ctx.log().RecordChanged(pass.name(), name);
    old_funcs.erase(it);
  }
  for (const auto& [name, f] : old_funcs) {
    ctx.log().RecordRemoved(pass.name(), name);
  }
}

void RecordChanges(const Pass& pass, const ir::IRModule& before, const ir::IRModule& after,
                   PassContext& ctx) {
  if (after.same_as(before)) return;
  RecordChangedIn(pass, before->functions, after->functions, ctx);
  RecordChangedIn(pass, before->graph_functions, after->graph_functions, ctx);
}

// `as_requirement`: the pass runs because another requires it, so its opt level
// does not gate it (the requiring pass needs it to have run).
absl::StatusOr<ir::IRModule> Execute(const Pass& pass, const ir::IRModule& mod, PassContext& ctx,
                                     bool as_requirement) {
  const std::string& name = pass.name();
  ir::IRModule input = mod;
  // Disabling a pipeline (an alias, a combinator) skips everything in it.
  if (ctx.IsDisabled(name)) {
    if (ctx.IsRequired(name)) {
      return Fail(ctx, &pass, mod, nullptr,
                  absl::InvalidArgumentError(
                      absl::StrCat("pass '", name, "' is both required and disabled")));
    }
    ctx.log().RecordSkipped(name, "", "disabled");
    return mod;
  }
  if (!pass.is_pipeline()) {
    if (pass.info().opt_level > ctx.opt_level && !ctx.IsRequired(name) && !as_requirement) {
      ctx.log().RecordSkipped(name, "",
                              absl::StrCat("opt level ", pass.info().opt_level,
                                           " > context opt level ", ctx.opt_level));
      return mod;
    }
    for (const std::string& req : pass.info().required) {
      if (ctx.log().HasRun(req)) continue;
      if (ctx.IsDisabled(req)) {
        return Fail(ctx, &pass, mod, nullptr,
                    absl::InvalidArgumentError(absl::StrCat("pass '", name, "' requires pass '",
                                                            req, "', which is disabled")));
      }
      absl::StatusOr<PassPtr> required = CreatePass(req);
      if (!required.ok()) {
        return Fail(ctx, &pass, mod, nullptr,
                    absl::InvalidArgumentError(
                        absl::StrCat("pass '", name, "' requires ", required.status().message())));
      }
      ctx.log().RecordNote(name, absl::StrCat("ran required pass '", req, "' first"));
      absl::StatusOr<ir::IRModule> r = Execute(**required, input, ctx, /*as_requirement=*/true);
      if (!r.ok()) return r.status();
      input = *std::move(r);
    }
  }

  for (const auto& inst : ctx.instruments) {
    absl::Status s = Timed(ctx, *inst, [&] { return inst->BeforePass(pass, input, ctx); });
    if (!s.ok()) return Fail(ctx, &pass, input, nullptr, s);
  }
  if (!pass.is_pipeline()) ctx.log().RecordRan(name);
  absl::StatusOr<ir::IRModule> out = pass.Run(input, ctx);
  if (!out.ok()) {
    // A pipeline's error comes from a pass inside it, which has reported it already.
    if (pass.is_pipeline()) return out.status();
    return Fail(ctx, &pass, input, nullptr,
                absl::Status(out.status().code(),
                             absl::StrCat("pass '", name, "' failed: ", out.status().message())));
  }
  if (!*out) {
    return Fail(ctx, &pass, input, nullptr,
                absl::InternalError(absl::StrCat("pass '", name, "' returned no module")));
  }
  if (!pass.is_pipeline()) RecordChanges(pass, input, *out, ctx);
  for (auto it = ctx.instruments.rbegin(); it != ctx.instruments.rend(); ++it) {
    absl::Status s = Timed(ctx, **it, [&] { return (*it)->AfterPass(pass, input, *out, ctx); });
    if (!s.ok()) return Fail(ctx, &pass, input, *out, s);
  }
  return out;
}

}  // namespace

absl::StatusOr<ir::IRModule> ExecutePass(const Pass& pass, const ir::IRModule& mod,
                                         PassContext& ctx) {
  return Execute(pass, mod, ctx, /*as_requirement=*/false);
}

absl::StatusOr<ir::IRModule> RunPipeline(const Pass& pipeline, const ir::IRModule& mod,
                                         PassContext& ctx) {
  PassContext::Scope scope(ctx);
  ctx.log().Clear();
  ctx.instrument_seconds().clear();
  ctx.set_pipeline_text(pipeline.ToString());
  if (!mod) return absl::InvalidArgumentError("RunPipeline: the module is missing");
  for (const auto& inst : ctx.instruments) {
    absl::Status s = Timed(ctx, *inst, [&] { return inst->BeforePipeline(mod, ctx); });
    if (!s.ok()) return Fail(ctx, nullptr, mod, nullptr, s);
  }
  const auto* seq = dynamic_cast<const Sequential*>(&pipeline);
  bool top_level = seq != nullptr && seq->form() == Sequential::Form::kTopLevel;
  absl::StatusOr<ir::IRModule> out =
      top_level ? pipeline.Run(mod, ctx) : ExecutePass(pipeline, mod, ctx);
  if (!out.ok()) return out.status();
  for (auto it = ctx.instruments.rbegin(); it != ctx.instruments.rend(); ++it) {
    absl::Status s = Timed(ctx, **it, [&] { return (*it)->AfterPipeline(*out, ctx); });
    if (!s.ok()) return Fail(ctx, nullptr, mod, *out, s);
  }
  return out;
}

absl::StatusOr<ir::IRModule> RunPipeline(const Pass& pipeline, const ir::IRModule& mod) {
  return RunPipeline(pipeline, mod, PassContext::Current());
}

absl::StatusOr<ir::IRModule> RunPipeline(absl::string_view text, const ir::IRModule& mod,
                                         PassContext& ctx) {
  absl::StatusOr<PassPtr> p = ParsePipeline(text);
  if (!p.ok()) return p.status();
  return RunPipeline(**p, mod, ctx);
}

}  // namespace tessel::passes
