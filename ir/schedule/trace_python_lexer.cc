// The lexer of Python traces (see trace_python_lexer.h).
#include "ir/schedule/trace_python_lexer.h"

#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "ir/lexer.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

std::string DescribeToken(const TraceToken& t) {
  switch (t.kind) {
    case TraceToken::kName:
      return absl::StrCat("'", t.text, "'");
    case TraceToken::kInt:
    case TraceToken::kFloat:
      return absl::StrCat("the number ", t.text);
    case TraceToken::kString:
      return "a string";
    case TraceToken::kPunct:
    case TraceToken::kOther:
      return absl::StrCat("'", t.text, "'");
    case TraceToken::kNewline:
      return "the end of the line";
    case TraceToken::kEnd:
      return "the end of the trace";
  }
  return "?";
}

namespace {

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

class Lexer {
 public:
  Lexer(absl::string_view text, absl::string_view what) : text_(text), what_(what) {}

  absl::StatusOr<std::vector<TraceToken>> Run() {
    std::vector<TraceToken> out;
    int depth = 0;  // Inside brackets a newline continues the line, as in Python.
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        Advance();
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else if (c == '\n') {
        if (depth == 0 && !out.empty() && out.back().kind != TraceToken::kNewline) {
          out.push_back(Make(TraceToken::kNewline, ""));
        }
        Advance();
      } else if (absl::ascii_isalpha(c) || c == '_') {
        TraceToken t = Make(TraceToken::kName, "");
        while (pos_ < text_.size() && (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '_')) {
          t.text.push_back(text_[pos_]);
          Advance();
        }
        out.push_back(std::move(t));
      } else if (absl::ascii_isdigit(c) ||
                 (c == '.' && pos_ + 1 < text_.size() && absl::ascii_isdigit(text_[pos_ + 1]))) {
        TESSEL_ASSIGN_OR_RETURN(TraceToken t, Number());
        out.push_back(std::move(t));
      } else if (c == '"' || c == '\'') {
        TESSEL_ASSIGN_OR_RETURN(TraceToken t, String());
        out.push_back(std::move(t));
      } else {
        bool punct = absl::string_view("=,()[].-").find(c) != absl::string_view::npos;
        if (c == '(' || c == '[') ++depth;
        if ((c == ')' || c == ']') && depth > 0) --depth;
        out.push_back(Make(punct ? TraceToken::kPunct : TraceToken::kOther, std::string(1, c)));
        Advance();
      }
    }
    if (!out.empty() && out.back().kind != TraceToken::kNewline)
      out.push_back(Make(TraceToken::kNewline, ""));
    out.push_back(Make(TraceToken::kEnd, ""));
    return out;
  }

 private:
  TraceToken Make(TraceToken::Kind kind, std::string text) const {
    return {kind, std::move(text), line_, col_};
  }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  absl::Status Error(int line, int col, absl::string_view message) const {
    return absl::InvalidArgumentError(FormatSourceError(what_, text_, line, col, message));
  }

  void Digits(std::string* out) {
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
      out->push_back(text_[pos_]);
      Advance();
    }
  }

  // digits [. digits] [e [+-] digits], or . digits [...]; a float when it has
  // a '.' or an exponent, as in Python and in the printer's output.
  absl::StatusOr<TraceToken> Number() {
    TraceToken t = Make(TraceToken::kInt, "");
    Digits(&t.text);
    if (pos_ < text_.size() && text_[pos_] == '.') {
      t.kind = TraceToken::kFloat;
      t.text.push_back('.');
      Advance();
      Digits(&t.text);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      t.kind = TraceToken::kFloat;
      t.text.push_back('e');
      Advance();
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        t.text.push_back(text_[pos_]);
        Advance();
      }
      size_t before = t.text.size();
      Digits(&t.text);
      if (t.text.size() == before) return Error(t.line, t.col, "a number's exponent has no digits");
    }
    if (pos_ < text_.size() &&
        (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '_' || text_[pos_] == '.')) {
      return Error(t.line, t.col,
                   "malformed number: a trace writes ints in decimal digits and floats as 1.5 "
                   "or 2e-05");
    }
    if (t.kind == TraceToken::kInt && t.text.size() > 1 && t.text[0] == '0') {
      return Error(t.line, t.col, "an int does not start with 0 (Python reads 010 as an error)");
    }
    return t;
  }

  absl::StatusOr<TraceToken> String() {
    TraceToken t = Make(TraceToken::kString, "");
    const char quote = text_[pos_];
    Advance();
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Error(t.line, t.col, "the string has no closing quote on its line");
      }
      char c = text_[pos_];
      if (c == quote) {
        Advance();
        return t;
      }
      if (c != '\\') {
        t.text.push_back(c);
        Advance();
        continue;
      }
      int line = line_, col = col_;
      Advance();
      if (pos_ >= text_.size()) break;
      char e = text_[pos_];
      Advance();
      switch (e) {
        case '\\':
        case '"':
        case '\'':
          t.text.push_back(e);
          break;
        case 'n':
          t.text.push_back('\n');
          break;
        case 'r':
          t.text.push_back('\r');
          break;
        case 't':
          t.text.push_back('\t');
          break;
        case 'u': {
          uint32_t code = 0;
          for (int k = 0; k < 4; ++k) {
            if (pos_ >= text_.size() || !absl::ascii_isxdigit(text_[pos_])) {
              return Error(line, col, "\\u takes four hex digits");
            }
            char h = absl::ascii_tolower(text_[pos_]);
            code =
                code * 16 + static_cast<uint32_t>(absl::ascii_isdigit(h) ? h - '0' : h - 'a' + 10);
            Advance();
          }
          if (code >= 0xD800 && code < 0xE000) {
            return Error(line, col, "\\u names a UTF-16 surrogate, not a character");
          }
          AppendUtf8(code, &t.text);
          break;
        }
        default:
          return Error(line, col,
                       absl::StrCat("unknown escape '\\", std::string(1, e),
                                    "' (a trace string uses \\\\ \\\" \\' \\n \\r \\t \\uXXXX)"));
      }
    }
    return Error(t.line, t.col, "the string has no closing quote");
  }

  absl::string_view text_;
  absl::string_view what_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

absl::StatusOr<std::vector<TraceToken>> LexTracePython(absl::string_view text,
                                                       absl::string_view what) {
  return Lexer(text, what).Run();
}

}  // namespace tessel::ir::schedule
