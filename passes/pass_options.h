// Typed pass options: what a pass accepts, with defaults and a one-line description.
//
//   std::vector<OptionSpec> specs = {
//       IntOption("factor", 1, "Unroll factor"),
//       ListOption("names", {}, "Functions to touch; empty means all"),
//   };
//   PassOptions opts(specs, "my-pass");            // every option at its default
//   opts.Set("factor", OptionLiteral::Scalar("4"));  // from pipeline text
//   opts.GetInt("factor");                         // 4
//   opts.ToString();                               // "factor=4"  (only what was set)
//
// Four types: int, bool (true/false), string, and list (of strings, written
// [a,b,"c d"]). A value is a scalar or a list of scalars; a scalar that is not a
// plain word (letters, digits, _ - . + / : @ *) is written in double quotes with
// \" and \\ escapes. Unknown options are errors naming the valid ones with types.
#ifndef TESSEL_PASSES_PASS_OPTIONS_H_
#define TESSEL_PASSES_PASS_OPTIONS_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tessel::passes {

enum class OptionType { kInt, kBool, kString, kList };
const char* OptionTypeName(OptionType type);         // "int", "bool", "string", "list"
const char* OptionTypeWithArticle(OptionType type);  // "an int", "a bool", ...

using OptionValue = std::variant<int64_t, bool, std::string, std::vector<std::string>>;
OptionType TypeOf(const OptionValue& value);

struct OptionSpec {
  std::string name;  // kebab-case
  OptionType type;
  OptionValue default_value;
  std::string description;  // One line.
};

OptionSpec IntOption(std::string name, int64_t default_value, std::string description);
OptionSpec BoolOption(std::string name, bool default_value, std::string description);
OptionSpec StringOption(std::string name, std::string default_value, std::string description);
OptionSpec ListOption(std::string name, std::vector<std::string> default_value,
                      std::string description);

// A value as written in text, before it is checked against a type.
struct OptionLiteral {
  bool is_list = false;
  std::vector<std::string> items;  // A scalar has exactly one item.
  static OptionLiteral Scalar(std::string s) { return {false, {std::move(s)}}; }
  static OptionLiteral List(std::vector<std::string> items) { return {true, std::move(items)}; }
};

// True for characters a scalar may use without quotes.
bool IsBareOptionChar(char c);
// A scalar as text: bare when possible, otherwise quoted and escaped.
std::string FormatOptionScalar(absl::string_view s);
// "4", "true", "abc", "\"a b\"", "[a,b]".
std::string FormatOptionValue(const OptionValue& value);
// Checks `literal` against `type`; `what` names the option in messages
// ("option 'factor' of pass 'my-pass'").
absl::Status ConvertOptionLiteral(const OptionLiteral& literal, OptionType type,
                                  const std::string& what, OptionValue* out);

// One line per option, as --list-passes prints it:
//   "factor: int = 1 -- Unroll factor"
std::string DescribeOption(const OptionSpec& spec);

class PassOptions {
 public:
  PassOptions() = default;
  // Every option at its default. `owner` (the pass name) appears in messages.
  explicit PassOptions(std::vector<OptionSpec> specs, std::string owner = "");

  // Sets `key` from text. Errors: unknown key (listing the valid ones with their
  // types), a value of the wrong type, a key given twice.
  absl::Status Set(const std::string& key, const OptionLiteral& value);
  // Typed form for C++ callers; same checks.
  absl::Status SetValue(const std::string& key, OptionValue value);

  // Typed getters. Asking for an undeclared option or the wrong type is a
  // programming error in the pass and aborts with a message.
  int64_t GetInt(absl::string_view key) const;
  bool GetBool(absl::string_view key) const;
  const std::string& GetString(absl::string_view key) const;
  const std::vector<std::string>& GetList(absl::string_view key) const;

  bool IsSet(absl::string_view key) const;
  const std::vector<OptionSpec>& specs() const { return specs_; }
  const std::string& owner() const { return owner_; }

  // The explicitly set options in the order they were set: "factor=4,names=[a,b]".
  // Defaults are left out so that printing a parsed pipeline gives back its text.
  std::string ToString() const;

 private:
  int Find(absl::string_view key) const;  // -1 when absent
  const OptionValue& Get(absl::string_view key, OptionType type) const;

  std::vector<OptionSpec> specs_;
  std::string owner_;
  std::vector<OptionValue> values_;
  std::vector<int> set_order_;  // Indices into specs_.
};

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PASS_OPTIONS_H_
