// The process-wide table of config keys.
#include "passes/pass_config.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "passes/did_you_mean.h"

namespace tessel::passes {

ConfigRegistry& ConfigRegistry::Global() {
  static ConfigRegistry* registry = new ConfigRegistry();  // Never destroyed: used at exit.
  return *registry;
}

void ConfigRegistry::Register(OptionSpec spec) {
  if (TypeOf(spec.default_value) != spec.type) {
    std::fprintf(stderr, "tessel: fatal: config '%s' has a default of the wrong type\n",
                 spec.name.c_str());
    std::abort();
  }
  std::string key = spec.name;
  if (!specs_.emplace(key, std::move(spec)).second) {
    std::fprintf(stderr, "tessel: fatal: config '%s' is registered twice\n", key.c_str());
    std::abort();
  }
}

const OptionSpec* ConfigRegistry::Lookup(const std::string& key) const {
  auto it = specs_.find(key);
  return it == specs_.end() ? nullptr : &it->second;
}

std::vector<const OptionSpec*> ConfigRegistry::All() const {
  std::vector<const OptionSpec*> out;
  for (const auto& [key, spec] : specs_) out.push_back(&spec);
  return out;
}

std::string ConfigRegistry::UnknownKeyMessage(const std::string& key) const {
  std::vector<std::string> keys;
  for (const auto& [k, spec] : specs_) keys.push_back(k);
  return absl::StrCat("unknown config '", key, "'", DidYouMean(key, keys),
                      " (--list-configs shows them all)");
}

std::string ListConfigs() {
  std::string out;
  for (const OptionSpec* spec : ConfigRegistry::Global().All()) {
    absl::StrAppend(&out, "  ", DescribeOption(*spec), "\n");
  }
  return out;
}

}  // namespace tessel::passes
