// Commutative reducers and the reduction bodies built from them (reducer.h).
//
//   SumReducer(f32):  combine(x0, y0) = x0 + y0,        identity 0.0f32
//   MaxReducer(i8):   combine(x0, y0) = max(x0, y0),    identity -128i8
#include "ir/te/reducer.h"

#include <cmath>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "ir/te/expr_ops.h"
#include "ir/visitor.h"

namespace tessel::ir::te {
namespace {

// Finds the first variable outside `allowed` and whether a buffer is read.
class FreeVarFinder : public IRVisitor {
 public:
  explicit FreeVarFinder(const absl::flat_hash_set<const VarNode*>& allowed) : allowed_(allowed) {}
  const VarNode* free_var = nullptr;
  const BufferNode* buffer = nullptr;

 private:
  void VisitVar(const VarNode* op) override {
    if (!allowed_.contains(op) && free_var == nullptr) free_var = op;
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    if (buffer == nullptr) buffer = op->buffer.get();
    IRVisitor::VisitBufferLoad(op);
  }
  const absl::flat_hash_set<const VarNode*>& allowed_;
};

absl::Status CheckClosed(const std::string& what, const Expr& e,
                         const absl::flat_hash_set<const VarNode*>& allowed) {
  FreeVarFinder f(allowed);
  f.VisitExpr(e);
  if (f.free_var != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " uses variable '", f.free_var->name, "', which is not an operand"));
  }
  if (f.buffer != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " reads buffer '", f.buffer->name, "'; it may use only its operands"));
  }
  return absl::OkStatus();
}

absl::Status CheckReducibleType(const char* name, DataType t) {
  if (!t.is_scalar() || !(t.is_float() || t.is_integer())) {
    return absl::InvalidArgumentError(
        absl::StrCat("reducer '", name, "' needs a scalar number type, not ", t.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<CommReducer> Builtin(const char* name, DataType t, NodeKind kind, Expr identity) {
  if (absl::Status s = CheckReducibleType(name, t); !s.ok()) return s;
  return MakeCommReducer(
      name, {t},
      [kind](const std::vector<Var>& x, const std::vector<Var>& y) {
        return std::vector<Expr>{ValueOrDie(MakeBinary(kind, x[0], y[0]))};
      },
      {std::move(identity)});
}

ComputeBody BuiltinReduction(absl::StatusOr<CommReducer> (*make)(DataType), const char* what,
                             Expr source, std::vector<IterVar> axis, Expr condition) {
  if (!source) {
    return ComputeBody(absl::InvalidArgumentError(absl::StrCat(what, ": the source is missing")));
  }
  absl::StatusOr<CommReducer> reducer = make(source->dtype);
  return Reduce(reducer, {std::move(source)}, std::move(axis), std::move(condition));
}

}  // namespace

std::vector<Expr> CommReducerNode::Combine(const std::vector<Expr>& acc,
                                           const std::vector<Expr>& x) const {
  VarMap map;
  for (size_t i = 0; i < lhs.size(); ++i) {
    map[lhs[i].get()] = acc[i];
    map[rhs[i].get()] = x[i];
  }
  std::vector<Expr> out;
  for (const Expr& r : result) out.push_back(Substitute(r, map));
  return out;
}

absl::StatusOr<CommReducer> MakeCommReducer(std::string name, std::vector<DataType> dtypes,
                                            const Combiner& combiner,
                                            std::vector<Expr> identity) {
  const std::string what = absl::StrCat("reducer '", name, "'");
  if (dtypes.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no element types"));
  if (identity.size() != dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", identity.size(), " identities for ",
                                                   dtypes.size(), " elements"));
  }
  auto r = std::make_shared<CommReducerNode>();
  r->name = std::move(name);
  absl::flat_hash_set<const VarNode*> operands;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (!dtypes[i].is_scalar() || dtypes[i].is_handle() || dtypes[i].is_void()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": element ", i, " has type ",
                                                     dtypes[i].ToString(),
                                                     ", expected a scalar value type"));
    }
    r->lhs.push_back(MakeVar(absl::StrCat("x", i), dtypes[i]));
    r->rhs.push_back(MakeVar(absl::StrCat("y", i), dtypes[i]));
    operands.insert(r->lhs.back().get());
    operands.insert(r->rhs.back().get());
  }
  r->result = combiner(r->lhs, r->rhs);
  if (r->result.size() != dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the combiner returns ",
                                                   r->result.size(), " values for ",
                                                   dtypes.size(), " elements"));
  }
  for (size_t i = 0; i < dtypes.size(); ++i) {
    const std::string elem = absl::StrCat(what, ": element ", i);
    if (!r->result[i]) return absl::InvalidArgumentError(absl::StrCat(elem, " of the combiner is missing"));
    if (r->result[i]->dtype != dtypes[i]) {
      return absl::InvalidArgumentError(absl::StrCat(elem, " of the combiner has type ",
                                                     r->result[i]->dtype.ToString(), ", expected ",
                                                     dtypes[i].ToString()));
    }
    if (absl::Status s = CheckClosed(absl::StrCat(elem, " of the combiner"), r->result[i], operands);
        !s.ok()) {
      return s;
    }
    if (!identity[i]) return absl::InvalidArgumentError(absl::StrCat(elem, ": identity is missing"));
    if (identity[i]->dtype != dtypes[i]) {
      return absl::InvalidArgumentError(absl::StrCat(elem, ": identity has type ",
                                                     identity[i]->dtype.ToString(), ", expected ",
                                                     dtypes[i].ToString()));
    }
    if (absl::Status s = CheckClosed(absl::StrCat(elem, ": identity"), identity[i], {}); !s.ok()) {
      return s;
    }
  }
  r->identity = std::move(identity);
  return CommReducer(std::move(r));
}

namespace {

// MinValue and MaxValue answer for scalar numbers and bool; a vector, a
// handle or void has no single lowest or highest value, and a caller (a
// user's reducer in Python, say) may ask with any of them.
absl::Status CheckExtremeType(const char* what, const char* extreme, DataType t) {
  if (t.is_scalar() && (t.is_float() || t.is_integer() || t.is_bool())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, ": type ", t.ToString(), " has no ", extreme,
                                                 " value; expected a scalar number or bool type"));
}

}  // namespace

absl::StatusOr<Expr> MinValue(DataType t) {
  if (absl::Status s = CheckExtremeType("MinValue", "lowest", t); !s.ok()) return s;
  if (t.is_float()) return MakeFloatImm(t, -std::numeric_limits<double>::infinity());
  if (t.is_bool()) return Bool(false);
  if (t.is_uint()) return MakeIntImm(t, 0);
  return MakeIntImm(t, t.bits() == 64 ? std::numeric_limits<int64_t>::min()
                                      : -(int64_t{1} << (t.bits() - 1)));
}

absl::StatusOr<Expr> MaxValue(DataType t) {
  if (absl::Status s = CheckExtremeType("MaxValue", "highest", t); !s.ok()) return s;
  if (t.is_float()) return MakeFloatImm(t, std::numeric_limits<double>::infinity());
  if (t.is_bool()) return Bool(true);
  if (t.bits() == 64) return MakeIntImm(t, t.is_uint() ? -1 : std::numeric_limits<int64_t>::max());
  return MakeIntImm(t, t.is_uint() ? (int64_t{1} << t.bits()) - 1
                                   : (int64_t{1} << (t.bits() - 1)) - 1);
}

absl::StatusOr<CommReducer> SumReducer(DataType t) {
  if (absl::Status s = CheckReducibleType("sum", t); !s.ok()) return s;
  return Builtin("sum", t, NodeKind::kAdd, Const(t, 0));
}
absl::StatusOr<CommReducer> ProdReducer(DataType t) {
  if (absl::Status s = CheckReducibleType("prod", t); !s.ok()) return s;
  return Builtin("prod", t, NodeKind::kMul, Const(t, 1));
}
absl::StatusOr<CommReducer> MaxReducer(DataType t) {
  if (absl::Status s = CheckReducibleType("max", t); !s.ok()) return s;
  TESSEL_ASSIGN_OR_RETURN(Expr lowest, MinValue(t));
  return Builtin("max", t, NodeKind::kMax, std::move(lowest));
}
absl::StatusOr<CommReducer> MinReducer(DataType t) {
  if (absl::Status s = CheckReducibleType("min", t); !s.ok()) return s;
  TESSEL_ASSIGN_OR_RETURN(Expr highest, MaxValue(t));
  return Builtin("min", t, NodeKind::kMin, std::move(highest));
}

ComputeBody ReduceSum(Expr source, std::vector<IterVar> axis, Expr condition) {
  return BuiltinReduction(&SumReducer, "ReduceSum", std::move(source), std::move(axis),
                          std::move(condition));
}
ComputeBody ReduceProd(Expr source, std::vector<IterVar> axis, Expr condition) {
  return BuiltinReduction(&ProdReducer, "ReduceProd", std::move(source), std::move(axis),
                          std::move(condition));
}
ComputeBody ReduceMax(Expr source, std::vector<IterVar> axis, Expr condition) {
  return BuiltinReduction(&MaxReducer, "ReduceMax", std::move(source), std::move(axis),
                          std::move(condition));
}
ComputeBody ReduceMin(Expr source, std::vector<IterVar> axis, Expr condition) {
  return BuiltinReduction(&MinReducer, "ReduceMin", std::move(source), std::move(axis),
                          std::move(condition));
}

ComputeBody Reduce(const absl::StatusOr<CommReducer>& reducer, std::vector<Expr> source,
                   std::vector<IterVar> axis, Expr condition) {
  if (!reducer.ok()) return ComputeBody(reducer.status());
  return ComputeBody::Reduction(*reducer, std::move(source), std::move(axis), std::move(condition));
}

}  // namespace tessel::ir::te
