// Shared checks and index helpers for the operator library (op_util.h).
//
//   NormalizeAxes("sum", {-1, 0}, 3)  ->  {0, 2}
//   NormalizeAxes("sum", {3}, 3)      ->  "sum: axis 3 is out of range for rank 3"
#include "ir/te/ops/op_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tessel::ir::te::ops {

const char* LayoutName(Layout layout) { return layout == Layout::kNCHW ? "NCHW" : "NHWC"; }

absl::StatusOr<std::vector<int64_t>> Padding2D(const std::string& op, const std::vector<int>& p) {
  std::vector<int64_t> out;
  if (p.size() == 1) out = {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) out = {p[0], p[1], p[0], p[1]};
  if (p.size() == 4) out = {p[0], p[1], p[2], p[3]};
  if (out.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": padding has ", p.size(), " values; expected 1, 2 or 4 (top, left, bottom, right)"));
  }
  for (int64_t v : out) {
    if (v < 0) return absl::InvalidArgumentError(absl::StrCat(op, ": negative padding ", v));
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> Pair2D(const std::string& op, const char* what,
                                            const std::vector<int>& v) {
  if (v.size() != 1 && v.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", what, " has ", v.size(), " values; expected 1 or 2"));
  }
  std::vector<int64_t> out = {v[0], v.size() == 2 ? v[1] : v[0]};
  for (int64_t x : out) {
    if (x < 1) return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " ", x, " is not >= 1"));
  }
  return out;
}

absl::StatusOr<Expr> WindowExtent(const std::string& op, const Expr& in, int64_t pad,
                                  const Expr& kernel, int64_t stride, int64_t dilation) {
  DataType t = in->dtype;
  if (kernel->dtype != t) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": kernel and input extents have different index types"));
  }
  // span = dilation * (kernel - 1) + 1: the input extent one window covers.
  Expr span = FoldAdd(FoldMul(IntImm(t, dilation), FoldSub(kernel, IntImm(t, 1))), IntImm(t, 1));
  Expr room = FoldSub(FoldAdd(in, IntImm(t, pad)), span);
  if (std::optional<int64_t> r = ConstValue(room); r && *r < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the window (extent ", ShapeString({span}), ") is larger than the padded input (",
        ShapeString({FoldAdd(in, IntImm(t, pad))}), ")"));
  }
  return FoldAdd(FoldFloorDiv(room, IntImm(t, stride)), IntImm(t, 1));
}

std::string ShapeString(const std::vector<Expr>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", ", [](std::string* out, const Expr& e) {
                        if (std::optional<int64_t> v = ConstValue(e)) {
                          absl::StrAppend(out, *v);
                        } else {
                          absl::StrAppend(out, PrintExpr(e));
                        }
                      }),
                      "]");
}

std::optional<int64_t> ConstValue(const Expr& e) {
  if (const auto* imm = dyn_cast<IntImmNode>(e)) return imm->value;
  return std::nullopt;
}

bool SameExtent(const Expr& a, const Expr& b) {
  std::optional<int64_t> x = ConstValue(a), y = ConstValue(b);
  if (x && y) return *x == *y;
  return a.same_as(b) || StructuralEqual(a, b);
}

absl::Status CheckFloat(const std::string& op, const Tensor& x) {
  if (!x.dtype().is_float()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": tensor '", x.name(), "' has type ",
                                                   x.dtype().ToString(),
                                                   ", expected a float type"));
  }
  return absl::OkStatus();
}

absl::Status CheckSameDtype(const std::string& op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": operand types differ ('", a.name(),
                                                   "' is ", a.dtype().ToString(), ", '", b.name(),
                                                   "' is ", b.dtype().ToString(), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckRank(const std::string& op, const Tensor& x, int rank) {
  if (x.ndim() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": tensor '", x.name(), "' has rank ",
                                                   x.ndim(), " (shape ", ShapeString(x.shape()),
                                                   "), expected rank ", rank));
  }
  return absl::OkStatus();
}

absl::Status CheckDefined(const std::string& op, const Tensor& x, const char* what) {
  if (!x.defined()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " is an undefined tensor"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> NormalizeAxis(const std::string& op, int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": axis ", axis, " is out of range for rank ", ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

absl::StatusOr<std::vector<int>> NormalizeAxes(const std::string& op, const std::vector<int>& axes,
                                               int ndim) {
  std::vector<int> out;
  if (axes.empty()) {
    for (int i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int a : axes) {
    absl::StatusOr<int> n = NormalizeAxis(op, a, ndim);
    if (!n.ok()) return n.status();
    if (std::find(out.begin(), out.end(), *n) != out.end()) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": axis ", a, " is listed twice"));
    }
    out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

Expr Fold(NodeKind kind, const Expr& a, const Expr& b) {
  std::optional<int64_t> x = ConstValue(a), y = ConstValue(b);
  if (x && y && a->dtype == b->dtype) {
    int64_t v = 0;
    switch (kind) {
      case NodeKind::kAdd: v = *x + *y; break;
      case NodeKind::kSub: v = *x - *y; break;
      case NodeKind::kMul: v = *x * *y; break;
      default: {  // Floor division.
        if (*y == 0) return ValueOrDie(MakeBinary(kind, a, b));
        v = *x / *y;
        if ((*x % *y != 0) && ((*x < 0) != (*y < 0))) --v;
      }
    }
    return IntImm(a->dtype, v);
  }
  if (kind == NodeKind::kAdd && x == 0) return b;
  if ((kind == NodeKind::kAdd || kind == NodeKind::kSub) && y == 0) return a;
  if (kind == NodeKind::kMul && x == 1) return b;
  if ((kind == NodeKind::kMul || kind == NodeKind::kFloorDiv) && y == 1) return a;
  return ValueOrDie(MakeBinary(kind, a, b));
}

}  // namespace

Expr FoldAdd(const Expr& a, const Expr& b) { return Fold(NodeKind::kAdd, a, b); }
Expr FoldSub(const Expr& a, const Expr& b) { return Fold(NodeKind::kSub, a, b); }
Expr FoldMul(const Expr& a, const Expr& b) { return Fold(NodeKind::kMul, a, b); }
Expr FoldFloorDiv(const Expr& a, const Expr& b) { return Fold(NodeKind::kFloorDiv, a, b); }

std::optional<int64_t> ConstNumElements(const std::vector<Expr>& shape) {
  int64_t n = 1;
  for (const Expr& e : shape) {
    std::optional<int64_t> v = ConstValue(e);
    if (!v) return std::nullopt;
    n *= *v;
  }
  return n;
}

absl::StatusOr<Expr> CheckedConst(const std::string& op, DataType dtype, double v) {
  absl::StatusOr<Expr> c = dtype.is_float() ? MakeFloatImm(dtype, v)
                                            : MakeIntImm(dtype, static_cast<int64_t>(v));
  if (!c.ok() || (!dtype.is_float() && static_cast<double>(static_cast<int64_t>(v)) != v)) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the constant ", v, " is not a value of type ", dtype.ToString()));
  }
  return c;
}

std::vector<Expr> AsExprs(const std::vector<Var>& vars) {
  return std::vector<Expr>(vars.begin(), vars.end());
}

Expr CastIfNeeded(DataType t, const Expr& e) { return e->dtype == t ? e : Cast(t, e); }

}  // namespace tessel::ir::te::ops
