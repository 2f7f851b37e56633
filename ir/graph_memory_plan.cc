// The storage plan of a graph function (see graph_memory_plan.h).
#include "ir/graph_memory_plan.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace tessel::ir {

absl::flat_hash_map<const BufferNode*, ValueLifetime> IntermediateLifetimes(const GraphFunc& g) {
  absl::flat_hash_set<const BufferNode*> results;
  for (const Buffer& r : g->results) results.insert(r.get());
  absl::flat_hash_map<const BufferNode*, ValueLifetime> life;
  for (size_t i = 0; i < g->bindings.size(); ++i) {
    const int at = static_cast<int>(i);
    for (const Buffer& a : g->bindings[i].call.args) {
      if (auto it = life.find(a.get()); it != life.end()) it->second.last_use = at;
    }
    // A constant's value is the module's data, never storage a kernel writes.
    if (g->bindings[i].call.kind == GraphCall::Kind::kConstant) continue;
    for (const Buffer& o : g->bindings[i].outputs) {
      if (!results.contains(o.get())) life[o.get()] = ValueLifetime{at, at};
    }
  }
  return life;
}

AttrValue MemoryPlanAttr(const MemoryPlan& plan) {
  AttrValue::List storages;
  for (const std::vector<Buffer>& values : plan) {
    AttrValue::List names;
    for (const Buffer& v : values) names.emplace_back(v->name);
    storages.emplace_back(std::move(names));
  }
  return AttrValue(std::move(storages));
}

absl::StatusOr<MemoryPlan> ReadMemoryPlan(const GraphFunc& g) {
  MemoryPlan plan;
  auto attr = g->attrs.find(kStorageAttr);
  if (attr == g->attrs.end()) return plan;
  const std::string where = "attribute 'storage'";
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", why));
  };
  const auto* storages = attr->second.get_if<AttrValue::List>();
  if (storages == nullptr) return fail("expected a list of lists of value names");
  absl::flat_hash_map<const BufferNode*, ValueLifetime> life = IntermediateLifetimes(g);
  absl::flat_hash_map<std::string, std::vector<Buffer>> by_name;
  for (const GraphBinding& b : g->bindings) {
    for (const Buffer& o : b.outputs) {
      if (life.contains(o.get())) by_name[o->name].push_back(o);
    }
  }
  absl::flat_hash_set<const BufferNode*> placed;
  for (size_t s = 0; s < storages->size(); ++s) {
    const auto* names = (*storages)[s].get_if<AttrValue::List>();
    if (names == nullptr || names->empty())
      return fail(absl::StrCat("storage ", s, " is not a non-empty list of value names"));
    std::vector<Buffer> values;
    for (const AttrValue& n : *names) {
      const auto* name = n.get_if<std::string>();
      if (name == nullptr) return fail(absl::StrCat("storage ", s, " holds a non-name"));
      auto it = by_name.find(*name);
      if (it == by_name.end()) {
        return fail(absl::StrCat("'", *name,
                                 "' is not an intermediate value (only binding outputs that "
                                 "are not results are planned)"));
      }
      if (it->second.size() != 1)
        return fail(absl::StrCat("'", *name, "' names ", it->second.size(), " values"));
      const Buffer& v = it->second[0];
      if (!placed.insert(v.get()).second)
        return fail(absl::StrCat("'", *name, "' is in two storages"));
      values.push_back(v);
    }
    std::sort(values.begin(), values.end(), [&](const Buffer& a, const Buffer& b) {
      return life.at(a.get()).def < life.at(b.get()).def;
    });
    for (size_t k = 1; k < values.size(); ++k) {
      const ValueLifetime& before = life.at(values[k - 1].get());
      const ValueLifetime& now = life.at(values[k].get());
      if (now.def <= before.last_use) {
        return fail(absl::StrCat("'", values[k - 1]->name, "' (bindings ", before.def, " to ",
                                 before.last_use, ") and '", values[k]->name, "' (bindings ",
                                 now.def, " to ", now.last_use,
                                 ") are live at once but share storage ", s));
      }
    }
    plan.push_back(std::move(values));
  }
  return plan;
}

}  // namespace tessel::ir
