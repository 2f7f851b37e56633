// The registry of named schedule functions (see schedule_registry.h).
#include "ir/schedule/schedule_registry.h"

#include <cstdio>
#include <cstdlib>

namespace tessel::ir::schedule {

ScheduleRegistry& ScheduleRegistry::Global() {
  static auto* registry = new ScheduleRegistry();
  return *registry;
}

void ScheduleRegistry::Register(std::string name, std::string description, ScheduleFn fn) {
  if (entries_.contains(name)) {
    std::fprintf(stderr, "schedule function '%s' registered twice\n", name.c_str());
    std::abort();
  }
  RegisteredSchedule entry{name, std::move(description), std::move(fn)};
  entries_.emplace(std::move(name), std::move(entry));
}

const RegisteredSchedule* ScheduleRegistry::Lookup(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> ScheduleRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, e] : entries_) names.push_back(n);
  return names;
}

}  // namespace tessel::ir::schedule
