// legalize (see legalize.h).
#include "passes/graph/legalize.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/op_registry.h"
#include "ir/status_macros.h"
#include "passes/graph/kernel_table.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

class LegalizePass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "legalize",
            .description =
                "Turns graph-level operator calls into call_tir of PrimFuncs from the op library",
            .opt_level = 0};
  }
  explicit LegalizePass(PassOptions options) : Pass(Info(), std::move(options)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    int legalized = 0, added = 0;
    TESSEL_ASSIGN_OR_RETURN(ir::IRModule out, LegalizeGraphOps(mod, &legalized, &added));
    if (legalized > 0) {
      ctx.log().RecordNote(
          name(),
          absl::StrCat(legalized, legalized == 1 ? " operator call" : " operator calls",
                       " legalized, ", added, added == 1 ? " PrimFunc" : " PrimFuncs", " added"));
    }
    return out;
  }
};

const PassRegistrar kRegisterLegalize(LegalizePass::Info(),
                                      [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                        return std::make_shared<const LegalizePass>(std::move(o));
                                      });

}  // namespace

absl::StatusOr<ir::IRModule> LegalizeGraphOps(const ir::IRModule& mod, int* legalized, int* added) {
  KernelTable kernels(mod);
  std::vector<std::pair<std::string, ir::GraphFunc>> graphs;
  bool changed = false;
  int count = 0;
  for (const auto& [gname, g] : mod->graph_functions) {
    std::vector<ir::GraphBinding> bindings = g->bindings;
    bool this_changed = false;
    for (ir::GraphBinding& b : bindings) {
      if (b.call.kind != ir::GraphCall::Kind::kOp) continue;
      absl::StatusOr<ir::graph::LegalizedOp> op = ir::graph::LegalizeGraphOp(b);
      if (!op.ok()) {
        return absl::Status(op.status().code(),
                            absl::StrCat("legalize: graph function '", gname, "': binding of '",
                                         b.outputs[0]->name, "': ", op.status().message()));
      }
      b.call.kind = ir::GraphCall::Kind::kCallTir;
      b.call.callee = kernels.Intern(op->func, b.call.callee);
      b.call.attrs.clear();
      this_changed = true;
      ++count;
    }
    if (!this_changed) {
      graphs.emplace_back(gname, g);
      continue;
    }
    changed = true;
    TESSEL_ASSIGN_OR_RETURN(
        ir::GraphFunc ng,
        ir::MakeGraphFuncChecked(g->params, std::move(bindings), g->results, g->attrs));
    graphs.emplace_back(gname, std::move(ng));
  }
  if (legalized) *legalized = count;
  if (added) *added = kernels.added();
  if (!changed) return mod;
  auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
  n->functions = kernels.functions();
  n->graph_functions = std::move(graphs);
  return ir::IRModule(std::move(n));
}

}  // namespace tessel::passes
