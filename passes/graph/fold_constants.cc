// fold-constants (see fold_constants.h).
#include "passes/graph/fold_constants.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/op_registry.h"
#include "ir/graph_memory_plan.h"
#include "ir/interpreter.h"
#include "ir/status_macros.h"
#include "passes/graph/dropped_kernels.h"
#include "passes/graph/module_names.h"
#include "passes/graph/value_shape.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

// Whether a tensor of `dtype` and `shape` takes at most `max_bytes`.
bool FitsIn(ir::DataType dtype, const std::vector<int64_t>& shape, int64_t max_bytes) {
  int64_t bytes = dtype.bytes();
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes)) return false;
  }
  return bytes <= max_bytes;
}

class FoldConstantsPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "fold-constants",
            .description =
                "Computes graph bindings whose arguments are all constants once, at "
                "compile time, on the interpreter; their values become constants",
            .opt_level = 0,
            .options = {IntOption("max-bytes", int64_t{1} << 28,
                                  "The largest value (in bytes) a fold may produce")}};
  }
  explicit FoldConstantsPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    const int64_t max_bytes = options().GetInt("max-bytes");
    if (max_bytes < 0)
      return absl::InvalidArgumentError("fold-constants: option 'max-bytes' must be at least 0");
    ir::IRModule out = mod;
    for (const auto& [gname, g] : mod->graph_functions) {
      std::vector<std::string> folded;
      TESSEL_ASSIGN_OR_RETURN(out, FoldConstants(out, gname, max_bytes, &folded));
      if (folded.empty()) continue;
      ctx.log().RecordNote(name(), absl::StrCat(gname, ": ", folded.size(),
                                                folded.size() == 1 ? " binding" : " bindings",
                                                " folded (", absl::StrJoin(folded, ", "), ")"));
    }
    return out;
  }
};

const PassRegistrar kRegisterFoldConstants(FoldConstantsPass::Info(),
                                           [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                             return std::make_shared<const FoldConstantsPass>(
                                                 std::move(o));
                                           });

}  // namespace

absl::StatusOr<ir::IRModule> FoldConstants(const ir::IRModule& mod, const std::string& name,
                                           int64_t max_bytes, std::vector<std::string>* folded) {
  folded->clear();
  ir::GraphFunc g = mod->LookupGraph(name);
  if (!g)
    return absl::NotFoundError(absl::StrCat("fold-constants: no graph function '", name, "'"));
  auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
  absl::flat_hash_map<const ir::BufferNode*, ir::HostBuffer> known;  // Constant values.
  std::vector<ir::GraphBinding> bindings;
  for (const ir::GraphBinding& b : g->bindings) {
    if (b.call.kind == ir::GraphCall::Kind::kConstant) {
      if (const ir::HostBuffer* c = mod->LookupConstant(b.call.callee))
        known[b.outputs[0].get()] = *c;
      bindings.push_back(b);
      continue;
    }
    bool foldable = true;
    std::vector<ir::Arg> args;
    for (const ir::Buffer& a : b.call.args) {
      auto it = known.find(a.get());
      foldable = foldable && it != known.end();
      if (foldable) args.emplace_back(it->second);
    }
    std::vector<ir::HostBuffer> results;
    for (const ir::Buffer& o : b.outputs) {
      const std::optional<std::vector<int64_t>> shape = ConstantShape(o);
      absl::StatusOr<ir::HostBuffer> r;
      // Within max-bytes before anything is allocated.
      foldable = foldable && shape && FitsIn(o->dtype, *shape, max_bytes) &&
                 (r = ir::HostBuffer::ZerosChecked(o->dtype, *shape)).ok();
      if (!foldable) break;
      results.push_back(*r);
      args.emplace_back(*r);
    }
    if (!foldable) {
      bindings.push_back(b);
      continue;
    }
    ir::PrimFunc kernel;
    if (b.call.kind == ir::GraphCall::Kind::kCallTir) {
      kernel = mod->Lookup(b.call.callee);
    } else {
      absl::StatusOr<ir::graph::LegalizedOp> op = ir::graph::LegalizeGraphOp(b);
      if (op.ok()) kernel = op->func;
    }
    const std::string at = absl::StrCat(
        "fold-constants: graph function '", name, "': binding of '", b.outputs[0]->name, "' (",
        ir::GraphCallKindName(b.call.kind), " ", b.call.callee, ")");
    if (!kernel) return absl::InvalidArgumentError(absl::StrCat(at, ": it has no kernel"));
    if (absl::Status s = ir::Run(kernel, args, {}, b.call.callee); !s.ok())
      return absl::Status(s.code(), absl::StrCat(at, ": ", s.message()));
    for (size_t i = 0; i < b.outputs.size(); ++i) {
      const std::string cname = FreshModuleName(*n, b.outputs[i]->name);
      n->constants.emplace_back(cname, results[i]);
      known[b.outputs[i].get()] = results[i];
      bindings.push_back(
          ir::GraphBinding{{b.outputs[i]}, {ir::GraphCall::Kind::kConstant, cname, {}, {}}});
      folded->push_back(b.outputs[i]->name);
    }
  }
  if (folded->empty()) return mod;
  // A const binding nothing reads any more (the weight a folded transpose read) goes.
  absl::flat_hash_set<const ir::BufferNode*> read(g->results.size());
  for (const ir::Buffer& r : g->results) read.insert(r.get());
  for (const ir::GraphBinding& b : bindings) {
    for (const ir::Buffer& a : b.call.args) read.insert(a.get());
  }
  std::erase_if(bindings, [&](const ir::GraphBinding& b) {
    return b.call.kind == ir::GraphCall::Kind::kConstant && !read.contains(b.outputs[0].get());
  });
  auto body = ir::MakeNode<ir::GraphFuncNode>(*g);
  body->bindings = std::move(bindings);
  body->attrs.erase("fusion_groups");
  body->attrs.erase(ir::kStorageAttr);
  // Constants only the folded bindings read go with them, and so do the kernels
  // only they called (legalize's transpose of a weight).
  return ir::WithoutUnusedConstants(WithoutDroppedKernels(
      mod,
      ir::WithGraphFunction(ir::IRModule(std::move(n)), name, ir::GraphFunc(std::move(body)))));
}

}  // namespace tessel::passes
