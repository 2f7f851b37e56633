// Launch manifests read into checked functions (see cuda_manifest.h).
#include "codegen/runtime/cuda_manifest.h"

#include <utility>

#include "codegen/runtime/cuda_libraries.h"
#include "nlohmann/json.hpp"

namespace tessel::runtime {

namespace {

using Json = nlohmann::json;

// The manifest's fields, read without exceptions: null when absent or of another type.
const Json* Field(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}
bool String(const Json& obj, const char* key, std::string* out) {
  const Json* f = Field(obj, key);
  if (f == nullptr || !f->is_string()) return false;
  *out = f->get<std::string>();
  return true;
}
bool Int(const Json& j, int64_t* out) {
  if (!j.is_number_integer()) return false;
  *out = j.get<int64_t>();
  return true;
}
const Json* Array(const Json& obj, const char* key) {
  const Json* f = Field(obj, key);
  return f != nullptr && f->is_array() ? f : nullptr;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  }
  return true;
}

std::string ParseParam(const Json& j, ParamSignature* out) {
  std::string name, dtype;
  if (!String(j, "name", &name) || !String(j, "dtype", &dtype)) {
    return "a parameter without a name and dtype";
  }
  DLDataType t;
  if (!ParseDType(dtype, &t)) return "parameter '" + name + "' has the unknown dtype " + dtype;
  if (Field(j, "scalar") != nullptr) {
    *out = ParamSignature::Scalar(name, t);
    return "";
  }
  const Json* shape = Array(j, "shape");
  if (shape == nullptr) return "parameter '" + name + "' has no shape";
  std::vector<Dim> dims;
  for (const Json& d : *shape) {
    std::string text = d.is_string() ? d.get<std::string>() : "";
    int64_t v = 0;
    if (ParseInt(text, &v)) {
      dims.push_back(Dim::Const(v));
    } else if (IsIdentifier(text)) {
      dims.push_back(Dim::Var(text));
    } else {
      return "parameter '" + name + "' has the extent '" + text +
             "': a GPU function's extents are constants or shape variables";
    }
  }
  // Absent: treated as written (copied back after a call), as a CPU signature does.
  const Json* written = Field(j, "written");
  *out =
      ParamSignature::Buffer(name, t, std::move(dims),
                             written == nullptr || !written->is_boolean() || written->get<bool>());
  return "";
}

// True when `name` is a scalar parameter or a buffer dimension of `sig`.
bool Names(const FunctionSignature& sig, const std::string& name) {
  for (const ParamSignature& p : sig.params) {
    if (!p.is_buffer && p.name == name) return true;
    for (const Dim& d : p.shape) {
      if (d.var == name) return true;
    }
  }
  return false;
}

// A library step: {"name", "library", "args": [{"storage", "offset"} | {"value"}]}.
std::string ParseLibraryStep(const Json& j, size_t storage, const FunctionSignature& sig,
                             CudaKernel* k) {
  const std::string where = "library step " + k->name + ": ";
  if (!String(j, "library", &k->library) || FindCudaLibraryFunction(k->library) == nullptr) {
    return where + "no device library function named '" + k->library + "'";
  }
  const Json* args = Array(j, "args");
  if (args == nullptr) return where + "no args";
  for (const Json& a : *args) {
    CudaKernel::LibraryArg arg;
    if (const Json* id = Field(a, "storage")) {
      int64_t s = -1;
      const Json* offset = Field(a, "offset");
      if (!Int(*id, &s) || s < 0 || static_cast<size_t>(s) >= storage || offset == nullptr ||
          !Int(*offset, &arg.value) || arg.value < 0) {
        return where + "a storage argument is an id in range and a non-negative offset";
      }
      if (static_cast<size_t>(s) < sig.params.size() && !sig.params[s].is_buffer) {
        return where + "the storage argument " + std::to_string(s) + " is the scalar " +
               sig.params[s].name;
      }
      arg.storage = static_cast<int>(s);
    } else if (const Json* v = Field(a, "value"); v == nullptr || !Int(*v, &arg.value)) {
      return where + "an argument is {storage, offset} or {value}";
    }
    k->library_args.push_back(arg);
  }
  return "";
}

std::string ParseKernel(const Json& j, size_t storage, const FunctionSignature& sig,
                        CudaKernel* k) {
  if (!String(j, "name", &k->name)) return "a kernel without a name";
  if (Field(j, "library") != nullptr) return ParseLibraryStep(j, storage, sig, k);
  const std::string where = "kernel " + k->name + ": ";
  const Json* grid = Array(j, "grid");
  const Json* block = Array(j, "block");
  if (grid == nullptr || block == nullptr || grid->size() != 3 || block->size() != 3) {
    return where + "grid and block are three extents each";
  }
  for (size_t a = 0; a < 3; ++a) {
    if ((*grid)[a].is_string()) {  // An expression of shape variables and scalars.
      ExtentExpr e;
      if (std::string why = ExtentExpr::Parse((*grid)[a].get<std::string>(), &e); !why.empty()) {
        return where + why;
      }
      for (const std::string& name : e.names()) {
        if (!Names(sig, name)) {
          return where + "the grid extent '" + e.text() + "' reads '" + name +
                 "', which is no scalar parameter or shape variable";
        }
      }
      k->grid_exprs[a] = std::move(e);
      k->grid[a] = 0;
    } else if (!Int((*grid)[a], &k->grid[a]) || k->grid[a] < 1) {
      return where + "grid extents are positive integers or expressions";
    }
    if (!Int((*block)[a], &k->block[a]) || k->block[a] < 1) {
      return where + "block extents are positive integers";
    }
  }
  const Json* shared = Field(j, "shared_bytes");
  if (shared == nullptr || !Int(*shared, &k->shared_bytes) || k->shared_bytes < 0) {
    return where + "shared_bytes is a non-negative integer";
  }
  const Json* args = Array(j, "buffer_args");
  if (args == nullptr) return where + "no buffer_args";
  for (const Json& a : *args) {
    int64_t id = -1;
    if (!Int(a, &id) || id < 0 || static_cast<size_t>(id) >= storage) {
      return where + "a buffer argument out of range";
    }
    if (static_cast<size_t>(id) < sig.params.size() && !sig.params[id].is_buffer) {
      return where + "the buffer argument " + std::to_string(id) + " is the scalar " +
             sig.params[id].name;
    }
    k->buffer_args.push_back(static_cast<int>(id));
  }
  const Json* scalars = Array(j, "scalars");
  if (scalars == nullptr) return where + "no scalars";
  for (const Json& s : *scalars) {
    std::string name, dtype;
    DLDataType t;
    if (!String(s, "name", &name) || !String(s, "dtype", &dtype) || !ParseDType(dtype, &t)) {
      return where + "a scalar without a name and dtype";
    }
    if (!Names(sig, name)) {
      return where + "the scalar '" + name + "' is no parameter or shape variable of " +
             DescribeSignature(sig);
    }
    k->scalar_names.push_back(name);
    k->scalar_dtypes.push_back(t);
  }
  return "";
}

std::string ParseFunction(const Json& j, CudaFunction* f) {
  if (!String(j, "name", &f->signature.name)) return "a function without a name";
  const std::string where = "function " + f->signature.name + ": ";
  const Json* params = Array(j, "params");
  const Json* workspaces = Array(j, "workspaces");
  const Json* kernels = Array(j, "kernels");
  if (params == nullptr || workspaces == nullptr || kernels == nullptr) {
    return where + "params, workspaces and kernels are arrays";
  }
  for (const Json& p : *params) {
    ParamSignature ps;
    if (std::string e = ParseParam(p, &ps); !e.empty()) return where + e;
    f->signature.params.push_back(std::move(ps));
  }
  if (std::string e = ValidateSignature(f->signature); !e.empty()) return where + e;
  for (const Json& w : *workspaces) {
    CudaFunction::Workspace ws;
    std::string dtype;
    const Json* elements = Field(w, "elements");
    if (!String(w, "name", &ws.name) || !String(w, "dtype", &dtype) ||
        !ParseDType(dtype, &ws.dtype) || elements == nullptr) {
      return where + "a workspace is a name, a dtype and a count of elements";
    }
    if (elements->is_string()) {  // Sized per call by shape variables.
      ExtentExpr e;
      if (std::string why = ExtentExpr::Parse(elements->get<std::string>(), &e); !why.empty()) {
        return where + "workspace " + ws.name + ": " + why;
      }
      for (const std::string& name : e.names()) {
        if (!Names(f->signature, name)) {
          return where + "workspace " + ws.name + " reads '" + name +
                 "', which is no scalar parameter or shape variable";
        }
      }
      ws.elements_expr = std::move(e);
    } else if (!Int(*elements, &ws.elements) || ws.elements < 0) {
      return where + "a workspace is a name, a dtype and a count of elements";
    }
    f->workspaces.push_back(std::move(ws));
  }
  const size_t storage = f->signature.params.size() + f->workspaces.size();
  for (const Json& k : *kernels) {
    CudaKernel kernel;
    if (std::string e = ParseKernel(k, storage, f->signature, &kernel); !e.empty()) {
      return where + e;
    }
    f->kernels.push_back(std::move(kernel));
  }
  return "";
}

}  // namespace

std::string ParseCudaManifest(std::string_view manifest, std::vector<CudaFunction>* out) {
  Json m = Json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded()) return "the launch manifest is not JSON";
  const Json* version = Field(m, "version");
  int64_t v = 0;
  if (version == nullptr || !Int(*version, &v) || v != 1) {
    return "the launch manifest is not version 1 (an older or newer tessel wrote it)";
  }
  const Json* functions = Array(m, "functions");
  if (functions == nullptr) return "the launch manifest lists no functions";
  std::vector<CudaFunction> parsed;
  for (const Json& j : *functions) {
    CudaFunction f;
    if (std::string e = ParseFunction(j, &f); !e.empty()) return "launch manifest: " + e;
    for (const CudaFunction& g : parsed) {
      if (g.signature.name == f.signature.name) {
        return "launch manifest: the function " + f.signature.name + " appears twice";
      }
    }
    parsed.push_back(std::move(f));
  }
  *out = std::move(parsed);
  return "";
}

}  // namespace tessel::runtime
