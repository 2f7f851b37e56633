// The pattern language of the rewrite rules: parsing, matching, building.
//
//   "x // c1 < c2 => x < c1 * c2  if c1 > 0"
//   parses to  lhs: LT(FloorDiv(x, c1), c2)   rhs: LT(x, Mul(c1, c2))   cond: GT(c1, 0)
//   matches    i // 4 < 3   with x = i, c1 = 4, c2 = 3
//   builds     i < 12       (4 * 3 folded exactly)
#include "ir/arith/pattern.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/const_fold.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/int_math.h"
#include "ir/arith/simplify_internal.h"

namespace tessel::ir::arith {

namespace {

using Tag = Pattern::Tag;

bool IsCompare(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }
bool IsCommutative(NodeKind k) {
  return k == NodeKind::kAdd || k == NodeKind::kMul || k == NodeKind::kMin || k == NodeKind::kMax ||
         k == NodeKind::kEQ || k == NodeKind::kNE || k == NodeKind::kAnd || k == NodeKind::kOr;
}
// Operations whose result depends on exact operand values (not just modulo 2^bits).
bool IsValueDependent(NodeKind k) {
  return (k >= NodeKind::kDiv && k <= NodeKind::kMax) || IsCompare(k);
}

// ---- Parsing ------------------------------------------------------------------------

class RuleParser {
 public:
  RuleParser(absl::string_view text, std::vector<std::string>* slots)
      : text_(text), slots_(slots) {}

  absl::StatusOr<Pattern> Expression() { return Or(); }
  bool Eat(absl::string_view tok) {
    SkipSpace();
    if (text_.substr(pos_, tok.size()) != tok) return false;
    // Words must end at a word boundary ("if" is not the start of "iffy").
    if (std::isalpha(static_cast<unsigned char>(tok[0])) && pos_ + tok.size() < text_.size() &&
        std::isalnum(static_cast<unsigned char>(text_[pos_ + tok.size()]))) {
      return false;
    }
    pos_ += tok.size();
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  absl::Status Error(absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " at column ", pos_ + 1, " of '", text_, "'"));
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  static Pattern Node(NodeKind op, Pattern a, Pattern b) {
    Pattern p;
    p.tag = Tag::kBinary;
    p.op = op;
    p.children = {std::move(a), std::move(b)};
    return p;
  }

  // One precedence level: operand (op operand)* with the operators in `ops`.
  template <typename Next>
  absl::StatusOr<Pattern> Level(Next next,
                                std::initializer_list<std::pair<const char*, NodeKind>> ops,
                                bool chain = true) {
    absl::StatusOr<Pattern> lhs = (this->*next)();
    if (!lhs.ok()) return lhs;
    while (true) {
      bool found = false;
      for (const auto& [tok, kind] : ops) {
        // "<" must not eat "<=", "/" must not eat "//", "=>" is not ">=".
        SkipSpace();
        absl::string_view rest = text_.substr(pos_);
        if (rest.substr(0, 2) == "=>") break;
        if (!Eat(tok)) continue;
        absl::StatusOr<Pattern> rhs = (this->*next)();
        if (!rhs.ok()) return rhs;
        *lhs = Node(kind, *std::move(lhs), *std::move(rhs));
        found = true;
        break;
      }
      if (!found || !chain) return lhs;
    }
  }
  absl::StatusOr<Pattern> Or() { return Level(&RuleParser::And, {{"||", NodeKind::kOr}}); }
  absl::StatusOr<Pattern> And() { return Level(&RuleParser::Cmp, {{"&&", NodeKind::kAnd}}); }
  absl::StatusOr<Pattern> Cmp() {
    return Level(&RuleParser::Sum,
                 {{"<=", NodeKind::kLE},
                  {">=", NodeKind::kGE},
                  {"==", NodeKind::kEQ},
                  {"!=", NodeKind::kNE},
                  {"<", NodeKind::kLT},
                  {">", NodeKind::kGT}},
                 /*chain=*/false);
  }
  absl::StatusOr<Pattern> Sum() {
    return Level(&RuleParser::Product, {{"+", NodeKind::kAdd}, {"-", NodeKind::kSub}});
  }
  absl::StatusOr<Pattern> Product() {
    return Level(&RuleParser::Unary, {{"*", NodeKind::kMul},
                                      {"//", NodeKind::kFloorDiv},
                                      {"%%", NodeKind::kFloorMod},
                                      {"/", NodeKind::kDiv},
                                      {"%", NodeKind::kMod}});
  }
  absl::StatusOr<Pattern> Unary() {
    if (Eat("!")) {
      absl::StatusOr<Pattern> a = Unary();
      if (!a.ok()) return a;
      Pattern p;
      p.tag = Tag::kNot;
      p.children = {*std::move(a)};
      return p;
    }
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      absl::StatusOr<Pattern> a = Atom();
      if (!a.ok()) return a;
      if (a->tag != Tag::kInt) return Error("'-' applies to integer literals only");
      a->value = -a->value;
      return a;
    }
    return Atom();
  }
  absl::StatusOr<Pattern> Atom() {
    SkipSpace();
    if (Eat("(")) {
      absl::StatusOr<Pattern> e = Expression();
      if (!e.ok()) return e;
      if (!Eat(")")) return Error("expected ')'");
      return e;
    }
    size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      Pattern p;
      p.tag = Tag::kInt;
      p.value = std::strtoll(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr, 10);
      return p;
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string word(text_.substr(start, pos_ - start));
    if (word.empty()) return Error("expected an operand");
    if (word == "true" || word == "false") {
      Pattern p;
      p.tag = Tag::kBool;
      p.value = word == "true";
      return p;
    }
    if (word == "min" || word == "max" || word == "select") {
      if (!Eat("(")) return Error(absl::StrCat("expected '(' after ", word));
      std::vector<Pattern> args;
      do {
        absl::StatusOr<Pattern> a = Expression();
        if (!a.ok()) return a;
        args.push_back(*std::move(a));
      } while (Eat(","));
      if (!Eat(")")) return Error("expected ')'");
      size_t want = word == "select" ? 3 : 2;
      if (args.size() != want) return Error(absl::StrCat(word, " takes ", want, " operands"));
      if (word == "select") {
        Pattern p;
        p.tag = Tag::kSelect;
        p.children = std::move(args);
        return p;
      }
      return Node(word == "min" ? NodeKind::kMin : NodeKind::kMax, std::move(args[0]),
                  std::move(args[1]));
    }
    Pattern p;
    bool is_const =
        word.size() >= 2 && word[0] == 'c' && std::isdigit(static_cast<unsigned char>(word[1]));
    p.tag = is_const ? Tag::kConst : Tag::kVar;
    for (size_t i = 0; i < slots_->size(); ++i) {
      if ((*slots_)[i] == word) p.slot = static_cast<int>(i);
    }
    if (p.slot < 0) {
      if (slots_->size() >= static_cast<size_t>(kMaxPatternVars))
        return Error("too many variables");
      p.slot = static_cast<int>(slots_->size());
      slots_->push_back(word);
    }
    return p;
  }

  absl::string_view text_;
  size_t pos_ = 0;
  std::vector<std::string>* slots_;
};

void CountUses(const Pattern& p, int* uses) {
  if (p.tag == Tag::kVar || p.tag == Tag::kConst) ++uses[p.slot];
  for (const Pattern& c : p.children) CountUses(c, uses);
}

bool HasValueDependentOp(const Pattern& p) {
  if (p.tag == Tag::kBinary && IsValueDependent(p.op)) return true;
  for (const Pattern& c : p.children) {
    if (HasValueDependentOp(c)) return true;
  }
  return false;
}

// ---- Matching -----------------------------------------------------------------------

struct Bindings {
  Expr slot[kMaxPatternVars];
};

using Next = absl::FunctionRef<bool()>;

bool Match(const Pattern& p, const Expr& e, Bindings& b, Next next) {
  switch (p.tag) {
    case Tag::kVar:
    case Tag::kConst: {
      Expr& s = b.slot[p.slot];
      if (s) return ExprEqual(s, e) && next();
      if (p.tag == Tag::kConst && !AsConstInt(e)) return false;
      s = e;
      if (next()) return true;
      s = Expr();
      return false;
    }
    case Tag::kInt: return IsConstInt(e, p.value) && next();
    case Tag::kBool: {
      std::optional<bool> v = AsConstBool(e);
      return v && *v == (p.value != 0) && next();
    }
    case Tag::kNot: {
      const auto* n = dyn_cast<NotNode>(e);
      return n != nullptr && Match(p.children[0], n->a, b, next);
    }
    case Tag::kSelect: {
      const auto* s = dyn_cast<SelectNode>(e);
      if (s == nullptr) return false;
      return Match(p.children[0], s->condition, b, [&] {
        return Match(p.children[1], s->true_value, b,
                     [&] { return Match(p.children[2], s->false_value, b, next); });
      });
    }
    case Tag::kBinary: {
      if (e->kind() != p.op) return false;
      const auto* n = cast<BinaryNode>(e);
      auto in_order = [&](const Expr& x, const Expr& y) {
        return Match(p.children[0], x, b, [&] { return Match(p.children[1], y, b, next); });
      };
      return in_order(n->a, n->b) || (IsCommutative(p.op) && in_order(n->b, n->a));
    }
  }
  return false;
}

// ---- Building -----------------------------------------------------------------------

bool IsLiteral(const Pattern& p) { return p.tag == Tag::kInt || p.tag == Tag::kBool; }

// a `k` b on constants of `t` in exact arithmetic; nothing when the result does
// not fit `t` or is undefined.
std::optional<Expr> FoldExact(NodeKind k, DataType t, int64_t a, int64_t b) {
  std::optional<int64_t> r;
  switch (k) {
    case NodeKind::kAdd: r = CheckedAdd(a, b); break;
    case NodeKind::kSub: r = CheckedSub(a, b); break;
    case NodeKind::kMul: r = CheckedMul(a, b); break;
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      if (b == 0 || (a == kNegInf && b == -1)) return std::nullopt;
      r = FoldIntOp(k, DataType::Int(64), a, b);
      break;
    default: {
      std::optional<int64_t> v = FoldIntOp(k, DataType::Int(64), a, b);
      if (!v) return std::nullopt;
      if (IsCompare(k)) return Bool(*v != 0);
      r = v;
    }
  }
  if (!r || !FitsDtype(t, *r)) return std::nullopt;
  return TryMakeConst(t, *r);
}

class Builder {
 public:
  Builder(const Bindings& b) : b_(b) {}
  // New operands of value-dependent operations, to be checked for overflow.
  std::vector<Expr> to_check;

  std::optional<Expr> Build(const Pattern& p, DataType hint) {
    switch (p.tag) {
      case Tag::kVar:
      case Tag::kConst: return b_.slot[p.slot];
      case Tag::kInt:
        if (!hint.is_integer() || !hint.is_scalar()) return std::nullopt;
        return TryMakeConst(hint, p.value);
      case Tag::kBool: return Bool(p.value != 0);
      case Tag::kNot: {
        std::optional<Expr> a = Build(p.children[0], DataType::Bool());
        if (!a) return std::nullopt;
        Expr n = Not(*a);
        if (std::optional<Expr> f = FoldConstant(n)) return f;
        return n;
      }
      case Tag::kSelect: {
        std::optional<Expr> c = Build(p.children[0], DataType::Bool());
        std::optional<Expr> arms[2];
        if (!BuildPair(p.children[1], p.children[2], hint, &arms[0], &arms[1]) || !c)
          return std::nullopt;
        absl::StatusOr<Expr> s = MakeSelect(*c, *arms[0], *arms[1]);
        if (!s.ok()) return std::nullopt;
        return *s;
      }
      case Tag::kBinary: {
        NodeKind k = p.op;
        DataType child_hint = IsCompare(k)                                  ? DataType::Void()
                              : (k == NodeKind::kAnd || k == NodeKind::kOr) ? DataType::Bool()
                                                                            : hint;
        std::optional<Expr> a, b;
        if (!BuildPair(p.children[0], p.children[1], child_hint, &a, &b)) return std::nullopt;
        std::optional<int64_t> ca = AsConstInt(*a), cb = AsConstInt(*b);
        if (ca && cb) return FoldExact(k, (*a)->dtype, *ca, *cb);
        absl::StatusOr<Expr> e = MakeBinary(k, *a, *b);
        if (!e.ok()) return std::nullopt;
        if (std::optional<Expr> f = FoldConstant(*e)) return f;
        if (IsValueDependent(k)) {
          for (int i = 0; i < 2; ++i) {
            const Expr& operand = i == 0 ? *a : *b;
            if (!IsLiteral(p.children[i]) && p.children[i].tag != Tag::kVar &&
                p.children[i].tag != Tag::kConst && !AsConstInt(operand)) {
              to_check.push_back(operand);
            }
          }
        }
        return *e;
      }
    }
    return std::nullopt;
  }

 private:
  // Builds two operands of one dtype: the literal one (if any) takes the other's.
  bool BuildPair(const Pattern& x, const Pattern& y, DataType hint, std::optional<Expr>* a,
                 std::optional<Expr>* b) {
    if (IsLiteral(x) && !IsLiteral(y)) {
      *b = Build(y, hint);
      if (!*b) return false;
      *a = Build(x, (**b)->dtype);
    } else {
      *a = Build(x, hint);
      if (!*a) return false;
      *b = Build(y, (**a)->dtype);
    }
    return a->has_value() && b->has_value();
  }

  const Bindings& b_;
};

}  // namespace

absl::StatusOr<RewriteRule> RewriteRule::Parse(absl::string_view name, absl::string_view text) {
  RewriteRule r;
  r.name_ = std::string(name);
  r.text_ = std::string(text);
  RuleParser parser(text, &r.slot_names_);
  absl::StatusOr<Pattern> lhs = parser.Expression();
  if (!lhs.ok()) return lhs.status();
  if (!parser.Eat("=>")) return parser.Error("expected '=>'");
  size_t lhs_vars = r.slot_names_.size();
  absl::StatusOr<Pattern> rhs = parser.Expression();
  if (!rhs.ok()) return rhs.status();
  if (parser.Eat("if")) {
    absl::StatusOr<Pattern> cond = parser.Expression();
    if (!cond.ok()) return cond.status();
    r.cond_ = *std::move(cond);
  }
  if (!parser.AtEnd()) return parser.Error("unexpected text");
  if (r.slot_names_.size() != lhs_vars) {
    return absl::InvalidArgumentError(absl::StrCat("rule '", name, "': variable '",
                                                   r.slot_names_[lhs_vars],
                                                   "' is not bound by the left side"));
  }
  if (lhs->tag == Tag::kBinary) {
    r.root_kind_ = lhs->op;
  } else if (lhs->tag == Tag::kNot) {
    r.root_kind_ = NodeKind::kNot;
  } else if (lhs->tag == Tag::kSelect) {
    r.root_kind_ = NodeKind::kSelect;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("rule '", name, "': the left side must be an operation"));
  }
  r.value_dependent_ = HasValueDependentOp(*lhs);
  CountUses(*rhs, r.rhs_uses_);
  r.lhs_ = *std::move(lhs);
  r.rhs_ = *std::move(rhs);
  return r;
}

RewriteRule ParseRuleOrDie(absl::string_view name, absl::string_view text) {
  absl::StatusOr<RewriteRule> r = RewriteRule::Parse(name, text);
  if (!r.ok()) DieWithStatus(r.status());
  return *std::move(r);
}

std::optional<Expr> RewriteRule::Apply(const Expr& e, const Analyzer& ana) const {
  if (e->kind() != root_kind_) return std::nullopt;
  if (value_dependent_ && !ana.bounds().CannotOverflow(e)) return std::nullopt;
  Bindings b;
  std::optional<Expr> result;
  Match(lhs_, e, b, [&] {
    TrustedSet trusted;
    for (size_t i = 0; i < slot_names_.size(); ++i) {
      const Expr& v = b.slot[i];
      if (!(IsIndexType(v->dtype) || (v->dtype.is_bool() && v->dtype.is_scalar()))) return false;
      if (!IsPure(v) && rhs_uses_[i] != 1) return false;  // Never drop or repeat a call.
      trusted.insert(v.get());
    }
    Builder builder(b);
    if (cond_) {
      std::optional<Expr> c = builder.Build(*cond_, DataType::Void());
      if (!c || internal::TryDecide(ana, *c) != true) return false;
      builder.to_check.clear();  // The condition is decided here, never evaluated.
    }
    std::optional<Expr> out = builder.Build(rhs_, e->dtype);
    if (!out || (*out)->dtype != e->dtype) return false;
    for (const Expr& operand : builder.to_check) {
      if (!ana.bounds().FitsExactly(operand, trusted)) return false;
    }
    result = *out;
    return true;
  });
  return result;
}

RuleTable::RuleTable(const std::vector<std::pair<const char*, const char*>>& rules) {
  absl::flat_hash_set<std::string> names;
  for (const auto& [name, text] : rules) {
    if (!names.insert(name).second) {
      DieWithStatus(absl::InvalidArgumentError(absl::StrCat("rule '", name, "' is listed twice")));
    }
    rules_.push_back(ParseRuleOrDie(name, text));
  }
}

std::optional<std::pair<Expr, const RewriteRule*>> RuleTable::Apply(const Expr& e,
                                                                    const Analyzer& ana) const {
  for (const RewriteRule& r : rules_) {
    if (r.root_kind() != e->kind()) continue;
    if (std::optional<Expr> out = r.Apply(e, ana)) return std::make_pair(*out, &r);
  }
  return std::nullopt;
}

}  // namespace tessel::ir::arith
