// Launch extent expressions (see extent_expr.h): a recursive-descent parser and a
// checked evaluator.
#include "codegen/runtime/extent_expr.h"

#include <algorithm>
#include <cctype>

namespace tessel::runtime {

class ExtentParser {
 public:
  ExtentParser(std::string_view text, ExtentExpr* out) : text_(text), out_(out) {}

  std::string Run() {
    int root = -1;
    if (!Sum(&root)) return error_;
    Skip();
    if (at_ != text_.size()) return Error("unexpected '" + std::string(1, text_[at_]) + "'");
    return "";
  }

 private:
  void Skip() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool Eat(std::string_view token) {
    Skip();
    if (text_.substr(at_, token.size()) != token) return false;
    at_ += token.size();
    return true;
  }
  bool Fail(const std::string& why) {
    error_ = Error(why);
    return false;
  }
  std::string Error(const std::string& why) const {
    return "extent '" + std::string(text_) + "': " + why + " at offset " + std::to_string(at_);
  }
  int Add(ExtentExpr::Node n) {
    out_->nodes_.push_back(n);
    return static_cast<int>(out_->nodes_.size()) - 1;
  }

  // sum := product (('+' | '-') product)*
  bool Sum(int* node) {
    if (!Product(node)) return false;
    for (;;) {
      char op = Eat("+") ? '+' : Eat("-") ? '-' : 0;
      if (op == 0) return true;
      int rhs = -1;
      if (!Product(&rhs)) return false;
      *node = Add({op, 0, *node, rhs});
    }
  }
  // product := atom (('*' | '//' | '%%') atom)*
  bool Product(int* node) {
    if (!Atom(node)) return false;
    for (;;) {
      char op = Eat("//") ? '/' : Eat("%%") ? '%' : Eat("*") ? '*' : 0;
      if (op == 0) return true;
      int rhs = -1;
      if (!Atom(&rhs)) return false;
      *node = Add({op, 0, *node, rhs});
    }
  }
  // atom := integer | name | ('min' | 'max') '(' sum ',' sum ')' | '(' sum ')'
  bool Atom(int* node) {
    Skip();
    if (at_ >= text_.size()) return Fail("an operand is missing");
    if (Eat("(")) {
      if (!Sum(node)) return false;
      return Eat(")") || Fail("')' expected");
    }
    const char c = text_[at_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[at_] - '0', &v)) {
          return Fail("an integer overflows int64");
        }
        ++at_;
      }
      // The printer's typed literals (255i64) carry a suffix: skip it.
      if (at_ < text_.size() && (text_[at_] == 'i' || text_[at_] == 'u')) {
        ++at_;
        while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
      }
      *node = Add({'#', v, -1, -1});
      return true;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return Fail("an operand expected");
    size_t end = at_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
      ++end;
    }
    const std::string name(text_.substr(at_, end - at_));
    at_ = end;
    if ((name == "min" || name == "max") && Eat("(")) {
      int lhs = -1, rhs = -1;
      if (!Sum(&lhs)) return false;
      if (!Eat(",")) return Fail("',' expected");
      if (!Sum(&rhs)) return false;
      if (!Eat(")")) return Fail("')' expected");
      *node = Add({name == "min" ? 'm' : 'M', 0, lhs, rhs});
      return true;
    }
    // An integer cast as the printer writes it (i64(n)): the values are int64 here.
    if ((name == "i32" || name == "i64" || name == "u32" || name == "u64") && Eat("(")) {
      if (!Sum(node)) return false;
      return Eat(")") || Fail("')' expected");
    }
    std::vector<std::string>& names = out_->names_;
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) it = names.insert(names.end(), name);
    *node = Add({'n', static_cast<int64_t>(it - names.begin()), -1, -1});
    return true;
  }

  std::string_view text_;
  ExtentExpr* out_;
  size_t at_ = 0;
  std::string error_;
};

std::string ExtentExpr::Parse(std::string_view text, ExtentExpr* out) {
  ExtentExpr e;
  e.text_ = std::string(text);
  if (std::string why = ExtentParser(text, &e).Run(); !why.empty()) return why;
  *out = std::move(e);
  return "";
}

bool ExtentExpr::Evaluate(const std::function<bool(const std::string&, int64_t*)>& lookup,
                          int64_t* out, std::string* why) const {
  std::vector<int64_t> values(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    if (!lookup(names_[i], &values[i])) {
      *why = "extent '" + text_ + "': no value for '" + names_[i] + "'";
      return false;
    }
  }
  if (nodes_.empty()) {
    *why = "extent '" + text_ + "' is empty";
    return false;
  }
  return Eval(static_cast<int>(nodes_.size()) - 1, values, out, why);
}

bool ExtentExpr::Eval(int node, const std::vector<int64_t>& values, int64_t* out,
                      std::string* why) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  if (n.op == '#') return *out = n.value, true;
  if (n.op == 'n') return *out = values[static_cast<size_t>(n.value)], true;
  int64_t a = 0, b = 0;
  if (!Eval(n.lhs, values, &a, why) || !Eval(n.rhs, values, &b, why)) return false;
  bool overflow = false;
  switch (n.op) {
    case '+':
      overflow = __builtin_add_overflow(a, b, out);
      break;
    case '-':
      overflow = __builtin_sub_overflow(a, b, out);
      break;
    case '*':
      overflow = __builtin_mul_overflow(a, b, out);
      break;
    case 'm':
      *out = std::min(a, b);
      break;
    case 'M':
      *out = std::max(a, b);
      break;
    default: {  // Floor division and modulo.
      if (b == 0 || (a == INT64_MIN && b == -1)) {
        *why = "extent '" + text_ + "': division by zero or overflow";
        return false;
      }
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      *out = n.op == '/' ? q : a - q * b;
    }
  }
  if (overflow) *why = "extent '" + text_ + "' overflows int64";
  return !overflow;
}

}  // namespace tessel::runtime
