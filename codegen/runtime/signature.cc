// Signatures, their descriptions and the metadata text (see signature.h).
#include "codegen/runtime/signature.h"

#include <charconv>
#include <set>
#include <sstream>

#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {
namespace {

const char* CodePrefix(uint8_t code) {
  switch (code) {
    case kDLInt:
      return "i";
    case kDLUInt:
      return "u";
    case kDLFloat:
      return "f";
    case kDLBfloat:
      return "bf";
    default:
      return nullptr;
  }
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

std::string DTypeToString(DLDataType dtype) {
  std::string s;
  if (dtype.code == kDLBoolCode && dtype.bits == 8) {
    s = "bool";
  } else if (const char* prefix = CodePrefix(dtype.code)) {
    s = prefix + std::to_string(dtype.bits);
  } else {
    return "dtype(code=" + std::to_string(dtype.code) + ", bits=" + std::to_string(dtype.bits) +
           ", lanes=" + std::to_string(dtype.lanes) + ")";
  }
  if (dtype.lanes != 1) s += "x" + std::to_string(dtype.lanes);
  return s;
}

bool ParseDType(std::string_view text, DLDataType* out) {
  DLDataType t{0, 0, 1};
  std::string_view rest;
  if (text.substr(0, 4) == "bool") {
    t.code = kDLBoolCode;
    t.bits = 8;
    rest = text.substr(4);
  } else {
    size_t digits = text.find_first_of("0123456789");
    if (digits == std::string_view::npos) return false;
    std::string_view prefix = text.substr(0, digits);
    if (prefix == "i")
      t.code = kDLInt;
    else if (prefix == "u")
      t.code = kDLUInt;
    else if (prefix == "f")
      t.code = kDLFloat;
    else if (prefix == "bf")
      t.code = kDLBfloat;
    else
      return false;
    size_t end = text.find('x', digits);
    int64_t bits;
    if (!ParseInt(text.substr(digits, end == std::string_view::npos ? std::string_view::npos
                                                                    : end - digits),
                  &bits) ||
        bits <= 0 || bits > 255) {
      return false;
    }
    t.bits = static_cast<uint8_t>(bits);
    rest = end == std::string_view::npos ? std::string_view() : text.substr(end);
  }
  if (!rest.empty()) {
    int64_t lanes;
    if (rest[0] != 'x' || !ParseInt(rest.substr(1), &lanes) || lanes < 2 || lanes > 65535) {
      return false;
    }
    t.lanes = static_cast<uint16_t>(lanes);
  }
  *out = t;
  return true;
}

int64_t DTypeBytes(DLDataType dtype) { return (int64_t{dtype.bits} * dtype.lanes + 7) / 8; }

bool IsSupportedDType(DLDataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    case kDLBoolCode:
      return t.bits == 8;
    default:
      return false;
  }
}

std::string DescribeParam(const ParamSignature& p) {
  std::string s = p.name + ": " + DTypeToString(p.dtype);
  if (!p.is_buffer) return s;
  s += "[";
  for (size_t i = 0; i < p.shape.size(); ++i) {
    if (i) s += ", ";
    s += p.shape[i].is_var() ? p.shape[i].var : std::to_string(p.shape[i].value);
  }
  return s + "]";
}

std::string DescribeSignature(const FunctionSignature& sig) {
  std::string s = sig.name + "(";
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (i) s += ", ";
    s += DescribeParam(sig.params[i]);
  }
  return s + ")";
}

std::string ValidateSignature(const FunctionSignature& sig) {
  if (!IsIdentifier(sig.name)) {
    return "function name '" + sig.name + "' is not a C identifier";
  }
  std::string where = "function " + sig.name + ": ";
  std::set<std::string> names;
  std::set<std::string> dim_names;
  for (const ParamSignature& p : sig.params) {
    if (!IsIdentifier(p.name)) {
      return where + "parameter name '" + p.name + "' is not a C identifier";
    }
    if (!names.insert(p.name).second) return where + "two parameters named '" + p.name + "'";
    if (!IsSupportedDType(p.dtype)) {
      return where + "parameter " + p.name + " has unsupported dtype " + DTypeToString(p.dtype);
    }
    if (!p.is_buffer && !p.shape.empty()) return where + "scalar " + p.name + " has a shape";
    for (const Dim& d : p.shape) {
      if (d.is_var() && !IsIdentifier(d.var)) {
        return where + "dimension name '" + d.var + "' of " + p.name + " is not an identifier";
      }
      if (!d.is_var() && d.value < 0) {
        return where + "negative dimension " + std::to_string(d.value) + " in " + p.name;
      }
      if (d.is_var()) dim_names.insert(d.var);
    }
  }
  for (const ParamSignature& p : sig.params) {
    bool integer = p.dtype.code == kDLInt || p.dtype.code == kDLUInt;
    if (!p.is_buffer && dim_names.count(p.name) && !integer) {
      return where + "scalar " + p.name + " names a dimension but has dtype " +
             DTypeToString(p.dtype);
    }
  }
  return "";
}

std::string SerializeSignatures(const std::vector<FunctionSignature>& sigs,
                                const std::vector<std::string>& cpu_features) {
  std::ostringstream os;
  os << "tessel-module " << TESSEL_ABI_VERSION << "\n";
  if (!cpu_features.empty()) {
    os << "cpu-features";
    for (const std::string& f : cpu_features) os << " " << f;
    os << "\n";
  }
  for (const FunctionSignature& sig : sigs) {
    os << "function " << sig.name << " " << sig.params.size() << "\n";
    for (const ParamSignature& p : sig.params) {
      os << (!p.is_buffer ? "scalar " : p.written ? "buffer " : "input ") << p.name << " "
         << DTypeToString(p.dtype);
      if (p.is_buffer) {
        os << " " << p.shape.size();
        for (const Dim& d : p.shape) os << " " << (d.is_var() ? d.var : std::to_string(d.value));
      }
      os << "\n";
    }
  }
  return os.str();
}

bool ParseSignatures(std::string_view text, std::vector<FunctionSignature>* out,
                     std::string* error, std::vector<std::string>* cpu_features) {
  std::vector<FunctionSignature> sigs;
  std::vector<std::string> features;
  int line_no = 0;
  size_t params_left = 0;
  auto fail = [&](const std::string& why) {
    *error = "metadata line " + std::to_string(line_no) + ": " + why;
    return false;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    std::vector<std::string_view> w = SplitWords(line);
    if (line_no == 1) {
      int64_t version;
      if (w.size() != 2 || w[0] != "tessel-module" || !ParseInt(w[1], &version)) {
        return fail("expected 'tessel-module <version>', found '" + std::string(line) + "'");
      }
      if (version != TESSEL_ABI_VERSION) {
        return fail("library built for tessel ABI version " + std::to_string(version) +
                    ", this runtime implements version " + std::to_string(TESSEL_ABI_VERSION) +
                    " (export it again with this tessel)");
      }
      continue;
    }
    if (w.empty()) continue;
    if (w[0] == "graph") break;  // Graph sections follow the functions (graph_program.h).
    if (w[0] == "cpu-features") {
      if (!sigs.empty()) return fail("'cpu-features' after a function");
      for (size_t i = 1; i < w.size(); ++i) features.emplace_back(w[i]);
      continue;
    }
    if (w[0] == "function") {
      int64_t n;
      if (params_left) return fail("function " + sigs.back().name + " lists too few parameters");
      if (w.size() != 3 || !ParseInt(w[2], &n) || n < 0 || n > 100000) {
        return fail("expected 'function <name> <num_params>'");
      }
      sigs.push_back(FunctionSignature{std::string(w[1]), {}});
      params_left = static_cast<size_t>(n);
      continue;
    }
    if (w[0] != "buffer" && w[0] != "input" && w[0] != "scalar")
      return fail("unknown entry '" + std::string(w[0]) + "'");
    if (!params_left) return fail("a parameter outside a function's list");
    ParamSignature p;
    p.is_buffer = w[0] != "scalar";
    p.written = w[0] == "buffer";
    if (w.size() < 3) return fail("expected a name and a dtype");
    p.name = std::string(w[1]);
    if (!ParseDType(w[2], &p.dtype)) return fail("unknown dtype '" + std::string(w[2]) + "'");
    if (p.is_buffer) {
      int64_t ndim;
      if (w.size() < 4 || !ParseInt(w[3], &ndim) || ndim < 0 ||
          static_cast<size_t>(ndim) != w.size() - 4) {
        return fail("expected '" + std::string(w[0]) + " <name> <dtype> <ndim> <dims...>'");
      }
      for (size_t i = 4; i < w.size(); ++i) {
        int64_t v;
        p.shape.push_back(ParseInt(w[i], &v) ? Dim::Const(v) : Dim::Var(std::string(w[i])));
      }
    } else if (w.size() != 3) {
      return fail("expected 'scalar <name> <dtype>'");
    }
    sigs.back().params.push_back(std::move(p));
    if (--params_left == 0) {
      if (std::string why = ValidateSignature(sigs.back()); !why.empty()) return fail(why);
    }
  }
  if (line_no == 0) return fail("empty metadata");
  if (params_left) return fail("function " + sigs.back().name + " lists too few parameters");
  std::set<std::string> names;
  for (const FunctionSignature& s : sigs) {
    if (s.params.empty()) {
      if (std::string why = ValidateSignature(s); !why.empty()) return fail(why);
    }
    if (!names.insert(s.name).second) return fail("two functions named '" + s.name + "'");
  }
  *out = std::move(sigs);
  if (cpu_features != nullptr) *cpu_features = std::move(features);
  return true;
}

}  // namespace tessel::runtime
