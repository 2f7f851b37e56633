// CudaProgram (see cuda_program.h).
#include "codegen/runtime/cuda_program.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <utility>

#include "codegen/runtime/cuda_libraries.h"
#include "codegen/runtime/library_module.h"
#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"
#include "nlohmann/json.hpp"

namespace tessel::runtime {

struct CudaProgram::Loaded {
  ~Loaded() {
    // The last copy of the program is gone, and every call waited for its kernels.
    if (module != nullptr) tessel_cuda_module_unload(module);
  }
  std::mutex mutex;
  void* module = nullptr;
};

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
    if (!String(w, "name", &ws.name) || !String(w, "dtype", &dtype) ||
        !ParseDType(dtype, &ws.dtype) || Field(w, "elements") == nullptr ||
        !Int(*Field(w, "elements"), &ws.elements) || ws.elements < 0) {
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

int32_t Fail(const std::string& message) { return tessel_set_last_error(message.c_str()); }

int64_t Elements(const DLTensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

// The value `name` takes in this call: a scalar parameter's (PackArguments widened
// integers to int64_t), or the extent of the first buffer dimension that the shape
// variable names. False when it names neither (or an f16 scalar).
bool LookupValue(const FunctionSignature& sig, const std::vector<DLTensor*>& args,
                 const PackedArgs& packed, const std::string& name, int64_t* integer_out,
                 double* real_out, bool* is_real_out) {
  double real = 0;
  int64_t integer = 0;
  bool is_real = false, found = false;
  for (size_t i = 0; i < sig.params.size() && !found; ++i) {
    const ParamSignature& p = sig.params[i];
    if (!p.is_buffer && p.name == name) {
      found = true;
      if (p.dtype.code == kDLFloat) {
        if (p.dtype.bits != 32 && p.dtype.bits != 64) return false;  // f16: not yet.
        is_real = true;
        real = p.dtype.bits == 64 ? *static_cast<const double*>(packed.values[i])
                                  : *static_cast<const float*>(packed.values[i]);
      } else if (p.dtype.code == kDLBoolCode) {
        integer = *static_cast<const bool*>(packed.values[i]) ? 1 : 0;
      } else {
        integer = *static_cast<const int64_t*>(packed.values[i]);
      }
    }
    for (size_t d = 0; p.is_buffer && d < p.shape.size() && !found; ++d) {
      if (p.shape[d].var == name) {
        found = true;
        integer = args[i]->shape[d];
      }
    }
  }
  *integer_out = integer, *real_out = real, *is_real_out = is_real;
  return found;
}

// The value a kernel's scalar `name` takes in this call (LookupValue), converted to
// `dtype`, in `slot`.
bool ScalarValue(const FunctionSignature& sig, const std::vector<DLTensor*>& args,
                 const PackedArgs& packed, const std::string& name, DLDataType dtype,
                 uint64_t* slot) {
  double real = 0;
  int64_t integer = 0;
  bool is_real = false;
  if (!LookupValue(sig, args, packed, name, &integer, &real, &is_real)) return false;
  *slot = 0;
  if (dtype.code == kDLFloat && dtype.bits == 32) {
    float v = is_real ? static_cast<float>(real) : static_cast<float>(integer);
    std::memcpy(slot, &v, sizeof(v));
  } else if (dtype.code == kDLFloat) {
    double v = is_real ? real : static_cast<double>(integer);
    std::memcpy(slot, &v, sizeof(v));
  } else if (dtype.bits == 64) {
    std::memcpy(slot, &integer, sizeof(integer));
  } else if (dtype.bits == 32) {
    int32_t v = static_cast<int32_t>(integer);
    std::memcpy(slot, &v, sizeof(v));
  } else {
    uint8_t v = static_cast<uint8_t>(integer);
    std::memcpy(slot, &v, sizeof(v));
  }
  return true;
}

// The device memory of one call: each buffer argument's (a copy of a host tensor,
// or the caller's device tensor itself) and the function's workspaces. What it
// allocated is freed when it goes.
class DeviceStorage {
 public:
  ~DeviceStorage() {
    for (size_t i = 0; i < pointers.size(); ++i) {
      if (owned[i] && pointers[i] != nullptr) tessel_cuda_free(pointers[i]);
    }
  }
  // Allocates and fills (copies host tensors in; `on_device`: uses the tensors'
  // own memory); 0 or non-zero with the last error set.
  int32_t Fill(const CudaFunction& f, const std::vector<DLTensor*>& args, bool on_device) {
    for (size_t i = 0; i < f.signature.params.size(); ++i) {
      pointers.push_back(nullptr);
      bytes.push_back(0);
      owned.push_back(!on_device);
      if (!f.signature.params[i].is_buffer) continue;
      const DLTensor* t = args[i];
      bytes.back() = static_cast<size_t>(Elements(t) * DTypeBytes(t->dtype));
      if (bytes.back() == 0) continue;
      if (on_device) {
        pointers.back() = static_cast<char*>(t->data) + t->byte_offset;
        continue;
      }
      if (tessel_cuda_alloc(bytes.back(), &pointers.back()) != 0 ||
          tessel_cuda_copy_to_device(pointers.back(),
                                     static_cast<const char*>(t->data) + t->byte_offset,
                                     bytes.back()) != 0) {
        return 1;
      }
    }
    for (const CudaFunction::Workspace& w : f.workspaces) {
      pointers.push_back(nullptr);
      bytes.push_back(static_cast<size_t>(w.elements * DTypeBytes(w.dtype)));
      owned.push_back(true);
      if (bytes.back() != 0 && tessel_cuda_alloc(bytes.back(), &pointers.back()) != 0) return 1;
    }
    return 0;
  }
  std::vector<bool> owned;
  std::vector<void*> pointers;
  std::vector<size_t> bytes;
};

}  // namespace

std::string CudaProgram::FromLibrary(const std::string& library_path, CudaProgram* out,
                                     bool* carries) {
  if (carries != nullptr) *carries = false;
  // Local: the library's symbols stay out of the process's namespace; the program
  // keeps copies of the strings, so the library is closed again.
  void* lib = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return "cannot load " + library_path + ": " + (why ? why : "dlopen failed");
  }
  using Text = const char* (*)();
  auto ptx = reinterpret_cast<Text>(dlsym(lib, kCudaPtxSymbol));
  auto manifest = reinterpret_cast<Text>(dlsym(lib, kCudaManifestSymbol));
  std::string error;
  if (carries != nullptr) *carries = ptx != nullptr && manifest != nullptr;
  if (ptx == nullptr || manifest == nullptr) {
    error = library_path + " carries no GPU program (no " + kCudaManifestSymbol +
            "): export a module built for a cuda target";
  } else {
    error = Parse(ptx(), manifest(), out);
    if (!error.empty()) error = library_path + ": " + error;
  }
  dlclose(lib);
  return error;
}

std::string CudaProgram::Parse(std::string ptx, std::string_view manifest, CudaProgram* out) {
  Json m = Json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded()) return "the launch manifest is not JSON";
  const Json* version = Field(m, "version");
  int64_t v = 0;
  if (version == nullptr || !Int(*version, &v) || v != 1) {
    return "the launch manifest is not version 1 (an older or newer tessel wrote it)";
  }
  const Json* functions = Array(m, "functions");
  if (functions == nullptr) return "the launch manifest lists no functions";
  CudaProgram p;
  for (const Json& j : *functions) {
    CudaFunction f;
    if (std::string e = ParseFunction(j, &f); !e.empty()) return "launch manifest: " + e;
    if (p.Find(f.signature.name) != nullptr) {
      return "launch manifest: the function " + f.signature.name + " appears twice";
    }
    p.functions_.push_back(std::move(f));
  }
  bool launches = false;  // Some step is a kernel (not only library calls).
  for (const CudaFunction& f : p.functions_) {
    for (const CudaKernel& k : f.kernels) launches |= k.library.empty();
  }
  if (ptx.find(".entry") == std::string::npos && launches) {
    return "the PTX has no kernel entry";
  }
  p.ptx_ = std::move(ptx);
  p.manifest_ = std::string(manifest);
  p.loaded_ = std::make_shared<Loaded>();
  *out = std::move(p);
  return "";
}

const CudaFunction* CudaProgram::Find(std::string_view name) const {
  for (const CudaFunction& f : functions_) {
    if (f.signature.name == name) return &f;
  }
  return nullptr;
}

int32_t CudaProgram::Load(void** module) const {
  std::lock_guard<std::mutex> lock(loaded_->mutex);
  if (loaded_->module == nullptr) {
    if (tessel_cuda_init(0) != 0 || tessel_cuda_module_load(ptx_.c_str(), &loaded_->module) != 0)
      return 1;
  }
  *module = loaded_->module;
  return 0;
}

namespace {

// Runs library step `k` of `f` on `storage` (parameters, then workspaces).
int32_t CallLibrary(const CudaFunction& f, const CudaKernel& k, const std::vector<void*>& storage,
                    void* stream) {
  std::vector<int64_t> slots;
  for (const CudaKernel::LibraryArg& a : k.library_args) {
    if (a.storage < 0) {
      slots.push_back(a.value);
      continue;
    }
    const size_t id = static_cast<size_t>(a.storage);
    const DLDataType t = id < f.signature.params.size()
                             ? f.signature.params[id].dtype
                             : f.workspaces[id - f.signature.params.size()].dtype;
    const char* base = static_cast<const char*>(storage[id]);
    slots.push_back(
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(base + a.value * DTypeBytes(t))));
  }
  const CudaLibraryFunction fn = FindCudaLibraryFunction(k.library);  // Parse checked it.
  return fn(slots.data(), static_cast<int32_t>(slots.size()), stream);
}

}  // namespace

int32_t CudaProgram::Launch(const CudaFunction& f, const std::vector<void*>& storage,
                            const std::vector<DLTensor*>& args, const PackedArgs& packed,
                            void* stream) const {
  void* module = nullptr;
  if (Load(&module) != 0) return 1;
  for (const CudaKernel& k : f.kernels) {
    if (!k.library.empty()) {
      if (int32_t rc = CallLibrary(f, k, storage, stream)) return rc;
      continue;
    }
    // Grid extents of shape variables, evaluated for this call's arguments.
    std::array<int64_t, 3> grid = k.grid;
    bool empty = false;
    for (size_t a = 0; a < 3; ++a) {
      if (!k.grid_exprs[a]) continue;
      std::string why;
      auto lookup = [&](const std::string& name, int64_t* v) {
        double real = 0;
        bool is_real = false;
        return LookupValue(f.signature, args, packed, name, v, &real, &is_real) && !is_real;
      };
      if (!k.grid_exprs[a]->Evaluate(lookup, &grid[a], &why))
        return Fail("kernel " + k.name + ": " + why);
      if (grid[a] < 0 || grid[a] > INT32_MAX) {
        return Fail("kernel " + k.name + ": grid extent '" + k.grid_exprs[a]->text() + "' is " +
                    std::to_string(grid[a]) + " for this call");
      }
      empty |= grid[a] == 0;
    }
    if (empty) continue;  // No blocks: nothing to run for these shapes.
    std::vector<void*> kargs;
    for (int id : k.buffer_args) kargs.push_back(const_cast<void**>(&storage[id]));
    std::vector<uint64_t> slots(k.scalar_names.size());
    for (size_t s = 0; s < k.scalar_names.size(); ++s) {
      if (!ScalarValue(f.signature, args, packed, k.scalar_names[s], k.scalar_dtypes[s],
                       &slots[s])) {
        return Fail("kernel " + k.name + ": no value for the scalar " + k.scalar_names[s]);
      }
    }
    for (uint64_t& s : slots) kargs.push_back(&s);
    if (int32_t rc = tessel_cuda_launch(module, k.name.c_str(), grid.data(), k.block.data(),
                                        /*shared_bytes=*/0, kargs.data(),
                                        static_cast<int32_t>(kargs.size()), stream)) {
      return rc;
    }
  }
  return 0;
}

std::string CudaProgram::Check(std::string_view name, DLTensor* const* args, int32_t num_args,
                               const CudaFunction** f, PackedArgs* packed, bool* on_device) const {
  *f = Find(name);
  if (*f == nullptr) return "no GPU function named '" + std::string(name) + "'";
  // Where the buffers live is where the first one does; PackArguments holds the
  // others to it, so a call never mixes host and device buffers.
  DLDevice buffers_on{kDLCPU, 0};
  for (size_t i = 0; i < (*f)->signature.params.size() && args != nullptr &&
                     i < static_cast<size_t>(std::max(num_args, 0));
       ++i) {
    if (!(*f)->signature.params[i].is_buffer || args[i] == nullptr) continue;
    if (args[i]->device.device_type == kDLCUDA) buffers_on = DLDevice{kDLCUDA, 0};
    break;
  }
  *on_device = buffers_on.device_type == kDLCUDA;
  return PackArguments((*f)->signature, args, num_args, packed, buffers_on);
}

CallOutcome CudaProgram::Call(std::string_view name, DLTensor* const* args,
                              int32_t num_args) const {
  const CudaFunction* f = nullptr;
  PackedArgs packed;
  bool on_device = false;
  if (std::string e = Check(name, args, num_args, &f, &packed, &on_device); !e.empty()) {
    return {CallOutcome::kBadArgument, e};
  }
  auto fail = [&]() {
    return CallOutcome{CallOutcome::kKernelFailed, f->signature.name + ": " + tessel_last_error()};
  };
  const std::vector<DLTensor*> tensors(args, args + num_args);
  DeviceStorage storage;
  void* module = nullptr;
  if (Load(&module) != 0 || storage.Fill(*f, tensors, on_device) != 0 ||
      Launch(*f, storage.pointers, tensors, packed, nullptr) != 0 ||
      tessel_cuda_synchronize() != 0) {
    return fail();
  }
  for (size_t i = 0; i < f->signature.params.size() && !on_device; ++i) {
    const ParamSignature& p = f->signature.params[i];
    if (!p.is_buffer || !p.written || storage.bytes[i] == 0) continue;
    if (tessel_cuda_copy_to_host(static_cast<char*>(args[i]->data) + args[i]->byte_offset,
                                 storage.pointers[i], storage.bytes[i]) != 0) {
      return fail();
    }
  }
  return {};
}

CallOutcome CudaProgram::Time(std::string_view name, DLTensor* const* args, int32_t num_args,
                              int warmup, int repeat, std::vector<double>* ms) const {
  const CudaFunction* f = nullptr;
  PackedArgs packed;
  bool on_device = false;
  if (std::string e = Check(name, args, num_args, &f, &packed, &on_device); !e.empty()) {
    return {CallOutcome::kBadArgument, e};
  }
  const std::vector<DLTensor*> tensors(args, args + num_args);
  DeviceStorage storage;
  void *start = nullptr, *end = nullptr;
  auto fail = [&]() {
    if (start != nullptr) tessel_cuda_event_destroy(start);
    if (end != nullptr) tessel_cuda_event_destroy(end);
    return CallOutcome{CallOutcome::kKernelFailed, f->signature.name + ": " + tessel_last_error()};
  };
  void* module = nullptr;
  if (Load(&module) != 0 || storage.Fill(*f, tensors, on_device) != 0) return fail();
  for (int w = 0; w < warmup; ++w) {
    if (Launch(*f, storage.pointers, tensors, packed, nullptr) != 0) return fail();
  }
  if (tessel_cuda_event_create(&start) != 0 || tessel_cuda_event_create(&end) != 0) return fail();
  ms->clear();
  for (int r = 0; r < repeat; ++r) {
    float t = 0;
    if (tessel_cuda_event_record(start, nullptr) != 0 ||
        Launch(*f, storage.pointers, tensors, packed, nullptr) != 0 ||
        tessel_cuda_event_record(end, nullptr) != 0 ||
        tessel_cuda_event_elapsed_ms(start, end, &t) != 0) {
      return fail();
    }
    ms->push_back(t);
  }
  tessel_cuda_event_destroy(start);
  tessel_cuda_event_destroy(end);
  return {};
}

}  // namespace tessel::runtime

struct TesselCudaProgram {
  tessel::runtime::CudaProgram program;
};

extern "C" {

TesselCudaProgram* tessel_cuda_program_load(const char* library_path) {
  if (library_path == nullptr) {
    tessel_set_last_error("tessel_cuda_program_load: the library path is NULL");
    return nullptr;
  }
  auto* p = new TesselCudaProgram;
  std::string error = tessel::runtime::CudaProgram::FromLibrary(library_path, &p->program);
  if (!error.empty()) {
    delete p;
    tessel_set_last_error(("tessel_cuda_program_load: " + error).c_str());
    return nullptr;
  }
  return p;
}

void tessel_cuda_program_free(TesselCudaProgram* program) { delete program; }

int32_t tessel_cuda_program_call(TesselCudaProgram* program, const char* name,
                                 DLTensor* const* args, int32_t num_args) {
  if (program == nullptr || name == nullptr) {
    return tessel_set_last_error("tessel_cuda_program_call: the program or the name is NULL");
  }
  if (num_args < 0 || (num_args > 0 && args == nullptr)) {
    return tessel_set_last_error("tessel_cuda_program_call: no argument array");
  }
  const tessel::runtime::CallOutcome r = program->program.Call(name, args, num_args);
  if (r.kind != tessel::runtime::CallOutcome::kOk) return tessel_set_last_error(r.message.c_str());
  return 0;
}

}  // extern "C"
