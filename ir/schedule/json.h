// A small JSON value with a reader and a writer, for trace files (no new
// dependency; ir/ uses Abseil and the standard library only).
//
//   absl::StatusOr<Json> j = ParseJson(R"({"version": 1, "xs": [1, 2.5, null]})");
//   j->Find("version")->as_int()         -> 1
//   j->Find("xs")->items()[1].as_double() -> 2.5
//   Json::Object({{"a", Json::Int(1)}}).Dump()  -> {"a": 1}
//
// Integers and floats stay apart: a number written with '.', 'e' or 'E' is a
// double, any other an int64 (one that does not fit is an error). Doubles are
// written in their shortest exact form, always with a '.' or an exponent, so
// they read back as doubles, bit for bit; NaN and infinities have no JSON form
// and are written as null (writers that care check first). Objects keep their
// key order. Nesting is limited to 256 levels; errors say line and column.
#ifndef TESSEL_IR_SCHEDULE_JSON_H_
#define TESSEL_IR_SCHEDULE_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::ir::schedule {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  using Array = std::vector<Json>;
  using Members = std::vector<std::pair<std::string, Json>>;

  Json() = default;  // null
  static Json Null() { return Json(); }
  static Json Bool(bool b) { return Json(b); }
  static Json Int(int64_t i) { return Json(i); }
  static Json Double(double d) { return Json(d); }
  static Json String(std::string s) { return Json(std::move(s)); }
  static Json MakeArray(Array items) { return Json(std::move(items)); }
  static Json Object(Members members) { return Json(std::move(members)); }

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::kNull; }
  bool is_bool() const { return type() == Type::kBool; }
  bool is_int() const { return type() == Type::kInt; }
  bool is_double() const { return type() == Type::kDouble; }
  bool is_string() const { return type() == Type::kString; }
  bool is_array() const { return type() == Type::kArray; }
  bool is_object() const { return type() == Type::kObject; }

  // Accessors of the wrong type are programming errors (std::get throws).
  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_double() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& items() const { return std::get<Array>(v_); }
  const Members& members() const { return std::get<Members>(v_); }

  // The member named `key` of an object, or null when absent or not an object.
  const Json* Find(absl::string_view key) const;

  // Compact text on one line: {"a": 1, "b": [true, null]}.
  std::string Dump() const;

  // "null", "bool", "int", "float", "string", "array", "object".
  static const char* TypeName(Type t);

 private:
  explicit Json(bool b) : v_(b) {}
  explicit Json(int64_t i) : v_(i) {}
  explicit Json(double d) : v_(d) {}
  explicit Json(std::string s) : v_(std::move(s)) {}
  explicit Json(Array a) : v_(std::move(a)) {}
  explicit Json(Members m) : v_(std::move(m)) {}

  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Members> v_;
};

// `what` names the text in messages ("trace.json").
absl::StatusOr<Json> ParseJson(absl::string_view text, absl::string_view what = "JSON");

// The JSON spelling of a string, with quotes and escapes.
std::string JsonQuote(absl::string_view s);
// The shortest text that reads back to exactly `d` (finite), with '.' or 'e'.
std::string JsonDouble(double d);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_JSON_H_
