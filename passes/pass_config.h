// The typed configuration keys a PassContext can hold, registered once beside
// the code that reads them.
//
//   TESSEL_REGISTER_CONFIG(IntOption("check-semantics.work-limit", 1 << 22,
//                                    "Skip functions estimated to run more statements"));
//   ...
//   ctx.SetConfigFromText("check-semantics.work-limit", "1000");    // checked: int
//   int64_t limit = ctx.GetConfigInt("check-semantics.work-limit");
//   ListConfigs();   // every key with its type, default and description
//
// Keys are dotted, "<owner>.<name>". Setting an unknown key is an error with a
// did-you-mean suggestion; reading an unregistered key is a programming error.
#ifndef TESSEL_PASSES_PASS_CONFIG_H_
#define TESSEL_PASSES_PASS_CONFIG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "passes/pass_options.h"

namespace tessel::passes {

class ConfigRegistry {
 public:
  static ConfigRegistry& Global();

  // Registering a key twice is a programming error (aborts).
  void Register(OptionSpec spec);
  // Null when absent.
  const OptionSpec* Lookup(const std::string& key) const;
  // Every key, sorted.
  std::vector<const OptionSpec*> All() const;
  // The message for an unknown key, with a suggestion and a pointer to --list-configs.
  std::string UnknownKeyMessage(const std::string& key) const;

 private:
  std::map<std::string, OptionSpec> specs_;
};

// One line per key: "check-semantics.seed: int = 1 -- Seed of the random inputs".
std::string ListConfigs();

struct ConfigRegistrar {
  explicit ConfigRegistrar(OptionSpec spec) { ConfigRegistry::Global().Register(std::move(spec)); }
};

}  // namespace tessel::passes

#define TESSEL_CONFIG_CONCAT_INNER(a, b) a##b
#define TESSEL_CONFIG_CONCAT(a, b) TESSEL_CONFIG_CONCAT_INNER(a, b)
// Registers one config key; put it at namespace scope beside its reader.
#define TESSEL_REGISTER_CONFIG(spec)                                                            \
  static const ::tessel::passes::ConfigRegistrar TESSEL_CONFIG_CONCAT(tessel_config_registrar_, \
                                                                      __COUNTER__)(spec)

#endif  // TESSEL_PASSES_PASS_CONFIG_H_
