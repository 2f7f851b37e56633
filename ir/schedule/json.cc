// JSON reader and writer (see json.h).
#include "ir/schedule/json.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

constexpr int kMaxDepth = 256;

class Reader {
 public:
  Reader(absl::string_view text, absl::string_view what) : text_(text), what_(what) {}

  absl::StatusOr<Json> ReadDocument() {
    TESSEL_ASSIGN_OR_RETURN(Json v, ReadValue(0));
    SkipBlanks();
    if (pos_ != text_.size()) return Error("unexpected text after the JSON value");
    return v;
  }

 private:
  absl::Status Error(absl::string_view message) const {
    int line = 1, col = 1;
    for (size_t k = 0; k < pos_ && k < text_.size(); ++k) {
      if (text_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(what_, ":", line, ":", col, ": ", message));
  }

  void SkipBlanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::StatusOr<Json> ReadValue(int depth) {
    if (depth > kMaxDepth) return Error("JSON nested more than 256 levels");
    SkipBlanks();
    if (pos_ >= text_.size()) return Error("unexpected end of input, expected a value");
    char c = text_[pos_];
    if (c == '{') return ReadObject(depth);
    if (c == '[') return ReadArray(depth);
    if (c == '"') {
      TESSEL_ASSIGN_OR_RETURN(std::string s, ReadString());
      return Json::String(std::move(s));
    }
    if (Consume("null")) return Json::Null();
    if (Consume("true")) return Json::Bool(true);
    if (Consume("false")) return Json::Bool(false);
    if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
    return Error(absl::StrFormat("unexpected character '%c'", c));
  }

  absl::StatusOr<Json> ReadNumber() {
    size_t start = pos_;
    bool is_double = false;
    if (text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && is_double)) {
        is_double = true;
      } else if (!(c >= '0' && c <= '9')) {
        break;
      }
      ++pos_;
    }
    absl::string_view num = text_.substr(start, pos_ - start);
    const char* first = num.data();
    const char* last = num.data() + num.size();
    if (is_double) {
      double d = 0;
      auto [end, ec] = std::from_chars(first, last, d);
      if (ec != std::errc() || end != last) {
        pos_ = start;
        return Error(absl::StrCat("malformed number '", num, "'"));
      }
      return Json::Double(d);
    }
    int64_t i = 0;
    auto [end, ec] = std::from_chars(first, last, i);
    if (ec != std::errc() || end != last) {
      pos_ = start;
      return Error(absl::StrCat("malformed or out-of-range integer '", num, "'"));
    }
    return Json::Int(i);
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  absl::StatusOr<uint32_t> ReadHex4() {
    if (pos_ + 4 > text_.size()) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        return Error("malformed \\u escape");
    }
    return v;
  }

  absl::StatusOr<std::string> ReadString() {
    ++pos_;  // The opening quote.
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return Error("control character in a string (write it as an escape)");
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error("unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          TESSEL_ASSIGN_OR_RETURN(uint32_t cp, ReadHex4());
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (!Consume("\\u")) return Error("a high surrogate without its low half");
            TESSEL_ASSIGN_OR_RETURN(uint32_t lo, ReadHex4());
            if (lo < 0xDC00 || lo >= 0xE000) return Error("a high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return Error("a low surrogate without its high half");
          }
          AppendUtf8(&out, cp);
          break;
        }
        default:
          pos_ -= 2;
          return Error(absl::StrFormat("unknown escape '\\%c'", e));
      }
    }
  }

  absl::StatusOr<Json> ReadArray(int depth) {
    ++pos_;
    Json::Array items;
    SkipBlanks();
    if (Consume("]")) return Json::MakeArray(std::move(items));
    while (true) {
      TESSEL_ASSIGN_OR_RETURN(Json v, ReadValue(depth + 1));
      items.push_back(std::move(v));
      SkipBlanks();
      if (Consume("]")) return Json::MakeArray(std::move(items));
      if (!Consume(",")) return Error("expected ',' or ']' in an array");
    }
  }

  absl::StatusOr<Json> ReadObject(int depth) {
    ++pos_;
    Json::Members members;
    SkipBlanks();
    if (Consume("}")) return Json::Object(std::move(members));
    while (true) {
      SkipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a string key");
      TESSEL_ASSIGN_OR_RETURN(std::string key, ReadString());
      for (const auto& [k, v] : members) {
        if (k == key) return Error(absl::StrCat("duplicate key \"", key, "\""));
      }
      SkipBlanks();
      if (!Consume(":")) return Error("expected ':' after a key");
      TESSEL_ASSIGN_OR_RETURN(Json v, ReadValue(depth + 1));
      members.emplace_back(std::move(key), std::move(v));
      SkipBlanks();
      if (Consume("}")) return Json::Object(std::move(members));
      if (!Consume(",")) return Error("expected ',' or '}' in an object");
    }
  }

  absl::string_view text_;
  absl::string_view what_;
  size_t pos_ = 0;
};

void DumpTo(const Json& j, std::string* out) {
  switch (j.type()) {
    case Json::Type::kNull:
      out->append("null");
      return;
    case Json::Type::kBool:
      out->append(j.as_bool() ? "true" : "false");
      return;
    case Json::Type::kInt:
      absl::StrAppend(out, j.as_int());
      return;
    case Json::Type::kDouble:
      out->append(std::isfinite(j.as_double()) ? JsonDouble(j.as_double()) : "null");
      return;
    case Json::Type::kString:
      out->append(JsonQuote(j.as_string()));
      return;
    case Json::Type::kArray: {
      out->push_back('[');
      bool first = true;
      for (const Json& x : j.items()) {
        if (!first) out->append(", ");
        first = false;
        DumpTo(x, out);
      }
      out->push_back(']');
      return;
    }
    case Json::Type::kObject: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, v] : j.members()) {
        if (!first) out->append(", ");
        first = false;
        out->append(JsonQuote(k));
        out->append(": ");
        DumpTo(v, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

const Json* Json::Find(absl::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : members()) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string Json::Dump() const {
  std::string out;
  DumpTo(*this, &out);
  return out;
}

const char* Json::TypeName(Type t) {
  switch (t) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "bool";
    case Type::kInt:
      return "int";
    case Type::kDouble:
      return "float";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "?";
}

absl::StatusOr<Json> ParseJson(absl::string_view text, absl::string_view what) {
  return Reader(text, what).ReadDocument();
}

std::string JsonQuote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out.append(absl::StrFormat("\\u%04x", static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string JsonDouble(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, end);
  if (s.find_first_of(".eE") == std::string::npos) s.append(".0");
  return s;
}

}  // namespace tessel::ir::schedule
