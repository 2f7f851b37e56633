// The verifier's checks of graph functions (ir/graph_function.h):
//
// - values are tensors: global buffers without strides or offsets, of a scalar
//   dtype, with dimensions that are non-negative where constant;
// - every shape variable is a whole dimension of some parameter, so that a call
//   can read it off its inputs; every other variable in a shape is an error;
// - every value is defined once (a parameter or one binding's output) and used
//   only after its definition; every result is defined;
// - `call_tir @f(args)` names a PrimFunc of the module whose parameters are
//   buffers, one per argument then one per output, each of the same dtype and
//   rank and of a provably equal shape once f's shape variables are bound from
//   the call's values.
//
//   graph @g(x: f32[8]) {
//     y: f32[4] = call_tir @copy(x)      // copy(A: f32[n], B: f32[n]) binds n = 8
//     return y                            // error: B is f32[8], y is f32[4]
//   }
//
// - `const @w` names a constant of the module, of the value's dtype and shape.
//
// Operators are the op library's (ir/graph/op_registry.h), checked there.
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/call_tir_shape_vars.h"
#include "ir/graph_memory_plan.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/verifier.h"
#include "ir/written_buffers.h"

namespace tessel::ir {
namespace {

class GraphVerifier {
 public:
  GraphVerifier(const IRModule& mod, std::string name)
      : mod_(mod), where_(absl::StrCat("verify: graph function '", name, "'")) {}

  absl::Status Verify(const GraphFunc& g) {
    for (const Buffer& p : g->params) {
      for (const Expr& d : p->shape) {
        if (const auto* v = dyn_cast<VarNode>(d)) shape_vars_.insert(v);
      }
    }
    for (const Buffer& p : g->params) TESSEL_RETURN_IF_ERROR(Define(p, "parameter"));
    for (size_t i = 0; i < g->bindings.size(); ++i) {
      const GraphBinding& b = g->bindings[i];
      std::string at = absl::StrCat(where_, ": binding ", i, " (", OutputNames(b), ")");
      for (const Buffer& a : b.call.args) {
        if (!defined_.contains(a.get())) {
          return absl::InvalidArgumentError(
              absl::StrCat(at, ": argument '", a->name, "' is used before it is defined"));
        }
      }
      for (const Buffer& o : b.outputs) TESSEL_RETURN_IF_ERROR(Define(o, at));
      if (b.call.kind == GraphCall::Kind::kCallTir) TESSEL_RETURN_IF_ERROR(CheckCallTir(b, at));
      if (b.call.kind == GraphCall::Kind::kConstant) TESSEL_RETURN_IF_ERROR(CheckConstant(b, at));
    }
    for (const Buffer& r : g->results) {
      if (!defined_.contains(r.get())) {
        return absl::InvalidArgumentError(
            absl::StrCat(where_, ": result '", r->name, "' is never defined"));
      }
    }
    if (absl::StatusOr<MemoryPlan> plan = ReadMemoryPlan(g); !plan.ok())
      return absl::InvalidArgumentError(absl::StrCat(where_, ": ", plan.status().message()));
    return absl::OkStatus();
  }

 private:
  static std::string OutputNames(const GraphBinding& b) {
    std::string out;
    for (size_t i = 0; i < b.outputs.size(); ++i)
      absl::StrAppend(&out, i ? ", " : "", b.outputs[i]->name);
    return out;
  }

  absl::Status Define(const Buffer& v, const std::string& what) {
    std::string at = absl::StrCat(what == "parameter" ? where_ + ": parameter" : what + ": value",
                                  " '", v->name, "'");
    if (!defined_.insert(v.get()).second)
      return absl::InvalidArgumentError(absl::StrCat(at, " is defined twice"));
    if (v->scope != "global" || !v->strides.empty() || !IsZeroOffset(v->elem_offset)) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, " is a tensor: global, without strides or an offset"));
    }
    if (v->dtype.lanes() != 1 || v->dtype.is_handle()) {
      return absl::InvalidArgumentError(absl::StrCat(at, " has dtype ", v->dtype.ToString(),
                                                     "; a tensor's elements are scalars"));
    }
    for (const Expr& d : v->shape) {
      if (const auto* c = dyn_cast<IntImmNode>(d); c && c->value < 0) {
        return absl::InvalidArgumentError(absl::StrCat(at, " has a negative dimension ", c->value));
      }
      for (const Var& var : arith::CollectVars(d)) {
        if (shape_vars_.contains(var.get())) continue;
        return absl::InvalidArgumentError(absl::StrCat(
            at, ": shape variable '", var->name, "' is not a whole dimension of any parameter"));
      }
    }
    return absl::OkStatus();
  }

  static bool IsZeroOffset(const Expr& e) {
    const auto* c = dyn_cast<IntImmNode>(e);
    return !e || (c && c->value == 0);
  }

  absl::Status CheckConstant(const GraphBinding& b, const std::string& at) {
    const HostBuffer* c = mod_->LookupConstant(b.call.callee);
    if (c == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(at, ": const @", b.call.callee,
                                                     ": the module has no constant of that name"));
    }
    const Buffer& v = b.outputs[0];
    bool same = v->dtype == c->dtype() && v->shape.size() == c->shape().size();
    for (size_t d = 0; same && d < v->shape.size(); ++d) {
      const auto* dim = dyn_cast<IntImmNode>(v->shape[d]);
      same = dim != nullptr && dim->value == c->shape()[d];
    }
    if (!same) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": value '", v->name, "' is ", TensorTypeText(v), " but constant @",
                       b.call.callee, " is ", TensorTypeText(c->dtype(), c->shape())));
    }
    return absl::OkStatus();
  }

  absl::Status CheckCallTir(const GraphBinding& b, const std::string& at) {
    PrimFunc f = mod_->Lookup(b.call.callee);
    if (!f) {
      std::string hint = mod_->LookupGraph(b.call.callee) ? " (it is a graph function)" : "";
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": call_tir @", b.call.callee, ": no PrimFunc of that name", hint));
    }
    std::vector<Buffer> passed = b.call.args;
    passed.insert(passed.end(), b.outputs.begin(), b.outputs.end());
    if (f->params.size() != passed.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": call_tir @", b.call.callee, " passes ", b.call.args.size(), " arguments and ",
          b.outputs.size(), " outputs, but the PrimFunc has ", f->params.size(), " parameters"));
    }
    // Graph calls are pure: a callee that may store into an argument would change
    // a value other bindings read (or a parameter of the graph).
    auto cached = written_.find(f.get());
    if (cached == written_.end()) cached = written_.emplace(f.get(), WrittenBuffers(f)).first;
    for (size_t i = 0; i < b.call.args.size(); ++i) {
      const Param& p = f->params[i];
      if (p.is_buffer() && cached->second.count(p.buffer.get())) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ": call_tir @", b.call.callee, " writes its parameter '", p.name(),
                         "', which receives argument '", passed[i]->name,
                         "': a call_tir writes only its outputs"));
      }
    }
    VarMap bound;
    arith::Analyzer ana;
    // Check every parameter's kind, dtype and rank first, then bind the callee's
    // shape variables and compare every dimension.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) bound = CallTirShapeVars(f, passed);
      for (size_t i = 0; i < passed.size(); ++i) {
        const Param& p = f->params[i];
        std::string what = absl::StrCat(at, ": call_tir @", b.call.callee, ": ",
                                        i < b.call.args.size() ? "argument '" : "output '",
                                        passed[i]->name, "' for parameter '", p.name(), "'");
        if (!p.is_buffer())
          return absl::InvalidArgumentError(
              absl::StrCat(what, " is a scalar; call_tir passes buffers only"));
        const Buffer& q = p.buffer;
        if (q->dtype != passed[i]->dtype || q->shape.size() != passed[i]->shape.size()) {
          return absl::InvalidArgumentError(absl::StrCat(what, ": ", TensorTypeText(passed[i]),
                                                         " does not match ", TensorTypeText(q)));
        }
        for (size_t d = 0; d < q->shape.size(); ++d) {
          const Expr& want = q->shape[d];
          const Expr& have = passed[i]->shape[d];
          if (pass == 0) continue;
          Expr expect = Substitute(want, bound);
          if (expect->dtype != have->dtype || !ana.CanProveEqual(expect, have)) {
            return absl::InvalidArgumentError(absl::StrCat(what, ": ", TensorTypeText(passed[i]),
                                                           " does not match ", TensorTypeText(q),
                                                           " (dimension ", d, ")"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  const IRModule& mod_;
  std::string where_;
  absl::flat_hash_set<const VarNode*> shape_vars_;
  absl::flat_hash_set<const BufferNode*> defined_;
  // What each callee writes (WrittenBuffers), computed once per verification.
  absl::flat_hash_map<const PrimFuncNode*, std::set<const BufferNode*>> written_;
};

}  // namespace

VarMap CallTirShapeVars(const PrimFunc& callee, const std::vector<Buffer>& passed) {
  VarMap bound;
  for (size_t i = 0; i < passed.size() && i < callee->params.size(); ++i) {
    const Param& p = callee->params[i];
    if (!p.is_buffer() || p.buffer->shape.size() != passed[i]->shape.size()) continue;
    for (size_t d = 0; d < p.buffer->shape.size(); ++d) {
      const Expr& have = passed[i]->shape[d];
      if (const auto* v = dyn_cast<VarNode>(p.buffer->shape[d]);
          v && !bound.contains(v) && v->dtype == have->dtype) {
        bound.emplace(v, have);
      }
    }
  }
  return bound;
}

absl::Status VerifyGraphFunction(const IRModule& mod, const GraphFunc& func,
                                 const std::string& name) {
  if (!func)
    return absl::InvalidArgumentError(
        absl::StrCat("verify: graph function '", name, "' is missing"));
  GraphVerifier v(mod, name);
  return v.Verify(func);
}

}  // namespace tessel::ir
