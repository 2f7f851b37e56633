// GraphRunner (see graph_runner.h).
#include "codegen/runtime/graph_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "codegen/runtime/thread_pool.h"

namespace tessel::runtime {

GraphMemory GraphMemory::Host() {
  GraphMemory m;
  m.alloc = [](size_t bytes, std::string* error) -> void* {
    const size_t rounded = (bytes + kArgumentAlignment) / kArgumentAlignment * kArgumentAlignment;
    void* p = std::aligned_alloc(kArgumentAlignment, rounded);
    if (p == nullptr) *error = "out of memory";
    return p;
  };
  m.free = [](void* p) { std::free(p); };
  m.copy = [](void* dst, const void* src, size_t bytes) {
    std::memmove(dst, src, bytes);
    return std::string();
  };
  return m;
}

std::string GraphRunner::Create(GraphProgram program, const Resolve& resolve, GraphRunner* out,
                                GraphMemory memory) {
  if (std::string why = ValidateGraphProgram(program); !why.empty()) return why;
  // A device's memory must say how constants get there; every memory how to
  // allocate, free and copy.
  if (!memory.alloc || !memory.free || !memory.copy ||
      (memory.device.device_type != kDLCPU && !memory.upload)) {
    return "graph " + program.name + ": its memory lacks an allocator, a free, a copy or an upload";
  }
  for (const GraphProgram::Value& v : program.values) {
    if (v.role != GraphProgram::kConstant || ConstantBytes(v) == 0) continue;
    if (v.data == nullptr || reinterpret_cast<uintptr_t>(v.data) % kArgumentAlignment != 0) {
      return "graph " + program.name + ": constant '" + v.name + "' has no data, or unaligned data";
    }
  }
  GraphRunner r;
  r.call_signature_ = program.CallSignature();
  r.input_signature_ = r.call_signature_;
  r.input_signature_.params.resize(program.num_inputs);
  for (const GraphProgram::Kernel& k : program.kernels) {
    Kernel resolved;
    if (std::string why = resolve(k.function, &resolved); !why.empty()) {
      return "graph " + program.name + ": kernel " + k.function + ": " + why;
    }
    if (resolved.packed == nullptr && !resolved.call) {
      return "graph " + program.name + ": kernel " + k.function + " has no entry point";
    }
    if (resolved.signature == nullptr || resolved.signature->params.size() != k.args.size()) {
      return "graph " + program.name + ": kernel " + k.function + " takes " +
             (resolved.signature ? std::to_string(resolved.signature->params.size()) : "no") +
             " arguments, the graph passes " + std::to_string(k.args.size());
    }
    // Graph calls are pure: a kernel that may store into what it only reads would
    // change an input, or a value a later kernel still needs.
    const std::vector<ParamSignature>& params = resolved.signature->params;
    for (size_t a = 0; a < params.size(); ++a) {
      const bool output = a + k.num_outputs >= params.size();
      if (!params[a].is_buffer || (!output && params[a].written)) {
        return "graph " + program.name + ": kernel " + k.function + " may write its argument " +
               std::to_string(a) + " (" + params[a].name + "), which the graph only reads" +
               (params[a].is_buffer ? "" : " (it is not even a buffer)");
      }
    }
    r.kernels_.push_back(resolved);
  }
  r.program_ = std::move(program);
  r.memory_ = std::move(memory);
  *out = std::move(r);
  return "";
}

GraphRunner::GraphRunner(GraphRunner&& o) noexcept { *this = std::move(o); }

GraphRunner& GraphRunner::operator=(GraphRunner&& o) noexcept {
  if (this == &o) return *this;
  FreeMemory();
  program_ = std::move(o.program_);
  call_signature_ = std::move(o.call_signature_);
  input_signature_ = std::move(o.input_signature_);
  kernels_ = std::move(o.kernels_);
  shapes_ = std::move(o.shapes_);
  storage_ = std::move(o.storage_);
  storage_bytes_ = std::move(o.storage_bytes_);
  planned_ = o.planned_;
  unplanned_ = o.unplanned_;
  memory_ = std::move(o.memory_);
  constants_ = std::move(o.constants_);
  o.storage_.clear();
  o.storage_bytes_.clear();
  o.constants_.clear();
  return *this;
}

GraphRunner::~GraphRunner() { FreeMemory(); }

void GraphRunner::FreeMemory() {
  for (void* p : storage_) {
    if (p != nullptr) memory_.free(p);
  }
  for (void* p : constants_) {
    if (p != nullptr) memory_.free(p);
  }
  storage_.clear();
  constants_.clear();
}

std::string GraphRunner::PlaceConstantsInMemory() const {
  if (!memory_.upload || !constants_.empty()) return "";
  std::vector<void*> placed(program_.values.size(), nullptr);
  auto fail = [&](std::string why) {
    for (void* p : placed) {
      if (p != nullptr) memory_.free(p);
    }
    return why;
  };
  for (size_t v = 0; v < program_.values.size(); ++v) {
    const GraphProgram::Value& value = program_.values[v];
    const int64_t bytes = ConstantBytes(value);
    if (value.role != GraphProgram::kConstant || bytes == 0) continue;
    std::string error;
    placed[v] = memory_.alloc(static_cast<size_t>(bytes), &error);
    if (placed[v] == nullptr) return fail("constant '" + value.name + "': " + error);
    if (std::string e = memory_.upload(placed[v], value.data, static_cast<size_t>(bytes));
        !e.empty()) {
      return fail("constant '" + value.name + "': " + e);
    }
  }
  constants_ = std::move(placed);
  return "";
}

std::string GraphRunner::Prepare(DLTensor* const* args) const {
  const GraphProgram& g = program_;
  const std::string where = DescribeSignature(call_signature_);
  const ShapeBindings vars = BindShapeVars(call_signature_, args);
  std::vector<std::vector<int64_t>> shapes(g.values.size());
  std::vector<int64_t> bytes(g.num_storages, 0);
  int64_t unplanned = 0;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const GraphProgram::Value& value = g.values[v];
    for (size_t d = 0; d < value.shape.size(); ++d) {
      int64_t n;
      if (!EvaluateDim(value.shape[d], vars, &n) || n < 0) {
        return where + ": value '" + value.name + "': dimension " + std::to_string(d) + " (" +
               DimText(value.shape[d]) + ") is not a size for these inputs";
      }
      shapes[v].push_back(n);
    }
    if (value.role < 0) continue;
    int64_t b = DTypeBytes(value.dtype);
    for (int64_t n : shapes[v]) {
      if (__builtin_mul_overflow(b, n, &b))
        return where + ": value '" + value.name + "' is too large";
    }
    bytes[value.role] = std::max(bytes[value.role], b);
    if (__builtin_add_overflow(unplanned, b, &unplanned))
      return where + ": the values are too large";
  }
  // Dimensions that are products, which the signature's check could not see.
  auto check = [&](int arg, int v) -> std::string {
    std::vector<int64_t> given(args[arg]->shape, args[arg]->shape + args[arg]->ndim);
    if (given == shapes[v]) return "";
    return where + ": argument " + std::to_string(arg) + " (" + call_signature_.params[arg].name +
           "): expected shape " + ShapeText(shapes[v]) + ", given " + ShapeText(given);
  };
  for (int i = 0; i < g.num_inputs; ++i) {
    if (std::string e = check(i, i); !e.empty()) return e;
  }
  for (size_t k = 0; k < g.results.size(); ++k) {
    if (std::string e = check(g.num_inputs + static_cast<int>(k), g.results[k]); !e.empty())
      return e;
  }
  storage_.resize(g.num_storages, nullptr);
  storage_bytes_.resize(g.num_storages, -1);
  int64_t planned = 0;
  for (int s = 0; s < g.num_storages; ++s) {
    planned += bytes[s];  // At most `unplanned`, which did not overflow.
    if (storage_bytes_[s] >= bytes[s]) continue;
    if (storage_[s] != nullptr) memory_.free(storage_[s]);
    std::string error;
    storage_[s] = memory_.alloc(static_cast<size_t>(bytes[s]), &error);
    storage_bytes_[s] = storage_[s] ? bytes[s] : -1;
    if (storage_[s] == nullptr) {
      return where + ": cannot allocate " + std::to_string(bytes[s]) + " bytes of storage" +
             (error.empty() ? "" : ": " + error);
    }
  }
  shapes_ = std::move(shapes);
  planned_ = planned;
  unplanned_ = unplanned;
  return "";
}

CallOutcome GraphRunner::Run(DLTensor* const* args, int32_t num_args,
                             std::vector<double>* kernel_seconds) const {
  const GraphProgram& g = program_;
  PackedArgs checked;
  if (std::string e = PackArguments(call_signature_, args, num_args, &checked, memory_.device);
      !e.empty())
    return {CallOutcome::kBadArgument, e};
  for (size_t k = 0; k < kernels_.size(); ++k) {
    if (!kernels_[k].cannot_run.empty()) {
      return {CallOutcome::kKernelFailed, "graph " + g.name + ": kernel " + g.kernels[k].function +
                                              ": " + kernels_[k].cannot_run};
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (std::string e = Prepare(args); !e.empty()) return {CallOutcome::kBadArgument, e};
  if (std::string e = PlaceConstantsInMemory(); !e.empty()) {
    return {CallOutcome::kKernelFailed, "graph " + g.name + ": " + e};
  }
  std::vector<DLTensor> tensors(g.values.size());
  std::vector<bool> from_caller(g.values.size(), false);
  for (size_t k = 0; k < g.results.size(); ++k) {
    const int v = g.results[k];
    if (g.values[v].role == GraphProgram::kResult && !from_caller[v]) {
      tensors[v] = *args[g.num_inputs + k];
      from_caller[v] = true;
    }
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    const int role = g.values[v].role;
    if (role == GraphProgram::kInput) {
      tensors[v] = *args[v];
    } else if (role >= 0 || role == GraphProgram::kConstant) {
      DLTensor& t = tensors[v];
      t = DLTensor{};
      t.data = role >= 0            ? storage_[role]
               : constants_.empty() ? const_cast<void*>(g.values[v].data)
                                    : constants_[v];
      t.device = memory_.device;
      t.ndim = static_cast<int32_t>(shapes_[v].size());
      t.dtype = g.values[v].dtype;
      t.shape = shapes_[v].data();
    }
  }
  std::vector<DLTensor*> call;
  if (kernel_seconds != nullptr) kernel_seconds->assign(g.kernels.size(), 0.0);
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    call.clear();
    for (int a : g.kernels[k].args) call.push_back(&tensors[a]);
    ThreadPool::CallThreads threads(kernels_[k].num_threads);
    const auto start = std::chrono::steady_clock::now();
    const int32_t n = static_cast<int32_t>(call.size());
    CallOutcome o = kernels_[k].call
                        ? kernels_[k].call(call.data(), n)
                        : CheckAndCall(*kernels_[k].signature, kernels_[k].packed, call.data(), n);
    if (kernel_seconds != nullptr) {
      (*kernel_seconds)[k] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (o.kind != CallOutcome::kOk) {
      return {CallOutcome::kKernelFailed, "graph " + g.name + ": kernel " + std::to_string(k) +
                                              " (" + g.kernels[k].function + "): " + o.message};
    }
  }
  // A parameter returned as it is, or a value returned twice: copied into its result.
  std::vector<bool> written(g.values.size(), false);
  for (size_t k = 0; k < g.results.size(); ++k) {
    const int v = g.results[k];
    DLTensor* dst = args[g.num_inputs + k];
    if (g.values[v].role == GraphProgram::kResult && !written[v]) {
      written[v] = true;
      continue;
    }
    const DLTensor& src = tensors[v];
    int64_t n = DTypeBytes(src.dtype);
    for (int d = 0; d < src.ndim; ++d) n *= src.shape[d];
    if (n == 0) continue;  // Empty: its data may be NULL.
    if (std::string e = memory_.copy(static_cast<char*>(dst->data) + dst->byte_offset,
                                     static_cast<const char*>(src.data) + src.byte_offset,
                                     static_cast<size_t>(n));
        !e.empty()) {
      return {CallOutcome::kKernelFailed,
              "graph " + g.name + ": result " + std::to_string(k) + ": " + e};
    }
  }
  return {CallOutcome::kOk, ""};
}

std::string GraphRunner::ResultShapes(DLTensor* const* inputs, int32_t num_inputs,
                                      std::vector<std::vector<int64_t>>* out,
                                      const DLDevice* inputs_on) const {
  PackedArgs checked;
  if (std::string e = PackArguments(input_signature_, inputs, num_inputs, &checked,
                                    inputs_on != nullptr ? *inputs_on : memory_.device);
      !e.empty())
    return e;
  const ShapeBindings vars = BindShapeVars(input_signature_, inputs);
  out->clear();
  for (int r : program_.results) {
    std::vector<int64_t> shape;
    for (const ProductDim& d : program_.values[r].shape) {
      int64_t n;
      if (!EvaluateDim(d, vars, &n) || n < 0) {
        return DescribeSignature(input_signature_) + ": result '" + program_.values[r].name +
               "': dimension " + DimText(d) + " is not a size for these inputs";
      }
      shape.push_back(n);
    }
    out->push_back(std::move(shape));
  }
  return "";
}

GraphRunner::LastCall GraphRunner::last_call() const {
  std::lock_guard<std::mutex> lock(mu_);
  return LastCall{shapes_, planned_, unplanned_};
}

}  // namespace tessel::runtime
