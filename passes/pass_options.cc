// Typed pass options: conversion from text, checked getters and printing back.
#include "passes/pass_options.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/did_you_mean.h"

namespace tessel::passes {

const char* OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kInt:
      return "int";
    case OptionType::kBool:
      return "bool";
    case OptionType::kString:
      return "string";
    case OptionType::kList:
      return "list";
  }
  return "?";
}

const char* OptionTypeWithArticle(OptionType type) {
  switch (type) {
    case OptionType::kInt:
      return "an int";
    case OptionType::kBool:
      return "a bool";
    case OptionType::kString:
      return "a string";
    case OptionType::kList:
      return "a list";
  }
  return "?";
}

OptionType TypeOf(const OptionValue& value) {
  switch (value.index()) {
    case 0:
      return OptionType::kInt;
    case 1:
      return OptionType::kBool;
    case 2:
      return OptionType::kString;
    default:
      return OptionType::kList;
  }
}

OptionSpec IntOption(std::string name, int64_t default_value, std::string description) {
  return {std::move(name), OptionType::kInt, default_value, std::move(description)};
}
OptionSpec BoolOption(std::string name, bool default_value, std::string description) {
  return {std::move(name), OptionType::kBool, default_value, std::move(description)};
}
OptionSpec StringOption(std::string name, std::string default_value, std::string description) {
  return {std::move(name), OptionType::kString, std::move(default_value), std::move(description)};
}
OptionSpec ListOption(std::string name, std::vector<std::string> default_value,
                      std::string description) {
  return {std::move(name), OptionType::kList, std::move(default_value), std::move(description)};
}

bool IsBareOptionChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == '+' || c == '/' || c == ':' ||
         c == '@' || c == '*';
}

std::string FormatOptionScalar(absl::string_view s) {
  bool bare = !s.empty();
  for (char c : s) bare = bare && IsBareOptionChar(c);
  if (bare) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string FormatOptionValue(const OptionValue& value) {
  switch (TypeOf(value)) {
    case OptionType::kInt:
      return absl::StrCat(std::get<int64_t>(value));
    case OptionType::kBool:
      return std::get<bool>(value) ? "true" : "false";
    case OptionType::kString:
      return FormatOptionScalar(std::get<std::string>(value));
    case OptionType::kList: {
      std::vector<std::string> items;
      for (const std::string& s : std::get<std::vector<std::string>>(value)) {
        items.push_back(FormatOptionScalar(s));
      }
      return absl::StrCat("[", absl::StrJoin(items, ","), "]");
    }
  }
  return "";
}

absl::Status ConvertOptionLiteral(const OptionLiteral& literal, OptionType type,
                                  const std::string& what, OptionValue* out) {
  if (type == OptionType::kList) {
    if (!literal.is_list) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " expects a list like [a,b], got ",
                       FormatOptionScalar(literal.items.empty() ? "" : literal.items[0])));
    }
    *out = literal.items;
    return absl::OkStatus();
  }
  if (literal.is_list || literal.items.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " expects ", OptionTypeWithArticle(type), ", got a list"));
  }
  const std::string& text = literal.items[0];
  switch (type) {
    case OptionType::kInt: {
      int64_t v = 0;
      // SimpleAtoi tolerates surrounding spaces; a pipeline value never has them
      // unless quoted, and then they are a mistake.
      bool ok = !text.empty() && !std::isspace(static_cast<unsigned char>(text.front())) &&
                !std::isspace(static_cast<unsigned char>(text.back())) &&
                absl::SimpleAtoi(text, &v);
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " expects an int, got ", FormatOptionScalar(text)));
      }
      *out = v;
      return absl::OkStatus();
    }
    case OptionType::kBool:
      if (text == "true" || text == "false") {
        *out = text == "true";
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(
          absl::StrCat(what, " expects a bool (true or false), got ", FormatOptionScalar(text)));
    case OptionType::kString:
      *out = text;
      return absl::OkStatus();
    case OptionType::kList:
      break;
  }
  return absl::InternalError("unreachable option type");
}

std::string DescribeOption(const OptionSpec& spec) {
  return absl::StrCat(spec.name, ": ", OptionTypeName(spec.type), " = ",
                      FormatOptionValue(spec.default_value), " -- ", spec.description);
}

PassOptions::PassOptions(std::vector<OptionSpec> specs, std::string owner)
    : specs_(std::move(specs)), owner_(std::move(owner)) {
  for (const OptionSpec& s : specs_) {
    if (TypeOf(s.default_value) != s.type) {
      std::fprintf(stderr,
                   "tessel: fatal: option '%s' of pass '%s' has a default of the wrong type\n",
                   s.name.c_str(), owner_.c_str());
      std::abort();
    }
    values_.push_back(s.default_value);
  }
}

int PassOptions::Find(absl::string_view key) const {
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].name == key) return static_cast<int>(i);
  }
  return -1;
}

absl::Status PassOptions::Set(const std::string& key, const OptionLiteral& value) {
  int i = Find(key);
  if (i < 0) {
    if (specs_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", owner_, "' takes no options (got '", key, "')"));
    }
    std::vector<std::string> names, described;
    for (const OptionSpec& s : specs_) {
      names.push_back(s.name);
      described.push_back(absl::StrCat(s.name, " (", OptionTypeName(s.type), ")"));
    }
    std::string suggestion = SuggestClosest(key, names);
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", owner_, "' has no option '", key, "'",
                     suggestion.empty() ? "" : absl::StrCat(" (did you mean '", suggestion, "'?)"),
                     "; valid options: ", absl::StrJoin(described, ", ")));
  }
  std::string what = absl::StrCat("option '", key, "' of pass '", owner_, "'");
  for (int j : set_order_) {
    if (j == i) return absl::InvalidArgumentError(absl::StrCat(what, " is given twice"));
  }
  OptionValue v;
  absl::Status s = ConvertOptionLiteral(value, specs_[i].type, what, &v);
  if (!s.ok()) return s;
  values_[i] = std::move(v);
  set_order_.push_back(i);
  return absl::OkStatus();
}

absl::Status PassOptions::SetValue(const std::string& key, OptionValue value) {
  int i = Find(key);
  if (i < 0) {
    // Reuse the text path's message for unknown keys.
    return Set(key, OptionLiteral::Scalar(""));
  }
  if (TypeOf(value) != specs_[i].type) {
    return absl::InvalidArgumentError(absl::StrCat("option '", key, "' of pass '", owner_, "' is ",
                                                   OptionTypeWithArticle(specs_[i].type), ", not ",
                                                   OptionTypeWithArticle(TypeOf(value))));
  }
  for (int j : set_order_) {
    if (j == i) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '", key, "' of pass '", owner_, "' is given twice"));
    }
  }
  values_[i] = std::move(value);
  set_order_.push_back(i);
  return absl::OkStatus();
}

const OptionValue& PassOptions::Get(absl::string_view key, OptionType type) const {
  int i = Find(key);
  if (i < 0 || specs_[i].type != type) {
    std::fprintf(stderr, "tessel: fatal: pass '%s' reads undeclared %s option '%s'\n",
                 owner_.c_str(), OptionTypeName(type), std::string(key).c_str());
    std::abort();
  }
  return values_[i];
}

int64_t PassOptions::GetInt(absl::string_view key) const {
  return std::get<int64_t>(Get(key, OptionType::kInt));
}
bool PassOptions::GetBool(absl::string_view key) const {
  return std::get<bool>(Get(key, OptionType::kBool));
}
const std::string& PassOptions::GetString(absl::string_view key) const {
  return std::get<std::string>(Get(key, OptionType::kString));
}
const std::vector<std::string>& PassOptions::GetList(absl::string_view key) const {
  return std::get<std::vector<std::string>>(Get(key, OptionType::kList));
}

bool PassOptions::IsSet(absl::string_view key) const {
  int i = Find(key);
  for (int j : set_order_) {
    if (j == i) return true;
  }
  return false;
}

std::string PassOptions::ToString() const {
  std::vector<std::string> parts;
  for (int i : set_order_) {
    parts.push_back(absl::StrCat(specs_[i].name, "=", FormatOptionValue(values_[i])));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace tessel::passes
