// The printer's spelling decisions: names of variables and buffers, exact float
// literals, symbolic shape variables, and the `>>` marking of a statement.
//
//   two loops over distinct variables both named "i"  ->  for i ... / for i_1 ...
//   FormatFloat(0.1, f32)          -> "0.1f32"     (shortest text that reads back exactly)
//   FormatFloat(-0.0, f64)         -> "-0.0f64"
//   FormatFloat(1e-45, f32)        -> "1.0e-45f32" (a subnormal)
//   FormatFloat(NaN with payload)  -> "nan_f32(0x7ff8000000000001)"  (the stored double's bits)
#include <charconv>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/lexer.h"
#include "ir/printer.h"
#include "ir/printer_internal.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

constexpr uint64_t kCanonicalNaN = 0x7ff8000000000000ull;

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// `digits` (no dot, first digit nonzero unless the value is 0) times 10^exp10,
// with the first digit before the point. Plain notation for moderate exponents.
std::string Render(const std::string& digits, int exp10) {
  if (exp10 >= -5 && exp10 < 16) {
    if (exp10 >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exp10 + 1));
      if (static_cast<int>(int_part.size()) < exp10 + 1) int_part.append(exp10 + 1 - int_part.size(), '0');
      std::string frac = digits.size() > static_cast<size_t>(exp10 + 1) ? digits.substr(exp10 + 1) : "0";
      return absl::StrCat(int_part, ".", frac);
    }
    return absl::StrCat("0.", std::string(-exp10 - 1, '0'), digits);
  }
  return absl::StrCat(digits.substr(0, 1), ".", digits.size() > 1 ? digits.substr(1) : "0", "e",
                      exp10);
}

// The shortest decimal text for `mag` (>= 0, finite) that `reads_back` accepts.
template <typename F>
std::string ShortestDecimal(double mag, F reads_back) {
  std::string text;
  for (int p = 1; p <= 17; ++p) {
    char buf[64];
    std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, mag, std::chars_format::scientific, p - 1);
    std::string s(buf, r.ptr);
    size_t e = s.find('e');
    std::string digits;
    for (char c : s.substr(0, e)) {
      if (c != '.') digits.push_back(c);
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    int exp10 = std::atoi(s.c_str() + e + 1);
    text = Render(digits, exp10);
    double back = 0;
    std::from_chars_result fr = std::from_chars(text.data(), text.data() + text.size(), back);
    if (fr.ec == std::errc() && reads_back(back)) break;
  }
  return text;
}

}  // namespace

std::string FormatFloat(double value, DataType dtype) {
  std::string suffix = dtype.ToString();
  if (std::isnan(value)) {
    uint64_t bits = Bits(value);
    if ((bits & ~(1ull << 63)) == kCanonicalNaN) {
      return absl::StrCat(bits >> 63 ? "-" : "", "nan_", suffix);
    }
    return absl::StrFormat("nan_%s(0x%016x)", suffix, bits);
  }
  std::string sign = std::signbit(value) ? "-" : "";
  double mag = std::fabs(value);
  if (std::isinf(mag)) return absl::StrCat(sign, "inf_", suffix);
  std::string digits = ShortestDecimal(mag, [&](double back) {
    if (!dtype.is_float() || !dtype.is_scalar()) return Bits(back) == Bits(mag);
    absl::StatusOr<Expr> e = MakeFloatImm(dtype, back);
    return e.ok() && Bits(cast<FloatImmNode>(*e)->value) == Bits(mag);
  });
  return absl::StrCat(sign, digits, suffix);
}

namespace tsl {

std::string FormatDouble(double v) {
  if (std::isnan(v)) {
    uint64_t bits = Bits(v);
    if ((bits & ~(1ull << 63)) == kCanonicalNaN) return bits >> 63 ? "-nan" : "nan";
    return absl::StrFormat("nan(0x%016x)", bits);
  }
  std::string sign = std::signbit(v) ? "-" : "";
  double mag = std::fabs(v);
  if (std::isinf(mag)) return sign + "inf";
  return sign + ShortestDecimal(mag, [&](double back) { return Bits(back) == Bits(mag); });
}

std::string SanitizeName(const std::string& name) {
  std::string s;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    s.push_back(ok ? c : '_');
  }
  if (s.empty()) s = "v";
  if (!IsIdentifier(s)) s = "_" + s;
  if (IsReservedWord(s)) s += "_";
  return s;
}

int Printer::NewEntity(const std::string& original) {
  if (collecting_) entity_original_.push_back(original);
  return next_entity_++;
}

void Printer::Activate(const Node* object, int entity) {
  if (object == nullptr || entity < 0) return;
  auto it = current_.find(object);
  undo_.emplace_back(object, it == current_.end() ? -1 : it->second);
  current_[object] = entity;
}

void Printer::EndScope(size_t mark) {
  while (undo_.size() > mark) {
    auto [object, previous] = undo_.back();
    undo_.pop_back();
    if (previous < 0) {
      current_.erase(object);
    } else {
      current_[object] = previous;
    }
  }
}

std::string Printer::EntityName(int entity, const std::string& original) const {
  if (collecting_ || entity < 0 || entity >= static_cast<int>(entity_names_.size())) return original;
  return entity_names_[entity];
}

std::string Printer::Name(const Node* object, const std::string& original) {
  auto it = current_.find(object);
  if (it == current_.end()) {  // Not bound here: one entity for all its free uses.
    it = current_.emplace(object, NewEntity(original)).first;
  }
  return EntityName(it->second, original);
}

// The first entity with a given name keeps it; the others, in order of
// appearance, take the smallest `_k` that no entity of the function uses.
void Printer::AssignNames() {
  absl::flat_hash_set<std::string> used;
  std::vector<std::string> base(entity_original_.size());
  entity_names_.assign(entity_original_.size(), "");
  for (size_t i = 0; i < base.size(); ++i) {
    base[i] = SanitizeName(entity_original_[i]);
    if (used.insert(base[i]).second) entity_names_[i] = base[i];
  }
  for (size_t i = 0; i < base.size(); ++i) {
    if (!entity_names_[i].empty()) continue;
    for (int k = 1;; ++k) {
      std::string candidate = absl::StrCat(base[i], "_", k);
      if (used.insert(candidate).second) {
        entity_names_[i] = candidate;
        break;
      }
    }
  }
}

namespace {

// Variables used by the definitions of `buffers`, other than `bound`, in order
// of first appearance.
std::vector<Var> VarsOfBufferDefs(const std::vector<Buffer>& buffers,
                                  absl::flat_hash_set<const VarNode*> bound) {
  class Collector : public IRVisitor {
   public:
    absl::flat_hash_set<const VarNode*> skip;
    std::vector<Var> found;
    void VisitVar(const VarNode* op) override {
      if (skip.insert(op).second) found.push_back(GetRef(op));
    }
  };
  Collector c;
  c.skip = std::move(bound);
  for (const Buffer& b : buffers) c.VisitBufferDef(b);
  return std::move(c.found);
}

}  // namespace

std::vector<Var> SymbolicVars(const PrimFunc& f) {
  absl::flat_hash_set<const VarNode*> scalars;
  std::vector<Buffer> buffers;
  for (const Param& p : f->params) {
    if (p.buffer) {
      buffers.push_back(p.buffer);
    } else if (p.var) {
      scalars.insert(p.var.get());
    }
  }
  return VarsOfBufferDefs(buffers, std::move(scalars));
}

std::vector<Var> SymbolicVars(const std::vector<Buffer>& params) {
  return VarsOfBufferDefs(params, {});
}

std::string MarkLines(const std::string& text, size_t begin, size_t end, int indent,
                      const std::string& note) {
  std::string out;
  std::string note_line = absl::StrCat("   ", std::string(2 * indent, ' '), "^ ", note, "\n");
  bool found = begin != std::string::npos && end != std::string::npos;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t next = nl == std::string::npos ? text.size() : nl + 1;
    bool marked = found && pos >= begin && pos < end;
    absl::StrAppend(&out, marked ? ">> " : "   ", text.substr(pos, next - pos));
    if (nl == std::string::npos) out += "\n";
    if (marked && next >= end) out += note_line;
    pos = next;
  }
  if (!found) absl::StrAppend(&out, "   note: ", note, "\n");
  return out;
}

}  // namespace tsl
}  // namespace tessel::ir
