// A recursive-descent parser for pipeline text; see the grammar in the header.
// Nesting depth is bounded so that no input can exhaust the stack.
#include "passes/pipeline_parser.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::passes {

namespace {

constexpr int kMaxDepth = 64;

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<PipelineElement>> ParseAll() {
    std::vector<PipelineElement> out;
    SkipSpaces();
    if (AtEnd()) return out;
    absl::Status s = ParseList(&out, 0);
    if (!s.ok()) return s;
    SkipSpaces();
    if (!AtEnd()) {
      return Error(absl::StrCat("expected ',' or end of pipeline, found ", Found()));
    }
    return out;
  }

  absl::StatusOr<OptionLiteral> ParseLiteralOnly() {
    OptionLiteral lit;
    SkipSpaces();
    absl::Status s = ParseValue("value", &lit);
    if (!s.ok()) return s;
    SkipSpaces();
    if (!AtEnd()) return Error(absl::StrCat("expected end of value, found ", Found()));
    return lit;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipSpaces() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string Found() const {
    if (AtEnd()) return "end of text";
    return absl::StrCat("'", std::string(1, text_[pos_]), "'");
  }
  absl::Status Error(absl::string_view message) const { return ErrorAt(pos_, message); }
  absl::Status ErrorAt(size_t offset, absl::string_view message) const {
    return absl::InvalidArgumentError(PipelineErrorAt(text_, offset, message));
  }

  // element { ',' element }
  absl::Status ParseList(std::vector<PipelineElement>* out, int depth) {
    while (true) {
      SkipSpaces();
      PipelineElement e;
      absl::Status s = ParseElement(&e, depth);
      if (!s.ok()) return s;
      out->push_back(std::move(e));
      SkipSpaces();
      if (Peek() != ',') return absl::OkStatus();
      ++pos_;
    }
  }

  absl::Status ParseName(const char* what, std::string* out) {
    if (!IsNameStart(Peek())) {
      return Error(absl::StrCat("expected ", what, ", found ", Found()));
    }
    size_t start = pos_;
    while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
    *out = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status ParseElement(PipelineElement* e, int depth) {
    if (depth > kMaxDepth) return Error("pipeline nested too deeply");
    e->offset = pos_;
    absl::Status s = ParseName("a pass name", &e->name);
    if (!s.ok()) return s;
    SkipSpaces();
    if (Peek() == '{') {
      ++pos_;
      s = ParseOptions(e);
      if (!s.ok()) return s;
      SkipSpaces();
    }
    if (Peek() == '(') {
      size_t open = pos_;
      ++pos_;
      e->has_children = true;
      SkipSpaces();
      if (Peek() != ')') {
        s = ParseList(&e->children, depth + 1);
        if (!s.ok()) return s;
        SkipSpaces();
      }
      if (Peek() != ')') {
        return Error(absl::StrCat("expected ',' or ')' closing the '(' at column ", ColumnOf(open),
                                  ", found ", Found()));
      }
      ++pos_;
    }
    return absl::OkStatus();
  }

  absl::Status ParseOptions(PipelineElement* e) {
    SkipSpaces();
    if (Peek() == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpaces();
      PipelineOption opt;
      opt.offset = pos_;
      absl::Status s = ParseName("an option name", &opt.key);
      if (!s.ok()) return s;
      SkipSpaces();
      if (Peek() != '=') {
        return Error(
            absl::StrCat("expected '=' after option name '", opt.key, "', found ", Found()));
      }
      ++pos_;
      SkipSpaces();
      s = ParseValue(absl::StrCat("a value for option '", opt.key, "'").c_str(), &opt.value);
      if (!s.ok()) return s;
      e->options.push_back(std::move(opt));
      SkipSpaces();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error(absl::StrCat("expected ',' or '}' after the value of option '",
                                e->options.back().key, "', found ", Found()));
    }
  }

  absl::Status ParseValue(const std::string& what, OptionLiteral* out) {
    if (Peek() == '[') {
      ++pos_;
      out->is_list = true;
      SkipSpaces();
      if (Peek() == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      while (true) {
        SkipSpaces();
        std::string item;
        absl::Status s = ParseScalar("a list element", &item);
        if (!s.ok()) return s;
        out->items.push_back(std::move(item));
        SkipSpaces();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (Peek() == ']') {
          ++pos_;
          return absl::OkStatus();
        }
        return Error(absl::StrCat("expected ',' or ']' in a list, found ", Found()));
      }
    }
    std::string item;
    absl::Status s = ParseScalar(what, &item);
    if (!s.ok()) return s;
    out->is_list = false;
    out->items = {std::move(item)};
    return absl::OkStatus();
  }

  absl::Status ParseScalar(const std::string& what, std::string* out) {
    if (Peek() == '"') {
      size_t open = pos_;
      ++pos_;
      while (!AtEnd() && text_[pos_] != '"') {
        if (text_[pos_] == '\\') {
          ++pos_;
          if (AtEnd()) break;
          if (text_[pos_] != '"' && text_[pos_] != '\\') {
            return Error("unknown escape in a quoted value (only \\\" and \\\\ are allowed)");
          }
        }
        out->push_back(text_[pos_++]);
      }
      if (AtEnd()) return ErrorAt(open, "unterminated quoted value");
      ++pos_;
      return absl::OkStatus();
    }
    size_t start = pos_;
    while (!AtEnd() && IsBareOptionChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error(absl::StrCat("expected ", what, ", found ", Found()));
    *out = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  size_t ColumnOf(size_t offset) const {
    size_t line_start = text_.rfind('\n', offset == 0 ? 0 : offset - 1);
    line_start = line_start == absl::string_view::npos || offset == 0 ? 0 : line_start + 1;
    return offset - line_start + 1;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

void PrintElement(const PipelineElement& e, std::string* out) {
  absl::StrAppend(out, e.name);
  if (!e.options.empty()) {
    std::vector<std::string> opts;
    for (const PipelineOption& o : e.options) {
      std::string v;
      if (o.value.is_list) {
        std::vector<std::string> items;
        for (const std::string& s : o.value.items) items.push_back(FormatOptionScalar(s));
        v = absl::StrCat("[", absl::StrJoin(items, ","), "]");
      } else {
        v = FormatOptionScalar(o.value.items.empty() ? "" : o.value.items[0]);
      }
      opts.push_back(absl::StrCat(o.key, "=", v));
    }
    absl::StrAppend(out, "{", absl::StrJoin(opts, ","), "}");
  }
  if (e.has_children) {
    absl::StrAppend(out, "(", PrintPipelineText(e.children), ")");
  }
}

}  // namespace

absl::StatusOr<std::vector<PipelineElement>> ParsePipelineText(absl::string_view text) {
  return Parser(text).ParseAll();
}

absl::StatusOr<OptionLiteral> ParseOptionLiteralText(absl::string_view text) {
  return Parser(text).ParseLiteralOnly();
}

std::string PrintPipelineText(const std::vector<PipelineElement>& elements) {
  std::string out;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) out.push_back(',');
    PrintElement(elements[i], &out);
  }
  return out;
}

std::string PipelineErrorAt(absl::string_view text, size_t offset, absl::string_view message) {
  if (offset > text.size()) offset = text.size();
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == absl::string_view::npos) line_end = text.size();
  size_t column = offset - line_start + 1;
  return absl::StrCat("pipeline:", line, ":", column, ": ", message, "\n  ",
                      text.substr(line_start, line_end - line_start), "\n  ",
                      std::string(column - 1, ' '), "^");
}

}  // namespace tessel::passes
