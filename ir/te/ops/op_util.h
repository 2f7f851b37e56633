// Shared checks and index helpers for the operator library.
//
//   TESSEL_ASSIGN_OR_RETURN(int axis, NormalizeAxis("softmax", -1, x.ndim()));  // -> ndim-1
//   TESSEL_RETURN_IF_ERROR(CheckFloat("exp", x));
//   Expr h = FoldAdd(FoldMul(oh, IntImm32(2)), r);   // constants folded as they meet
//
// Messages start with the op's name, so a failing model says which op refused.
#ifndef TESSEL_IR_TE_OPS_OP_UTIL_H_
#define TESSEL_IR_TE_OPS_OP_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

// Where the channels are in a 4-D image tensor (conv2d, pools).
enum class Layout { kNCHW, kNHWC };
const char* LayoutName(Layout layout);

// Amounts for two spatial axes: {p} (all sides), {ph, pw} (both sides of each)
// or {top, left, bottom, right}; returned as {top, left, bottom, right}.
absl::StatusOr<std::vector<int64_t>> Padding2D(const std::string& op, const std::vector<int>& p);
// A pair like strides or dilation: {s} or {sh, sw}, each >= 1.
absl::StatusOr<std::vector<int64_t>> Pair2D(const std::string& op, const char* what,
                                            const std::vector<int>& v);
// The output extent of a sliding window: (in + pad - dilation * (k - 1) - 1) // stride + 1,
// or an error when the window does not fit (constant extents).
absl::StatusOr<Expr> WindowExtent(const std::string& op, const Expr& in, int64_t pad,
                                  const Expr& kernel, int64_t stride, int64_t dilation);

// "[4, n, 3]".
std::string ShapeString(const std::vector<Expr>& shape);
// The value of an integer constant, if `e` is one.
std::optional<int64_t> ConstValue(const Expr& e);
// Extents known equal: the same constant, or structurally the same expression.
bool SameExtent(const Expr& a, const Expr& b);

absl::Status CheckFloat(const std::string& op, const Tensor& x);
absl::Status CheckSameDtype(const std::string& op, const Tensor& a, const Tensor& b);
absl::Status CheckRank(const std::string& op, const Tensor& x, int rank);
absl::Status CheckDefined(const std::string& op, const Tensor& x, const char* what);

// A Python-style axis (negative counts from the end) as 0..ndim-1.
absl::StatusOr<int> NormalizeAxis(const std::string& op, int axis, int ndim);
// Several axes, sorted; empty means all. Duplicates are an error.
absl::StatusOr<std::vector<int>> NormalizeAxes(const std::string& op, const std::vector<int>& axes,
                                               int ndim);

// Integer arithmetic that folds constants (keeps printed index math short).
Expr FoldAdd(const Expr& a, const Expr& b);
Expr FoldSub(const Expr& a, const Expr& b);
Expr FoldMul(const Expr& a, const Expr& b);
Expr FoldFloorDiv(const Expr& a, const Expr& b);

// The number of elements of a shape as a constant, if every extent is one.
std::optional<int64_t> ConstNumElements(const std::vector<Expr>& shape);

// `v` as a constant of `dtype`, or an error when the dtype cannot hold it.
absl::StatusOr<Expr> CheckedConst(const std::string& op, DataType dtype, double v);

// Index vars as expressions, for indexing a tensor with a compute's vars.
std::vector<Expr> AsExprs(const std::vector<Var>& vars);

// Casts `e` to `t` unless it already has that type.
Expr CastIfNeeded(DataType t, const Expr& e);

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_OP_UTIL_H_
