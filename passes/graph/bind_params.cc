// BindParams (see bind_params.h).
#include "passes/graph/bind_params.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"
#include "passes/graph/module_names.h"
#include "passes/graph/value_shape.h"

namespace tessel::passes {
namespace {

// `want` when the module has no such name, else `<graph>_<want>`, then numbered.
std::string FreshConstantName(const ir::IRModuleNode& mod, const std::string& graph,
                              const std::string& want) {
  return ModuleNameTaken(mod, want) ? FreshModuleName(mod, absl::StrCat(graph, "_", want)) : want;
}

}  // namespace

absl::StatusOr<ir::IRModule> BindParams(
    const ir::IRModule& mod, const std::string& graph,
    const std::vector<std::pair<std::string, ir::HostBuffer>>& values) {
  const std::string where = absl::StrCat("bind-params: graph function '", graph, "'");
  if (!mod) return absl::InvalidArgumentError("bind-params: the module is missing");
  ir::GraphFunc g = mod->LookupGraph(graph);
  if (!g) return absl::NotFoundError(absl::StrCat("bind-params: no graph function '", graph, "'"));
  TESSEL_RETURN_IF_ERROR(ir::VerifyGraphFunction(mod, g, graph));
  absl::flat_hash_map<std::string, const ir::HostBuffer*> given;
  for (const auto& [name, value] : values) {
    if (!given.emplace(name, &value).second)
      return absl::InvalidArgumentError(absl::StrCat(where, ": '", name, "' is given twice"));
  }
  std::vector<std::string> names;
  for (const ir::Buffer& p : g->params) names.push_back(p->name);
  for (const auto& [name, value] : values) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": it has no parameter '", name, "' (it has: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
  std::vector<ir::Buffer> params;
  std::vector<ir::GraphBinding> consts;
  for (const ir::Buffer& p : g->params) {
    auto it = given.find(p->name);
    if (it == given.end()) {
      params.push_back(p);
      continue;
    }
    const ir::HostBuffer& v = *it->second;
    const std::optional<std::vector<int64_t>> shape = ConstantShape(p);
    if (!shape) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": parameter '", p->name, "' is ", ir::TensorTypeText(p),
                       ", whose size each call gives; only parameters of constant shape bind"));
    }
    if (v.dtype() != p->dtype || v.shape() != *shape) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": parameter '", p->name, "' is ",
                                                     ir::TensorTypeText(p), ", the value is ",
                                                     ir::TensorTypeText(v.dtype(), v.shape())));
    }
    if (v.data() == nullptr && v.byte_size() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the value for '", p->name, "' has no data"));
    }
    const std::string name = FreshConstantName(*n, graph, p->name);
    n->constants.emplace_back(name, v.Clone());
    // The parameter's own Buffer is the binding's value: every use stays as it was.
    consts.push_back(ir::GraphBinding{{p}, {ir::GraphCall::Kind::kConstant, name, {}, {}}});
  }
  auto body = ir::MakeNode<ir::GraphFuncNode>(*g);
  body->params = std::move(params);
  consts.insert(consts.end(), g->bindings.begin(), g->bindings.end());
  body->bindings = std::move(consts);
  body->attrs.erase("fusion_groups");  // Binding indices, which the new bindings shift.
  for (auto& [name, f] : n->graph_functions) {
    if (name == graph) f = ir::GraphFunc(std::move(body));
  }
  ir::IRModule out(std::move(n));
  // A shape variable read only off a bound parameter would have no definition left.
  TESSEL_RETURN_IF_ERROR(ir::VerifyGraphFunction(out, out->LookupGraph(graph), graph));
  return out;
}

}  // namespace tessel::passes
