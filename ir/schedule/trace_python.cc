// The restricted Python reader of traces (see trace_python.h): the tokens of
// trace_python_lexer.h, one call per line, mapped onto an Instruction through
// the instruction table.
//
//   l4, l5 = sch.split(loop=l1, factors=[None, 16])
//   ^^^^^^   ^^^^^^^^^ ^^^^^^^^ ^^^^^^^^^^^^^^^^^^^
//   outputs  kind      input    input (a list of literals)
#include "ir/schedule/trace_python.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/lexer.h"
#include "ir/schedule/trace_python_lexer.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

// Lists nest this deep at most: deeper text is not a trace, and the parser
// recurses once per level.
constexpr int kMaxDepth = 64;

// An argument as written, before the table says whether it is an input, an
// attr or a decision.
struct Value {
  enum Kind { kNone, kInt, kFloat, kBool, kString, kHandle, kList };
  Kind kind = kNone;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string s;
  RV rv;
  std::vector<Value> items;
  int line = 1;
  int col = 1;
};

std::string DescribeValue(const Value& v) {
  switch (v.kind) {
    case Value::kNone:
      return "None";
    case Value::kInt:
      return absl::StrCat("the int ", v.i);
    case Value::kFloat:
      return absl::StrCat("the float ", AttrToPython(AttrValue(v.d)));
    case Value::kBool:
      return v.b ? "True" : "False";
    case Value::kString:
      return absl::StrCat("the string ", AttrToPython(AttrValue(v.s)));
    case Value::kHandle:
      return absl::StrCat("the handle ", v.rv.Name());
    case Value::kList:
      return "a list";
  }
  return "?";
}

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view what, std::vector<TraceToken> tokens)
      : text_(text), what_(what), toks_(std::move(tokens)) {}

  absl::StatusOr<Trace> Run() {
    std::vector<Instruction> out;
    while (Peek().kind != TraceToken::kEnd) {
      if (Peek().kind == TraceToken::kNewline) {
        ++pos_;
        continue;
      }
      TESSEL_ASSIGN_OR_RETURN(Instruction inst, Line());
      out.push_back(std::move(inst));
    }
    return Trace(std::move(out));
  }

 private:
  const TraceToken& Peek(size_t ahead = 0) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
  }
  bool IsPunct(const TraceToken& t, char c) const {
    return t.kind == TraceToken::kPunct && t.text[0] == c;
  }

  absl::Status ErrorAt(int line, int col, absl::string_view message) const {
    return absl::InvalidArgumentError(FormatSourceError(what_, text_, line, col, message));
  }
  absl::Status ErrorAt(const TraceToken& t, absl::string_view message) const {
    return ErrorAt(t.line, t.col, message);
  }
  absl::Status Expect(char c, absl::string_view context) {
    if (!IsPunct(Peek(), c)) {
      return ErrorAt(Peek(), absl::StrCat("expected '", std::string(1, c), "' ", context,
                                          ", found ", DescribeToken(Peek())));
    }
    ++pos_;
    return absl::OkStatus();
  }

  // [outputs =] sch.kind(args) NEWLINE
  absl::StatusOr<Instruction> Line() {
    Instruction inst;
    std::vector<TraceToken> out_names;
    if (Peek().kind == TraceToken::kName && !(Peek().text == "sch" && IsPunct(Peek(1), '.'))) {
      while (true) {
        if (Peek().kind != TraceToken::kName) {
          return ErrorAt(Peek(),
                         absl::StrCat("expected a result name, found ", DescribeToken(Peek())));
        }
        out_names.push_back(Peek());
        ++pos_;
        if (IsPunct(Peek(), ',')) {
          ++pos_;
          if (IsPunct(Peek(), '=')) break;  // `l1, = ...`
          continue;
        }
        break;
      }
      TESSEL_RETURN_IF_ERROR(Expect('=', "after the result names"));
    }
    const TraceToken& receiver = Peek();
    if (receiver.kind != TraceToken::kName || receiver.text != "sch" || !IsPunct(Peek(1), '.') ||
        Peek(2).kind != TraceToken::kName) {
      return ErrorAt(receiver, absl::StrCat("expected a call sch.<instruction>(...), found ",
                                            DescribeToken(receiver)));
    }
    const TraceToken kind_tok = Peek(2);
    pos_ += 3;
    inst.kind = kind_tok.text;
    const InstructionKind* kind = FindInstructionKind(inst.kind);
    if (kind == nullptr) {
      return ErrorAt(kind_tok, absl::StrCat("unknown instruction '", inst.kind, "'"));
    }
    TESSEL_RETURN_IF_ERROR(Arguments(*kind, kind_tok, &inst));
    if (Peek().kind != TraceToken::kNewline) {
      return ErrorAt(Peek(), absl::StrCat("expected the end of the line after the call, found ",
                                          DescribeToken(Peek())));
    }
    ++pos_;
    // Results are defined after the call's arguments are read: `l1 = sch.fuse(l1)`
    // uses l1 before it exists.
    for (const TraceToken& name : out_names) {
      std::optional<RV> rv = RV::Parse(name.text);
      if (!rv) {
        return ErrorAt(name,
                       absl::StrCat("'", name.text, "' is not a handle name (b<n>, l<n> or v<n>)"));
      }
      if (!defined_.insert({rv->kind, rv->id}).second) {
        return ErrorAt(name, absl::StrCat(rv->Name(), " is defined twice"));
      }
      inst.outputs.push_back(*rv);
    }
    return inst;
  }

  // (args): positional values, then name=value keywords.
  absl::Status Arguments(const InstructionKind& kind, const TraceToken& kind_tok,
                         Instruction* inst) {
    const TraceToken open = Peek();
    TESSEL_RETURN_IF_ERROR(Expect('(', absl::StrCat("after sch.", kind.name)));
    int star = -1;
    for (size_t k = 0; k < kind.input_names.size(); ++k) {
      if (!kind.input_names[k].empty() && kind.input_names[k][0] == '*') star = static_cast<int>(k);
    }
    std::vector<std::optional<TraceValue>> inputs(kind.input_names.size());
    TraceValue::List positional;
    absl::flat_hash_set<std::string> keywords;
    while (!IsPunct(Peek(), ')')) {
      if (Peek().kind == TraceToken::kName && IsPunct(Peek(1), '=')) {
        const TraceToken name = Peek();
        pos_ += 2;
        TESSEL_ASSIGN_OR_RETURN(Value v, ParseValue(0));
        if (!keywords.insert(name.text).second) {
          return ErrorAt(name, absl::StrCat("the keyword '", name.text, "' is given twice"));
        }
        if (name.text == "decision") {
          if (!kind.sampling) {
            return ErrorAt(name, absl::StrCat(kind.name,
                                              " takes no decision (only sampling "
                                              "instructions carry one)"));
          }
          TESSEL_ASSIGN_OR_RETURN(inst->decision, ToTraceValue(v, "the decision"));
        } else if (int k = InputIndex(kind, name.text); k >= 0 && IsInput(kind, name.text, v)) {
          TESSEL_ASSIGN_OR_RETURN(inputs[k],
                                  ToTraceValue(v, absl::StrCat("input '", name.text, "'")));
        } else {
          TESSEL_ASSIGN_OR_RETURN(AttrValue a, ToAttr(v, kind, name.text));
          inst->attrs.emplace_back(name.text, std::move(a));
        }
      } else {
        const TraceToken at = Peek();
        TESSEL_ASSIGN_OR_RETURN(Value v, ParseValue(0));
        if (!keywords.empty()) {
          return ErrorAt(at, "a positional argument follows a keyword argument");
        }
        if (star < 0) {
          return ErrorAt(at, absl::StrCat("sch.", kind.name, " takes keyword arguments only (",
                                          KeywordList(kind), ")"));
        }
        TESSEL_ASSIGN_OR_RETURN(TraceValue t, ToTraceValue(v, "a positional argument"));
        positional.push_back(std::move(t));
      }
      if (IsPunct(Peek(), ',')) {
        ++pos_;
      } else if (!IsPunct(Peek(), ')')) {
        std::string hint =
            Peek().line != open.line
                ? absl::StrCat("; the '(' at ", open.line, ":", open.col, " is never closed")
                : "; an argument is a literal, a handle or a list of those, "
                  "never an expression";
        return ErrorAt(Peek(), absl::StrCat("expected ',' or ')' after an argument, found ",
                                            DescribeToken(Peek()), hint));
      }
    }
    ++pos_;  // ')'
    // The '*' input is always recorded, empty when nothing was passed, as the
    // facade records it.
    if (star >= 0) inputs[star] = TraceValue(std::move(positional));
    size_t n = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k]) n = k + 1;
    }
    for (size_t k = 0; k < n; ++k) {
      if (!inputs[k]) {
        return ErrorAt(kind_tok, absl::StrCat("sch.", kind.name, ": input '", kind.input_names[k],
                                              "' is missing"));
      }
      inst->inputs.push_back(*std::move(inputs[k]));
    }
    return absl::OkStatus();
  }

  // A parameter that may be either (an annotation value) is an input only when
  // it is a sampled value; the others are inputs by their type.
  static bool IsInput(const InstructionKind& kind, absl::string_view name, const Value& v) {
    for (const ParamInfo& p : kind.params) {
      if (p.name == name && p.type == ParamType::kAnnValue) return v.kind == Value::kHandle;
    }
    return true;
  }

  static int InputIndex(const InstructionKind& kind, absl::string_view name) {
    for (size_t k = 0; k < kind.input_names.size(); ++k) {
      if (kind.input_names[k] == name) return static_cast<int>(k);
    }
    return -1;
  }

  static std::string KeywordList(const InstructionKind& kind) {
    std::vector<std::string> names;
    for (const std::string& n : kind.input_names) names.push_back(absl::StrCat(n, "=..."));
    return names.empty() ? "attrs only" : absl::StrJoin(names, ", ");
  }

  absl::StatusOr<Value> ParseValue(int depth) {
    const TraceToken t = Peek();
    Value v;
    v.line = t.line;
    v.col = t.col;
    if (depth > kMaxDepth) return ErrorAt(t, absl::StrCat("lists nest deeper than ", kMaxDepth));
    if (IsPunct(t, '-') &&
        (Peek(1).kind == TraceToken::kInt || Peek(1).kind == TraceToken::kFloat)) {
      ++pos_;
      TESSEL_ASSIGN_OR_RETURN(v, Number(Peek(), /*negative=*/true));
      v.line = t.line;
      v.col = t.col;
      return v;
    }
    if (t.kind == TraceToken::kInt || t.kind == TraceToken::kFloat) return Number(t, false);
    if (t.kind == TraceToken::kString) {
      ++pos_;
      v.kind = Value::kString;
      v.s = t.text;
      return v;
    }
    if (IsPunct(t, '[')) {
      ++pos_;
      v.kind = Value::kList;
      while (!IsPunct(Peek(), ']')) {
        TESSEL_ASSIGN_OR_RETURN(Value item, ParseValue(depth + 1));
        v.items.push_back(std::move(item));
        if (IsPunct(Peek(), ',')) {
          ++pos_;
        } else if (!IsPunct(Peek(), ']')) {
          return ErrorAt(
              Peek(), absl::StrCat("expected ',' or ']' in a list, found ", DescribeToken(Peek()),
                                   "; a list holds literals and handles, never "
                                   "expressions"));
        }
      }
      ++pos_;
      return v;
    }
    if (t.kind == TraceToken::kName) {
      if (IsPunct(Peek(1), '(')) return FloatCall(t);
      ++pos_;
      if (t.text == "None") return v;
      if (t.text == "True" || t.text == "False") {
        v.kind = Value::kBool;
        v.b = t.text == "True";
        return v;
      }
      std::optional<RV> rv = RV::Parse(t.text);
      if (!rv) {
        return ErrorAt(
            t, absl::StrCat("'", t.text, "' is neither a literal nor a handle (b<n>, l<n>, v<n>)"));
      }
      v.kind = Value::kHandle;
      v.rv = *rv;
      return v;
    }
    return ErrorAt(t, absl::StrCat("expected an argument (an int, a float, True, False, None, a "
                                   "string, a handle or a list), found ",
                                   DescribeToken(t)));
  }

  absl::StatusOr<Value> Number(const TraceToken& t, bool negative) {
    ++pos_;
    Value v;
    v.line = t.line;
    v.col = t.col;
    std::string spelling = absl::StrCat(negative ? "-" : "", t.text);
    if (t.kind == TraceToken::kInt) {
      v.kind = Value::kInt;
      if (!absl::SimpleAtoi(spelling, &v.i)) {
        return ErrorAt(t, absl::StrCat("the int ", spelling, " does not fit in 64 bits"));
      }
      return v;
    }
    v.kind = Value::kFloat;
    auto [end, ec] = std::from_chars(spelling.data(), spelling.data() + spelling.size(), v.d);
    if (ec != std::errc() || end != spelling.data() + spelling.size()) {
      return ErrorAt(t, absl::StrCat("the float ", spelling, " is out of range"));
    }
    return v;
  }

  // The printer writes NaN and the infinities as float("nan") etc.; those
  // three spellings are literals here, any other call is not.
  absl::StatusOr<Value> FloatCall(const TraceToken& t) {
    if (t.text == "float" && Peek(2).kind == TraceToken::kString && IsPunct(Peek(3), ')')) {
      const std::string& arg = Peek(2).text;
      Value v;
      v.kind = Value::kFloat;
      v.line = t.line;
      v.col = t.col;
      if (arg == "nan" || arg == "inf" || arg == "-inf") {
        v.d = arg == "nan"   ? std::numeric_limits<double>::quiet_NaN()
              : arg == "inf" ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity();
        pos_ += 4;
        return v;
      }
    }
    return ErrorAt(t, absl::StrCat("a call of '", t.text,
                                   "' is not a literal (an argument is "
                                   "never computed; only float(\"nan\"), float(\"inf\") and "
                                   "float(\"-inf\") are read)"));
  }

  // An input or decision: None, ints, handles (defined earlier) and lists.
  absl::StatusOr<TraceValue> ToTraceValue(const Value& v, absl::string_view role) const {
    switch (v.kind) {
      case Value::kNone:
        return TraceValue();
      case Value::kInt:
        return TraceValue(v.i);
      case Value::kHandle:
        if (!defined_.contains({v.rv.kind, v.rv.id})) {
          return ErrorAt(v.line, v.col,
                         absl::StrCat(v.rv.Name(), " is used before any instruction defines it"));
        }
        return TraceValue(v.rv);
      case Value::kList: {
        TraceValue::List items;
        for (const Value& x : v.items) {
          TESSEL_ASSIGN_OR_RETURN(TraceValue t, ToTraceValue(x, role));
          items.push_back(std::move(t));
        }
        return TraceValue(std::move(items));
      }
      default:
        return ErrorAt(v.line, v.col,
                       absl::StrCat(role, " holds None, ints, handles and lists of those, not ",
                                    DescribeValue(v)));
    }
  }

  // An attr: ints, floats, bools, strings and lists of those.
  absl::StatusOr<AttrValue> ToAttr(const Value& v, const InstructionKind& kind,
                                   absl::string_view name) const {
    switch (v.kind) {
      case Value::kInt:
        return AttrValue(v.i);
      case Value::kFloat:
        return AttrValue(v.d);
      case Value::kBool:
        return AttrValue(v.b);
      case Value::kString:
        return AttrValue(v.s);
      case Value::kList: {
        AttrValue::List items;
        for (const Value& x : v.items) {
          TESSEL_ASSIGN_OR_RETURN(AttrValue a, ToAttr(x, kind, name));
          items.push_back(std::move(a));
        }
        return AttrValue(std::move(items));
      }
      case Value::kHandle:
        return ErrorAt(v.line, v.col,
                       absl::StrCat("attr '", name, "' holds ", DescribeValue(v),
                                    "; handles are inputs, written before the attrs (sch.",
                                    kind.name, " takes ", KeywordList(kind), ")"));
      default:
        return ErrorAt(v.line, v.col,
                       absl::StrCat("attr '", name, "' is ", DescribeValue(v),
                                    "; an attr is an int, a float, a bool, a string or a list"));
    }
  }

  absl::string_view text_;
  absl::string_view what_;
  std::vector<TraceToken> toks_;
  size_t pos_ = 0;
  absl::flat_hash_set<std::pair<char, int64_t>> defined_;  // Handles by kind and id.
};

}  // namespace

absl::StatusOr<Trace> ParseTracePython(absl::string_view text, absl::string_view what) {
  if (text.size() > kMaxTracePythonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", text.size(), " bytes is more than the ",
                     kMaxTracePythonBytes >> 20, " MiB a trace may hold; is it the right file?"));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<TraceToken> tokens, LexTracePython(text, what));
  return Parser(text, what, std::move(tokens)).Run();
}

}  // namespace tessel::ir::schedule
