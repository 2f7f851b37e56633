// GraphProgram: validation and the text form (see graph_program.h).
#include "codegen/runtime/graph_program.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "codegen/runtime/arg_check.h"

namespace tessel::runtime {
namespace {

bool ParseDim(std::string_view w, ProductDim* out) {
  *out = ProductDim{};
  size_t pos = 0;
  while (pos <= w.size()) {
    size_t end = w.find('*', pos);
    if (end == std::string_view::npos) end = w.size();
    std::string_view part = w.substr(pos, end - pos);
    int64_t v;
    if (ParseInt(part, &v)) {
      if (v < 0 || __builtin_mul_overflow(out->factor, v, &out->factor)) return false;
    } else if (!part.empty() && !(part[0] >= '0' && part[0] <= '9')) {
      out->vars.emplace_back(part);
    } else {
      return false;
    }
    pos = end + 1;
  }
  return true;
}

bool IsSingle(const ProductDim& d) { return d.factor == 1 && d.vars.size() == 1; }

}  // namespace

bool EvaluateDim(const ProductDim& d, const ShapeBindings& vars, int64_t* out) {
  int64_t v = d.factor;
  for (const std::string& name : d.vars) {
    auto it = vars.find(name);
    if (it == vars.end() || __builtin_mul_overflow(v, it->second, &v)) return false;
  }
  *out = v;
  return true;
}

ShapeBindings BindShapeVars(const FunctionSignature& sig, DLTensor* const* args) {
  ShapeBindings vars;
  for (size_t p = 0; p < sig.params.size(); ++p) {
    const std::vector<Dim>& dims = sig.params[p].shape;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_var()) vars.emplace(dims[d].var, args[p]->shape[d]);
    }
  }
  return vars;
}

std::string DimText(const ProductDim& d) {
  std::string s = d.factor != 1 || d.vars.empty() ? std::to_string(d.factor) : "";
  for (const std::string& v : d.vars) s += (s.empty() ? "" : "*") + v;
  return s;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

FunctionSignature GraphProgram::CallSignature() const {
  FunctionSignature sig{name, {}};
  std::set<std::string> taken;
  for (const Value& v : values) {
    for (const ProductDim& d : v.shape) taken.insert(d.vars.begin(), d.vars.end());
  }
  int fresh = 0;
  // A product dimension is a variable of its own here, named as no variable is.
  auto fresh_name = [&] {
    std::string n;
    do n = "dim_product_" + std::to_string(fresh++);
    while (taken.count(n));
    return n;
  };
  auto dims = [&](const Value& v) {
    std::vector<Dim> out;
    for (const ProductDim& d : v.shape) {
      if (d.vars.empty()) {
        out.push_back(Dim::Const(d.factor));
      } else if (IsSingle(d)) {
        out.push_back(Dim::Var(d.vars[0]));
      } else {
        out.push_back(Dim::Var(fresh_name()));
      }
    }
    return out;
  };
  std::set<std::string> names;
  for (int i = 0; i < num_inputs && i < static_cast<int>(values.size()); ++i) {
    names.insert(values[i].name);
    sig.params.push_back(
        ParamSignature::Buffer(values[i].name, values[i].dtype, dims(values[i]), false));
  }
  for (size_t k = 0; k < results.size(); ++k) {
    if (results[k] < 0 || results[k] >= static_cast<int>(values.size())) continue;
    const Value& v = values[results[k]];
    std::string n = v.name;
    if (!names.insert(n).second) n = "result_" + std::to_string(k);
    names.insert(n);
    sig.params.push_back(ParamSignature::Buffer(n, v.dtype, dims(v), true));
  }
  return sig;
}

std::string ValidateGraphProgram(const GraphProgram& g) {
  const std::string where = "graph " + g.name + ": ";
  const int n = static_cast<int>(g.values.size());
  if (g.num_inputs < 0 || g.num_inputs > n) return where + "input count out of range";
  if (g.num_storages < 0) return where + "negative storage count";
  for (int v = 0; v < n; ++v) {
    const int role = g.values[v].role;
    if ((v < g.num_inputs) != (role == GraphProgram::kInput))
      return where + "value '" + g.values[v].name + "': inputs come first, and only inputs";
    if (role != GraphProgram::kInput && role != GraphProgram::kResult &&
        role != GraphProgram::kConstant && (role < 0 || role >= g.num_storages))
      return where + "value '" + g.values[v].name + "': storage out of range";
    if (role == GraphProgram::kConstant) {
      for (const ProductDim& d : g.values[v].shape) {
        if (!d.vars.empty())
          return where + "constant '" + g.values[v].name + "' has a variable size";
      }
      if (ConstantBytes(g.values[v]) < 0 || g.values[v].offset < 0 ||
          g.values[v].offset % kArgumentAlignment != 0) {
        return where + "constant '" + g.values[v].name + "': bad size or offset";
      }
    }
  }
  std::vector<bool> defined(n, false);
  for (int v = 0; v < n; ++v) {
    defined[v] = v < g.num_inputs || g.values[v].role == GraphProgram::kConstant;
  }
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    const GraphProgram::Kernel& kernel = g.kernels[k];
    const std::string at = where + "kernel " + std::to_string(k) + " (" + kernel.function + "): ";
    const int args = static_cast<int>(kernel.args.size());
    if (kernel.num_outputs < 1 || kernel.num_outputs > args) return at + "bad output count";
    for (int a = 0; a < args; ++a) {
      const int v = kernel.args[a];
      if (v < 0 || v >= n) return at + "value id out of range";
      const bool output = a >= args - kernel.num_outputs;
      if (output && defined[v]) return at + "'" + g.values[v].name + "' is written twice";
      if (!output && !defined[v]) return at + "'" + g.values[v].name + "' is read before written";
    }
    for (int a = args - kernel.num_outputs; a < args; ++a) defined[kernel.args[a]] = true;
  }
  for (int v = 0; v < n; ++v) {
    if (!defined[v]) return where + "value '" + g.values[v].name + "' is never written";
  }
  // Values of one storage are live (written .. last read) at disjoint kernels.
  std::vector<int> def(n, -1), last(n, -1);
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    const GraphProgram::Kernel& kernel = g.kernels[k];
    for (size_t a = 0; a < kernel.args.size(); ++a) {
      const int v = kernel.args[a];
      if (a + kernel.num_outputs >= kernel.args.size()) def[v] = static_cast<int>(k);
      last[v] = static_cast<int>(k);
    }
  }
  std::vector<std::vector<int>> members(g.num_storages);
  for (int v = 0; v < n; ++v) {
    if (g.values[v].role >= 0) members[g.values[v].role].push_back(v);
  }
  for (std::vector<int>& m : members) {
    std::sort(m.begin(), m.end(), [&](int a, int b) { return def[a] < def[b]; });
    for (size_t i = 1; i < m.size(); ++i) {
      if (def[m[i]] <= last[m[i - 1]]) {
        return where + "'" + g.values[m[i - 1]].name + "' and '" + g.values[m[i]].name +
               "' are live at once but share storage " + std::to_string(g.values[m[i]].role);
      }
    }
  }
  if (g.results.empty()) return where + "no results";
  std::vector<bool> is_result(n, false);
  for (int r : g.results) {
    if (r < 0 || r >= n) return where + "result id out of range";
    if (g.values[r].role >= 0)
      return where + "result '" + g.values[r].name + "' has a storage; results are the caller's";
    is_result[r] = true;
  }
  for (int v = 0; v < n; ++v) {
    if (g.values[v].role == GraphProgram::kResult && !is_result[v])
      return where + "value '" + g.values[v].name + "' is marked a result but is not returned";
  }
  return ValidateSignature(g.CallSignature());
}

std::string SerializeGraphPrograms(const std::vector<GraphProgram>& graphs) {
  std::string out;
  for (const GraphProgram& g : graphs) {
    out += "graph " + g.name + " " + std::to_string(g.values.size()) + " " +
           std::to_string(g.num_storages) + " " + std::to_string(g.kernels.size()) + " " +
           std::to_string(g.num_inputs) + "\n";
    for (const GraphProgram::Value& v : g.values) {
      out +=
          "value " + v.name + " " + DTypeToString(v.dtype) + " " + std::to_string(v.shape.size());
      for (const ProductDim& d : v.shape) out += " " + DimText(d);
      out += v.role == GraphProgram::kInput      ? " input\n"
             : v.role == GraphProgram::kResult   ? " result\n"
             : v.role == GraphProgram::kConstant ? " constant " + std::to_string(v.offset) + "\n"
                                                 : " storage " + std::to_string(v.role) + "\n";
    }
    for (const GraphProgram::Kernel& k : g.kernels) {
      out += "kernel " + k.function + " " + std::to_string(k.args.size());
      for (int a : k.args) out += " " + std::to_string(a);
      out += " " + std::to_string(k.num_outputs) + "\n";
    }
    out += "results " + std::to_string(g.results.size());
    for (int r : g.results) out += " " + std::to_string(r);
    out += "\n";
  }
  return out;
}

bool ParseGraphPrograms(std::string_view text, std::vector<GraphProgram>* out, std::string* error) {
  std::vector<GraphProgram> graphs;
  int line_no = 0;
  size_t values_left = 0, kernels_left = 0;
  bool want_results = false;
  auto fail = [&](const std::string& why) {
    *error = "metadata line " + std::to_string(line_no) + ": " + why;
    return false;
  };
  auto count = [](std::string_view w, int64_t* v) {
    return ParseInt(w, v) && *v >= 0 && *v <= 1000000;
  };
  size_t pos = 0;
  bool in_graphs = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string_view> w = SplitWords(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (w.empty()) continue;
    if (!in_graphs && w[0] != "graph") continue;  // The signatures' lines.
    in_graphs = true;
    if (w[0] == "graph") {
      int64_t nv, ns, nk, ni;
      if (values_left || kernels_left || want_results) return fail("a graph section ends early");
      if (w.size() != 6 || !count(w[2], &nv) || !count(w[3], &ns) || !count(w[4], &nk) ||
          !count(w[5], &ni)) {
        return fail("expected 'graph <name> <values> <storages> <kernels> <inputs>'");
      }
      GraphProgram g;
      g.name = std::string(w[1]);
      g.num_storages = static_cast<int>(ns);
      g.num_inputs = static_cast<int>(ni);
      graphs.push_back(std::move(g));
      values_left = static_cast<size_t>(nv);
      kernels_left = static_cast<size_t>(nk);
      want_results = true;
      continue;
    }
    if (graphs.empty()) return fail("a graph entry outside a graph section");
    GraphProgram& g = graphs.back();
    if (w[0] == "value") {
      if (!values_left) return fail("more values than the graph line says");
      int64_t ndim;
      GraphProgram::Value v;
      if (w.size() < 5 || !ParseDType(w[2], &v.dtype) || !count(w[3], &ndim) ||
          w.size() < 5 + static_cast<size_t>(ndim)) {
        return fail("expected 'value <name> <dtype> <ndim> <dims...> <role>'");
      }
      v.name = std::string(w[1]);
      for (int64_t d = 0; d < ndim; ++d) {
        ProductDim dim;
        if (!ParseDim(w[4 + d], &dim)) return fail("bad dimension '" + std::string(w[4 + d]) + "'");
        v.shape.push_back(std::move(dim));
      }
      const size_t r = 4 + static_cast<size_t>(ndim);
      int64_t storage;
      if (w.size() == r + 2 && w[r] == "constant" && ParseInt(w[r + 1], &v.offset)) {
        v.role = GraphProgram::kConstant;
      } else if (w.size() == r + 1 && w[r] == "input") {
        v.role = GraphProgram::kInput;
      } else if (w.size() == r + 1 && w[r] == "result") {
        v.role = GraphProgram::kResult;
      } else if (w.size() == r + 2 && w[r] == "storage" && count(w[r + 1], &storage)) {
        v.role = static_cast<int>(storage);
      } else {
        return fail("expected the role 'input', 'result', 'constant <offset>' or 'storage <id>'");
      }
      g.values.push_back(std::move(v));
      --values_left;
    } else if (w[0] == "kernel") {
      int64_t nargs, nout;
      if (values_left || !kernels_left) return fail("a kernel line out of place");
      if (w.size() < 4 || !count(w[2], &nargs) || w.size() != 4 + static_cast<size_t>(nargs) ||
          !count(w[w.size() - 1], &nout)) {
        return fail("expected 'kernel <function> <nargs> <ids...> <outputs>'");
      }
      GraphProgram::Kernel k;
      k.function = std::string(w[1]);
      for (int64_t a = 0; a < nargs; ++a) {
        int64_t id;
        if (!count(w[3 + a], &id)) return fail("bad value id");
        k.args.push_back(static_cast<int>(id));
      }
      k.num_outputs = static_cast<int>(nout);
      g.kernels.push_back(std::move(k));
      --kernels_left;
    } else if (w[0] == "results") {
      int64_t nr;
      if (values_left || kernels_left || !want_results) return fail("a results line out of place");
      if (w.size() < 2 || !count(w[1], &nr) || w.size() != 2 + static_cast<size_t>(nr))
        return fail("expected 'results <n> <ids...>'");
      for (int64_t i = 0; i < nr; ++i) {
        int64_t id;
        if (!count(w[2 + i], &id)) return fail("bad value id");
        g.results.push_back(static_cast<int>(id));
      }
      want_results = false;
      if (std::string why = ValidateGraphProgram(g); !why.empty()) return fail(why);
    } else {
      return fail("unknown graph entry '" + std::string(w[0]) + "'");
    }
  }
  if (values_left || kernels_left || want_results) return fail("the last graph section ends early");
  *out = std::move(graphs);
  return true;
}

int64_t ConstantBytes(const GraphProgram::Value& v) {
  int64_t bytes = DTypeBytes(v.dtype);
  for (const ProductDim& d : v.shape) {
    if (!d.vars.empty() || __builtin_mul_overflow(bytes, d.factor, &bytes)) return -1;
  }
  return bytes;
}

std::string PlaceConstants(GraphProgram* g, const void* blob, int64_t size) {
  for (GraphProgram::Value& v : g->values) {
    if (v.role != GraphProgram::kConstant) continue;
    const int64_t bytes = ConstantBytes(v);
    int64_t end;
    if (bytes < 0 || v.offset < 0 || __builtin_add_overflow(v.offset, bytes, &end) || end > size) {
      return "graph " + g->name + ": constant '" + v.name + "' reaches past the library's " +
             std::to_string(size) + " bytes of constants";
    }
    v.data = static_cast<const char*>(blob) + v.offset;
  }
  return "";
}

}  // namespace tessel::runtime
