// fuse-ops (see fuse_ops.h).
#include "passes/graph/fuse_ops.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/graph/op_pattern.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

struct Group {
  std::vector<int> members;
  OpPattern kind;
};

bool CanJoin(OpPattern op, OpPattern group) {
  if (op <= OpPattern::kBroadcast) return group != OpPattern::kOpaque;
  if (op == OpPattern::kInjective || op == OpPattern::kReduction)
    return group <= OpPattern::kInjective;
  // A prologue of data movement; an all-elementwise group stays out, since its
  // values would be recomputed for every step of the reduction once inlined.
  if (op == OpPattern::kOutputFusable) return group == OpPattern::kInjective;
  return false;
}

class FuseOpsPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "fuse-ops",
            .description =
                "Groups call_tir bindings of graph functions into kernels by their op patterns",
            .opt_level = 0,
            .options = {IntOption("max-depth", 8, "The most bindings one group holds")}};
  }
  explicit FuseOpsPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    int64_t max_depth = options().GetInt("max-depth");
    if (max_depth < 1)
      return absl::InvalidArgumentError("fuse-ops: option 'max-depth' must be at least 1");
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    bool changed = false;
    for (auto& [gname, g] : n->graph_functions) {
      std::vector<std::vector<int>> groups = FusionGroups(mod, g, static_cast<int>(max_depth));
      ir::AttrValue::List list;
      std::vector<std::string> sizes;
      for (const std::vector<int>& members : groups) {
        ir::AttrValue::List indices;
        for (int i : members) indices.emplace_back(int64_t{i});
        list.emplace_back(std::move(indices));
        sizes.push_back(absl::StrCat(members.size()));
      }
      auto it = g->attrs.find("fusion_groups");
      if (groups.empty() && it == g->attrs.end()) continue;
      auto gn = ir::MakeNode<ir::GraphFuncNode>(*g);
      if (groups.empty()) {
        gn->attrs.erase("fusion_groups");
      } else {
        gn->attrs["fusion_groups"] = ir::AttrValue(std::move(list));
      }
      g = ir::GraphFunc(std::move(gn));
      changed = true;
      ctx.log().RecordNote(name(), absl::StrCat(gname, ": ", groups.size(),
                                                groups.size() == 1 ? " group (" : " groups (",
                                                absl::StrJoin(sizes, ", "), " bindings)"));
    }
    if (!changed) return mod;
    return ir::IRModule(std::move(n));
  }
};

const PassRegistrar kRegisterFuseOps(FuseOpsPass::Info(),
                                     [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                       return std::make_shared<const FuseOpsPass>(std::move(o));
                                     });

}  // namespace

absl::flat_hash_map<const ir::BufferNode*, int> ValueUses(const ir::GraphFunc& g) {
  absl::flat_hash_map<const ir::BufferNode*, int> uses;
  for (const ir::GraphBinding& b : g->bindings) {
    for (const ir::Buffer& a : b.call.args) ++uses[a.get()];
  }
  for (const ir::Buffer& r : g->results) ++uses[r.get()];
  return uses;
}

std::vector<std::vector<int>> FusionGroups(const ir::IRModule& mod, const ir::GraphFunc& g,
                                           int max_depth) {
  absl::flat_hash_map<const ir::BufferNode*, int> uses = ValueUses(g);

  std::vector<Group> groups;
  absl::flat_hash_map<const ir::BufferNode*, size_t> group_of_tail;  // A group's one outside value.
  for (size_t j = 0; j < g->bindings.size(); ++j) {
    const ir::GraphBinding& b = g->bindings[j];
    ir::PrimFunc callee =
        b.call.kind == ir::GraphCall::Kind::kCallTir ? mod->Lookup(b.call.callee) : ir::PrimFunc();
    if (!callee || b.outputs.size() != 1) continue;  // Operators and multi-output calls stay alone.
    OpPattern p = OpPatternOf(callee);
    bool joined = false;
    for (const ir::Buffer& a : b.call.args) {
      auto it = group_of_tail.find(a.get());
      if (it == group_of_tail.end() || uses[a.get()] != 1) continue;
      Group& group = groups[it->second];
      if (static_cast<int>(group.members.size()) >= max_depth || !CanJoin(p, group.kind)) continue;
      group.members.push_back(static_cast<int>(j));
      group.kind = std::max(group.kind, p);
      size_t index = it->second;
      group_of_tail.erase(it);
      group_of_tail[b.outputs[0].get()] = index;
      joined = true;
      break;
    }
    if (!joined) {
      groups.push_back(Group{{static_cast<int>(j)}, p});
      group_of_tail[b.outputs[0].get()] = groups.size() - 1;
    }
  }
  std::vector<std::vector<int>> out;
  for (Group& group : groups) {
    if (group.members.size() >= 2) out.push_back(std::move(group.members));
  }
  return out;
}

}  // namespace tessel::passes
