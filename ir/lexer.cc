// The `.tsl` tokenizer (see lexer.h):
//
//   Lex("for i in range(0, 16) {")
//   // for · i · in · range · ( · 0 · , · 16 · ) · { · <eof>, each with line and column
//
// The lexer is a single forward scan: every iteration consumes at least one byte,
// so it ends on any input.
#include "ir/lexer.h"

#include <algorithm>
#include <cstdio>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/dtype.h"

namespace tessel::ir {
namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) { return IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  LexResult Run() {
    LexResult r;
    while (true) {
      SkipBlanksAndComments();
      if (pos_ >= text_.size()) break;
      Token t;
      t.line = line_;
      t.col = Col();
      size_t start = pos_;
      if (!LexOne(&t)) {
        r.error = error_;
        r.error_line = t.line;
        r.error_col = error_col_ ? error_col_ : t.col;
        r.tokens.clear();
        return r;
      }
      t.text = text_.substr(start, pos_ - start);
      r.tokens.push_back(std::move(t));
    }
    Token eof;
    eof.kind = TokKind::kEof;
    eof.line = line_;
    eof.col = Col();
    eof.text = text_.substr(text_.size());
    r.tokens.push_back(std::move(eof));
    return r;
  }

 private:
  int Col() const { return static_cast<int>(pos_ - line_start_) + 1; }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  void NewLine() {
    ++line_;
    line_start_ = pos_;
  }

  // Blanks, newlines, and `//` comments that open a line.
  void SkipBlanksAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        NewLine();
        at_line_start_ = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/' && at_line_start_) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool LexOne(Token* t) {
    at_line_start_ = false;
    char c = text_[pos_];
    if (IsIdentStart(c)) {
      t->kind = TokKind::kIdent;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      return true;
    }
    if (IsDigit(c)) return LexNumber(t);
    if (c == '"') return LexString(t);
    t->kind = TokKind::kPunct;
    static constexpr const char* kTwo[] = {"//", "%%", "==", "!=", "<=", ">=", "&&", "||", "+:"};
    for (const char* two : kTwo) {
      if (c == two[0] && Peek(1) == two[1]) {
        pos_ += 2;
        return true;
      }
    }
    static constexpr absl::string_view kOne = "()[]{},:=@+-*/%<>!";
    if (kOne.find(c) != absl::string_view::npos) {
      ++pos_;
      return true;
    }
    if (c == '&' || c == '|') {
      return Fail(absl::StrCat("unexpected character '", std::string(1, c), "' (did you mean '",
                               std::string(2, c), "'?)"));
    }
    if (static_cast<unsigned char>(c) >= 0x21 && static_cast<unsigned char>(c) < 0x7f) {
      return Fail(absl::StrCat("unexpected character '", std::string(1, c), "'"));
    }
    if (int n = Utf8Length(text_.substr(pos_)); n > 0) {
      return Fail(absl::StrFormat("unexpected character '%s' (U+%04X)", text_.substr(pos_, n),
                                  Utf8CodePoint(text_.substr(pos_, n))));
    }
    return Fail(absl::StrFormat("unexpected byte 0x%02x (not UTF-8 text)",
                                static_cast<unsigned char>(c)));
  }

  bool LexNumber(Token* t) {
    if (text_[pos_] == '0' && (Peek(1) == 'x' || Peek(1) == 'X') && IsHexDigit(Peek(2))) {
      pos_ += 2;
      while (pos_ < text_.size() && IsHexDigit(text_[pos_])) ++pos_;
      t->kind = TokKind::kHexInt;
      return true;
    }
    t->kind = TokKind::kInt;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    if (Peek() == '.' && IsDigit(Peek(1))) {
      t->kind = TokKind::kFloat;
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      t->kind = TokKind::kFloat;
      pos_ += 2;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    // A type suffix (i64, f32, bf16, ...); the parser checks it. No dots here, so
    // that a suffix never swallows what follows.
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      while (pos_ < text_.size() && (IsIdentStart(text_[pos_]) || IsDigit(text_[pos_]))) ++pos_;
    }
    return true;
  }

  bool LexString(Token* t) {
    t->kind = TokKind::kString;
    ++pos_;  // Opening quote.
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Fail("unterminated string (a string ends on its line with '\"')");
      }
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c != '\\') {
        t->value.push_back(c);
        ++pos_;
        continue;
      }
      char e = Peek(1);
      switch (e) {
        case '\\': t->value.push_back('\\'); break;
        case '"': t->value.push_back('"'); break;
        case 'n': t->value.push_back('\n'); break;
        case 't': t->value.push_back('\t'); break;
        case 'r': t->value.push_back('\r'); break;
        case 'x':
          if (!IsHexDigit(Peek(2)) || !IsHexDigit(Peek(3))) {
            error_col_ = Col();
            return Fail("bad escape: \\x needs two hex digits");
          }
          t->value.push_back(static_cast<char>(HexValue(Peek(2)) * 16 + HexValue(Peek(3))));
          pos_ += 2;
          break;
        default:
          error_col_ = Col();
          return Fail("unknown escape in string (use \\\\ \\\" \\n \\t \\r or \\xHH)");
      }
      pos_ += 2;
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
  std::string error_;
  int error_col_ = 0;
};

}  // namespace

LexResult Lex(absl::string_view text) { return Lexer(text).Run(); }

int Utf8Length(absl::string_view s) {
  if (s.empty()) return 0;
  const auto b = static_cast<unsigned char>(s[0]);
  const int n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || static_cast<int>(s.size()) < n) return 0;
  for (int i = 1; i < n; ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return 0;
  }
  return n;
}

uint32_t Utf8CodePoint(absl::string_view s) {
  const auto b = static_cast<unsigned char>(s[0]);
  uint32_t cp = s.size() == 1 ? b : b & (0x7f >> s.size());
  for (size_t i = 1; i < s.size(); ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3f);
  return cp;
}

std::string FormatSourceError(absl::string_view filename, absl::string_view text, int line, int col,
                              absl::string_view message) {
  // Find the line; a position past the end shows an empty line.
  size_t begin = 0;
  for (int l = 1; l < line && begin <= text.size(); ++l) {
    size_t nl = text.find('\n', begin);
    if (nl == absl::string_view::npos) {
      begin = text.size() + 1;
      break;
    }
    begin = nl + 1;
  }
  absl::string_view src;
  if (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    src = text.substr(begin, end == absl::string_view::npos ? absl::string_view::npos : end - begin);
    if (!src.empty() && src.back() == '\r') src.remove_suffix(1);
  }
  // `col` counts bytes; the message counts characters, and the caret takes one
  // column per character (a UTF-8 sequence is one), keeping tabs so that it lines up.
  std::string caret;
  int chars = 1;
  for (int i = 0; i + 1 < col;) {
    const bool inside = i < static_cast<int>(src.size());
    const int n = inside ? std::max(Utf8Length(src.substr(static_cast<size_t>(i))), 1) : 1;
    caret.push_back(inside && src[i] == '\t' ? '\t' : ' ');
    i += n;
    ++chars;
  }
  caret.push_back('^');
  return absl::StrCat(filename, ":", line, ":", chars, ": ", message, "\n  ", src, "\n  ", caret);
}

bool IsIdentifier(absl::string_view name) {
  if (name.empty() || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

std::string QuoteString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u >= 0x20 && u < 0x7f) {
          out.push_back(c);
        } else {
          absl::StrAppendFormat(&out, "\\x%02x", u);
        }
    }
  }
  out.push_back('"');
  return out;
}

bool IsReservedWord(absl::string_view word) {
  static const auto* kWords = new absl::flat_hash_set<absl::string_view>{
      "func",   "module_attrs", "attrs",       "for",    "in",           "if",      "else",
      "let",    "allocate",     "decl_buffer", "block",  "bare_block",   "seq",     "evaluate",
      "where",  "init",         "reads",       "writes", "alloc_buffer", "strides", "offset",
      "scope",  "align",        "true",        "false",  "inf",          "nan",     "graph",
      "return", "call_tir",     "const"};
  if (kWords->contains(word)) return true;
  // inf_f32, nan_bf16, ...: float literals spelled as words.
  if (word.size() > 4 && (word.substr(0, 4) == "inf_" || word.substr(0, 4) == "nan_")) {
    absl::StatusOr<DataType> t = DataType::Parse(word.substr(4));
    return t.ok() && t->is_float();
  }
  return false;
}

}  // namespace tessel::ir
