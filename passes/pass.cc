// Pass, FunctionPass and passes built from plain functions.
#include "passes/pass.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "passes/pass_context.h"

namespace tessel::passes {

Pass::Pass(PassInfo info, PassOptions options)
    : info_(std::move(info)), options_(std::move(options)) {}

std::string Pass::ToString() const {
  std::string opts = options_.ToString();
  return opts.empty() ? info_.name : absl::StrCat(info_.name, "{", opts, "}");
}

std::string FunctionPass::SkipReason(const ir::PrimFunc& func) const {
  auto it = func->attrs.find("skip_passes");
  if (it != func->attrs.end()) {
    auto matches = [&](const ir::AttrValue& v) {
      const std::string* s = v.get_if<std::string>();
      return s != nullptr && (*s == name() || *s == "*");
    };
    const ir::AttrValue& v = it->second;
    bool skip = matches(v);
    if (const ir::AttrValue::List* list = v.get_if<ir::AttrValue::List>()) {
      skip = std::any_of(list->begin(), list->end(), matches);
    }
    if (skip) return "its attr skip_passes names this pass";
  }
  if (info().skips_scheduled) {
    auto sched = func->attrs.find("scheduled");
    if (sched != func->attrs.end()) {
      const bool* b = sched->second.get_if<bool>();
      if (b != nullptr && *b) return kSkippedAsScheduled;
    }
  }
  return "";
}

absl::Status FunctionPass::CheckOutcome(const ir::IRModule&, const FunctionPassOutcome&) const {
  return absl::OkStatus();
}

absl::StatusOr<ir::IRModule> FunctionPass::Run(const ir::IRModule& mod, PassContext& ctx) const {
  std::vector<std::pair<std::string, ir::PrimFunc>> functions;
  functions.reserve(mod->functions.size());
  bool changed = false;
  FunctionPassOutcome outcome;
  const size_t log_start = ctx.log().entries().size();
  for (const auto& [fname, func] : mod->functions) {
    std::string why = SkipReason(func);
    if (!why.empty()) {
      ctx.log().RecordSkipped(name(), fname, why);
      functions.emplace_back(fname, func);
      continue;
    }
    absl::StatusOr<ir::PrimFunc> out = RunOnFunction(func, fname, ctx);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("function '", fname, "': ", out.status().message()));
    }
    if (!*out) {
      return absl::InternalError(
          absl::StrCat("function '", fname, "': pass '", name(), "' returned no function"));
    }
    if (!out->same_as(func)) {
      changed = true;
      outcome.changed.push_back(fname);
    }
    functions.emplace_back(fname, *std::move(out));
  }
  const std::vector<PassLogEntry>& log = ctx.log().entries();
  for (size_t i = log_start; i < log.size(); ++i) {
    if (log[i].kind == PassLogEntry::Kind::kSkipped && log[i].pass == name()) {
      outcome.skipped.emplace_back(log[i].function, log[i].detail);
    }
  }
  TESSEL_RETURN_IF_ERROR(CheckOutcome(mod, outcome));
  if (!changed) return mod;
  auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
  n->functions = std::move(functions);
  return ir::IRModule(std::move(n));
}

namespace {

class LambdaModulePass : public Pass {
 public:
  LambdaModulePass(PassInfo info, PassOptions options, ModulePassFn fn)
      : Pass(std::move(info), std::move(options)), fn_(std::move(fn)) {}
  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    return fn_(mod, options(), ctx);
  }

 private:
  ModulePassFn fn_;
};

class LambdaFunctionPass : public FunctionPass {
 public:
  LambdaFunctionPass(PassInfo info, PassOptions options, FunctionPassFn fn)
      : FunctionPass(std::move(info), std::move(options)), fn_(std::move(fn)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    return fn_(func, name, options(), ctx);
  }

 private:
  FunctionPassFn fn_;
};

}  // namespace

PassPtr MakeModulePass(PassInfo info, ModulePassFn fn) {
  PassOptions options(info.options, info.name);
  return MakeModulePass(std::move(info), std::move(options), std::move(fn));
}

PassPtr MakeModulePass(PassInfo info, PassOptions options, ModulePassFn fn) {
  return std::make_shared<LambdaModulePass>(std::move(info), std::move(options), std::move(fn));
}

PassPtr MakeFunctionPass(PassInfo info, FunctionPassFn fn) {
  PassOptions options(info.options, info.name);
  return MakeFunctionPass(std::move(info), std::move(options), std::move(fn));
}

PassPtr MakeFunctionPass(PassInfo info, PassOptions options, FunctionPassFn fn) {
  return std::make_shared<LambdaFunctionPass>(std::move(info), std::move(options), std::move(fn));
}

}  // namespace tessel::passes
