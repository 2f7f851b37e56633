// Attribute values for function attrs, module attrs, and loop/block annotations.
//
//   Attrs a;
//   a["global_symbol"] = AttrValue("matmul");
//   a["unroll_max_step"] = AttrValue(int64_t{16});
//   a["tile"] = AttrValue(std::vector<AttrValue>{AttrValue(int64_t{8}), AttrValue(int64_t{32})});
//
// A value is one of: int, float, bool, string, an expression, or a list of values.
// Attrs are kept sorted by key so that printing and hashing are deterministic.
#ifndef TESSEL_IR_ATTRS_H_
#define TESSEL_IR_ATTRS_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"

namespace tessel::ir {

// The deepest nesting of lists an attribute value may have: `[[1]]` nests 2 deep.
// The parser reads no deeper, and the verifier and the Python bindings refuse
// deeper values, so that every value that exists prints as text that parses back.
inline constexpr int kMaxAttrNesting = 32;

class AttrValue {
 public:
  using List = std::vector<AttrValue>;
  using Storage = std::variant<int64_t, double, bool, std::string, Expr, List>;

  AttrValue() : v_(int64_t{0}) {}
  explicit AttrValue(int64_t v) : v_(v) {}
  explicit AttrValue(int v) : v_(int64_t{v}) {}
  explicit AttrValue(double v) : v_(v) {}
  explicit AttrValue(bool v) : v_(v) {}
  explicit AttrValue(std::string v) : v_(std::move(v)) {}
  explicit AttrValue(const char* v) : v_(std::string(v)) {}
  explicit AttrValue(Expr v) : v_(std::move(v)) {}
  explicit AttrValue(List v) : v_(std::move(v)) {}
  // Out of line (attrs.cc) on purpose: GCC 12 inlines the variant's move into
  // every vector<AttrValue>::push_back of a temporary and then warns that the
  // string and vector alternatives "may be used uninitialized"
  // (-Wmaybe-uninitialized, a false positive: only the active alternative is
  // moved). Not inlining them keeps that analysis out of every caller.
  AttrValue(const AttrValue& other);
  AttrValue(AttrValue&& other) noexcept;
  AttrValue& operator=(const AttrValue& other);
  AttrValue& operator=(AttrValue&& other) noexcept;
  ~AttrValue();

  const Storage& storage() const { return v_; }
  template <typename T>
  bool is() const { return std::holds_alternative<T>(v_); }
  template <typename T>
  const T& as() const { return std::get<T>(v_); }
  // Null when the value holds another alternative.
  template <typename T>
  const T* get_if() const { return std::get_if<T>(&v_); }

 private:
  Storage v_;
};

using Attrs = std::map<std::string, AttrValue>;

// How deep `v` nests lists (0 for a scalar), counting no further than `limit` + 1,
// so that the walk itself stays shallow.
int AttrNesting(const AttrValue& v, int limit = kMaxAttrNesting);

}  // namespace tessel::ir

#endif  // TESSEL_IR_ATTRS_H_
