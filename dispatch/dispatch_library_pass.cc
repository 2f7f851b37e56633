// dispatch-library: rewrites functions to call libraries by the registered
// dispatch rules (dispatch/dispatch_rule.h), highest priority first; the first
// rule that applies to a function wins.
//
//   tessel-opt mm.tsl --pipeline='dispatch-library{rules=[onednn]},lower' --print-pass-log
//   dispatch-library: applied onednn to mm
//     mm: onednn: block 'C' (batch 1, 1024x1024x1024 f32, A row-major, B row-major)
//
// `rules` selects and orders nothing but membership (empty: every rule serving
// the target); `exclude` removes some. A rewritten function carries
// `dispatched = "<rule>"`, and `scheduled = true` when only library calls are left,
// so manual-schedule, default-schedule and apply-best leave it alone; a partly
// dispatched one keeps its remaining blocks for them. Every rule's reason for not
// applying goes to the pass log.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/dispatch_rule.h"
#include "passes/did_you_mean.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::dispatch {
namespace {

using passes::PassContext;

class DispatchLibraryPass : public passes::FunctionPass {
 public:
  static passes::PassInfo Info() {
    return {.name = "dispatch-library",
            .description =
                "Rewrites functions to call libraries (oneDNN, BLAS, rules registered "
                "from C++ or Python) where a dispatch rule matches",
            .opt_level = 0,
            .required = {},
            .options = {passes::ListOption("rules", {},
                                           "Rules to try (empty: every rule serving the target)"),
                        passes::ListOption("exclude", {}, "Rules not to try"),
                        passes::StringOption("target", "llvm", "The target the rules must serve")},
            .skips_scheduled = true};
  }

  explicit DispatchLibraryPass(passes::PassOptions options)
      : FunctionPass(Info(), std::move(options)) {}

  static absl::StatusOr<passes::PassPtr> Make(passes::PassOptions options) {
    std::vector<std::string> known;
    for (const DispatchRule& r : ListDispatchRules()) known.push_back(r.name());
    for (const char* key : {"rules", "exclude"}) {
      for (const std::string& name : options.GetList(key)) {
        if (!LookupDispatchRule(name)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dispatch-library: option '", key, "': unknown rule '", name, "'",
              passes::DidYouMean(name, known), " (known: ", absl::StrJoin(known, ", "), ")"));
        }
      }
    }
    return std::make_shared<const DispatchLibraryPass>(std::move(options));
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    const std::string& target = options().GetString("target");
    const std::vector<std::string>& only = options().GetList("rules");
    const std::vector<std::string>& exclude = options().GetList("exclude");
    auto listed = [](const std::vector<std::string>& l, const std::string& n) {
      return std::find(l.begin(), l.end(), n) != l.end();
    };
    std::vector<std::string> reasons;
    for (const DispatchRule& rule : ListDispatchRules()) {
      if ((!only.empty() && !listed(only, rule.name())) || listed(exclude, rule.name())) continue;
      if (!rule.Serves(target)) continue;
      absl::StatusOr<DispatchResult> r = rule.Match(func, target);
      if (!r.ok()) {
        return absl::Status(r.status().code(),
                            absl::StrCat("dispatch rule '", rule.name(), "' on function '", name,
                                         "': ", r.status().message()));
      }
      if (const auto* no = std::get_if<NotApplicable>(&*r)) {
        reasons.push_back(absl::StrCat(rule.name(), ": ", no->reason));
        continue;
      }
      const DispatchRewrite& rw = std::get<DispatchRewrite>(*r);
      if (!rw.func) {
        return absl::InternalError(absl::StrCat("dispatch rule '", rule.name(),
                                                "' returned no function for '", name, "'"));
      }
      ctx.log().RecordApplied(this->name(), name, rule.name());
      ctx.log().RecordNote(this->name(), absl::StrCat(name, ": ", rule.name(), ": ", rw.summary));
      auto out = ir::MakeNode<ir::PrimFuncNode>(*rw.func);
      if (!out->attrs.count(kDispatchedAttr))
        out->attrs[kDispatchedAttr] = ir::AttrValue(rule.name());
      return ir::PrimFunc(std::move(out));
    }
    ctx.log().RecordSkipped(
        this->name(), name,
        reasons.empty() ? std::string("no dispatch rule serves target '") + target + "'"
                        : absl::StrCat("no dispatch rule applies: ", absl::StrJoin(reasons, "; ")));
    return func;
  }
};

const passes::PassRegistrar kRegisterDispatchLibrary(DispatchLibraryPass::Info(),
                                                     DispatchLibraryPass::Make);

}  // namespace
}  // namespace tessel::dispatch
