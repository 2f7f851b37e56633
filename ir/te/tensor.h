// Tensors of the compute DSL: the result of a placeholder or a compute, i.e. an
// operation plus which of its outputs.
//
//   Tensor A = *Placeholder({64, 32}, DataType::Float(32), "A");
//   Tensor B = *Compute({64, 32}, [&](Var i, Var j) { return A(i, j) * 2.0; }, "B");
//   Expr e = B(3, j);          // a load of B's buffer, for use in another compute
//   B.op()->inputs            // {A}: the operations B reads
//
// Each tensor owns the ir::Buffer its elements live in, so indexing a tensor is an
// ordinary BufferLoad; CreatePrimFunc (create_prim_func.h) turns the graph of
// operations into a PrimFunc and gives every buffer a fresh copy there. Tensors
// are plain shared handles (not IR nodes): the DSL sits above the IR and adds no
// node kinds to it.
#ifndef TESSEL_IR_TE_TENSOR_H_
#define TESSEL_IR_TE_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/attrs.h"
#include "ir/buffer.h"
#include "ir/stmt.h"

namespace tessel::ir::te {

class OperationNode;
using Operation = std::shared_ptr<const OperationNode>;
class CommReducerNode;
using CommReducer = std::shared_ptr<const CommReducerNode>;

class Tensor {
 public:
  Tensor() = default;
  Tensor(Operation op, int value_index) : op_(std::move(op)), value_index_(value_index) {}

  bool defined() const { return op_ != nullptr; }
  const Operation& op() const { return op_; }
  int value_index() const { return value_index_; }
  // The buffer the elements live in; its name, dtype and shape are the tensor's.
  const Buffer& buffer() const;
  const std::string& name() const { return buffer()->name; }
  DataType dtype() const { return buffer()->dtype; }
  const std::vector<Expr>& shape() const { return buffer()->shape; }
  int ndim() const { return buffer()->ndim(); }
  bool same_as(const Tensor& o) const { return op_ == o.op_ && value_index_ == o.value_index_; }

  // The element at `indices`: a BufferLoad of buffer(). A wrong number of indices
  // or a non-integer index is not checked here but reported as an error by the
  // Compute that receives the expression, so a mistake in a compute body becomes
  // a Status rather than an abort.
  Expr operator()(const std::vector<Expr>& indices) const;
  template <typename... I>
  Expr operator()(const I&... indices) const {
    return (*this)(std::vector<Expr>{ToIndex(indices)...});
  }

 private:
  static Expr ToIndex(const Expr& e) { return e; }
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  static Expr ToIndex(T v) {
    return IntImm32(static_cast<int64_t>(v));
  }

  Operation op_;
  int value_index_ = 0;
};

enum class OpKind : uint8_t { kPlaceholder, kCompute };

// One operation of the DSL graph. Immutable once made (by Placeholder or Compute).
//
// A compute either maps each point of its spatial `axis` to `body` (one value per
// output), or is a reduction: `reducer` folds `source` (one value per output) over
// the `reduce_axis` domain wherever `condition` holds (null = everywhere).
class OperationNode : public std::enable_shared_from_this<OperationNode> {
 public:
  OpKind kind = OpKind::kPlaceholder;
  std::string name;
  std::string tag;  // Op family for later passes, e.g. "elemwise", "broadcast", "conv2d".
  Attrs attrs;      // Become the block's annotations.
  std::vector<Buffer> outputs;

  std::vector<IterVar> axis;         // Spatial, domain [0, extent) per output dimension.
  std::vector<Expr> body;            // Plain compute: one value per output.
  std::vector<IterVar> reduce_axis;  // Reduction only, below.
  CommReducer reducer;
  std::vector<Expr> source;
  Expr condition;

  // The tensors the body reads, in order of first use. Holding them keeps the
  // producers alive as long as their consumers.
  std::vector<Tensor> inputs;

  OperationNode() = default;
  OperationNode(const OperationNode&) = delete;
  OperationNode& operator=(const OperationNode&) = delete;
  ~OperationNode();

  bool is_reduction() const { return reducer != nullptr; }
  int num_outputs() const { return static_cast<int>(outputs.size()); }
  Tensor output(int i) const;
};

// Wraps a finished operation and records its output buffers, so that a load of
// one of them can be traced back to the tensor (FindTensor). Called by
// Placeholder and Compute; not needed by users.
Operation RegisterOperation(std::unique_ptr<OperationNode> op);

// The live tensor whose buffer is `buffer`, or an undefined Tensor when `buffer`
// was not made by Placeholder or Compute.
Tensor FindTensor(const BufferNode* buffer);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_TENSOR_H_
