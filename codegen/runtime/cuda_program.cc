// CudaProgram (see cuda_program.h).
#include "codegen/runtime/cuda_program.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <mutex>
#include <utility>

#include "codegen/runtime/cuda_libraries.h"
#include "codegen/runtime/cuda_manifest.h"
#include "codegen/runtime/library_module.h"
#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"

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

// The integer value of a shape variable or scalar parameter in this call, as the
// manifest's extent expressions read them.
std::function<bool(const std::string&, int64_t*)> IntegerLookup(const FunctionSignature& sig,
                                                                const std::vector<DLTensor*>& args,
                                                                const PackedArgs& packed) {
  return [&sig, &args, &packed](const std::string& name, int64_t* v) {
    double real = 0;
    bool is_real = false;
    return LookupValue(sig, args, packed, name, v, &real, &is_real) && !is_real;
  };
}

// The bytes workspace `w` takes in this call (`lookup`: its shape variables); 0, or
// non-zero with the last error set when its count does not evaluate or is out of
// range.
int32_t WorkspaceBytes(const CudaFunction::Workspace& w,
                       const std::function<bool(const std::string&, int64_t*)>& lookup,
                       size_t* bytes) {
  int64_t elements = w.elements;
  std::string why;
  if (w.elements_expr && !w.elements_expr->Evaluate(lookup, &elements, &why)) {
    return Fail("workspace " + w.name + ": " + why);
  }
  if (elements < 0 || elements > (int64_t{1} << 40)) {
    return Fail("workspace " + w.name + ": " + std::to_string(elements) +
                " elements for this call");
  }
  *bytes = static_cast<size_t>(elements * DTypeBytes(w.dtype));
  return 0;
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
  // own memory), the workspaces sized for this call (`lookup`: its shape
  // variables); 0 or non-zero with the last error set.
  int32_t Fill(const CudaFunction& f, const std::vector<DLTensor*>& args, bool on_device,
               const std::function<bool(const std::string&, int64_t*)>& lookup) {
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
      size_t b = 0;
      if (WorkspaceBytes(w, lookup, &b) != 0) return 1;
      pointers.push_back(nullptr);
      bytes.push_back(b);
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
  CudaProgram p;
  if (std::string e = ParseCudaManifest(manifest, &p.functions_); !e.empty()) return e;
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
  const std::function<bool(const std::string&, int64_t*)> lookup =
      IntegerLookup(f.signature, args, packed);
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
      if (!k.grid_exprs[a]->Evaluate(lookup, &grid[a], &why)) {
        return Fail("kernel " + k.name + ": " + why);
      }
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
  if (Load(&module) != 0 ||
      storage.Fill(*f, tensors, on_device, IntegerLookup(f->signature, tensors, packed)) != 0 ||
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

CallOutcome CudaProgram::Enqueue(std::string_view name, DLTensor* const* args, int32_t num_args,
                                 void* stream) const {
  const CudaFunction* f = nullptr;
  PackedArgs packed;
  bool on_device = false;
  if (std::string e = Check(name, args, num_args, &f, &packed, &on_device); !e.empty()) {
    return {CallOutcome::kBadArgument, e};
  }
  const std::vector<ParamSignature>& params = f->signature.params;
  if (!on_device && std::any_of(params.begin(), params.end(),
                                [](const ParamSignature& p) { return p.is_buffer; })) {
    return {CallOutcome::kBadArgument,
            f->signature.name +
                ": enqueued on a stream, a call takes device tensors (tessel_cuda_alloc, "
                "tessel.nd.array(..., device=\"cuda\")); host tensors need a call that waits"};
  }
  const std::vector<DLTensor*> tensors(args, args + num_args);
  std::vector<void*> storage;
  std::vector<void*> workspaces;
  auto fail = [&]() {
    CallOutcome out{CallOutcome::kKernelFailed, f->signature.name + ": " + tessel_last_error()};
    for (void* w : workspaces) tessel_cuda_free_async(w, stream);
    return out;
  };
  void* module = nullptr;
  if (Load(&module) != 0) return fail();
  for (size_t i = 0; i < f->signature.params.size(); ++i) {
    const DLTensor* t = tensors[i];
    storage.push_back(f->signature.params[i].is_buffer && t->data != nullptr
                          ? static_cast<char*>(t->data) + t->byte_offset
                          : nullptr);
  }
  const auto lookup = IntegerLookup(f->signature, tensors, packed);
  for (const CudaFunction::Workspace& w : f->workspaces) {
    void* p = nullptr;
    size_t bytes = 0;
    if (WorkspaceBytes(w, lookup, &bytes) != 0 ||
        (bytes != 0 && tessel_cuda_alloc_async(bytes, &p, stream) != 0)) {
      return fail();
    }
    workspaces.push_back(p);
    storage.push_back(p);
  }
  if (Launch(*f, storage, tensors, packed, stream) != 0) return fail();
  for (void* w : workspaces) {
    if (tessel_cuda_free_async(w, stream) != 0) {
      return CallOutcome{CallOutcome::kKernelFailed,
                         f->signature.name + ": " + tessel_last_error()};
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
  if (Load(&module) != 0 ||
      storage.Fill(*f, tensors, on_device, IntegerLookup(f->signature, tensors, packed)) != 0)
    return fail();
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

namespace {

// What the C entry points refuse before a call: a null program, name or argument
// array. 0, or non-zero with the last error naming `entry`.
int32_t RefuseNulls(const char* entry, const TesselCudaProgram* program, const char* name,
                    DLTensor* const* args, int32_t num_args) {
  if (program == nullptr || name == nullptr) {
    return tessel_set_last_error(
        (std::string(entry) + ": the program or the name is NULL").c_str());
  }
  if (num_args < 0 || (num_args > 0 && args == nullptr)) {
    return tessel_set_last_error((std::string(entry) + ": no argument array").c_str());
  }
  return 0;
}

// A call's outcome as the C API returns it: 0, or non-zero with the last error set.
int32_t Report(const tessel::runtime::CallOutcome& r) {
  if (r.kind != tessel::runtime::CallOutcome::kOk) return tessel_set_last_error(r.message.c_str());
  return 0;
}

}  // namespace

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
  if (int32_t rc = RefuseNulls("tessel_cuda_program_call", program, name, args, num_args)) {
    return rc;
  }
  return Report(program->program.Call(name, args, num_args));
}

int32_t tessel_cuda_program_enqueue(TesselCudaProgram* program, const char* name,
                                    DLTensor* const* args, int32_t num_args, void* stream) {
  if (int32_t rc = RefuseNulls("tessel_cuda_program_enqueue", program, name, args, num_args)) {
    return rc;
  }
  return Report(program->program.Enqueue(name, args, num_args, stream));
}

}  // extern "C"
