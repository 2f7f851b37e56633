// PassContext: config access and the thread-local stack of entered contexts.
#include "passes/pass_context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "passes/instrument.h"
#include "passes/pass_config.h"
#include "passes/pipeline_parser.h"

namespace tessel::passes {

namespace {

std::vector<PassContext*>& Stack() {
  thread_local std::vector<PassContext*> stack;
  return stack;
}

}  // namespace

bool PassContext::IsDisabled(const std::string& pass) const {
  return std::find(disabled_passes.begin(), disabled_passes.end(), pass) != disabled_passes.end();
}

bool PassContext::IsRequired(const std::string& pass) const {
  return std::find(required_passes.begin(), required_passes.end(), pass) != required_passes.end();
}

absl::Status PassContext::SetConfig(const std::string& key, OptionValue value) {
  const OptionSpec* spec = ConfigRegistry::Global().Lookup(key);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(ConfigRegistry::Global().UnknownKeyMessage(key));
  }
  if (TypeOf(value) != spec->type) {
    return absl::InvalidArgumentError(absl::StrCat("config '", key, "' is ",
                                                   OptionTypeWithArticle(spec->type), ", not ",
                                                   OptionTypeWithArticle(TypeOf(value))));
  }
  config_[key] = std::move(value);
  return absl::OkStatus();
}

absl::Status PassContext::SetConfigFromText(const std::string& key, const std::string& text) {
  const OptionSpec* spec = ConfigRegistry::Global().Lookup(key);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(ConfigRegistry::Global().UnknownKeyMessage(key));
  }
  absl::StatusOr<OptionLiteral> literal = ParseOptionLiteralText(text);
  if (!literal.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config '", key, "': ", literal.status().message()));
  }
  OptionValue v;
  absl::Status s =
      ConvertOptionLiteral(*literal, spec->type, absl::StrCat("config '", key, "'"), &v);
  if (!s.ok()) return s;
  config_[key] = std::move(v);
  return absl::OkStatus();
}

const OptionValue& PassContext::GetConfig(const std::string& key, OptionType type) const {
  const OptionSpec* spec = ConfigRegistry::Global().Lookup(key);
  if (spec == nullptr || spec->type != type) {
    std::fprintf(stderr, "tessel: fatal: reading unregistered %s config '%s'\n",
                 OptionTypeName(type), key.c_str());
    std::abort();
  }
  auto it = config_.find(key);
  return it == config_.end() ? spec->default_value : it->second;
}

int64_t PassContext::GetConfigInt(const std::string& key) const {
  return std::get<int64_t>(GetConfig(key, OptionType::kInt));
}
bool PassContext::GetConfigBool(const std::string& key) const {
  return std::get<bool>(GetConfig(key, OptionType::kBool));
}
std::string PassContext::GetConfigString(const std::string& key) const {
  return std::get<std::string>(GetConfig(key, OptionType::kString));
}
std::vector<std::string> PassContext::GetConfigList(const std::string& key) const {
  return std::get<std::vector<std::string>>(GetConfig(key, OptionType::kList));
}

std::vector<std::string> PassContext::ConfigToStrings() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : config_) {
    out.push_back(absl::StrCat(key, "=", FormatOptionValue(value)));
  }
  return out;
}

PassContext& PassContext::Current() {
  std::vector<PassContext*>& stack = Stack();
  if (!stack.empty()) return *stack.back();
  thread_local PassContext default_context;
  return default_context;
}

PassContext::Scope::Scope(PassContext& ctx) { Stack().push_back(&ctx); }
PassContext::Scope::~Scope() { Stack().pop_back(); }

}  // namespace tessel::passes
