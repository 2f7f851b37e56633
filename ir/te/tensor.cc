// Tensors and the table that maps a tensor's buffer back to its operation.
//
//   Tensor A = *Placeholder({4}, DataType::Float(32), "A");
//   FindTensor(A.buffer().get()).same_as(A)   // true while A's operation lives
//
// Compute bodies are plain IR expressions, so a read of tensor A is a BufferLoad
// of A's buffer; Compute uses this table to find which tensors a body reads.
#include "ir/te/tensor.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"

namespace tessel::ir::te {
namespace {

struct Entry {
  std::weak_ptr<const OperationNode> op;
  int value_index;
};

// Keys stay valid while the entry exists: an operation owns its output buffers
// and removes its entries when it dies, so an address is never reused under us.
struct Registry {
  std::mutex mu;
  absl::flat_hash_map<const BufferNode*, Entry> map;
};

Registry& GetRegistry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

const Buffer& Tensor::buffer() const {
  // An undefined tensor or a bad index is a programming error in C++ code.
  if (!op_ || value_index_ < 0 || value_index_ >= op_->num_outputs()) std::abort();
  return op_->outputs[value_index_];
}

Expr Tensor::operator()(const std::vector<Expr>& indices) const {
  absl::StatusOr<Expr> load = MakeBufferLoad(buffer(), indices);
  if (load.ok()) return *load;
  // Built unchecked on purpose: Compute validates every load of its body and
  // reports the mistake with the names of the compute and the tensor.
  return Expr(MakeNode<BufferLoadNode>(dtype(), buffer(), indices));
}

OperationNode::~OperationNode() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const Buffer& b : outputs) {
    auto it = r.map.find(b.get());
    if (it != r.map.end() && it->second.op.expired()) r.map.erase(it);
  }
}

Tensor OperationNode::output(int i) const { return Tensor(shared_from_this(), i); }

Operation RegisterOperation(std::unique_ptr<OperationNode> op) {
  std::shared_ptr<const OperationNode> shared(std::move(op));
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (int i = 0; i < shared->num_outputs(); ++i) {
    r.map[shared->outputs[i].get()] = Entry{shared, i};
  }
  return shared;
}

Tensor FindTensor(const BufferNode* buffer) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.map.find(buffer);
  if (it == r.map.end()) return Tensor();
  Operation op = it->second.op.lock();
  if (!op) return Tensor();
  return Tensor(std::move(op), it->second.value_index);
}

}  // namespace tessel::ir::te
