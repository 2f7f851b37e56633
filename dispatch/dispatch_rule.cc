#include "dispatch/dispatch_rule.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace tessel::dispatch {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, DispatchRule> rules;
};

Registry& Get() {
  static Registry* r = new Registry();  // Never destroyed: rules may be looked up at exit.
  return *r;
}

}  // namespace

bool DispatchRule::Serves(const std::string& target) const {
  std::string kind = target.substr(0, target.find(' '));
  return std::find(targets_.begin(), targets_.end(), kind) != targets_.end();
}

void RegisterDispatchRule(DispatchRule rule) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string name = rule.name();
  r.rules.insert_or_assign(std::move(name), std::move(rule));
}

bool UnregisterDispatchRule(const std::string& name) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.rules.erase(name) > 0;
}

std::optional<DispatchRule> LookupDispatchRule(const std::string& name) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.rules.find(name);
  if (it == r.rules.end()) return std::nullopt;
  return it->second;
}

std::vector<DispatchRule> ListDispatchRules() {
  Registry& r = Get();
  std::vector<DispatchRule> out;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [name, rule] : r.rules) out.push_back(rule);
  }
  std::stable_sort(out.begin(), out.end(), [](const DispatchRule& a, const DispatchRule& b) {
    return a.priority() > b.priority();
  });
  return out;
}

}  // namespace tessel::dispatch
