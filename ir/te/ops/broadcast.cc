// Binary elementwise operators with numpy broadcasting (broadcast.h).
//
//   Add(a: f32[3, 1], b: f32[4]) -> T_add: f32[3, 4], T_add[i0, i1] = a[i0, 0] + b[i1]
#include "ir/te/ops/broadcast.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/te/compute.h"
#include "ir/te/ops/op_util.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {
namespace {

// An operand made concrete: a tensor, or a scalar expression of the common dtype.
struct Resolved {
  Tensor tensor;
  Expr scalar;
  std::vector<Expr> shape() const { return tensor.defined() ? tensor.shape() : std::vector<Expr>{}; }
  Expr At(const std::vector<Expr>& out, const std::vector<Expr>& out_shape) const {
    if (!tensor.defined()) return scalar;
    return tensor(BroadcastIndices(tensor.shape(), out, out_shape));
  }
};

// The dtype the operands share: the first tensor's or scalar expression's.
absl::StatusOr<DataType> CommonType(const std::string& op, const std::vector<const Operand*>& ops) {
  for (const Operand* o : ops) {
    if (!o->is_number() && !o->tensor().defined() && !o->scalar()) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": an operand is missing"));
    }
  }
  const Operand* first = nullptr;
  for (const Operand* o : ops) {
    if (o->tensor().defined() || o->scalar()) {
      first = o;
      break;
    }
  }
  if (first == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": at least one operand must be a tensor or an expression"));
  }
  DataType t = first->tensor().defined() ? first->tensor().dtype() : first->scalar()->dtype;
  for (const Operand* o : ops) {
    if (o->is_number()) continue;
    DataType u = o->tensor().defined() ? o->tensor().dtype() : o->scalar()->dtype;
    if (u != t) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": operand types differ (",
                                                     t.ToString(), " vs ", u.ToString(), ")"));
    }
  }
  return t;
}

absl::StatusOr<Resolved> Resolve(const std::string& op, const Operand& o, DataType t) {
  if (o.tensor().defined()) return Resolved{o.tensor(), nullptr};
  if (o.is_number()) {
    TESSEL_ASSIGN_OR_RETURN(Expr c, CheckedConst(op, t, o.number()));
    return Resolved{Tensor(), c};
  }
  if (!o.scalar()->dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": a scalar operand has vector type ",
                                                   o.scalar()->dtype.ToString()));
  }
  return Resolved{Tensor(), o.scalar()};
}

using BinaryFn = std::function<Expr(const Expr&, const Expr&)>;

absl::StatusOr<Tensor> Binary(const std::string& op, const Operand& a, const Operand& b,
                              const std::string& name, bool float_only, NodeKind kind) {
  TESSEL_ASSIGN_OR_RETURN(DataType t, CommonType(op, {&a, &b}));
  if (t.is_bool() || (float_only && !t.is_float())) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": operands of type ", t.ToString(),
                                                   float_only ? ", expected a float type"
                                                              : ", expected a number type"));
  }
  TESSEL_ASSIGN_OR_RETURN(Resolved x, Resolve(op, a, t));
  TESSEL_ASSIGN_OR_RETURN(Resolved y, Resolve(op, b, t));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> shape, BroadcastShapes(op, x.shape(), y.shape()));
  return Compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        Expr l = x.At(idx, shape), r = y.At(idx, shape);
        if (float_only) return Intrinsic("pow", {l, r});
        return ValueOrDie(MakeBinary(kind, l, r));
      },
      name, {.tag = "broadcast"});
}

}  // namespace

absl::StatusOr<std::vector<Expr>> BroadcastShapes(const std::string& op,
                                                  const std::vector<Expr>& a,
                                                  const std::vector<Expr>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<Expr> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    // Dimension d of the output is dimension d - (rank - size) of each operand.
    Expr ea = d + a.size() >= rank ? a[d + a.size() - rank] : nullptr;
    Expr eb = d + b.size() >= rank ? b[d + b.size() - rank] : nullptr;
    if (!ea || !eb) {
      out[d] = ea ? ea : eb;
    } else if (SameExtent(ea, eb) || ConstValue(eb) == 1) {
      out[d] = ea;
    } else if (ConstValue(ea) == 1) {
      out[d] = eb;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": cannot broadcast shapes ", ShapeString(a), " and ", ShapeString(b),
          " (output dimension ", d, ": ", ShapeString({ea}), " vs ", ShapeString({eb}), ")"));
    }
  }
  return out;
}

std::vector<Expr> BroadcastIndices(const std::vector<Expr>& x_shape, const std::vector<Expr>& out,
                                   const std::vector<Expr>& out_shape) {
  std::vector<Expr> idx;
  const size_t skip = out.size() - x_shape.size();
  for (size_t d = 0; d < x_shape.size(); ++d) {
    const Expr& o = out[d + skip];
    bool repeated = ConstValue(x_shape[d]) == 1 && ConstValue(out_shape[d + skip]) != 1;
    idx.push_back(repeated ? IntImm(o->dtype, 0) : o);
  }
  return idx;
}

absl::StatusOr<Tensor> Add(const Operand& a, const Operand& b, std::string name) {
  return Binary("add", a, b, name, false, NodeKind::kAdd);
}
absl::StatusOr<Tensor> Sub(const Operand& a, const Operand& b, std::string name) {
  return Binary("subtract", a, b, name, false, NodeKind::kSub);
}
absl::StatusOr<Tensor> Mul(const Operand& a, const Operand& b, std::string name) {
  return Binary("multiply", a, b, name, false, NodeKind::kMul);
}
absl::StatusOr<Tensor> Div(const Operand& a, const Operand& b, std::string name) {
  return Binary("divide", a, b, name, false, NodeKind::kDiv);
}
absl::StatusOr<Tensor> Maximum(const Operand& a, const Operand& b, std::string name) {
  return Binary("maximum", a, b, name, false, NodeKind::kMax);
}
absl::StatusOr<Tensor> Minimum(const Operand& a, const Operand& b, std::string name) {
  return Binary("minimum", a, b, name, false, NodeKind::kMin);
}
absl::StatusOr<Tensor> Power(const Operand& a, const Operand& b, std::string name) {
  return Binary("power", a, b, name, true, NodeKind::kAdd);
}

absl::StatusOr<Tensor> Where(const Operand& condition, const Operand& a, const Operand& b,
                             std::string name) {
  const std::string op = "where";
  TESSEL_ASSIGN_OR_RETURN(DataType t, CommonType(op, {&a, &b}));
  if (condition.is_number()) {
    return absl::InvalidArgumentError("where: the condition must be a bool tensor or expression");
  }
  TESSEL_ASSIGN_OR_RETURN(DataType ct, CommonType(op, {&condition}));
  if (ct != DataType::Bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat("where: the condition has type ", ct.ToString(), ", expected bool"));
  }
  TESSEL_ASSIGN_OR_RETURN(Resolved c, Resolve(op, condition, ct));
  TESSEL_ASSIGN_OR_RETURN(Resolved x, Resolve(op, a, t));
  TESSEL_ASSIGN_OR_RETURN(Resolved y, Resolve(op, b, t));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> s1, BroadcastShapes(op, c.shape(), x.shape()));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> shape, BroadcastShapes(op, s1, y.shape()));
  return Compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = AsExprs(i);
        return Select(c.At(idx, shape), x.At(idx, shape), y.At(idx, shape));
      },
      name, {.tag = "broadcast"});
}

absl::StatusOr<Tensor> BroadcastTo(const Tensor& x, const std::vector<Expr>& shape,
                                   std::string name) {
  TESSEL_RETURN_IF_ERROR(CheckDefined("broadcast_to", x, "the input"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> out, BroadcastShapes("broadcast_to", x.shape(), shape));
  if (out.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast_to: cannot broadcast shape ",
                                                   ShapeString(x.shape()), " to the lower rank ",
                                                   ShapeString(shape)));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!SameExtent(out[d], shape[d])) {
      return absl::InvalidArgumentError(absl::StrCat("broadcast_to: cannot broadcast shape ",
                                                     ShapeString(x.shape()), " to ",
                                                     ShapeString(shape)));
    }
  }
  return Compute(
      shape, [&](const std::vector<Var>& i) { return x(BroadcastIndices(x.shape(), AsExprs(i), shape)); },
      name, {.tag = "broadcast"});
}

}  // namespace tessel::ir::te::ops
