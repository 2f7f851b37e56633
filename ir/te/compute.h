// The compute DSL: describe a tensor by what each element is, not by loops.
//
//   Tensor A = *Placeholder({128, 64}, DataType::Float(32), "A");
//   Tensor B = *Placeholder({64, 32}, DataType::Float(32), "B");
//   IterVar k = ReduceAxis(64, "k");
//   absl::StatusOr<Tensor> C = Compute(
//       {128, 32}, [&](Var i, Var j) { return ReduceSum(A(i, k.var) * B(k.var, j), {k}); },
//       "C", {.axis_names = {"i", "j"}});
//
// fcompute takes one Var per output dimension (1 to 6 Vars, or a std::vector<Var>
// for any rank) and returns a ComputeBody: an expression, a tuple of expressions
// (several outputs computed together) or a reduction (reducer.h). Anything a user
// can get wrong -- shapes, dtypes, the arity of fcompute, indexing a tensor with
// the wrong number of indices or a constant index out of range, using a reduce
// axis outside its reduction -- comes back as an error Status naming the compute.
//
// Symbolic shapes: a Var (SizeVar) may stand for an extent; the function made
// from the tensors binds it from a parameter buffer's shape.
#ifndef TESSEL_IR_TE_COMPUTE_H_
#define TESSEL_IR_TE_COMPUTE_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te {

// One extent of a shape: an integer constant (i32) or an integer expression.
class Dim {
 public:
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  Dim(T v) : value_(IntImm32(static_cast<int64_t>(v))) {}  // NOLINT: {64, n} reads best.
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, const ExprNode*>>>
  Dim(const Ref<U>& e) : value_(e) {}  // NOLINT
  const Expr& value() const { return value_; }

 private:
  Expr value_;
};

// A shape: written {64, n} in calls, or converted from a tensor's shape.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<Dim> dims) {  // NOLINT
    for (const Dim& d : dims) dims_.push_back(d.value());
  }
  Shape(std::vector<Expr> dims) : dims_(std::move(dims)) {}  // NOLINT
  Shape(const std::vector<int64_t>& dims) {                  // NOLINT
    for (int64_t d : dims) dims_.push_back(IntImm32(d));
  }
  const std::vector<Expr>& dims() const { return dims_; }
  int size() const { return static_cast<int>(dims_.size()); }

 private:
  std::vector<Expr> dims_;
};

// What fcompute returns. Implicit from an expression; see reducer.h for reductions.
class ComputeBody {
 public:
  ComputeBody(Expr value) : values_{std::move(value)} {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, const ExprNode*> &&
                                                    !std::is_same_v<U, const ExprNode>>>
  ComputeBody(const Ref<U>& value) : values_{Expr(value)} {}  // NOLINT: a Var, a load...
  // fcompute may fail; the status is returned by Compute, prefixed with its name.
  ComputeBody(absl::Status error) : error_(std::move(error)) {}  // NOLINT

  // Several outputs from one block (Compute returns one tensor per value).
  static ComputeBody Tuple(std::vector<Expr> values);
  // A reduction with `reducer` of `source` (one value per reducer element) over
  // `axis` where `condition` holds (null = everywhere). Prefer ReduceSum & co.
  static ComputeBody Reduction(CommReducer reducer, std::vector<Expr> source,
                               std::vector<IterVar> axis, Expr condition = nullptr);

  const absl::Status& error() const { return error_; }
  bool is_reduction() const { return reducer_ != nullptr; }
  const std::vector<Expr>& values() const { return values_; }  // Plain, or the sources.
  const CommReducer& reducer() const { return reducer_; }
  const std::vector<IterVar>& axis() const { return axis_; }
  const Expr& condition() const { return condition_; }

 private:
  ComputeBody() = default;
  absl::Status error_;
  std::vector<Expr> values_;
  CommReducer reducer_;
  std::vector<IterVar> axis_;
  Expr condition_;
};

struct ComputeOptions {
  // Initialized members keep designated initializers ({.tag = ...}) warning-free.
  std::string tag = {};                        // OperationNode::tag.
  Attrs attrs = {};                            // Annotations of the block.
  std::vector<std::string> axis_names = {};    // Default i0, i1, ...
  std::vector<std::string> output_names = {};  // Several outputs; default <name>_0, ...
};

// fcompute in its general form: one Var per output dimension.
using FCompute = std::function<ComputeBody(const std::vector<Var>&)>;

// An fcompute and how many index Vars it takes (-1: a vector of any length).
struct IndexedFCompute {
  int arity;
  FCompute fn;
};

template <typename F>
IndexedFCompute WrapFCompute(F f) {
  if constexpr (std::is_invocable_v<F&, const std::vector<Var>&>) {
    return {-1, FCompute(std::move(f))};
  } else if constexpr (std::is_invocable_v<F&, Var>) {
    return {1, [f](const std::vector<Var>& v) { return ComputeBody(f(v[0])); }};
  } else if constexpr (std::is_invocable_v<F&, Var, Var>) {
    return {2, [f](const std::vector<Var>& v) { return ComputeBody(f(v[0], v[1])); }};
  } else if constexpr (std::is_invocable_v<F&, Var, Var, Var>) {
    return {3, [f](const std::vector<Var>& v) { return ComputeBody(f(v[0], v[1], v[2])); }};
  } else if constexpr (std::is_invocable_v<F&, Var, Var, Var, Var>) {
    return {4, [f](const std::vector<Var>& v) { return ComputeBody(f(v[0], v[1], v[2], v[3])); }};
  } else if constexpr (std::is_invocable_v<F&, Var, Var, Var, Var, Var>) {
    return {5, [f](const std::vector<Var>& v) {
              return ComputeBody(f(v[0], v[1], v[2], v[3], v[4]));
            }};
  } else {
    static_assert(std::is_invocable_v<F&, Var, Var, Var, Var, Var, Var>,
                  "fcompute must take 1 to 6 Vars or a const std::vector<Var>&");
    return {6, [f](const std::vector<Var>& v) {
              return ComputeBody(f(v[0], v[1], v[2], v[3], v[4], v[5]));
            }};
  }
}

// An input tensor of `shape` and `dtype`: a parameter of the function.
absl::StatusOr<Tensor> Placeholder(const Shape& shape, DataType dtype, std::string name);

// A symbolic extent for shapes (an i32 Var).
Var SizeVar(std::string name);

// A reduction axis over [0, extent) or [begin, end). Its domain is checked by the
// Compute that uses it.
IterVar ReduceAxis(const Dim& extent, std::string name);
IterVar ReduceAxis(const Dim& begin, const Dim& end, std::string name);

// A tensor of `shape` whose element at (i, j, ...) is fcompute(i, j, ...). The body
// must have exactly one output; use ComputeMulti for tuples.
absl::StatusOr<Tensor> Compute(const Shape& shape, const IndexedFCompute& fcompute,
                               std::string name, ComputeOptions opts = {});
template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, IndexedFCompute>>>
absl::StatusOr<Tensor> Compute(const Shape& shape, F fcompute, std::string name,
                               ComputeOptions opts = {}) {
  return Compute(shape, WrapFCompute(std::move(fcompute)), std::move(name), std::move(opts));
}

// The same for a body with any number of outputs (a tuple or a tuple reduction):
// one tensor per output, all of `shape`, computed by one block.
absl::StatusOr<std::vector<Tensor>> ComputeMulti(const Shape& shape,
                                                 const IndexedFCompute& fcompute,
                                                 std::string name, ComputeOptions opts = {});
template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, IndexedFCompute>>>
absl::StatusOr<std::vector<Tensor>> ComputeMulti(const Shape& shape, F fcompute, std::string name,
                                                 ComputeOptions opts = {}) {
  return ComputeMulti(shape, WrapFCompute(std::move(fcompute)), std::move(name), std::move(opts));
}

// True for names the .tsl text can carry: [A-Za-z_][A-Za-z0-9_.]*.
bool IsValidName(const std::string& name);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_COMPUTE_H_
