// GraphExecutor (see graph_executor.h). Values are numbered: parameters first,
// then binding outputs in order. Each is an input (the caller's tensor), an
// intermediate (a view of its storage) or a result (a fresh NDArray per call).
#include "codegen/runtime/graph_executor.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/func_signature.h"
#include "ir/arith/analyzer.h"
#include "ir/graph_memory_plan.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/verifier.h"

namespace tessel::runtime {
namespace {

constexpr int kInput = -1;
constexpr int kResult = -2;

std::string Count(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace

struct GraphExecutor::State {
  struct Kernel {
    std::string callee;
    const Module::Function* function = nullptr;
    std::vector<int> args;  // Value ids: the call's arguments, then its outputs.
    size_t num_outputs = 0;
  };

  std::string name;
  ir::GraphFunc graph;
  Module kernels;  // Keeps the code of `Kernel::function` loaded.
  FunctionSignature signature;
  std::vector<ir::Buffer> values;
  std::vector<DLDataType> dtypes;
  std::vector<int> storage_of;  // A storage id, kInput or kResult, by value.
  int num_storages = 0;
  std::vector<Kernel> sequence;
  std::vector<int> results;

  std::mutex mu;  // Guards what follows, the state of the last call's shapes.
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::vector<int64_t>> shapes;  // By value.
  std::vector<NDArray> storage;
  int64_t planned = 0, unplanned = 0;

  absl::Status Prepare(absl::Span<DLTensor* const> inputs);
  std::string Where(const Kernel& k) const {
    return absl::StrCat("graph function '", name, "': binding of '",
                        values[k.args[k.args.size() - k.num_outputs]]->name, "' (call_tir @",
                        k.callee, ")");
  }
};

absl::StatusOr<GraphExecutor> GraphExecutor::Create(const ir::IRModule& mod,
                                                    const std::string& name, Module kernels) {
  if (!mod) return absl::InvalidArgumentError("GraphExecutor: the module is missing");
  ir::GraphFunc g = mod->LookupGraph(name);
  if (!g) {
    return absl::NotFoundError(
        absl::StrCat("GraphExecutor: the module has no graph function '", name, "'"));
  }
  TESSEL_RETURN_IF_ERROR(ir::VerifyGraphFunction(mod, g, name));
  auto s = std::make_shared<State>();
  s->name = name;
  s->graph = g;
  s->kernels = std::move(kernels);
  s->signature.name = name;
  absl::flat_hash_map<const ir::BufferNode*, int> id;
  auto add = [&](const ir::Buffer& v, int storage) -> absl::Status {
    TESSEL_ASSIGN_OR_RETURN(DLDataType dtype, ToDLDataType(v->dtype));
    id[v.get()] = static_cast<int>(s->values.size());
    s->values.push_back(v);
    s->dtypes.push_back(dtype);
    s->storage_of.push_back(storage);
    return absl::OkStatus();
  };
  int extra = 0;  // Composite dimensions (n * 2) are checked once the inputs are bound.
  for (const ir::Buffer& p : g->params) {
    TESSEL_RETURN_IF_ERROR(add(p, kInput));
    std::vector<Dim> dims;
    for (const ir::Expr& d : p->shape) {
      if (const auto* c = ir::dyn_cast<ir::IntImmNode>(d)) {
        dims.push_back(Dim::Const(c->value));
      } else if (const auto* v = ir::dyn_cast<ir::VarNode>(d)) {
        dims.push_back(Dim::Var(v->name));
      } else {
        dims.push_back(Dim::Var(absl::StrCat("dim_", extra++)));
      }
    }
    s->signature.params.push_back(
        ParamSignature::Buffer(p->name, s->dtypes.back(), std::move(dims), /*written=*/false));
  }
  TESSEL_ASSIGN_OR_RETURN(ir::MemoryPlan plan, ir::ReadMemoryPlan(g));
  absl::flat_hash_map<const ir::BufferNode*, int> planned;
  for (size_t i = 0; i < plan.size(); ++i) {
    for (const ir::Buffer& v : plan[i]) planned[v.get()] = static_cast<int>(i);
  }
  s->num_storages = static_cast<int>(plan.size());
  absl::flat_hash_map<const ir::BufferNode*, int> results;
  for (const ir::Buffer& r : g->results) results[r.get()] = 0;
  for (const ir::GraphBinding& b : g->bindings) {
    const std::string at =
        absl::StrCat("graph function '", name, "': binding of '", b.outputs[0]->name, "'");
    if (b.call.kind != ir::GraphCall::Kind::kCallTir) {
      return absl::FailedPreconditionError(
          absl::StrCat(at, " calls operator ", b.call.callee,
                       ", which has no kernel yet: run `legalize` before building"));
    }
    State::Kernel k;
    k.callee = b.call.callee;
    const ir::PrimFunc callee = mod->Lookup(b.call.callee);
    absl::StatusOr<const Module::Function*> f =
        s->kernels.GetFunction(FunctionSymbol(b.call.callee, callee));
    if (!f.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          at, ": PrimFunc ", b.call.callee, " was not compiled: ", f.status().message()));
    }
    k.function = *f;
    for (const ir::Buffer& a : b.call.args) k.args.push_back(id.at(a.get()));
    for (const ir::Buffer& o : b.outputs) {
      int storage = kResult;
      if (!results.contains(o.get())) {
        auto it = planned.find(o.get());
        storage = it != planned.end() ? it->second : s->num_storages++;
      }
      TESSEL_RETURN_IF_ERROR(add(o, storage));
      k.args.push_back(static_cast<int>(s->values.size()) - 1);
    }
    k.num_outputs = b.outputs.size();
    s->sequence.push_back(std::move(k));
  }
  for (const ir::Buffer& r : g->results) s->results.push_back(id.at(r.get()));
  GraphExecutor ex;
  ex.state_ = std::move(s);
  return ex;
}

// Binds the shape variables to the inputs' extents, then sizes every value and
// (re)allocates the storage; skipped when the shapes are the last call's.
absl::Status GraphExecutor::State::Prepare(absl::Span<DLTensor* const> inputs) {
  std::vector<std::vector<int64_t>> now;
  for (DLTensor* t : inputs) now.emplace_back(t->shape, t->shape + t->ndim);
  if (!shapes.empty() && now == input_shapes) return absl::OkStatus();
  ir::VarMap bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Buffer& p = values[i];
    for (size_t d = 0; d < p->shape.size(); ++d) {
      if (const auto* v = ir::dyn_cast<ir::VarNode>(p->shape[d]); v && !bound.contains(v)) {
        absl::StatusOr<ir::Expr> extent = ir::MakeIntImm(v->dtype, now[i][d]);
        if (!extent.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat(DescribeSignature(signature), ": input ", i, " (", p->name, "): extent ",
                           now[i][d], " of dimension ", d, " does not fit ", v->dtype.ToString(),
                           " variable '", v->name, "'"));
        }
        bound.emplace(v, *extent);
      }
    }
  }
  ir::arith::Analyzer ana;
  std::vector<std::vector<int64_t>> sized(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    for (const ir::Expr& e : values[v]->shape) {
      const auto* c = ir::dyn_cast<ir::IntImmNode>(ana.Simplify(ir::Substitute(e, bound)));
      if (c == nullptr || c->value < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("graph function '", name, "': value '", values[v]->name, "' ",
                         ir::TensorTypeText(values[v]), " has a dimension that is not a size"));
      }
      sized[v].push_back(c->value);
    }
    if (v < inputs.size() && sized[v] != now[v]) {
      return absl::InvalidArgumentError(
          absl::StrCat(DescribeSignature(signature), ": input ", v, " (", values[v]->name,
                       "): expected shape ", ShapeText(sized[v]), " (",
                       ir::TensorTypeText(values[v]), "), given ", ShapeText(now[v])));
    }
  }
  std::vector<int64_t> bytes(num_storages, 0);
  int64_t all = 0;
  for (size_t v = 0; v < values.size(); ++v) {
    if (storage_of[v] < 0) continue;
    int64_t n = DTypeBytes(dtypes[v]);
    for (int64_t d : sized[v]) {
      if (__builtin_mul_overflow(n, d, &n)) {
        return absl::InvalidArgumentError(absl::StrCat("graph function '", name, "': value '",
                                                       values[v]->name, "' is too large"));
      }
    }
    bytes[storage_of[v]] = std::max(bytes[storage_of[v]], n);
    all += n;
  }
  std::vector<NDArray> fresh(num_storages);
  int64_t total = 0;
  for (int i = 0; i < num_storages; ++i) {
    total += bytes[i];
    if (i < static_cast<int>(storage.size()) && storage[i].nbytes() >= bytes[i]) {
      fresh[i] = storage[i];
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(fresh[i], NDArray::Zeros({bytes[i]}, DLDataType{kDLUInt, 8, 1}));
  }
  storage = std::move(fresh);
  shapes = std::move(sized);
  input_shapes = std::move(now);
  planned = total;
  unplanned = all;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> GraphExecutor::Run(absl::Span<DLTensor* const> inputs) const {
  State& s = *state_;
  PackedArgs checked;
  if (std::string e =
          PackArguments(s.signature, inputs.data(), static_cast<int32_t>(inputs.size()), &checked);
      !e.empty()) {
    return absl::InvalidArgumentError(e);
  }
  std::lock_guard<std::mutex> lock(s.mu);
  TESSEL_RETURN_IF_ERROR(s.Prepare(inputs));
  std::vector<DLTensor> tensors(s.values.size());
  absl::flat_hash_map<int, NDArray> outputs;
  for (size_t v = 0; v < s.values.size(); ++v) {
    if (s.storage_of[v] == kInput) {
      tensors[v] = *inputs[v];
      continue;
    }
    if (s.storage_of[v] == kResult) {
      TESSEL_ASSIGN_OR_RETURN(NDArray out, NDArray::Zeros(s.shapes[v], s.dtypes[v]));
      tensors[v] = *out.dltensor();
      outputs.emplace(static_cast<int>(v), std::move(out));
      continue;
    }
    DLTensor& t = tensors[v];
    t = DLTensor{};
    t.data = s.storage[s.storage_of[v]].data();
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(s.shapes[v].size());
    t.dtype = s.dtypes[v];
    t.shape = s.shapes[v].data();
  }
  std::vector<DLTensor*> args;
  for (const State::Kernel& k : s.sequence) {
    args.clear();
    for (int a : k.args) args.push_back(&tensors[a]);
    if (absl::Status st = CallFunction(*k.function, args); !st.ok())
      return absl::InternalError(absl::StrCat(s.Where(k), ": ", st.message()));
  }
  std::vector<NDArray> results;
  for (int r : s.results) {
    if (auto it = outputs.find(r); it != outputs.end()) {
      results.push_back(it->second);
    } else {  // A parameter returned as it is: the caller gets a copy.
      TESSEL_ASSIGN_OR_RETURN(NDArray copy, NDArray::CopyOf(*inputs[r]));
      results.push_back(std::move(copy));
    }
  }
  return results;
}

absl::StatusOr<std::vector<NDArray>> GraphExecutor::Run(absl::Span<const NDArray> inputs) const {
  std::vector<DLTensor*> tensors;
  for (const NDArray& a : inputs) {
    if (!a.defined()) return absl::InvalidArgumentError("GraphExecutor: an input is undefined");
    tensors.push_back(a.dltensor());
  }
  return Run(tensors);
}

const FunctionSignature& GraphExecutor::signature() const { return state_->signature; }

std::vector<std::string> GraphExecutor::result_names() const {
  std::vector<std::string> names;
  for (int r : state_->results) names.push_back(state_->values[r]->name);
  return names;
}

int64_t GraphExecutor::planned_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->planned;
}

int64_t GraphExecutor::unplanned_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->unplanned;
}

std::string GraphExecutor::Describe() const {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  auto type = [&](int v) {
    if (s.shapes.empty()) return ir::TensorTypeText(s.values[v]);
    return absl::StrCat(s.values[v]->dtype.ToString(), ShapeText(s.shapes[v]));
  };
  std::string out = absl::StrCat("graph ", s.name, ": ", Count(s.sequence.size(), "kernel"), ", ",
                                 Count(s.num_storages, "storage"));
  if (!s.shapes.empty()) {
    absl::StrAppend(&out, " of ", s.planned, " bytes (one per intermediate: ", s.unplanned, ")");
  }
  absl::StrAppend(&out, "\n");
  for (size_t i = 0; i < s.sequence.size(); ++i) {
    const State::Kernel& k = s.sequence[i];
    std::vector<std::string> reads, writes;
    for (size_t a = 0; a < k.args.size(); ++a) {
      const int v = k.args[a];
      if (a + k.num_outputs < k.args.size()) {
        reads.push_back(s.values[v]->name);
        continue;
      }
      std::string where =
          s.storage_of[v] == kResult ? "result" : absl::StrCat("storage ", s.storage_of[v]);
      writes.push_back(absl::StrCat(s.values[v]->name, ": ", type(v), " @", where));
    }
    absl::StrAppend(&out, "  ", i, " ", k.callee, "  reads ", absl::StrJoin(reads, ", "),
                    "  writes ", absl::StrJoin(writes, ", "), "\n");
  }
  return out;
}

}  // namespace tessel::runtime
