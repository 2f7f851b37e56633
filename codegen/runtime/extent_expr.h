// ExtentExpr: a launch extent of a GPU program's manifest that is not a constant --
// an integer expression of shape variables and scalar parameters, as tessel's
// printer writes it -- parsed once and evaluated per call. Plain C++ (no Abseil).
//
//   ExtentExpr e;
//   ExtentExpr::Parse("(n + 255) // 256", &e);           // "" or why not
//   e.Evaluate([](const std::string& name, int64_t* v) { *v = 1000; return true; }, &grid, &why);
//   // grid == 4
//
// Grammar: integers (a type suffix as in 33i64 allowed), names, + - * // (floor
// division) %% (floor modulo), min(a, b), max(a, b), the integer casts i32(x),
// i64(x), u32(x), u64(x) (values are int64 throughout), parentheses; * // %% bind
// tighter than + -, left to right.
#ifndef TESSEL_CODEGEN_RUNTIME_EXTENT_EXPR_H_
#define TESSEL_CODEGEN_RUNTIME_EXTENT_EXPR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::runtime {

class ExtentExpr {
 public:
  // "" and `out` filled, or why `text` is not an extent expression.
  static std::string Parse(std::string_view text, ExtentExpr* out);

  const std::string& text() const { return text_; }
  // The names it reads, each once.
  const std::vector<std::string>& names() const { return names_; }

  // The value, the names' values from `lookup` (false: no value); false with `why`
  // for a missing name, a division by zero or an overflow.
  bool Evaluate(const std::function<bool(const std::string&, int64_t*)>& lookup, int64_t* out,
                std::string* why) const;

 private:
  struct Node {
    char op = 0;  // '#': integer, 'n': name, '+', '-', '*', '/' (floor), '%' (floor), 'm' min,
                  // 'M' max.
    int64_t value = 0;  // The integer, or the index of the name.
    int lhs = -1, rhs = -1;
  };
  bool Eval(int node, const std::vector<int64_t>& values, int64_t* out, std::string* why) const;

  std::string text_;
  std::vector<Node> nodes_;  // The root is the last.
  std::vector<std::string> names_;
  friend class ExtentParser;
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_EXTENT_EXPR_H_
