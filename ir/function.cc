#include "ir/function.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"

namespace tessel::ir {

const std::string& Param::name() const { return buffer ? buffer->name : var->name; }

PrimFunc IRModuleNode::Lookup(const std::string& name) const {
  for (const auto& [n, f] : functions) {
    if (n == name) return f;
  }
  return nullptr;
}

GraphFunc IRModuleNode::LookupGraph(const std::string& name) const {
  for (const auto& [n, f] : graph_functions) {
    if (n == name) return f;
  }
  return nullptr;
}

const HostBuffer* IRModuleNode::LookupConstant(const std::string& name) const {
  for (const auto& [n, c] : constants) {
    if (n == name) return &c;
  }
  return nullptr;
}

absl::StatusOr<PrimFunc> MakePrimFuncChecked(std::vector<Param> params, Stmt body, Attrs attrs) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].var.defined() == params[i].buffer.defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PrimFunc: parameter ", i, " must be either a variable or a buffer"));
    }
  }
  if (!body) return absl::InvalidArgumentError("PrimFunc: body is missing");
  auto n = MakeNode<PrimFuncNode>();
  n->params = std::move(params);
  n->body = std::move(body);
  n->attrs = std::move(attrs);
  return PrimFunc(std::move(n));
}

PrimFunc MakePrimFunc(std::vector<Param> params, Stmt body, Attrs attrs) {
  return ValueOrDie(MakePrimFuncChecked(std::move(params), std::move(body), std::move(attrs)));
}

absl::StatusOr<IRModule> MakeIRModuleChecked(std::vector<std::pair<std::string, PrimFunc>> functions,
                                             Attrs attrs) {
  return MakeIRModuleChecked(std::move(functions), {}, std::move(attrs));
}

absl::StatusOr<IRModule> MakeIRModuleChecked(
    std::vector<std::pair<std::string, PrimFunc>> functions,
    std::vector<std::pair<std::string, GraphFunc>> graph_functions, Attrs attrs) {
  return MakeIRModuleChecked(std::move(functions), std::move(graph_functions), {},
                             std::move(attrs));
}

absl::StatusOr<IRModule> MakeIRModuleChecked(
    std::vector<std::pair<std::string, PrimFunc>> functions,
    std::vector<std::pair<std::string, GraphFunc>> graph_functions,
    std::vector<std::pair<std::string, HostBuffer>> constants, Attrs attrs) {
  absl::flat_hash_set<std::string> names;
  auto check = [&](const std::string& name, bool present, const char* kind) -> absl::Status {
    if (name.empty())
      return absl::InvalidArgumentError(absl::StrCat("IRModule: a ", kind, " name is empty"));
    if (!present)
      return absl::InvalidArgumentError(
          absl::StrCat("IRModule: ", kind, " '", name, "' is missing"));
    if (!names.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("IRModule: '", name,
                       "' is defined twice (names are shared by functions and "
                       "constants)"));
    }
    return absl::OkStatus();
  };
  for (const auto& [name, f] : functions)
    TESSEL_RETURN_IF_ERROR(check(name, f.defined(), "function"));
  for (const auto& [name, g] : graph_functions)
    TESSEL_RETURN_IF_ERROR(check(name, g.defined(), "function"));
  for (auto& [name, c] : constants) {
    TESSEL_RETURN_IF_ERROR(check(name, c.data() != nullptr || c.byte_size() == 0, "constant"));
    c = c.Clone();
  }
  auto n = MakeNode<IRModuleNode>();
  n->functions = std::move(functions);
  n->graph_functions = std::move(graph_functions);
  n->constants = std::move(constants);
  n->attrs = std::move(attrs);
  return IRModule(std::move(n));
}

IRModule MakeIRModule(std::vector<std::pair<std::string, PrimFunc>> functions, Attrs attrs) {
  return ValueOrDie(MakeIRModuleChecked(std::move(functions), std::move(attrs)));
}

namespace {

// `list` with entry `name` set to `func`, appended when absent.
template <typename F>
void SetEntry(std::vector<std::pair<std::string, F>>& list, const std::string& name, F func) {
  for (auto& [entry_name, f] : list) {
    if (entry_name == name) {
      f = std::move(func);
      return;
    }
  }
  list.emplace_back(name, std::move(func));
}

}  // namespace

IRModule WithFunction(const IRModule& mod, const std::string& name, PrimFunc func) {
  auto n = MakeNode<IRModuleNode>(*mod);
  SetEntry(n->functions, name, std::move(func));
  return IRModule(std::move(n));
}

IRModule WithGraphFunction(const IRModule& mod, const std::string& name, GraphFunc func) {
  auto n = MakeNode<IRModuleNode>(*mod);
  SetEntry(n->graph_functions, name, std::move(func));
  return IRModule(std::move(n));
}

absl::StatusOr<IRModule> WithConstant(const IRModule& mod, const std::string& name,
                                      const HostBuffer& value) {
  if (name.empty()) return absl::InvalidArgumentError("IRModule: a constant name is empty");
  if (mod->Lookup(name) || mod->LookupGraph(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("IRModule: constant '", name, "' would share its name with a function"));
  }
  if (value.data() == nullptr && value.byte_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("IRModule: constant '", name, "' has no data"));
  }
  auto n = MakeNode<IRModuleNode>(*mod);
  SetEntry(n->constants, name, value.Clone());
  return IRModule(std::move(n));
}

IRModule WithoutUnusedConstants(const IRModule& mod) {
  absl::flat_hash_set<std::string> used;
  for (const auto& [name, g] : mod->graph_functions) {
    for (const GraphBinding& b : g->bindings) {
      if (b.call.kind == GraphCall::Kind::kConstant) used.insert(b.call.callee);
    }
  }
  if (used.size() == mod->constants.size()) return mod;
  auto n = MakeNode<IRModuleNode>(*mod);
  std::erase_if(n->constants, [&](const auto& c) { return !used.contains(c.first); });
  return IRModule(std::move(n));
}

}  // namespace tessel::ir
