// The reference run of graph functions (see interpreter.h). Shapes are checked
// at the boundary: each input against its parameter, binding the parameters'
// shape variables; then every value's shape is a number, and each binding gets
// zeroed buffers for its outputs before its kernel runs:
//
//   graph @g[n](x: f32[n, 4]) {        x: 3 x 4 binds n = 3
//     y: f32[n, 4] = relu(x)           y: zeros 3 x 4, relu(x, y) runs
//     return y
//   }
#include "ir/graph/interpreter.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/graph/op_registry.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/verifier.h"

namespace tessel::ir::graph {
namespace {

std::string ShapeText(DataType dtype, const std::vector<int64_t>& shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&dims, i ? ", " : "", shape[i]);
  return absl::StrCat(dtype.ToString(), "[", dims, "]");
}

// A PrimFunc whose parameters are `buffers` and whose body does nothing: the
// per-parameter helpers of the PrimFunc interpreter (RandomArgs, CompareArgs)
// then serve a graph function's inputs and results.
PrimFunc Signature(const std::vector<Buffer>& buffers) {
  std::vector<Param> params;
  for (const Buffer& b : buffers) params.push_back(Param::OfBuffer(b));
  return MakePrimFunc(std::move(params), ValueOrDie(MakeEvaluate(IntImm32(0))));
}

class GraphRun {
 public:
  GraphRun(const IRModule& mod, std::string name, RunOptions opts)
      : mod_(mod), name_(std::move(name)), opts_(std::move(opts)) {}

  absl::StatusOr<std::vector<HostBuffer>> Run(const GraphFunc& g,
                                              const std::vector<HostBuffer>& inputs) {
    std::string where = absl::StrCat("graph function '", name_, "'");
    if (inputs.size() != g->params.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " takes ", g->params.size(), " inputs, got ", inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      TESSEL_RETURN_IF_ERROR(BindInput(g->params[i], inputs[i], i));
    for (const GraphBinding& b : g->bindings) {
      if (b.call.kind == GraphCall::Kind::kConstant) {
        const HostBuffer* c = mod_->LookupConstant(b.call.callee);
        if (c == nullptr) return Fail(b, absl::NotFoundError("the module has no such constant"));
        values_[b.outputs[0].get()] = *c;  // Kernels never write their arguments.
        constants_.insert(b.outputs[0].get());
        continue;
      }
      std::vector<Arg> args;
      for (const Buffer& a : b.call.args) args.emplace_back(values_.at(a.get()));
      for (const Buffer& o : b.outputs) {
        TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Shape(o));
        HostBuffer out = HostBuffer::Zeros(o->dtype, shape);
        values_[o.get()] = out;
        args.emplace_back(out);
      }
      PrimFunc kernel;
      if (b.call.kind == GraphCall::Kind::kCallTir) {
        kernel = mod_->Lookup(b.call.callee);
      } else {
        absl::StatusOr<LegalizedOp> op = LegalizeGraphOp(b);
        if (!op.ok()) return Fail(b, op.status());
        kernel = op->func;
      }
      absl::Status s = ir::Run(kernel, args, opts_, b.call.callee);
      if (!s.ok()) return Fail(b, s);
    }
    std::vector<HostBuffer> results;
    // A returned constant is a copy: the caller may write its results.
    for (const Buffer& r : g->results) {
      results.push_back(constants_.contains(r.get()) ? values_.at(r.get()).Clone()
                                                     : values_.at(r.get()));
    }
    return results;
  }

 private:
  absl::Status Fail(const GraphBinding& b, const absl::Status& s) const {
    return absl::Status(
        s.code(),
        absl::StrCat("graph function '", name_, "': binding of '", b.outputs[0]->name, "' (",
                     GraphCallKindName(b.call.kind), " ", b.call.callee, "): ", s.message()));
  }

  absl::Status BindInput(const Buffer& p, const HostBuffer& in, size_t index) {
    auto mismatch = [&] {
      std::string want;
      for (size_t d = 0; d < p->shape.size(); ++d) {
        absl::StatusOr<int64_t> n = Dim(p->shape[d]);
        absl::StrAppend(&want, d ? ", " : "", n.ok() ? absl::StrCat(*n) : PrintExpr(p->shape[d]));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("graph function '", name_, "': input ", index, " ('", p->name, "') is ",
                       ShapeText(in.dtype(), in.shape()), "; the parameter is ",
                       p->dtype.ToString(), "[", want, "]"));
    };
    if (in.dtype() != p->dtype || in.shape().size() != p->shape.size()) return mismatch();
    for (size_t d = 0; d < p->shape.size(); ++d) {
      if (const auto* v = dyn_cast<VarNode>(p->shape[d]); v && !bound_.contains(v)) {
        // Fails when the extent does not fit the variable's dtype.
        absl::StatusOr<Expr> extent = MakeIntImm(v->dtype, in.shape()[d]);
        if (!extent.ok()) return mismatch();
        bound_.emplace(v, *extent);
      }
    }
    for (size_t d = 0; d < p->shape.size(); ++d) {
      absl::StatusOr<int64_t> n = Dim(p->shape[d]);
      if (!n.ok() || *n != in.shape()[d]) return mismatch();
    }
    values_[p.get()] = in;
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> Dim(const Expr& e) {
    Expr v = ana_.Simplify(Substitute(e, bound_));
    if (const auto* c = dyn_cast<IntImmNode>(v)) return c->value;
    return absl::InvalidArgumentError("a dimension is not a number once the inputs are bound");
  }

  absl::StatusOr<std::vector<int64_t>> Shape(const Buffer& b) {
    std::vector<int64_t> shape;
    for (const Expr& e : b->shape) {
      absl::StatusOr<int64_t> n = Dim(e);
      if (!n.ok() || *n < 0) {
        return absl::InvalidArgumentError(absl::StrCat("graph function '", name_, "': value '",
                                                       b->name,
                                                       "' has a dimension that is not a size"));
      }
      shape.push_back(*n);
    }
    return shape;
  }

  const IRModule& mod_;
  std::string name_;
  RunOptions opts_;
  arith::Analyzer ana_;
  VarMap bound_;
  absl::flat_hash_map<const BufferNode*, HostBuffer> values_;
  absl::flat_hash_set<const BufferNode*> constants_;  // Values that are module constants.
};

}  // namespace

absl::StatusOr<std::vector<HostBuffer>> RunGraph(const IRModule& mod, const std::string& name,
                                                 const std::vector<HostBuffer>& inputs,
                                                 RunOptions opts) {
  if (!mod) return absl::InvalidArgumentError("RunGraph: the module is missing");
  GraphFunc g = mod->LookupGraph(name);
  if (!g)
    return absl::NotFoundError(
        absl::StrCat("RunGraph: the module has no graph function '", name, "'"));
  TESSEL_RETURN_IF_ERROR(VerifyGraphFunction(mod, g, name));
  // Kernels write their outputs only, but a caller's buffers must survive any
  // kernel: each run reads copies.
  std::vector<HostBuffer> copies;
  for (const HostBuffer& in : inputs) copies.push_back(in.Clone());
  GraphRun run(mod, name, std::move(opts));
  return run.Run(g, copies);
}

absl::StatusOr<std::vector<HostBuffer>> RandomGraphInputs(
    const GraphFunc& func, uint64_t seed,
    const std::vector<std::pair<std::string, int64_t>>& symbolic_values) {
  if (!func) return absl::InvalidArgumentError("RandomGraphInputs: the function is missing");
  TESSEL_ASSIGN_OR_RETURN(std::vector<Arg> args,
                          RandomArgs(Signature(func->params), seed, symbolic_values));
  std::vector<HostBuffer> out;
  for (Arg& a : args) out.push_back(std::get<HostBuffer>(std::move(a)));
  return out;
}

absl::Status CheckSameGraphResults(const IRModule& a, const IRModule& b, const std::string& name,
                                   uint64_t seed, CompareOptions opts, RunOptions run) {
  GraphFunc ga = a ? a->LookupGraph(name) : GraphFunc();
  if (!ga)
    return absl::NotFoundError(
        absl::StrCat("CheckSameGraphResults: no graph function '", name, "'"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<HostBuffer> inputs, RandomGraphInputs(ga, seed));
  TESSEL_ASSIGN_OR_RETURN(std::vector<HostBuffer> want, RunGraph(a, name, inputs, run));
  TESSEL_ASSIGN_OR_RETURN(std::vector<HostBuffer> got, RunGraph(b, name, inputs, run));
  return CompareGraphResults(want, got, ga, opts);
}

absl::Status CompareGraphResults(const std::vector<HostBuffer>& want,
                                 const std::vector<HostBuffer>& got, const GraphFunc& func,
                                 CompareOptions opts) {
  if (want.size() != got.size() || want.size() != func->results.size()) {
    return absl::InvalidArgumentError(absl::StrCat("comparing ", want.size(), " results with ",
                                                   got.size(), " of a function that returns ",
                                                   func->results.size()));
  }
  std::vector<Arg> want_args(want.begin(), want.end()), got_args(got.begin(), got.end());
  return CompareArgs(want_args, got_args, Signature(func->results), opts);
}

}  // namespace tessel::ir::graph
