// fuse-tir (see fuse_tir.h).
#include "passes/graph/fuse_tir.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/call_tir_shape_vars.h"
#include "ir/fresh_copy.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/verifier.h"
#include "passes/graph/dropped_kernels.h"
#include "passes/graph/fuse_ops.h"
#include "passes/graph/kernel_table.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

// A kernel's name without the `_1`, `_2`... that kept it unique.
std::string BaseName(const std::string& name) {
  size_t cut = name.find_last_of('_');
  if (cut == std::string::npos || cut == 0 || cut + 1 == name.size()) return name;
  for (size_t i = cut + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, cut);
}

// The fused function's name: its callees' names in order, kept short.
std::string FusedName(const std::vector<const ir::GraphBinding*>& members) {
  std::vector<std::string> parts;
  for (const ir::GraphBinding* b : members) parts.push_back(BaseName(b->call.callee));
  if (parts.size() > 4) {
    size_t more = parts.size() - 3;
    parts.resize(3);
    parts.push_back(absl::StrCat("and_", more, "_more"));
  }
  return absl::StrCat("fused_", absl::StrJoin(parts, "_"));
}

absl::StatusOr<std::vector<std::vector<int>>> ReadGroups(const ir::GraphFunc& g,
                                                         const std::string& gname) {
  std::vector<std::vector<int>> groups;
  auto it = g->attrs.find("fusion_groups");
  if (it == g->attrs.end()) return groups;
  std::string where = absl::StrCat("fuse-tir: graph function '", gname, "': attr fusion_groups");
  const ir::AttrValue::List* list = it->second.get_if<ir::AttrValue::List>();
  if (list == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is not a list of lists of binding indices"));
  std::vector<bool> taken(g->bindings.size(), false);
  for (const ir::AttrValue& v : *list) {
    const ir::AttrValue::List* members = v.get_if<ir::AttrValue::List>();
    if (members == nullptr || members->size() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": each group is a list of two or more binding indices"));
    }
    std::vector<int> group;
    for (const ir::AttrValue& m : *members) {
      const int64_t* i = m.get_if<int64_t>();
      if (i == nullptr || *i < 0 || *i >= static_cast<int64_t>(g->bindings.size()) || taken[*i] ||
          (!group.empty() && *i <= group.back())) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": indices must be distinct bindings (0 to ",
                         g->bindings.size() - 1, "), ascending in a group"));
      }
      taken[*i] = true;
      group.push_back(static_cast<int>(*i));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

class FuseTirPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "fuse-tir",
            .description =
                "Turns each fusion group of a graph function into one PrimFunc and one call_tir",
            .opt_level = 0};
  }
  explicit FuseTirPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    KernelTable kernels(mod);
    std::vector<std::pair<std::string, ir::GraphFunc>> graphs;
    bool changed = false;
    for (const auto& [gname, g] : mod->graph_functions) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<std::vector<int>> groups, ReadGroups(g, gname));
      if (groups.empty()) {
        graphs.emplace_back(gname, g);
        continue;
      }
      TESSEL_ASSIGN_OR_RETURN(ir::GraphFunc fused, FuseGraph(mod, g, gname, groups, kernels, ctx));
      graphs.emplace_back(gname, std::move(fused));
      changed = true;
    }
    if (!changed) return mod;
    // Kernels only the fused calls used go; a PrimFunc no graph function called
    // before (the user's own) stays.
    const absl::flat_hash_set<std::string> called_before = CalledKernels(mod->graph_functions),
                                           called_after = CalledKernels(graphs);
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    n->functions.clear();
    for (const auto& [name, f] : kernels.functions()) {
      if (!KernelDropped(called_before, called_after, name)) n->functions.emplace_back(name, f);
    }
    n->graph_functions = std::move(graphs);
    return ir::IRModule(std::move(n));
  }

 private:
  absl::StatusOr<ir::GraphFunc> FuseGraph(const ir::IRModule& mod, const ir::GraphFunc& g,
                                          const std::string& gname,
                                          const std::vector<std::vector<int>>& groups,
                                          KernelTable& kernels, PassContext& ctx) const {
    absl::flat_hash_map<const ir::BufferNode*, int> uses = ValueUses(g);
    absl::flat_hash_map<int, ir::GraphBinding> replacement;  // At each group's last binding.
    absl::flat_hash_set<int> dropped;
    std::vector<std::string> names;
    for (const std::vector<int>& group : groups) {
      std::string where = absl::StrCat("fuse-tir: graph function '", gname, "': group [",
                                       absl::StrJoin(group, ", "), "]");
      std::vector<const ir::GraphBinding*> members;
      absl::flat_hash_set<const ir::BufferNode*> defined;
      absl::flat_hash_map<const ir::BufferNode*, int> uses_inside;
      std::vector<ir::Buffer> inputs;
      absl::flat_hash_set<const ir::BufferNode*> seen_inputs;
      for (int i : group) {
        const ir::GraphBinding& b = g->bindings[i];
        if (b.call.kind == ir::GraphCall::Kind::kConstant) {
          return absl::InvalidArgumentError(absl::StrCat(where, ": binding ", i, " is constant @",
                                                         b.call.callee, ", not a kernel"));
        }
        if (b.call.kind != ir::GraphCall::Kind::kCallTir) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": binding ", i, " calls operator '", b.call.callee, "'; run legalize first"));
        }
        for (const ir::Buffer& a : b.call.args) {
          if (defined.contains(a.get())) {
            ++uses_inside[a.get()];
          } else if (seen_inputs.insert(a.get()).second) {
            inputs.push_back(a);
          }
        }
        for (const ir::Buffer& o : b.outputs) defined.insert(o.get());
        members.push_back(&b);
      }
      for (size_t k = 0; k + 1 < members.size(); ++k) {
        for (const ir::Buffer& o : members[k]->outputs) {
          if (uses_inside[o.get()] != uses[o.get()]) {
            return absl::InvalidArgumentError(
                absl::StrCat(where, ": value '", o->name,
                             "' is used outside the group; only the last binding's values may be"));
          }
        }
      }
      const std::vector<ir::Buffer>& outputs = members.back()->outputs;
      absl::StatusOr<ir::PrimFunc> fused = FuseBindings(mod, members, inputs, outputs);
      if (!fused.ok())
        return absl::Status(fused.status().code(),
                            absl::StrCat(where, ": ", fused.status().message()));
      std::string name = kernels.Intern(*fused, FusedName(members));
      names.push_back(name);
      replacement[group.back()] =
          ir::GraphBinding{outputs, {ir::GraphCall::Kind::kCallTir, name, inputs, {}}};
      for (size_t k = 0; k + 1 < group.size(); ++k) dropped.insert(group[k]);
    }
    std::vector<ir::GraphBinding> bindings;
    for (size_t i = 0; i < g->bindings.size(); ++i) {
      int index = static_cast<int>(i);
      if (dropped.contains(index)) continue;
      auto it = replacement.find(index);
      bindings.push_back(it != replacement.end() ? it->second : g->bindings[i]);
    }
    ir::Attrs attrs = g->attrs;
    attrs.erase("fusion_groups");
    ctx.log().RecordNote(name(),
                         absl::StrCat(gname, ": ", names.size(),
                                      names.size() == 1 ? " fused kernel (" : " fused kernels (",
                                      absl::StrJoin(names, ", "), ")"));
    return ir::MakeGraphFuncChecked(g->params, std::move(bindings), g->results, std::move(attrs));
  }
};

const PassRegistrar kRegisterFuseTir(FuseTirPass::Info(),
                                     [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                       return std::make_shared<const FuseTirPass>(std::move(o));
                                     });

}  // namespace

absl::StatusOr<ir::PrimFunc> FuseBindings(const ir::IRModule& mod,
                                          const std::vector<const ir::GraphBinding*>& members,
                                          const std::vector<ir::Buffer>& inputs,
                                          const std::vector<ir::Buffer>& outputs) {
  // Each graph value the group touches gets one buffer of the fused function.
  absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> buffer_of;
  auto buffer_for = [&](const ir::Buffer& v) -> absl::StatusOr<ir::Buffer> {
    auto it = buffer_of.find(v.get());
    if (it != buffer_of.end()) return it->second;
    TESSEL_ASSIGN_OR_RETURN(ir::Buffer b, ir::MakeBufferChecked(v->name, v->dtype, v->shape));
    buffer_of.emplace(v.get(), b);
    return b;
  };
  std::vector<ir::Param> params;
  for (const ir::Buffer& v : inputs) {
    TESSEL_ASSIGN_OR_RETURN(ir::Buffer b, buffer_for(v));
    params.push_back(ir::Param::OfBuffer(b));
  }
  for (const ir::Buffer& v : outputs) {
    TESSEL_ASSIGN_OR_RETURN(ir::Buffer b, buffer_for(v));
    params.push_back(ir::Param::OfBuffer(b));
  }
  absl::flat_hash_set<const ir::BufferNode*> is_output;
  for (const ir::Buffer& v : outputs) is_output.insert(v.get());
  std::vector<ir::Buffer> allocs;
  absl::flat_hash_set<std::string> block_names = {"root"};
  auto rename = [&](const std::string& name) {
    std::string out = name;
    for (int k = 1; block_names.contains(out); ++k) out = absl::StrCat(name, "_", k);
    block_names.insert(out);
    return out;
  };
  std::vector<ir::Stmt> bodies;
  for (const ir::GraphBinding* b : members) {
    ir::PrimFunc f = mod->Lookup(b->call.callee);
    if (!f) return absl::InvalidArgumentError(absl::StrCat("no PrimFunc '", b->call.callee, "'"));
    std::vector<ir::Buffer> passed = b->call.args;
    passed.insert(passed.end(), b->outputs.begin(), b->outputs.end());
    if (f->params.size() != passed.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("call_tir @", b->call.callee, " does not match its parameters"));
    }
    ir::BufferMap buffers;
    for (size_t k = 0; k < passed.size(); ++k) {
      const ir::Param& p = f->params[k];
      if (!p.is_buffer() || p.buffer->shape.size() != passed[k]->shape.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("call_tir @", b->call.callee, " does not match its parameters"));
      }
      TESSEL_ASSIGN_OR_RETURN(buffers[p.buffer.get()], buffer_for(passed[k]));
      if (k >= b->call.args.size() && !is_output.contains(passed[k].get()))
        allocs.push_back(buffers[p.buffer.get()]);
    }
    TESSEL_ASSIGN_OR_RETURN(ir::Stmt body,
                            ir::FreshCopy(f->body, ir::CallTirShapeVars(f, passed), rename));
    body = ir::ReplaceBuffers(body, buffers);
    // A callee's own root block holds its intermediates: they join the fused root.
    if (const auto* r = ir::dyn_cast<ir::BlockRealizeNode>(body);
        r && r->block->iter_vars.empty() && r->block->reads.empty() && r->block->writes.empty() &&
        !r->block->init) {
      allocs.insert(allocs.end(), r->block->alloc_buffers.begin(), r->block->alloc_buffers.end());
      body = r->block->body;
    }
    if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(body)) {
      bodies.insert(bodies.end(), seq->seq.begin(), seq->seq.end());
    } else {
      bodies.push_back(std::move(body));
    }
  }
  TESSEL_ASSIGN_OR_RETURN(ir::Stmt seq, ir::MakeSeqStmt(std::move(bodies)));
  TESSEL_ASSIGN_OR_RETURN(ir::Block root,
                          ir::MakeBlock("root", {}, {}, {}, seq, nullptr, std::move(allocs)));
  TESSEL_ASSIGN_OR_RETURN(ir::Stmt realize, ir::MakeBlockRealize({}, ir::Bool(true), root));
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc fused, ir::MakePrimFuncChecked(std::move(params), realize));
  TESSEL_RETURN_IF_ERROR(ir::VerifyFunction(fused, "fused"));
  return fused;
}

}  // namespace tessel::passes
