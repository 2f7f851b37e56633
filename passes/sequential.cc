// Sequential and the two built-in combinators:
//
//   nested(simplify,remove-no-op)                  runs them in order, as a group
//                                                  (one node in the timing tree)
//   fixed-point{max-iterations=8}(simplify,remove-no-op)
//                                                  repeats them until the module stops
//                                                  changing (pointer test)
#include "passes/sequential.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

Sequential::Sequential(std::vector<PassPtr> passes)
    : Pass(PassInfo{.name = kTopLevelPipelineName, .description = "A pipeline"}, PassOptions()),
      passes_(std::move(passes)),
      form_(Form::kTopLevel) {}

Sequential::Sequential(PassInfo info, PassOptions options, std::vector<PassPtr> passes, Form form)
    : Pass(std::move(info), std::move(options)), passes_(std::move(passes)), form_(form) {}

absl::StatusOr<ir::IRModule> Sequential::RunOnce(const ir::IRModule& mod, PassContext& ctx) const {
  ir::IRModule cur = mod;
  for (const PassPtr& p : passes_) {
    absl::StatusOr<ir::IRModule> next = ExecutePass(*p, cur, ctx);
    if (!next.ok()) return next.status();
    cur = *std::move(next);
  }
  return cur;
}

absl::StatusOr<ir::IRModule> Sequential::Run(const ir::IRModule& mod, PassContext& ctx) const {
  return RunOnce(mod, ctx);
}

std::string Sequential::ToString() const {
  std::vector<std::string> parts;
  for (const PassPtr& p : passes_) parts.push_back(p->ToString());
  std::string inner = absl::StrJoin(parts, ",");
  switch (form_) {
    case Form::kTopLevel:
      return inner;
    case Form::kAlias:
      return name();
    case Form::kCombinator:
      return absl::StrCat(Pass::ToString(), "(", inner, ")");
  }
  return inner;
}

PassPtr MakeSequential(std::vector<PassPtr> passes) {
  return std::make_shared<const Sequential>(std::move(passes));
}

namespace {

PassInfo NestedInfo() {
  return {.name = "nested", .description = "Runs the nested passes in order, as one group"};
}

PassInfo FixedPointInfo() {
  return {.name = "fixed-point",
          .description = "Repeats the nested passes until the module stops changing",
          .options = {IntOption("max-iterations", 10,
                                "Stop after this many rounds even if still changing")}};
}

class FixedPoint : public Sequential {
 public:
  FixedPoint(PassOptions options, std::vector<PassPtr> passes)
      : Sequential(FixedPointInfo(), std::move(options), std::move(passes), Form::kCombinator) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    int64_t max = options().GetInt("max-iterations");
    ir::IRModule cur = mod;
    for (int64_t round = 1; round <= max; ++round) {
      absl::StatusOr<ir::IRModule> next = RunOnce(cur, ctx);
      if (!next.ok()) return next.status();
      // Passes return the same object when they change nothing (DESIGN.md decision 2).
      if (next->same_as(cur)) {
        ctx.log().RecordNote(name(), absl::StrCat("fixed point after ", round, " round(s)"));
        return cur;
      }
      cur = *std::move(next);
    }
    ctx.log().RecordNote(name(),
                         absl::StrCat("still changing after max-iterations=", max, "; stopped"));
    return cur;
  }
};

const CombinatorRegistrar kNested(
    NestedInfo(), [](PassOptions o, std::vector<PassPtr> children) -> absl::StatusOr<PassPtr> {
      return std::make_shared<const Sequential>(NestedInfo(), std::move(o), std::move(children),
                                                Sequential::Form::kCombinator);
    });

const CombinatorRegistrar kFixedPoint(
    FixedPointInfo(), [](PassOptions o, std::vector<PassPtr> children) -> absl::StatusOr<PassPtr> {
      if (o.GetInt("max-iterations") < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("option 'max-iterations' of 'fixed-point' must be at least 1, got ",
                         o.GetInt("max-iterations")));
      }
      return std::make_shared<const FixedPoint>(std::move(o), std::move(children));
    });

}  // namespace

}  // namespace tessel::passes
