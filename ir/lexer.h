// The `.tsl` tokenizer, plus the spelling rules the printer and the parser share
// (identifiers, string quoting, error formatting). Grammar: docs/tsl.md.
//
//   LexResult r = Lex("A[i // 4] = 1.5f32  // not a comment: '//' is floordiv mid-line");
//   // r.tokens: A [ i // 4 ] = 1.5f32 // not a comment ... <eof>
//   Lex("// a comment line\nfor");   // tokens: for <eof>
//
// Comments: `//` starts a comment only when it is the first non-blank text of a
// line; anywhere else it is the floor-division operator (BinaryOpSymbol).
#ifndef TESSEL_IR_LEXER_H_
#define TESSEL_IR_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tessel::ir {

enum class TokKind : uint8_t {
  kEof,
  kIdent,   // [A-Za-z_][A-Za-z0-9_.]* (keywords and type names too).
  kInt,     // 128, 7i64, 3u8: digits and an optional suffix.
  kFloat,   // 1.5f32, 1.0e-5f64, 2.5: a fraction or exponent, optional suffix.
  kHexInt,  // 0x7ff8000000000001 (NaN payloads).
  kString,  // "..." with \\ \" \n \t \r \xHH escapes; `value` holds the decoded text.
  kPunct,   // ( ) [ ] { } , : = @ + - * / % // %% == != < <= > >= && || ! +:
};

struct Token {
  TokKind kind = TokKind::kEof;
  absl::string_view text;  // The exact source text.
  std::string value;       // Decoded contents of a kString.
  int line = 1;            // 1-based.
  int col = 1;             // 1-based, in bytes.

  bool Is(absl::string_view punct_or_word) const {
    return (kind == TokKind::kPunct || kind == TokKind::kIdent) && text == punct_or_word;
  }
};

struct LexResult {
  std::vector<Token> tokens;  // Ends with kEof unless `error` is set.
  std::string error;          // Empty on success.
  int error_line = 0, error_col = 0;
};

LexResult Lex(absl::string_view text);

// The length of the UTF-8 sequence `s` starts with (1 to 4), or 0 when it is not one.
int Utf8Length(absl::string_view s);
// The code point of one whole UTF-8 sequence (Utf8Length(s) == s.size()).
uint32_t Utf8CodePoint(absl::string_view s);

// "file:line:col: message" then the source line and a caret under the column,
// both indented by two spaces.
std::string FormatSourceError(absl::string_view filename, absl::string_view text, int line, int col,
                              absl::string_view message);

// True for [A-Za-z_][A-Za-z0-9_.]*: names the printer can write bare.
bool IsIdentifier(absl::string_view name);

// "..." with the lexer's escapes; printable ASCII stays as is, every other byte is \xHH.
std::string QuoteString(absl::string_view s);

// Words that cannot name a variable or a buffer (statement keywords, literals).
bool IsReservedWord(absl::string_view word);

}  // namespace tessel::ir

#endif  // TESSEL_IR_LEXER_H_
