// Placeholder, ReduceAxis and Compute: building the DSL graph, with every mistake
// in a compute body reported as a Status (see compute.h).
//
//   Compute({4}, [&](Var i) { return A(i, 0); }, "C")   // A is 2-D, 4x3
//   -> "compute 'C': tensor 'A' has rank 2 but is indexed with 1 index"
//   Compute({4}, [&](Var i) { return A(i, 3); }, "C")
//   -> "compute 'C': index 3 is out of range [0, 3) in dimension 1 of tensor 'A'"
#include "ir/te/compute.h"

#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/te/reducer.h"
#include "ir/status_macros.h"
#include "ir/visitor.h"

namespace tessel::ir::te {
namespace {

// The index variables the DSL hands out: compute axes and reduce axes. They are
// ordinary Vars to the IR; the subclass only lets Compute say *which* index a
// misplaced variable is (registered by address while alive).
class IndexVarNode : public VarNode {
 public:
  IndexVarNode(std::string name, DataType t, bool reduce, std::string owner)
      : VarNode(std::move(name), t), is_reduce(reduce), owner(std::move(owner)) {}
  ~IndexVarNode() override;
  const bool is_reduce;
  const std::string owner;  // The compute, for spatial axes.
};

struct IndexVarRegistry {
  std::mutex mu;
  absl::flat_hash_set<const VarNode*> vars;
};

IndexVarRegistry& IndexVars() {
  static IndexVarRegistry* r = new IndexVarRegistry();
  return *r;
}

IndexVarNode::~IndexVarNode() {
  std::lock_guard<std::mutex> lock(IndexVars().mu);
  IndexVars().vars.erase(this);
}

Var MakeIndexVar(std::string name, DataType t, bool reduce, std::string owner) {
  auto n = MakeNode<IndexVarNode>(std::move(name), t, reduce, std::move(owner));
  std::lock_guard<std::mutex> lock(IndexVars().mu);
  IndexVars().vars.insert(n.get());
  return Var(std::move(n));
}

const IndexVarNode* AsIndexVar(const VarNode* v) {
  std::lock_guard<std::mutex> lock(IndexVars().mu);
  return IndexVars().vars.contains(v) ? static_cast<const IndexVarNode*>(v) : nullptr;
}

const char* Plural(size_t n, const char* one, const char* many) { return n == 1 ? one : many; }

// Checks the extents of a shape: integer scalars of one dtype, constants >= 0.
absl::Status CheckShape(const std::string& what, const std::vector<Expr>& shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    const Expr& e = shape[d];
    if (!e) return absl::InvalidArgumentError(absl::StrCat(what, ": extent ", d, " is missing"));
    if (!e->dtype.is_integer() || !e->dtype.is_scalar()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": extent ", d, " has type ",
                                                     e->dtype.ToString(),
                                                     ", expected a scalar integer"));
    }
    if (e->dtype != shape[0]->dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": extents mix index types ", shape[0]->dtype.ToString(), " and ",
          e->dtype.ToString()));
    }
    if (const auto* imm = dyn_cast<IntImmNode>(e); imm && imm->value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": extent ", d, " is negative (", imm->value, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckName(const char* what, const std::string& name) {
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " name '", name, "' is not an identifier ([A-Za-z_][A-Za-z0-9_.]*)"));
  }
  return absl::OkStatus();
}

// Walks a compute body: every variable must be one of its indices (or a size
// variable / scalar parameter, which CreatePrimFunc checks later), every load
// must address a tensor correctly. Records the tensors read.
class BodyChecker : public IRVisitor {
 public:
  BodyChecker(std::string compute, const std::vector<IterVar>& axis) : compute_(std::move(compute)) {
    for (const IterVar& iv : axis) spatial_.insert(iv.var.get());
  }

  absl::Status Check(const Expr& e, const absl::flat_hash_set<const VarNode*>& reduce_axes) {
    reduce_ = &reduce_axes;
    if (!e) return Fail("a value of the body is missing");
    VisitExpr(e);
    return status_;
  }

  std::vector<Tensor> inputs;

 private:
  absl::Status Fail(const std::string& problem) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", compute_, "': ", problem));
  }
  void Record(const std::string& problem) {
    if (status_.ok()) status_ = Fail(problem);
  }

  void VisitVar(const VarNode* op) override {
    if (spatial_.contains(op) || reduce_->contains(op)) return;
    const IndexVarNode* iv = AsIndexVar(op);
    if (iv == nullptr) return;  // A size variable or scalar parameter.
    if (iv->is_reduce) {
      Record(absl::StrCat("reduce axis '", op->name,
                          "' is used outside a reduction over it (a reduce axis may appear only "
                          "in the source and condition of a reduction that lists it)"));
    } else {
      Record(absl::StrCat("uses index '", op->name, "' of compute '", iv->owner,
                          "'; each compute has its own indices"));
    }
  }

  void VisitBufferLoad(const BufferLoadNode* op) override {
    if (!status_.ok()) return;
    Tensor t = FindTensor(op->buffer.get());
    if (!t.defined()) {
      return Record(absl::StrCat("reads buffer '", op->buffer->name,
                                 "', which is not a tensor made by Placeholder or Compute"));
    }
    if (static_cast<int>(op->indices.size()) != t.ndim()) {
      return Record(absl::StrCat("tensor '", t.name(), "' has rank ", t.ndim(),
                                 " but is indexed with ", op->indices.size(),
                                 Plural(op->indices.size(), " index", " indices")));
    }
    for (size_t d = 0; d < op->indices.size(); ++d) {
      const Expr& idx = op->indices[d];
      if (!idx) return Record(absl::StrCat("index ", d, " of tensor '", t.name(), "' is missing"));
      if (!idx->dtype.is_integer() || !idx->dtype.is_scalar()) {
        return Record(absl::StrCat("index ", d, " of tensor '", t.name(), "' has type ",
                                   idx->dtype.ToString(), ", expected a scalar integer"));
      }
      const auto* c = dyn_cast<IntImmNode>(idx);
      const auto* extent = dyn_cast<IntImmNode>(t.shape()[d]);
      if (c && extent && (c->value < 0 || c->value >= extent->value)) {
        return Record(absl::StrCat("index ", c->value, " is out of range [0, ", extent->value,
                                   ") in dimension ", d, " of tensor '", t.name(), "'"));
      }
    }
    bool seen = false;
    for (const Tensor& in : inputs) seen |= in.same_as(t);
    if (!seen) inputs.push_back(t);
    IRVisitor::VisitBufferLoad(op);
  }

  void VisitRamp(const RampNode*) override { Record("vector expressions (Ramp) are not allowed"); }
  void VisitBroadcast(const BroadcastNode*) override {
    Record("vector expressions (Broadcast) are not allowed");
  }

  std::string compute_;
  absl::flat_hash_set<const VarNode*> spatial_;
  const absl::flat_hash_set<const VarNode*>* reduce_ = nullptr;
  absl::Status status_;
};

// The first variable of `vars` that `e` uses, or null.
const VarNode* FindUse(const Expr& e, const std::vector<IterVar>& vars) {
  struct Finder : IRVisitor {
    const std::vector<IterVar>* vars;
    const VarNode* found = nullptr;
    void VisitVar(const VarNode* op) override {
      for (const IterVar& iv : *vars) {
        if (found == nullptr && iv.var.get() == op) found = op;
      }
    }
  } f;
  f.vars = &vars;
  f.VisitExpr(e);
  return f.found;
}

absl::Status CheckValueType(const std::string& compute, const Expr& v) {
  if (!v->dtype.is_scalar() || v->dtype.is_handle() || v->dtype.is_void()) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", compute, "': a value has type ",
                                                   v->dtype.ToString(),
                                                   ", expected a scalar number or bool"));
  }
  return absl::OkStatus();
}

// Checks the reduce axes of a reduction and returns their variables.
absl::StatusOr<absl::flat_hash_set<const VarNode*>> CheckReduceAxes(
    const std::string& compute, const ComputeBody& body, const std::vector<IterVar>& axis) {
  auto fail = [&](const std::string& p) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", compute, "': ", p));
  };
  absl::flat_hash_set<const VarNode*> vars;
  if (body.axis().empty()) return fail("a reduction needs at least one reduce axis");
  for (const IterVar& iv : body.axis()) {
    if (!iv.var) return fail("a reduce axis is missing");
    const std::string& n = iv.var->name;
    if (iv.kind != IterKind::kReduce) {
      return fail(absl::StrCat("axis '", n, "' is not a reduce axis (make it with ReduceAxis)"));
    }
    for (const IterVar& s : axis) {
      if (s.var.same_as(iv.var)) return fail(absl::StrCat("reduces over its own index '", n, "'"));
    }
    if (!vars.insert(iv.var.get()).second) {
      return fail(absl::StrCat("reduce axis '", n, "' is listed twice"));
    }
    if (!iv.dom.min || !iv.dom.extent || !iv.dom.min->dtype.is_integer() ||
        iv.dom.min->dtype != iv.dom.extent->dtype || iv.dom.min->dtype != iv.var->dtype) {
      return fail(absl::StrCat("reduce axis '", n, "' needs an integer domain of its own type"));
    }
    if (const auto* e = dyn_cast<IntImmNode>(iv.dom.extent); e && e->value <= 0) {
      return fail(absl::StrCat("reduce axis '", n, "' has an empty domain (extent ", e->value, ")"));
    }
  }
  return vars;
}

absl::StatusOr<Operation> MakeCompute(const Shape& shape, const IndexedFCompute& fcompute,
                                      const std::string& name, ComputeOptions opts) {
  TESSEL_RETURN_IF_ERROR(CheckName("compute", name));
  const std::string what = absl::StrCat("compute '", name, "'");
  TESSEL_RETURN_IF_ERROR(CheckShape(what, shape.dims()));
  const int rank = shape.size();
  if (fcompute.arity >= 0 && fcompute.arity != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": fcompute takes ", fcompute.arity, Plural(fcompute.arity, " index", " indices"),
        " but the shape has rank ", rank));
  }
  if (!opts.axis_names.empty() && static_cast<int>(opts.axis_names.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", opts.axis_names.size(),
                                                   " axis names for rank ", rank));
  }
  auto op = std::make_unique<OperationNode>();
  op->kind = OpKind::kCompute;
  op->name = name;
  op->tag = std::move(opts.tag);
  op->attrs = std::move(opts.attrs);
  std::vector<Var> vars;
  for (int d = 0; d < rank; ++d) {
    std::string an = opts.axis_names.empty() ? absl::StrCat("i", d) : opts.axis_names[d];
    TESSEL_RETURN_IF_ERROR(CheckName("axis", an));
    const Expr& extent = shape.dims()[d];
    vars.push_back(MakeIndexVar(std::move(an), extent->dtype, /*reduce=*/false, name));
    op->axis.push_back(IterVar{vars.back(), Range{IntImm(extent->dtype, 0), extent},
                               IterKind::kSpatial});
  }
  ComputeBody body = fcompute.fn(vars);
  if (!body.error().ok()) {
    return absl::Status(body.error().code(), absl::StrCat(what, ": ", body.error().message()));
  }
  if (body.values().empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no values"));
  absl::flat_hash_set<const VarNode*> reduce_vars;
  if (body.is_reduction()) {
    absl::StatusOr<absl::flat_hash_set<const VarNode*>> rv =
        CheckReduceAxes(name, body, op->axis);
    if (!rv.ok()) return rv.status();
    reduce_vars = *std::move(rv);
    const CommReducer& r = body.reducer();
    if (static_cast<int>(body.values().size()) != r->arity()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": reducer '", r->name, "' combines ",
                                                     r->arity(), " values but ",
                                                     body.values().size(), " were given"));
    }
  }
  BodyChecker checker(name, op->axis);
  for (size_t i = 0; i < body.values().size(); ++i) {
    const Expr& v = body.values()[i];
    TESSEL_RETURN_IF_ERROR(checker.Check(v, reduce_vars));
    TESSEL_RETURN_IF_ERROR(CheckValueType(name, v));
    if (body.is_reduction() && v->dtype != body.reducer()->dtype(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": reducer '", body.reducer()->name, "' expects ",
          body.reducer()->dtype(i).ToString(), " for value ", i, " but the source is ",
          v->dtype.ToString()));
    }
  }
  if (body.is_reduction()) {
    for (const IterVar& iv : body.axis()) {
      // Iter var domains are fixed per block: a domain that moves with an index
      // is a condition in disguise.
      for (const Expr& e : {iv.dom.min, iv.dom.extent}) {
        if (const VarNode* v = FindUse(e, op->axis)) {
          return absl::InvalidArgumentError(absl::StrCat(
              what, ": the domain of reduce axis '", iv.var->name, "' depends on index '", v->name,
              "'; use a reduction condition instead"));
        }
        absl::flat_hash_set<const VarNode*> none;
        TESSEL_RETURN_IF_ERROR(checker.Check(e, none));
      }
    }
    if (const Expr& c = body.condition()) {
      TESSEL_RETURN_IF_ERROR(checker.Check(c, reduce_vars));
      if (c->dtype != DataType::Bool()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the reduction condition has type ", c->dtype.ToString(), ", expected bool"));
      }
    }
    op->reduce_axis = body.axis();
    op->reducer = body.reducer();
    op->source = body.values();
    op->condition = body.condition();
  } else {
    op->body = body.values();
  }
  op->inputs = std::move(checker.inputs);
  const size_t n = body.values().size();
  if (!opts.output_names.empty() && opts.output_names.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", opts.output_names.size(),
                                                   " output names for ", n, " outputs"));
  }
  for (size_t i = 0; i < n; ++i) {
    std::string out = n == 1 ? name
                      : opts.output_names.empty() ? absl::StrCat(name, "_", i)
                                                  : opts.output_names[i];
    TESSEL_RETURN_IF_ERROR(CheckName("output", out));
    absl::StatusOr<Buffer> b = MakeBufferChecked(out, body.values()[i]->dtype, shape.dims());
    if (!b.ok()) return b.status();
    op->outputs.push_back(*std::move(b));
  }
  return RegisterOperation(std::move(op));
}

}  // namespace

bool IsValidName(const std::string& name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(name[0])) return false;
  for (char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

ComputeBody ComputeBody::Tuple(std::vector<Expr> values) {
  ComputeBody b;
  b.values_ = std::move(values);
  return b;
}

ComputeBody ComputeBody::Reduction(CommReducer reducer, std::vector<Expr> source,
                                   std::vector<IterVar> axis, Expr condition) {
  if (!reducer) return ComputeBody(absl::InvalidArgumentError("the reducer is missing"));
  ComputeBody b;
  b.values_ = std::move(source);
  b.reducer_ = std::move(reducer);
  b.axis_ = std::move(axis);
  b.condition_ = std::move(condition);
  return b;
}

absl::StatusOr<Tensor> Placeholder(const Shape& shape, DataType dtype, std::string name) {
  TESSEL_RETURN_IF_ERROR(CheckName("placeholder", name));
  const std::string what = absl::StrCat("placeholder '", name, "'");
  TESSEL_RETURN_IF_ERROR(CheckShape(what, shape.dims()));
  if (!dtype.is_scalar() || dtype.is_handle() || dtype.is_void()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": element type ", dtype.ToString(), " is not a scalar value type"));
  }
  absl::StatusOr<Buffer> b = MakeBufferChecked(name, dtype, shape.dims());
  if (!b.ok()) return b.status();
  auto op = std::make_unique<OperationNode>();
  op->kind = OpKind::kPlaceholder;
  op->name = std::move(name);
  op->outputs.push_back(*std::move(b));
  return RegisterOperation(std::move(op))->output(0);
}

Var SizeVar(std::string name) { return MakeVar(std::move(name), DataType::Int(32)); }

IterVar ReduceAxis(const Dim& extent, std::string name) {
  const Expr& e = extent.value();
  DataType t = e && e->dtype.is_integer() ? e->dtype : DataType::Int(32);
  Expr zero = IntImm(t, 0);
  return IterVar{MakeIndexVar(std::move(name), t, /*reduce=*/true, ""), Range{zero, e},
                 IterKind::kReduce};
}

IterVar ReduceAxis(const Dim& begin, const Dim& end, std::string name) {
  const Expr& b = begin.value();
  const Expr& e = end.value();
  DataType t = b && b->dtype.is_integer() ? b->dtype : DataType::Int(32);
  Expr extent;  // Left null on bad operands; Compute reports the domain.
  const auto* bi = dyn_cast<IntImmNode>(b);
  const auto* ei = dyn_cast<IntImmNode>(e);
  if (bi && ei && bi->dtype == ei->dtype) {
    absl::StatusOr<Expr> x = MakeIntImm(t, ei->value - bi->value);
    if (x.ok()) extent = *x;
  } else if (absl::StatusOr<Expr> x = MakeBinary(NodeKind::kSub, e, b); x.ok()) {
    extent = *x;
  }
  return IterVar{MakeIndexVar(std::move(name), t, /*reduce=*/true, ""), Range{b, extent},
                 IterKind::kReduce};
}

absl::StatusOr<Tensor> Compute(const Shape& shape, const IndexedFCompute& fcompute,
                               std::string name, ComputeOptions opts) {
  absl::StatusOr<Operation> op = MakeCompute(shape, fcompute, name, std::move(opts));
  if (!op.ok()) return op.status();
  if ((*op)->num_outputs() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': the body has ",
                                                   (*op)->num_outputs(),
                                                   " outputs; use ComputeMulti for tuples"));
  }
  return (*op)->output(0);
}

absl::StatusOr<std::vector<Tensor>> ComputeMulti(const Shape& shape,
                                                 const IndexedFCompute& fcompute,
                                                 std::string name, ComputeOptions opts) {
  absl::StatusOr<Operation> op = MakeCompute(shape, fcompute, name, std::move(opts));
  if (!op.ok()) return op.status();
  std::vector<Tensor> out;
  for (int i = 0; i < (*op)->num_outputs(); ++i) out.push_back((*op)->output(i));
  return out;
}

}  // namespace tessel::ir::te
