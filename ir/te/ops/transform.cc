// Layout and shape transforms (transform.h).
//
//   Reshape(x: f32[2, 6], {3, 4}):
//     T_reshape[i0, i1] = x[(i0 * 4 + i1) // 6, (i0 * 4 + i1) %% 6]
//   Pad(x: f32[n], {1}, {1}):
//     T_pad[i0] = select(1 <= i0 && i0 < n + 1, x[min(max(i0 - 1, 0), n - 1)], 0.0f32)
#include "ir/te/ops/transform.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/te/compute.h"
#include "ir/te/expr_ops.h"
#include "ir/te/ops/op_util.h"
#include "ir/status_macros.h"

namespace tessel::ir::te::ops {

Expr ClampIndex(const Expr& i, const Expr& extent) {
  Expr lo = IntImm(i->dtype, 0);
  Expr hi = FoldSub(extent, IntImm(extent->dtype, 1));
  return Min(Max(i, lo), hi);
}

absl::StatusOr<Tensor> Transpose(const Tensor& x, const std::vector<int>& perm, std::string name) {
  const std::string op = "transpose";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  std::vector<int> p = perm;
  if (p.empty()) {
    for (int d = x.ndim() - 1; d >= 0; --d) p.push_back(d);
  }
  if (static_cast<int>(p.size()) != x.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": permutation [", absl::StrJoin(perm, ", "),
                                                   "] has ", p.size(), " entries for rank ",
                                                   x.ndim()));
  }
  std::vector<bool> seen(x.ndim(), false);
  for (int& a : p) {
    TESSEL_ASSIGN_OR_RETURN(a, NormalizeAxis(op, a, x.ndim()));
    if (seen[a]) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": permutation [", absl::StrJoin(perm, ", "),
                                                     "] names axis ", a, " twice"));
    }
    seen[a] = true;
  }
  std::vector<Expr> shape;
  for (int a : p) shape.push_back(x.shape()[a]);
  return Compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(x.ndim());
        for (int d = 0; d < x.ndim(); ++d) idx[p[d]] = i[d];
        return x(idx);
      },
      name, {.tag = "injective"});
}

absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<int64_t>& shape,
                               std::string name) {
  const std::string op = "reshape";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  std::optional<int64_t> total = ConstNumElements(x.shape());
  if (!total) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the input shape ", ShapeString(x.shape()),
                                                   " is symbolic; reshape needs constant shapes"));
  }
  std::vector<int64_t> out = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == -1 && infer < 0) {
      infer = static_cast<int>(d);
    } else if (out[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": bad extent ", out[d], " in [",
                                                     absl::StrJoin(shape, ", "),
                                                     "] (only one -1 is allowed)"));
    } else {
      known *= out[d];
    }
  }
  if (infer >= 0 && known != 0 && *total % known == 0) out[infer] = *total / known;
  int64_t count = 1;
  for (int64_t e : out) count *= e;
  if (count != *total || (infer >= 0 && known == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": cannot reshape ", ShapeString(x.shape()),
                                                   " (", *total, " elements) to [",
                                                   absl::StrJoin(shape, ", "), "]"));
  }
  DataType t = x.ndim() > 0 ? x.shape()[0]->dtype : DataType::Int(32);
  std::vector<Expr> out_shape;
  for (int64_t e : out) out_shape.push_back(IntImm(t, e));
  return Compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        Expr flat = IntImm(t, 0);
        for (size_t d = 0; d < i.size(); ++d) flat = FoldAdd(FoldMul(flat, out_shape[d]), i[d]);
        std::vector<Expr> idx(x.ndim());
        Expr rest = flat;
        for (int d = x.ndim() - 1; d >= 0; --d) {
          // The outermost index needs no modulo: flat is below the element count.
          idx[d] = d == 0 ? rest : FloorMod(rest, x.shape()[d]);
          rest = FoldFloorDiv(rest, x.shape()[d]);
        }
        return x(idx);
      },
      name, {.tag = "injective"});
}

absl::StatusOr<Tensor> Pad(const Tensor& x, const std::vector<int64_t>& before,
                           const std::vector<int64_t>& after, double value, std::string name) {
  const std::string op = "pad";
  TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "the input"));
  if (static_cast<int>(before.size()) != x.ndim() || static_cast<int>(after.size()) != x.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", before.size(), " before and ",
                                                   after.size(), " after amounts for rank ",
                                                   x.ndim()));
  }
  for (int d = 0; d < x.ndim(); ++d) {
    if (before[d] < 0 || after[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": negative padding in axis ", d));
    }
  }
  TESSEL_ASSIGN_OR_RETURN(Expr fill, CheckedConst(op, x.dtype(), value));
  std::vector<Expr> shape;
  for (int d = 0; d < x.ndim(); ++d) {
    const Expr& e = x.shape()[d];
    shape.push_back(FoldAdd(e, IntImm(e->dtype, before[d] + after[d])));
  }
  return Compute(
      shape,
      [&](const std::vector<Var>& i) -> ComputeBody {
        std::vector<Expr> idx;
        Expr inside;
        for (int d = 0; d < x.ndim(); ++d) {
          const Expr& e = x.shape()[d];
          if (before[d] == 0 && after[d] == 0) {
            idx.push_back(i[d]);
            continue;
          }
          Expr b = IntImm(e->dtype, before[d]);
          Expr c = And(GE(i[d], b), LT(i[d], FoldAdd(e, b)));
          inside = inside ? And(inside, c) : c;
          idx.push_back(ClampIndex(FoldSub(i[d], b), e));
        }
        if (!inside) return x(idx);
        return Select(inside, x(idx), fill);
      },
      name, {.tag = "injective"});
}

absl::StatusOr<Tensor> Concat(const std::vector<Tensor>& xs, int axis, std::string name) {
  const std::string op = "concat";
  if (xs.empty()) return absl::InvalidArgumentError("concat: no inputs");
  for (const Tensor& x : xs) TESSEL_RETURN_IF_ERROR(CheckDefined(op, x, "an input"));
  TESSEL_ASSIGN_OR_RETURN(int a, NormalizeAxis(op, axis, xs[0].ndim()));
  std::vector<Expr> offsets = {IntImm(xs[0].shape()[a]->dtype, 0)};
  for (size_t n = 0; n < xs.size(); ++n) {
    const Tensor& x = xs[n];
    TESSEL_RETURN_IF_ERROR(CheckSameDtype(op, xs[0], x));
    TESSEL_RETURN_IF_ERROR(CheckRank(op, x, xs[0].ndim()));
    for (int d = 0; d < x.ndim(); ++d) {
      if (d != a && !SameExtent(x.shape()[d], xs[0].shape()[d])) {
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": input '", x.name(), "' has shape ", ShapeString(x.shape()), ", but '",
            xs[0].name(), "' has ", ShapeString(xs[0].shape()), " (they may differ only in axis ",
            a, ")"));
      }
    }
    offsets.push_back(FoldAdd(offsets.back(), x.shape()[a]));
  }
  std::vector<Expr> shape = xs[0].shape();
  shape[a] = offsets.back();
  return Compute(
      shape,
      [&](const std::vector<Var>& i) {
        auto load = [&](size_t n) {
          std::vector<Expr> idx = AsExprs(i);
          idx[a] = ClampIndex(FoldSub(i[a], offsets[n]), xs[n].shape()[a]);
          if (xs.size() == 1) idx[a] = i[a];
          return xs[n](idx);
        };
        Expr v = load(xs.size() - 1);
        for (size_t n = xs.size() - 1; n-- > 0;) v = Select(LT(i[a], offsets[n + 1]), load(n), v);
        return v;
      },
      name, {.tag = "injective"});
}

}  // namespace tessel::ir::te::ops
