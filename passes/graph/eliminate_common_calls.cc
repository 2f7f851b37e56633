// eliminate-common-calls (see eliminate_common_calls.h).
#include "passes/graph/eliminate_common_calls.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/graph_memory_plan.h"
#include "ir/structural_equal.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

bool SameAttr(const ir::AttrValue& a, const ir::AttrValue& b) {
  if (a.storage().index() != b.storage().index()) return false;
  if (const auto* x = a.get_if<ir::Expr>()) return ir::StructuralEqual(*x, b.as<ir::Expr>());
  if (const auto* x = a.get_if<ir::AttrValue::List>()) {
    const auto& y = b.as<ir::AttrValue::List>();
    if (x->size() != y.size()) return false;
    for (size_t i = 0; i < x->size(); ++i) {
      if (!SameAttr((*x)[i], y[i])) return false;
    }
    return true;
  }
  if (const auto* x = a.get_if<int64_t>()) return *x == b.as<int64_t>();
  if (const auto* x = a.get_if<bool>()) return *x == b.as<bool>();
  if (const auto* x = a.get_if<std::string>()) return *x == b.as<std::string>();
  // Doubles compare by bits: NaN equals itself, 0.0 and -0.0 differ.
  const double x = a.as<double>(), y = b.as<double>();
  return std::memcmp(&x, &y, sizeof(double)) == 0;
}

bool SameAttrs(const ir::Attrs& a, const ir::Attrs& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || !SameAttr(i->second, j->second)) return false;
  }
  return true;
}

bool SameTypes(const std::vector<ir::Buffer>& a, const std::vector<ir::Buffer>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->dtype != b[i]->dtype || a[i]->shape.size() != b[i]->shape.size()) return false;
    for (size_t d = 0; d < a[i]->shape.size(); ++d) {
      if (!ir::StructuralEqual(a[i]->shape[d], b[i]->shape[d])) return false;
    }
  }
  return true;
}

// The key a binding's call is bucketed by: kind, callee, argument identities.
std::string CallKey(const ir::GraphCall& c) {
  std::string key = absl::StrCat(static_cast<int>(c.kind), ":", c.callee);
  for (const ir::Buffer& a : c.args)
    absl::StrAppend(&key, ",", reinterpret_cast<uintptr_t>(a.get()));
  return key;
}

class EliminateCommonCallsPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "eliminate-common-calls",
            .description =
                "Removes graph bindings that repeat an earlier call on the same "
                "values; their uses read the earlier binding's values",
            .opt_level = 0,
            .options = {}};
  }
  explicit EliminateCommonCallsPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    bool changed = false;
    for (auto& [gname, g] : n->graph_functions) {
      int removed = 0;
      ir::GraphFunc out = EliminateCommonCalls(g, &removed);
      if (removed == 0) continue;
      g = out;
      changed = true;
      ctx.log().RecordNote(
          name(),
          absl::StrCat(gname, ": ", removed, removed == 1 ? " binding" : " bindings", " removed"));
    }
    if (!changed) return mod;
    return ir::IRModule(std::move(n));
  }
};

const PassRegistrar kRegisterEliminateCommonCalls(
    EliminateCommonCallsPass::Info(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      return std::make_shared<const EliminateCommonCallsPass>(std::move(o));
    });

}  // namespace

ir::GraphFunc EliminateCommonCalls(const ir::GraphFunc& g, int* removed) {
  *removed = 0;
  absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> replaced;
  auto use = [&](const ir::Buffer& v) {
    auto it = replaced.find(v.get());
    return it == replaced.end() ? v : it->second;
  };
  absl::flat_hash_map<std::string, std::vector<size_t>> seen;  // Key -> indices into `kept`.
  std::vector<ir::GraphBinding> kept;
  for (const ir::GraphBinding& b : g->bindings) {
    ir::GraphBinding now = b;
    for (ir::Buffer& a : now.call.args) a = use(a);
    std::vector<size_t>& same = seen[CallKey(now.call)];
    const ir::GraphBinding* earlier = nullptr;
    for (size_t i : same) {
      if (SameAttrs(kept[i].call.attrs, now.call.attrs) &&
          SameTypes(kept[i].outputs, now.outputs)) {
        earlier = &kept[i];
        break;
      }
    }
    if (earlier != nullptr) {
      for (size_t o = 0; o < now.outputs.size(); ++o)
        replaced[now.outputs[o].get()] = earlier->outputs[o];
      ++*removed;
      continue;
    }
    same.push_back(kept.size());
    kept.push_back(std::move(now));
  }
  if (*removed == 0) return g;
  auto n = ir::MakeNode<ir::GraphFuncNode>(*g);
  n->bindings = std::move(kept);
  for (ir::Buffer& r : n->results) r = use(r);
  n->attrs.erase("fusion_groups");
  n->attrs.erase(ir::kStorageAttr);
  return ir::GraphFunc(std::move(n));
}

}  // namespace tessel::passes
