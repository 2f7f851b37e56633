// Differential testing with the interpreter: seeded random arguments, deep
// copies, element-wise comparison, and the "same results?" check every transform
// is tested with (DESIGN.md decision 8).
//
//   absl::Status s = CheckSameResults(before, after, /*seed=*/7);
//   // "CheckSameResults (seed 7): parameter 'C' (f32[4, 4]) differs at flat index 5,
//   //  index [1, 1]: expected 1.5, got 1.75 (1 of 16 elements differ; rtol 1e-05, atol 1e-06)"
//
// The random stream is splitmix64 with values derived by exact arithmetic only, so
// a seed gives the same arguments on every platform and standard library (unlike
// std::uniform_real_distribution). Draw order: scalar parameters in order, then
// buffers in order, each buffer in flat (row-major) order.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter.h"
#include "ir/interpreter_internal.h"
#include "ir/printer.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

// Buffers larger than this are refused: a random-input run is a test, not a workload.
constexpr int64_t kMaxRandomElems = int64_t{1} << 26;

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1): 53 random bits scaled exactly.
  double Signed() { return static_cast<double>(Next() >> 11) * 0x1p-52 - 1.0; }
  int64_t IntIn(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t s_;
};

class CollectVars : public IRVisitor {
 public:
  std::vector<const VarNode*> vars;
  void VisitVar(const VarNode* op) override {
    for (const VarNode* v : vars) {
      if (v == op) return;
    }
    vars.push_back(op);
  }
};

// A parameter's name; "?" for a malformed one (neither or both of var and buffer).
std::string ParamName(const Param& p) {
  return p.is_buffer() == p.var.defined() ? "?" : p.name();
}

std::string FuncName(const PrimFunc& f, const char* fallback) {
  auto it = f->attrs.find("global_symbol");
  if (it != f->attrs.end()) {
    if (const std::string* s = it->second.get_if<std::string>()) return *s;
  }
  return fallback;
}

std::string FormatElement(const HostBuffer& b, int64_t i) {
  DataType t = b.dtype();
  if (t.is_float()) {  // Enough digits to read the value back exactly.
    return t.bits() == 64 ? absl::StrFormat("%.17g", b.GetFloat(i))
                          : absl::StrFormat("%.9g", b.GetFloat(i));
  }
  if (t.is_uint() && t.bits() == 64) return absl::StrCat(static_cast<uint64_t>(b.GetInt(i)));
  return absl::StrCat(b.GetInt(i));
}

std::vector<int64_t> Unflatten(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] > 0) {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return idx;
}

bool SameElement(const HostBuffer& e, const HostBuffer& a, int64_t i, const CompareOptions& o,
                 double scale) {
  if (!e.dtype().is_float()) return e.GetInt(i) == a.GetInt(i);
  double x = e.GetFloat(i), y = a.GetFloat(i);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (x == y) return true;  // Also equal infinities.
  if (!std::isfinite(x) || !std::isfinite(y)) return false;
  return std::fabs(y - x) <= o.atol * scale + o.rtol * std::fabs(x);
}

// `o`, widened for a float type narrower than f32 to 8 units of its precision
// (f16: 2^-10, bf16: 2^-7): such a buffer cannot hold a result more closely, and a
// schedule that reorders its sums moves it by several units.
CompareOptions AtItsPrecision(CompareOptions o, DataType t) {
  if (!t.is_float() || t.bits() >= 32) return o;
  const int mantissa = t.is_bfloat() ? 7 : t.bits() == 16 ? 10 : 3;
  const double units = 8 * std::ldexp(1.0, -mantissa);
  o.rtol = std::max(o.rtol, units);
  o.atol = std::max(o.atol, units);
  return o;
}

// The largest finite magnitude in a float buffer, at least 1 (CompareArgs's scale).
double Scale(const HostBuffer& e) {
  double scale = 1;
  if (!e.dtype().is_float()) return scale;
  for (int64_t k = 0; k < e.size(); ++k) {
    double x = std::fabs(e.GetFloat(k));
    if (std::isfinite(x)) scale = std::max(scale, x);
  }
  return scale;
}

}  // namespace

absl::StatusOr<std::vector<Arg>> RandomArgs(
    const PrimFunc& func, uint64_t seed,
    const std::vector<std::pair<std::string, int64_t>>& symbolic_values) {
  if (!func) return absl::InvalidArgumentError("RandomArgs: the function is null");
  auto named = [&](const std::string& name) -> const int64_t* {
    for (const auto& [n, v] : symbolic_values) {
      if (n == name) return &v;
    }
    return nullptr;
  };
  SplitMix64 rng(seed);
  std::vector<Arg> args(func->params.size());
  std::vector<std::pair<const VarNode*, int64_t>> env;
  // Scalars: a value named in `symbolic_values`, else random (integers in [1, 8],
  // positive so that they can serve as sizes; floats in [-1, 1); bools 0/1).
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Param& p = func->params[i];
    if (p.is_buffer() || !p.var) continue;
    DataType t = p.var->dtype;
    if (t.is_float()) {
      args[i] = RoundToDtype(rng.Signed(), t);
      continue;
    }
    int64_t v = t.is_bool() ? static_cast<int64_t>(rng.Next() >> 63) : rng.IntIn(1, 8);
    if (const int64_t* given = named(p.var->name)) v = *given;
    if (!IntFits(v, t) || !t.is_scalar()) {
      return absl::InvalidArgumentError(absl::StrCat("RandomArgs: value ", v, " for parameter '",
                                                     p.var->name, "' is not a ", t.ToString()));
    }
    args[i] = v;
    env.emplace_back(p.var.get(), v);
  }
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Param& p = func->params[i];
    if (!p.is_buffer()) continue;
    const Buffer& b = p.buffer;
    CollectVars vars;
    for (const Expr& e : b->shape) {
      if (e) vars.VisitExpr(e);
    }
    for (const VarNode* v : vars.vars) {
      bool known = false;
      for (const auto& [bound, value] : env) known |= bound == v;
      if (known) continue;
      const int64_t* given = named(v->name);
      if (!given) {
        return absl::InvalidArgumentError(absl::StrCat(
            "RandomArgs: parameter '", b->name, "' has a symbolic shape; no value was given for '",
            v->name, "' (pass it in symbolic_values)"));
      }
      env.emplace_back(v, *given);
    }
    std::vector<int64_t> shape;
    int64_t elems = 1;
    for (size_t d = 0; d < b->shape.size(); ++d) {
      absl::StatusOr<int64_t> n = interp::EvalIntExpr(b->shape[d], env);
      if (!n.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("RandomArgs: parameter '", b->name,
                                                       "': dimension ", d, ": ", n.status().message()));
      }
      if (*n < 0 || (*n > 0 && elems > kMaxRandomElems / *n)) {
        return absl::InvalidArgumentError(absl::StrCat("RandomArgs: parameter '", b->name,
                                                       "': dimension ", d, " has extent ", *n,
                                                       " (negative or too large)"));
      }
      elems *= *n;
      shape.push_back(*n);
    }
    if (!b->dtype.is_scalar() || b->dtype.is_handle() || b->dtype.is_void()) {
      return absl::InvalidArgumentError(absl::StrCat("RandomArgs: parameter '", b->name,
                                                     "' has element type ", b->dtype.ToString()));
    }
    HostBuffer hb = HostBuffer::Zeros(b->dtype, shape);
    DataType t = b->dtype;
    for (int64_t k = 0; k < elems; ++k) {
      if (t.is_float()) {
        hb.SetFloat(k, rng.Signed());
      } else if (t.is_bool()) {
        hb.SetInt(k, static_cast<int64_t>(rng.Next() >> 63));
      } else {
        hb.SetInt(k, t.is_uint() ? rng.IntIn(0, 8) : rng.IntIn(-8, 8));
      }
    }
    args[i] = std::move(hb);
  }
  return args;
}

std::vector<Arg> CloneArgs(const std::vector<Arg>& args) {
  std::vector<Arg> out;
  out.reserve(args.size());
  for (const Arg& a : args) {
    if (const HostBuffer* b = std::get_if<HostBuffer>(&a)) {
      out.emplace_back(b->Clone());
    } else {
      out.push_back(a);
    }
  }
  return out;
}

absl::Status CompareArgs(const std::vector<Arg>& expected, const std::vector<Arg>& actual,
                         const PrimFunc& func, CompareOptions opts) {
  if (!func) return absl::InvalidArgumentError("CompareArgs: the function is null");
  size_t n = func->params.size();
  if (expected.size() != n || actual.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("CompareArgs: the function has ", n,
                                                   " parameters but ", expected.size(), " and ",
                                                   actual.size(), " arguments were given"));
  }
  for (size_t i = 0; i < n; ++i) {
    std::string name = ParamName(func->params[i]);
    if (expected[i].index() != actual[i].index()) {
      return absl::InvalidArgumentError(
          absl::StrCat("CompareArgs: parameter '", name, "': the arguments are of different kinds"));
    }
    const HostBuffer* e = std::get_if<HostBuffer>(&expected[i]);
    const HostBuffer* a = std::get_if<HostBuffer>(&actual[i]);
    if (!e) continue;  // Scalars are inputs only.
    std::string what = absl::StrCat("parameter '", name, "' (", e->dtype().ToString(), "[",
                                    absl::StrJoin(e->shape(), ", "), "])");
    if (e->dtype() != a->dtype() || e->shape() != a->shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CompareArgs: ", what, ": the actual buffer is ", a->dtype().ToString(), "[",
          absl::StrJoin(a->shape(), ", "), "]"));
    }
    int64_t first = -1, count = 0, size = e->size();
    const double scale = Scale(*e);
    const CompareOptions o = AtItsPrecision(opts, e->dtype());
    for (int64_t k = 0; k < size; ++k) {
      if (SameElement(*e, *a, k, o, scale)) continue;
      if (first < 0) first = k;
      ++count;
    }
    if (first >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " differs at flat index ", first, ", index [",
          absl::StrJoin(Unflatten(first, e->shape()), ", "), "]: expected ",
          FormatElement(*e, first), ", got ", FormatElement(*a, first), " (", count, " of ", size,
          " elements differ; rtol ", o.rtol, ", atol ", o.atol,
          scale > 1 ? absl::StrCat(" x ", scale, " (the largest magnitude)") : "", ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSameResults(const PrimFunc& a, const PrimFunc& b, uint64_t seed,
                              CompareOptions opts, RunOptions run) {
  std::string prefix = absl::StrCat("CheckSameResults (seed ", seed, "): ");
  if (!a || !b) return absl::InvalidArgumentError(prefix + "a function is null");
  if (a->params.size() != b->params.size()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, "the functions take ", a->params.size(),
                                                   " and ", b->params.size(), " parameters"));
  }
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Param& pa = a->params[i];
    const Param& pb = b->params[i];
    bool same = pa.is_buffer() == pb.is_buffer() &&
                (pa.is_buffer() ? pa.buffer->dtype == pb.buffer->dtype &&
                                      pa.buffer->ndim() == pb.buffer->ndim()
                                : pa.var && pb.var && pa.var->dtype == pb.var->dtype);
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, "parameter ", i, " ('", ParamName(pa),
                                                     "' vs '", ParamName(pb),
                                                     "') differs in kind, type or rank"));
    }
  }
  absl::StatusOr<std::vector<Arg>> args = RandomArgs(a, seed);
  if (!args.ok()) return absl::Status(args.status().code(), prefix + std::string(args.status().message()));
  std::vector<Arg> args_b = CloneArgs(*args);
  if (absl::Status s = Run(a, *args, run, FuncName(a, "a")); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(prefix, "the first function failed: ", s.message()));
  }
  if (absl::Status s = Run(b, args_b, run, FuncName(b, "b")); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(prefix, "the second function failed: ", s.message()));
  }
  if (absl::Status s = CompareArgs(*args, args_b, a, opts); !s.ok()) {
    return absl::Status(s.code(), prefix + std::string(s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ir
