// Index maps (see index_map.h): a small recursive-descent parser for the
// lambda, a printer back to Python, and substitution.
#include "ir/index_map.h"

#include <cctype>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/substitute.h"

namespace tessel::ir {

namespace {

const DataType kIndexType = DataType::Int(32);

// Checks an output uses only the parameters and the operations Python spells.
std::string CheckSubset(const Expr& e, const absl::flat_hash_set<const VarNode*>& params) {
  switch (e->kind()) {
    case NodeKind::kVar:
      if (!params.contains(static_cast<const VarNode*>(e.get()))) {
        return absl::StrCat("variable '", static_cast<const VarNode*>(e.get())->name,
                            "' is not a parameter of the map");
      }
      return "";
    case NodeKind::kIntImm: return "";
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
    case NodeKind::kMin:
    case NodeKind::kMax: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      std::string why = CheckSubset(b->a, params);
      return why.empty() ? CheckSubset(b->b, params) : why;
    }
    default:
      return "an index map uses integer literals, + - * // % min max and its parameters only";
  }
}

// Python precedence: 1 for + -, 2 for * // %, 3 for atoms and calls.
int Precedence(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::kAdd:
    case NodeKind::kSub: return 1;
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: return 2;
    default: return 3;
  }
}

std::string ToPy(const Expr& e) {
  if (const auto* v = dyn_cast<VarNode>(e)) return v->name;
  if (const auto* c = dyn_cast<IntImmNode>(e)) {
    return c->value < 0 ? absl::StrCat("(", c->value, ")") : absl::StrCat(c->value);
  }
  const auto* b = static_cast<const BinaryNode*>(e.get());
  if (e->kind() == NodeKind::kMin || e->kind() == NodeKind::kMax) {
    return absl::StrCat(e->kind() == NodeKind::kMin ? "min(" : "max(", ToPy(b->a), ", ",
                        ToPy(b->b), ")");
  }
  const char* op = e->kind() == NodeKind::kAdd        ? " + "
                   : e->kind() == NodeKind::kSub      ? " - "
                   : e->kind() == NodeKind::kMul      ? " * "
                   : e->kind() == NodeKind::kFloorDiv ? " // "
                                                      : " % ";
  int p = Precedence(e);
  // Left-associative: the right operand needs parentheses at equal precedence.
  std::string l = ToPy(b->a), r = ToPy(b->b);
  if (Precedence(b->a) < p) l = absl::StrCat("(", l, ")");
  if (Precedence(b->b) <= p) r = absl::StrCat("(", r, ")");
  return absl::StrCat(l, op, r);
}

class LambdaParser {
 public:
  explicit LambdaParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<IndexMap> Parse() {
    if (Ident() != "lambda") return Error("an index map starts with 'lambda'");
    std::vector<Var> params;
    while (true) {
      size_t at = pos_;
      std::string name = Ident();
      if (name.empty()) return Error("expected a parameter name");
      if (vars_.contains(name)) {
        pos_ = at;
        return Error(absl::StrCat("parameter '", name, "' is given twice"));
      }
      params.push_back(MakeVar(name, kIndexType));
      vars_[name] = params.back();
      if (!Eat(',')) break;
    }
    if (!Eat(':')) return Error("expected ':' after the parameters");
    std::vector<Expr> outputs;
    // A body that is one parenthesised group is a tuple of what it holds.
    bool grouped = false;
    size_t save = pos_;
    char open = Peek();
    if (open == '(' || open == '[') {
      ++pos_;
      absl::Status s = List(&outputs, open == '(' ? ')' : ']');
      // A group that does not parse is no parenthesised first index either
      // (that would be a group of one): its error is the one to report.
      if (!s.ok()) return s;
      if (AtEnd()) {
        grouped = true;
      } else if (std::string("+-*/%,").find(Peek()) == std::string::npos) {
        return Error("unexpected text after the index map's body");
      } else {
        outputs.clear();
        pos_ = save;
      }
    }
    if (!grouped) {
      while (true) {
        absl::StatusOr<Expr> e = Sum();
        if (!e.ok()) return e.status();
        outputs.push_back(*e);
        if (!Eat(',') || AtEnd()) break;
      }
    }
    if (!AtEnd()) return Error("unexpected text after the index map's body");
    return IndexMap::Make(std::move(params), std::move(outputs));
  }

 private:
  absl::Status List(std::vector<Expr>* out, char close) {
    while (true) {
      if (Eat(close)) return absl::OkStatus();  // Also a trailing comma.
      absl::StatusOr<Expr> e = Sum();
      if (!e.ok()) return e.status();
      out->push_back(*e);
      if (Eat(close)) return absl::OkStatus();
      if (!Eat(',')) return Error(absl::StrCat("expected ',' or '", std::string(1, close), "'"));
    }
  }

  absl::StatusOr<Expr> Sum() {
    absl::StatusOr<Expr> l = Product();
    while (l.ok()) {
      char c = Peek();
      if (c != '+' && c != '-') break;
      ++pos_;
      absl::StatusOr<Expr> r = Product();
      if (!r.ok()) return r;
      l = MakeBinary(c == '+' ? NodeKind::kAdd : NodeKind::kSub, *l, *r);
    }
    return l;
  }

  absl::StatusOr<Expr> Product() {
    absl::StatusOr<Expr> l = Unary();
    while (l.ok()) {
      NodeKind k;
      if (Peek() == '*') {
        ++pos_;
        k = NodeKind::kMul;
      } else if (Peek() == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        pos_ += 2;
        k = NodeKind::kFloorDiv;
      } else if (Peek() == '/') {
        return Error("'/' is true division in Python; index maps use '//' (floor division)");
      } else if (Peek() == '%') {
        ++pos_;
        k = NodeKind::kFloorMod;
      } else {
        break;
      }
      absl::StatusOr<Expr> r = Unary();
      if (!r.ok()) return r;
      l = MakeBinary(k, *l, *r);
    }
    return l;
  }

  absl::StatusOr<Expr> Unary() {
    // Nesting is bounded so that no text can exhaust the stack.
    if (++depth_ > kMaxDepth) return Error("the index expression nests too deeply");
    absl::StatusOr<Expr> e = UnaryInner();
    --depth_;
    return e;
  }

  absl::StatusOr<Expr> UnaryInner() {
    if (Eat('-')) {
      absl::StatusOr<Expr> e = Unary();
      if (!e.ok()) return e;
      if (const auto* c = dyn_cast<IntImmNode>(*e)) return MakeIntImm(kIndexType, -c->value);
      return MakeBinary(NodeKind::kMul, IntImm(kIndexType, -1), *e);
    }
    return Primary();
  }

  absl::StatusOr<Expr> Primary() {
    char c = Peek();
    if (c == '(') {
      ++pos_;
      absl::StatusOr<Expr> e = Sum();
      if (!e.ok()) return e;
      if (!Eat(')')) return Error("expected ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v) ||
            v > INT32_MAX) {
          return Error("the integer does not fit int32");
        }
        ++pos_;
      }
      return MakeIntImm(kIndexType, v);
    }
    size_t at = pos_;
    std::string name = Ident();
    if (name.empty()) return Error("expected an index expression");
    if ((name == "min" || name == "max") && Eat('(')) {
      absl::StatusOr<Expr> a = Sum();
      if (!a.ok()) return a;
      if (!Eat(',')) return Error("expected ',' between the arguments of min/max");
      absl::StatusOr<Expr> b = Sum();
      if (!b.ok()) return b;
      if (!Eat(')')) return Error("expected ')'");
      return MakeBinary(name == "min" ? NodeKind::kMin : NodeKind::kMax, *a, *b);
    }
    auto it = vars_.find(name);
    if (it == vars_.end()) {
      pos_ = at;
      return Error(absl::StrCat("'", name, "' is not a parameter of the lambda"));
    }
    return Expr(it->second);
  }

  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char Peek() {
    Skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() { return Peek() == '\0'; }
  std::string Ident() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      if (pos_ == start && std::isdigit(static_cast<unsigned char>(text_[pos_]))) break;
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  absl::Status Error(const std::string& what) {
    Skip();
    return absl::InvalidArgumentError(absl::StrCat("index map, column ", pos_ + 1, ": ", what,
                                                   "\n  ", text_, "\n  ",
                                                   std::string(pos_, ' '), "^"));
  }

  static constexpr int kMaxDepth = 200;
  absl::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  absl::flat_hash_map<std::string, Var> vars_;
};

}  // namespace

absl::StatusOr<IndexMap> IndexMap::Make(std::vector<Var> inputs, std::vector<Expr> outputs) {
  if (inputs.empty()) return absl::InvalidArgumentError("index map: no parameters");
  if (outputs.empty()) return absl::InvalidArgumentError("index map: no outputs");
  absl::flat_hash_set<const VarNode*> params;
  absl::flat_hash_set<std::string> names;
  for (const Var& v : inputs) {
    if (!v || !params.insert(v.get()).second || !names.insert(v->name).second) {
      return absl::InvalidArgumentError("index map: parameters must be distinct named variables");
    }
    if (v->dtype != kIndexType) {
      return absl::InvalidArgumentError(
          absl::StrCat("index map: parameter '", v->name, "' must be int32"));
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k]) return absl::InvalidArgumentError("index map: an output is missing");
    std::string why = CheckSubset(outputs[k], params);
    if (why.empty() && outputs[k]->dtype != kIndexType) why = "outputs must be int32";
    if (!why.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("index map: output ", k, ": ", why));
    }
  }
  return IndexMap(std::move(inputs), std::move(outputs));
}

absl::StatusOr<IndexMap> IndexMap::Parse(absl::string_view text) {
  return LambdaParser(text).Parse();
}

absl::StatusOr<std::vector<Expr>> IndexMap::Apply(const std::vector<Expr>& indices) const {
  if (indices.size() != inputs_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("index map ", ToPython(), " takes ",
                                                   inputs_.size(), " indices, not ",
                                                   indices.size()));
  }
  VarMap map;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!indices[k] || indices[k]->dtype != kIndexType) {
      return absl::InvalidArgumentError(absl::StrCat(
          "index map ", ToPython(), ": index ", k, " is not a scalar int32 expression"));
    }
    map[inputs_[k].get()] = indices[k];
  }
  std::vector<Expr> out;
  for (const Expr& e : outputs_) out.push_back(Substitute(e, map));
  return out;
}

std::string IndexMap::ToPython() const {
  std::vector<std::string> params, outs;
  for (const Var& v : inputs_) params.push_back(v->name);
  for (const Expr& e : outputs_) outs.push_back(ToPy(e));
  return absl::StrCat("lambda ", absl::StrJoin(params, ", "), ": (", absl::StrJoin(outs, ", "),
                      outputs_.size() == 1 ? ",)" : ")");
}

}  // namespace tessel::ir
