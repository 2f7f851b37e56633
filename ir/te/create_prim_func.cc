// CreatePrimFunc: the DSL graph as one PrimFunc in block form (rules in the header).
//
//   B = Compute({n}, A(i) + 1.0, "B");  C = Compute({n}, B(i) * 2.0, "C");
//   CreatePrimFunc({A, C}, "f"):
//
//   func @f(A: f32[n], C: f32[n]) {
//     block root() {
//       alloc B: f32[n]
//       for i in range(0, n) { block B(vi: spatial[0, n] = i) { ... B[vi] = A[vi] + 1.0f32 } }
//       for i in range(0, n) { block C(vi: spatial[0, n] = i) { ... C[vi] = B[vi] * 2.0f32 } }
//     }
//   }
#include "ir/te/create_prim_func.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/substitute.h"
#include "ir/te/block_regions.h"
#include "ir/te/compute.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"
#include "ir/visitor.h"

namespace tessel::ir::te {
namespace {

// The first variable of `e` not in `bound`, or null.
class UnboundFinder : public IRVisitor {
 public:
  explicit UnboundFinder(const absl::flat_hash_set<const VarNode*>& bound) : bound_(bound) {}
  const VarNode* found = nullptr;

 private:
  void VisitVar(const VarNode* op) override {
    if (found == nullptr && !bound_.contains(op)) found = op;
  }
  const absl::flat_hash_set<const VarNode*>& bound_;
};

// Operations reachable from the arguments, producers before consumers.
struct Graph {
  std::vector<Operation> order;
  absl::flat_hash_map<const OperationNode*, std::string> first_reader;
};

Graph TopoOrder(const std::vector<FuncArg>& args) {
  Graph g;
  absl::flat_hash_set<const OperationNode*> done;
  for (const FuncArg& a : args) {
    if (!a.tensor.defined() || done.contains(a.tensor.op().get())) continue;
    // Iterative post-order DFS: graphs of long op chains must not overflow the stack.
    std::vector<std::pair<Operation, size_t>> stack = {{a.tensor.op(), 0}};
    done.insert(a.tensor.op().get());
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (next < op->inputs.size()) {
        const Operation& in = op->inputs[next++].op();
        g.first_reader.try_emplace(in.get(), op->name);
        if (done.insert(in.get()).second) stack.push_back({in, 0});
        continue;
      }
      g.order.push_back(op);
      stack.pop_back();
    }
  }
  return g;
}

class FuncBuilder {
 public:
  explicit FuncBuilder(std::string name) : func_(std::move(name)) {}

  absl::StatusOr<PrimFunc> Build(const std::vector<FuncArg>& args) {
    TESSEL_RETURN_IF_ERROR(BindArgs(args));
    Graph g = TopoOrder(args);
    block_names_.insert("root");
    for (const Operation& op : g.order) {
      for (int i = 0; i < op->num_outputs(); ++i) {
        if (buffers_.contains(op->outputs[i].get())) continue;
        if (op->kind == OpKind::kPlaceholder) {
          return Fail(absl::StrCat("placeholder '", op->name, "' is read by compute '",
                                   g.first_reader[op.get()],
                                   "' but is not an argument; pass it as a parameter"));
        }
        TESSEL_ASSIGN_OR_RETURN(Buffer b, FreshBuffer(op->outputs[i], /*is_param=*/false));
        allocs_.push_back(b);
      }
      if (op->kind == OpKind::kCompute) TESSEL_RETURN_IF_ERROR(AddNest(*op));
    }
    if (nests_.empty()) {
      return Fail("computes nothing: no argument is the result of a compute");
    }
    Stmt body = nests_.size() == 1 ? nests_[0] : Seq(nests_);
    if (!allocs_.empty()) {
      TESSEL_ASSIGN_OR_RETURN(Block root, MakeBlock("root", {}, {}, {}, body, nullptr, allocs_));
      TESSEL_ASSIGN_OR_RETURN(body, MakeBlockRealize({}, Bool(true), root));
    }
    return MakePrimFuncChecked(params_, body);
  }

 private:
  absl::Status Fail(const std::string& problem) const {
    return absl::InvalidArgumentError(absl::StrCat("CreatePrimFunc '", func_, "': ", problem));
  }

  std::string Unique(absl::flat_hash_set<std::string>& used, const std::string& base) {
    std::string name = base;
    for (int i = 1; !used.insert(name).second; ++i) name = absl::StrCat(base, "_", i);
    return name;
  }

  Var FreshVar(const Var& v, const std::string& name) {
    Var f = MakeVar(name, v->dtype);
    vars_[v.get()] = f;
    return f;
  }

  absl::Status BindArgs(const std::vector<FuncArg>& args) {
    if (args.empty()) return Fail("no arguments");
    absl::flat_hash_set<const void*> seen_vars;
    std::vector<std::pair<const OperationNode*, int>> seen_tensors;
    for (size_t i = 0; i < args.size(); ++i) {
      const FuncArg& a = args[i];
      if (a.var) {
        if (!seen_vars.insert(a.var.get()).second) {
          return Fail(absl::StrCat("variable '", a.var->name, "' is passed twice"));
        }
        if (!a.var->dtype.is_scalar() || a.var->dtype.is_handle() || a.var->dtype.is_void()) {
          return Fail(absl::StrCat("scalar parameter '", a.var->name, "' has type ",
                                   a.var->dtype.ToString()));
        }
        bound_.insert(FreshVar(a.var, a.var->name).get());
        continue;
      }
      if (!a.tensor.defined()) return Fail(absl::StrCat("argument ", i, " is an undefined tensor"));
      std::pair<const OperationNode*, int> key{a.tensor.op().get(), a.tensor.value_index()};
      for (const auto& s : seen_tensors) {
        if (s == key) return Fail(absl::StrCat("tensor '", a.tensor.name(), "' is passed twice"));
      }
      seen_tensors.push_back(key);
    }
    // A bare Var extent of a parameter's shape binds that size variable.
    for (const FuncArg& a : args) {
      if (!a.tensor.defined()) continue;
      for (const Expr& d : a.tensor.shape()) {
        const auto* v = dyn_cast<VarNode>(d);
        if (v != nullptr && !vars_.contains(v)) bound_.insert(FreshVar(GetRef(v), v->name).get());
      }
    }
    for (const FuncArg& a : args) {
      if (a.var) {
        params_.push_back(Param::OfVar(cast_ref<VarNode>(vars_[a.var.get()])));
      } else {
        TESSEL_ASSIGN_OR_RETURN(Buffer b, FreshBuffer(a.tensor.buffer(), /*is_param=*/true));
        params_.push_back(Param::OfBuffer(b));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckBound(const Expr& e, const absl::flat_hash_set<const VarNode*>& local,
                          const std::string& where) {
    absl::flat_hash_set<const VarNode*> all = bound_;
    all.insert(local.begin(), local.end());
    UnboundFinder f(all);
    f.VisitExpr(e);
    if (f.found == nullptr) return absl::OkStatus();
    return Fail(absl::StrCat(where, " uses variable '", f.found->name,
                             "', which is not bound in the function: pass it as a scalar "
                             "parameter or make it a whole extent of a parameter's shape"));
  }

  absl::StatusOr<Buffer> FreshBuffer(const Buffer& b, bool is_param) {
    std::vector<Expr> shape;
    for (const Expr& d : b->shape) {
      Expr s = Substitute(d, vars_);
      TESSEL_RETURN_IF_ERROR(CheckBound(s, {}, absl::StrCat("the shape of tensor '", b->name, "'")));
      shape.push_back(std::move(s));
    }
    TESSEL_ASSIGN_OR_RETURN(Buffer f, MakeBufferChecked(Unique(buffer_names_, b->name), b->dtype,
                                                           std::move(shape)));
    buffers_[b.get()] = f;
    return f;
  }

  // One loop nest with the block of `op` inside.
  absl::Status AddNest(const OperationNode& op) {
    const std::string where = absl::StrCat("compute '", op.name, "'");
    std::vector<IterVar> ivs;
    std::vector<std::pair<Var, Range>> loops;
    absl::flat_hash_set<const VarNode*> local;
    auto add_axis = [&](const IterVar& iv) -> absl::Status {
      Expr min = Substitute(iv.dom.min, vars_), extent = Substitute(iv.dom.extent, vars_);
      TESSEL_RETURN_IF_ERROR(CheckBound(min, {}, where));
      TESSEL_RETURN_IF_ERROR(CheckBound(extent, {}, where));
      Var loop = MakeVar(iv.var->name, iv.var->dtype);
      Var v = FreshVar(iv.var, absl::StrCat("v", iv.var->name));
      local.insert(v.get());
      ivs.push_back(IterVar{v, Range{min, extent}, iv.kind});
      loops.push_back({loop, Range{min, extent}});
      return absl::OkStatus();
    };
    for (const IterVar& iv : op.axis) TESSEL_RETURN_IF_ERROR(add_axis(iv));
    for (const IterVar& iv : op.reduce_axis) TESSEL_RETURN_IF_ERROR(add_axis(iv));

    auto rewrite = [&](const Expr& e) -> absl::StatusOr<Expr> {
      Expr r = Substitute(e, vars_, buffers_);
      TESSEL_RETURN_IF_ERROR(CheckBound(r, local, where));
      return r;
    };
    std::vector<Expr> indices;
    for (size_t d = 0; d < op.axis.size(); ++d) indices.push_back(ivs[d].var);
    std::vector<Buffer> outs;
    std::vector<BufferRegion> writes;
    for (const Buffer& b : op.outputs) {
      outs.push_back(buffers_[b.get()]);
      writes.push_back(PointRegion(outs.back(), indices));
    }
    std::vector<Expr> values;  // What the block computes from, for its read regions.
    for (const Expr& e : op.is_reduction() ? op.source : op.body) {
      TESSEL_ASSIGN_OR_RETURN(Expr r, rewrite(e));
      values.push_back(std::move(r));
    }
    Stmt init, body;
    if (!op.is_reduction()) {
      std::vector<Stmt> stores;
      for (size_t i = 0; i < outs.size(); ++i) stores.push_back(Store(outs[i], values[i], indices));
      body = stores.size() == 1 ? stores[0] : Seq(stores);
    } else {
      TESSEL_ASSIGN_OR_RETURN(body, ReductionBody(op, outs, indices, values));
      std::vector<Stmt> inits;
      for (size_t i = 0; i < outs.size(); ++i) {
        inits.push_back(Store(outs[i], op.reducer->identity[i], indices));
      }
      init = inits.size() == 1 ? inits[0] : Seq(inits);
      if (op.condition) {
        TESSEL_ASSIGN_OR_RETURN(Expr cond, rewrite(op.condition));
        TESSEL_ASSIGN_OR_RETURN(body, MakeIfThenElse(cond, body));
        values.push_back(cond);
      }
    }
    TESSEL_ASSIGN_OR_RETURN(
        Block block, MakeBlock(Unique(block_names_, op.name), ivs, ReadRegions(values), writes,
                               body, init, {}, op.attrs));
    std::vector<Expr> bindings;
    for (const auto& [loop, range] : loops) bindings.push_back(loop);
    TESSEL_ASSIGN_OR_RETURN(Stmt nest, MakeBlockRealize(bindings, Bool(true), block));
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      TESSEL_ASSIGN_OR_RETURN(nest, MakeFor(it->first, it->second.min, it->second.extent,
                                               ForKind::kSerial, nest));
    }
    nests_.push_back(std::move(nest));
    return absl::OkStatus();
  }

  // out = combine(out, source); with several outputs every new value is bound by a
  // let before any is stored, so each combines the old values.
  absl::StatusOr<Stmt> ReductionBody(const OperationNode& op, const std::vector<Buffer>& outs,
                                     const std::vector<Expr>& indices,
                                     const std::vector<Expr>& source) {
    std::vector<Expr> acc;
    for (const Buffer& b : outs) acc.push_back(Load(b, indices));
    std::vector<Expr> next = op.reducer->Combine(acc, source);
    if (outs.size() == 1) return Store(outs[0], next[0], indices);
    std::vector<Var> lets;
    std::vector<Stmt> stores;
    for (size_t i = 0; i < outs.size(); ++i) {
      lets.push_back(MakeVar(absl::StrCat(outs[i]->name, "_next"), next[i]->dtype));
      stores.push_back(Store(outs[i], lets.back(), indices));
    }
    Stmt s = Seq(stores);
    for (size_t i = outs.size(); i-- > 0;) {
      TESSEL_ASSIGN_OR_RETURN(s, MakeLetStmt(lets[i], next[i], s));
    }
    return s;
  }

  std::string func_;
  VarMap vars_;
  absl::flat_hash_set<const VarNode*> bound_;
  BufferMap buffers_;
  absl::flat_hash_set<std::string> buffer_names_, block_names_;
  std::vector<Param> params_;
  std::vector<Buffer> allocs_;
  std::vector<Stmt> nests_;
};

}  // namespace

absl::StatusOr<PrimFunc> CreatePrimFunc(const std::vector<FuncArg>& args, const std::string& name) {
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreatePrimFunc: function name '", name, "' is not an identifier"));
  }
  FuncBuilder b(name);
  return b.Build(args);
}

absl::StatusOr<IRModule> CreateModule(const std::vector<FuncArg>& args, const std::string& name) {
  TESSEL_ASSIGN_OR_RETURN(PrimFunc f, CreatePrimFunc(args, name));
  return MakeIRModuleChecked({{name, f}});
}

}  // namespace tessel::ir::te
