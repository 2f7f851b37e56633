// fuse-ops (see fuse_ops.h).
#include "passes/graph/fuse_ops.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
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
  // The group's values that bindings outside it (or the results) may still read,
  // with how many such reads are left.
  absl::flat_hash_map<const ir::BufferNode*, int> open;
};

// The longest prefix of `members` whose values are read outside it only through
// the last member's value (what fuse-tir turns into one kernel's output).
std::vector<int> ValidPrefix(const ir::GraphFunc& g, std::vector<int> members,
                             const absl::flat_hash_map<const ir::BufferNode*, int>& uses) {
  while (members.size() >= 2) {
    absl::flat_hash_map<const ir::BufferNode*, int> inside;
    for (size_t k = 1; k < members.size(); ++k) {
      for (const ir::Buffer& a : g->bindings[members[k]].call.args) ++inside[a.get()];
    }
    bool valid = true;
    for (size_t k = 0; k + 1 < members.size() && valid; ++k) {
      for (const ir::Buffer& o : g->bindings[members[k]].outputs) {
        auto it = uses.find(o.get());
        const int total = it == uses.end() ? 0 : it->second;
        auto in = inside.find(o.get());
        valid = valid && total == (in == inside.end() ? 0 : in->second);
      }
    }
    if (valid) break;
    members.pop_back();
  }
  return members;
}

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

namespace {

// The bindings `candidates` (ascending) grouped greedily, in binding order.
std::vector<Group> GroupGreedily(const ir::IRModule& mod, const ir::GraphFunc& g,
                                 const std::vector<int>& candidates, int max_depth,
                                 const absl::flat_hash_map<const ir::BufferNode*, int>& uses) {
  std::vector<Group> groups;
  // A value a group defines that some binding outside it may still read: its group.
  absl::flat_hash_map<const ir::BufferNode*, size_t> open_in;
  for (int j : candidates) {
    const ir::GraphBinding& b = g->bindings[j];
    ir::PrimFunc callee =
        b.call.kind == ir::GraphCall::Kind::kCallTir ? mod->Lookup(b.call.callee) : ir::PrimFunc();
    if (!callee || b.outputs.size() != 1) continue;  // Operators and multi-output calls stay alone.
    OpPattern p = OpPatternOf(callee);
    // The group whose last value it reads (a chain goes on) before one whose
    // earlier value it reads (a value read twice inside a group).
    std::optional<size_t> joined;
    for (int pass = 0; pass < 2 && !joined; ++pass) {
      for (const ir::Buffer& a : b.call.args) {
        auto it = open_in.find(a.get());
        if (it == open_in.end()) continue;
        const Group& group = groups[it->second];
        const bool last = g->bindings[group.members.back()].outputs[0].same_as(a);
        if ((pass == 0 && !last) || static_cast<int>(group.members.size()) >= max_depth ||
            !CanJoin(p, group.kind)) {
          continue;
        }
        joined = it->second;
        break;
      }
    }
    if (joined) {
      Group& group = groups[*joined];
      group.members.push_back(static_cast<int>(j));
      group.kind = std::max(group.kind, p);
      // Its reads of the group's values are inside now.
      for (const ir::Buffer& a : b.call.args) {
        auto it = group.open.find(a.get());
        if (it == group.open.end()) continue;
        if (--it->second == 0) {
          group.open.erase(it);
          open_in.erase(a.get());
        }
      }
    } else {
      groups.push_back(Group{{static_cast<int>(j)}, p, {}});
      joined = groups.size() - 1;
    }
    const ir::BufferNode* out = b.outputs[0].get();
    if (auto u = uses.find(out); u != uses.end() && u->second > 0) {
      groups[*joined].open[out] = u->second;
      open_in[out] = *joined;
    }
  }
  return groups;
}

}  // namespace

std::vector<std::vector<int>> FusionGroups(const ir::IRModule& mod, const ir::GraphFunc& g,
                                           int max_depth) {
  const absl::flat_hash_map<const ir::BufferNode*, int> uses = ValueUses(g);
  std::vector<int> candidates(g->bindings.size());
  for (size_t j = 0; j < candidates.size(); ++j) candidates[j] = static_cast<int>(j);
  // Each group is cut back to its valid prefix; what was cut off is grouped again
  // with the bindings left over (a chain that left the group it joined, because an
  // earlier value of that group is read elsewhere too, may still fuse on its own).
  std::vector<std::vector<int>> out;
  for (bool progress = true; progress;) {
    progress = false;
    absl::flat_hash_set<int> taken;
    for (const Group& group : GroupGreedily(mod, g, candidates, max_depth, uses)) {
      std::vector<int> members = ValidPrefix(g, group.members, uses);
      if (members.size() < 2) continue;
      taken.insert(members.begin(), members.end());
      out.push_back(std::move(members));
      progress = true;
    }
    std::erase_if(candidates, [&](int j) { return taken.contains(j); });
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tessel::passes
