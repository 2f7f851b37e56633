// Binary elementwise operators with numpy broadcasting, and `Where`.
//
//   a: f32[4, 1, 3], b: f32[5, 1]  ->  Add(a, b): f32[4, 5, 3]
//   Add(a, b)[i, j, k] = a[i, 0, k] + b[j, 0]
//   Mul(x, 0.5)                       // a plain number takes x's dtype
//
// Shape rules (numpy): shapes are aligned at their last dimension; the shorter is
// padded with leading 1s; in each dimension the extents must be equal or one of
// them 1 (then it is repeated). Symbolic extents must be the same expression.
// dtype rules: both operands have one dtype, which the result has; a scalar Expr
// operand must have it too; Where's condition is bool, its arms share a dtype.
// Div divides floats exactly and integers truncating toward zero (C semantics).
#ifndef TESSEL_IR_TE_OPS_BROADCAST_H_
#define TESSEL_IR_TE_OPS_BROADCAST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te::ops {

// A tensor, a scalar expression, or a plain number (which takes the dtype of the
// other operand).
class Operand {
 public:
  Operand(Tensor t) : tensor_(std::move(t)) {}  // NOLINT
  Operand(Expr e) : scalar_(std::move(e)) {}    // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, const ExprNode*> &&
                                                    !std::is_same_v<U, const ExprNode>>>
  Operand(const Ref<U>& e) : scalar_(e) {}      // NOLINT: a Var.
  Operand(double v) : number_(v), is_number_(true) {}  // NOLINT
  Operand(int v) : number_(v), is_number_(true) {}     // NOLINT

  const Tensor& tensor() const { return tensor_; }
  const Expr& scalar() const { return scalar_; }
  bool is_number() const { return is_number_; }
  double number() const { return number_; }

 private:
  Tensor tensor_;
  Expr scalar_;
  double number_ = 0;
  bool is_number_ = false;
};

// The broadcast of two shapes, or an error naming `op` and the clashing dimension.
absl::StatusOr<std::vector<Expr>> BroadcastShapes(const std::string& op,
                                                  const std::vector<Expr>& a,
                                                  const std::vector<Expr>& b);
// The indices into `x` (of shape `x_shape`) for output indices `out` of the
// broadcast shape: leading dimensions dropped, size-1 dimensions read at 0.
std::vector<Expr> BroadcastIndices(const std::vector<Expr>& x_shape, const std::vector<Expr>& out,
                                   const std::vector<Expr>& out_shape);

absl::StatusOr<Tensor> Add(const Operand& a, const Operand& b, std::string name = "T_add");
absl::StatusOr<Tensor> Sub(const Operand& a, const Operand& b, std::string name = "T_subtract");
absl::StatusOr<Tensor> Mul(const Operand& a, const Operand& b, std::string name = "T_multiply");
absl::StatusOr<Tensor> Div(const Operand& a, const Operand& b, std::string name = "T_divide");
absl::StatusOr<Tensor> Maximum(const Operand& a, const Operand& b, std::string name = "T_maximum");
absl::StatusOr<Tensor> Minimum(const Operand& a, const Operand& b, std::string name = "T_minimum");
// a ** b, for floats.
absl::StatusOr<Tensor> Power(const Operand& a, const Operand& b, std::string name = "T_power");

// condition ? a : b, all three broadcast together.
absl::StatusOr<Tensor> Where(const Operand& condition, const Operand& a, const Operand& b,
                             std::string name = "T_where");

// x repeated to `shape` by the broadcasting rules.
absl::StatusOr<Tensor> BroadcastTo(const Tensor& x, const std::vector<Expr>& shape,
                                   std::string name = "T_broadcast_to");

}  // namespace tessel::ir::te::ops

#endif  // TESSEL_IR_TE_OPS_BROADCAST_H_
