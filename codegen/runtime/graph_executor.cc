// GraphExecutor (see graph_executor.h): the graph function as a GraphProgram,
// run by a GraphRunner over the kernels of a Module; results are NDArrays it
// allocates per call.
#include "codegen/runtime/graph_executor.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/cuda_graph.h"
#include "codegen/runtime/func_signature.h"
#include "ir/graph_memory_plan.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"

namespace tessel::runtime {
namespace {

std::string Count(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// A dimension as a product of a constant and variables: n, 4, 4 * n, b * s.
bool AsProduct(const ir::Expr& e, ProductDim* out) {
  if (const auto* c = ir::dyn_cast<ir::IntImmNode>(e)) {
    return !__builtin_mul_overflow(out->factor, c->value, &out->factor);
  }
  if (const auto* v = ir::dyn_cast<ir::VarNode>(e)) {
    out->vars.push_back(v->name);
    return true;
  }
  if (const auto* m = ir::dyn_cast<ir::BinaryNode>(e); m && m->kind() == ir::NodeKind::kMul) {
    return AsProduct(m->a, out) && AsProduct(m->b, out);
  }
  return false;
}

}  // namespace

absl::StatusOr<GraphProgram> GraphProgramOf(const ir::IRModule& mod, const std::string& name,
                                            bool callee_names) {
  if (!mod) return absl::InvalidArgumentError("graph program: the module is missing");
  ir::GraphFunc g = mod->LookupGraph(name);
  if (!g) {
    return absl::NotFoundError(
        absl::StrCat("graph program: the module has no graph function '", name, "'"));
  }
  TESSEL_RETURN_IF_ERROR(ir::VerifyGraphFunction(mod, g, name));
  TESSEL_ASSIGN_OR_RETURN(ir::MemoryPlan plan, ir::ReadMemoryPlan(g));
  GraphProgram p;
  p.name = name;
  p.num_inputs = static_cast<int>(g->params.size());
  p.num_storages = static_cast<int>(plan.size());
  absl::flat_hash_map<const ir::BufferNode*, int> storage_of, id;
  for (size_t i = 0; i < plan.size(); ++i) {
    for (const ir::Buffer& v : plan[i]) storage_of[v.get()] = static_cast<int>(i);
  }
  absl::flat_hash_map<const ir::BufferNode*, int> results;
  for (const ir::Buffer& r : g->results) results[r.get()] = 0;
  auto add = [&](const ir::Buffer& v, int role) -> absl::Status {
    GraphProgram::Value value;
    value.name = v->name;
    value.role = role;
    TESSEL_ASSIGN_OR_RETURN(value.dtype, ToDLDataType(v->dtype));
    for (const ir::Expr& d : v->shape) {
      ProductDim dim;
      if (!AsProduct(d, &dim)) {
        return absl::UnimplementedError(absl::StrCat(
            "graph function '", name, "': value '", v->name, "' ", ir::TensorTypeText(v),
            ": dimension ", ir::PrintExpr(d),
            " is not a product of constants and shape variables, which a compiled graph "
            "function needs"));
      }
      value.shape.push_back(std::move(dim));
    }
    id[v.get()] = static_cast<int>(p.values.size());
    p.values.push_back(std::move(value));
    return absl::OkStatus();
  };
  for (const ir::Buffer& param : g->params)
    TESSEL_RETURN_IF_ERROR(add(param, GraphProgram::kInput));
  for (const ir::GraphBinding& b : g->bindings) {
    const std::string at =
        absl::StrCat("graph function '", name, "': binding of '", b.outputs[0]->name, "'");
    if (b.call.kind == ir::GraphCall::Kind::kConstant) {
      // The module's own bytes, kept alive by the program (HostBuffers are aligned);
      // offsets are an exported library's, which PackConstants sets. A returned
      // constant is copied into its result, like a returned parameter.
      auto owner = std::make_shared<const ir::HostBuffer>(*mod->LookupConstant(b.call.callee));
      TESSEL_RETURN_IF_ERROR(add(b.outputs[0], GraphProgram::kConstant));
      p.values.back().data = owner->data();
      p.constant_owners.push_back(std::move(owner));
      continue;
    }
    if (b.call.kind != ir::GraphCall::Kind::kCallTir) {
      return absl::FailedPreconditionError(
          absl::StrCat(at, " calls operator ", b.call.callee,
                       ", which has no kernel yet: run `legalize` before building"));
    }
    GraphProgram::Kernel k;
    k.function =
        callee_names ? b.call.callee : FunctionSymbol(b.call.callee, mod->Lookup(b.call.callee));
    for (const ir::Buffer& a : b.call.args) k.args.push_back(id.at(a.get()));
    for (const ir::Buffer& o : b.outputs) {
      int role = GraphProgram::kResult;
      if (!results.contains(o.get())) {
        auto it = storage_of.find(o.get());
        role = it != storage_of.end() ? it->second : p.num_storages++;
      }
      TESSEL_RETURN_IF_ERROR(add(o, role));
      k.args.push_back(static_cast<int>(p.values.size()) - 1);
    }
    k.num_outputs = static_cast<int>(b.outputs.size());
    p.kernels.push_back(std::move(k));
  }
  for (const ir::Buffer& r : g->results) p.results.push_back(id.at(r.get()));
  if (std::string why = ValidateGraphProgram(p); !why.empty())
    return absl::InvalidArgumentError(why);
  return p;
}

struct GraphExecutor::State {
  Module kernels;                      // Keeps the code the runner calls loaded.
  std::shared_ptr<const CudaProgram> cuda;  // Or the GPU program it calls.
  GraphRunner owned;                   // The runner of a graph built in this process.
  const GraphRunner* runner = &owned;  // Or the library's own.
};

absl::StatusOr<GraphExecutor> GraphExecutor::Create(const ir::IRModule& mod,
                                                    const std::string& name, Module kernels) {
  TESSEL_ASSIGN_OR_RETURN(GraphProgram program, GraphProgramOf(mod, name));
  auto s = std::make_shared<State>();
  s->kernels = std::move(kernels);
  const Module& m = s->kernels;
  auto resolve = [&](const std::string& function, GraphRunner::Kernel* out) -> std::string {
    absl::StatusOr<const Module::Function*> f = m.GetFunction(function);
    if (!f.ok()) return absl::StrCat("not compiled: ", f.status().message());
    *out = GraphRunner::Kernel{
        &(*f)->signature, (*f)->packed, (*f)->num_threads, (*f)->cannot_run, {}};
    return "";
  };
  if (std::string why = GraphRunner::Create(std::move(program), resolve, &s->owned); !why.empty()) {
    return absl::FailedPreconditionError(why);
  }
  GraphExecutor ex;
  ex.state_ = std::move(s);
  return ex;
}

absl::StatusOr<GraphExecutor> GraphExecutor::CreateOnCuda(
    const ir::IRModule& mod, const std::string& name, std::shared_ptr<const CudaProgram> program) {
  if (program == nullptr) return absl::InvalidArgumentError("graph executor: no GPU program");
  TESSEL_ASSIGN_OR_RETURN(GraphProgram graph, GraphProgramOf(mod, name, /*callee_names=*/true));
  auto s = std::make_shared<State>();
  s->cuda = std::move(program);
  if (std::string why = CreateCudaGraphRunner(s->cuda.get(), std::move(graph), &s->owned);
      !why.empty()) {
    return absl::FailedPreconditionError(why);
  }
  GraphExecutor ex;
  ex.state_ = std::move(s);
  return ex;
}

absl::StatusOr<GraphExecutor> GraphExecutor::FromLibrary(Module library, const std::string& name) {
  const GraphRunner* runner = library.FindGraph(name);
  if (runner == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no graph function '", name, "' in ",
                     library.library_path().empty() ? "the module" : library.library_path(),
                     " (it has: ", absl::StrJoin(library.GraphNames(), ", "), ")"));
  }
  auto s = std::make_shared<State>();
  s->kernels = std::move(library);
  s->runner = runner;
  GraphExecutor ex;
  ex.state_ = std::move(s);
  return ex;
}

absl::StatusOr<std::vector<NDArray>> GraphExecutor::Run(absl::Span<DLTensor* const> inputs,
                                                        std::vector<double>* kernel_seconds) const {
  const GraphRunner& r = *state_->runner;
  std::vector<DLTensor*> args(inputs.begin(), inputs.end());
  // A GPU program's graph: results allocated on the device, and host inputs, once
  // checked where they are, copied there.
  const DLDevice device = state_->cuda ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0};
  const bool host_inputs =
      state_->cuda && !args.empty() && args[0] != nullptr && args[0]->device.device_type == kDLCPU;
  const DLDevice host{kDLCPU, 0};
  std::vector<std::vector<int64_t>> shapes;
  if (std::string e = r.ResultShapes(args.data(), static_cast<int32_t>(args.size()), &shapes,
                                     host_inputs ? &host : nullptr);
      !e.empty()) {
    return absl::InvalidArgumentError(e);
  }
  std::vector<NDArray> on_device;
  for (DLTensor*& in : args) {
    if (!host_inputs) break;
    // ResultShapes checked it dense and row-major: its bytes go over as they are.
    TESSEL_ASSIGN_OR_RETURN(
        NDArray d,
        NDArray::Zeros(std::vector<int64_t>(in->shape, in->shape + in->ndim), in->dtype, device));
    TESSEL_RETURN_IF_ERROR(d.CopyFromBytes(absl::Span<const uint8_t>(
        static_cast<const uint8_t*>(in->data) + in->byte_offset, static_cast<size_t>(d.nbytes()))));
    on_device.push_back(d);
    in = d.dltensor();
  }
  std::vector<NDArray> results;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const GraphProgram::Value& v = r.program().values[r.program().results[k]];
    TESSEL_ASSIGN_OR_RETURN(NDArray out, NDArray::Zeros(shapes[k], v.dtype, device));
    results.push_back(out);
    args.push_back(out.dltensor());
  }
  CallOutcome outcome = r.Run(args.data(), static_cast<int32_t>(args.size()), kernel_seconds);
  if (outcome.kind == CallOutcome::kBadArgument) return absl::InvalidArgumentError(outcome.message);
  if (outcome.kind == CallOutcome::kKernelFailed) return absl::InternalError(outcome.message);
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

const FunctionSignature& GraphExecutor::signature() const {
  return state_->runner->input_signature();
}

const GraphProgram& GraphExecutor::program() const { return state_->runner->program(); }

std::vector<std::string> GraphExecutor::result_names() const {
  std::vector<std::string> names;
  for (int r : program().results) names.push_back(program().values[r].name);
  return names;
}

int64_t GraphExecutor::planned_bytes() const { return state_->runner->last_call().planned_bytes; }

int64_t GraphExecutor::unplanned_bytes() const {
  return state_->runner->last_call().unplanned_bytes;
}

std::string GraphExecutor::Describe() const {
  const GraphProgram& p = program();
  const GraphRunner::LastCall last = state_->runner->last_call();
  const std::vector<std::vector<int64_t>>& shapes = last.shapes;
  auto type = [&](int v) {
    if (shapes.empty()) {
      std::vector<std::string> dims;
      for (const ProductDim& d : p.values[v].shape) dims.push_back(DimText(d));
      return absl::StrCat(DTypeToString(p.values[v].dtype), "[", absl::StrJoin(dims, ", "), "]");
    }
    return absl::StrCat(DTypeToString(p.values[v].dtype), ShapeText(shapes[v]));
  };
  std::string out = absl::StrCat("graph ", p.name, ": ", Count(p.kernels.size(), "kernel"), ", ",
                                 Count(p.num_storages, "storage"));
  int constants = 0;
  int64_t constant_bytes = 0;
  for (const GraphProgram::Value& v : p.values) {
    if (v.role != GraphProgram::kConstant) continue;
    ++constants;
    constant_bytes += ConstantBytes(v);
  }
  if (!shapes.empty()) {
    absl::StrAppend(&out, " of ", planned_bytes(),
                    " bytes (one per intermediate: ", unplanned_bytes(), ")");
  }
  if (constants > 0) {
    absl::StrAppend(&out, ", ", Count(constants, "constant"), " of ", constant_bytes, " bytes");
  }
  absl::StrAppend(&out, "\n");
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const GraphProgram::Kernel& k = p.kernels[i];
    std::vector<std::string> reads, writes;
    const size_t first_output = k.args.size() - k.num_outputs;
    for (size_t a = 0; a < k.args.size(); ++a) {
      const int v = k.args[a];
      if (a < first_output) {
        reads.push_back(p.values[v].name);
        continue;
      }
      const int role = p.values[v].role;
      writes.push_back(
          absl::StrCat(p.values[v].name, ": ", type(v), " @",
                       role == GraphProgram::kResult ? "result" : absl::StrCat("storage ", role)));
    }
    absl::StrAppend(&out, "  ", i, " ", k.function, "  reads ", absl::StrJoin(reads, ", "),
                    "  writes ", absl::StrJoin(writes, ", "), "\n");
  }
  return out;
}

}  // namespace tessel::runtime
