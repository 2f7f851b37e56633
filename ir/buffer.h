// A Buffer is a typed, shaped view of memory: what loads and stores address.
//
//   Buffer A = MakeBuffer("A", DataType::Float(32), {IntImm32(128), IntImm32(64)});
//   // A[i, j] addresses element elem_offset + i * 64 + j (compact row-major strides).
//
// A Buffer is bound (defined) by a PrimFunc parameter, a block's `alloc_buffers`,
// an `Allocate` or a `DeclBuffer`, and like a Var its identity is the object.
// Shapes may be symbolic: a Var in a parameter buffer's shape that is not itself a
// parameter is defined there, and takes its value from the argument's shape.
#ifndef TESSEL_IR_BUFFER_H_
#define TESSEL_IR_BUFFER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace tessel::ir {

class BufferNode : public Node {
 public:
  std::string name;
  DataType dtype;             // Element type (scalar).
  std::vector<Expr> shape;    // Integer extents, one per dimension.
  std::vector<Expr> strides;  // Empty means compact row-major.
  Expr elem_offset;           // In elements; IntImm 0 unless a view says otherwise.
  std::string scope;          // "global", "local" or "shared".
  int alignment;              // Of the data pointer, in bytes.

  BufferNode() : Node(NodeKind::kBuffer) {}
  static bool classof(NodeKind k) { return k == NodeKind::kBuffer; }

  int ndim() const { return static_cast<int>(shape.size()); }
};

inline constexpr int kDefaultBufferAlignment = 64;

// Checks: scalar element dtype, integer scalar shape/strides/offset, strides
// empty or one per dimension, a known scope, a power-of-two alignment.
absl::StatusOr<Buffer> MakeBufferChecked(std::string name, DataType dtype, std::vector<Expr> shape,
                                         std::vector<Expr> strides = {}, Expr elem_offset = nullptr,
                                         std::string scope = "global",
                                         int alignment = kDefaultBufferAlignment);
// Aborting form for C++ code (see expr.h).
Buffer MakeBuffer(std::string name, DataType dtype, std::vector<Expr> shape,
                  std::string scope = "global");

// Checks `indices` address `buffer` (rank, integer types, one vector lane count)
// and returns the lanes of the access; `what` names the caller in messages.
absl::StatusOr<int> CheckBufferIndices(const char* what, const Buffer& buffer,
                                       const std::vector<Expr>& indices);

// True for "global", "local", "shared".
bool IsKnownScope(const std::string& scope);

}  // namespace tessel::ir

#endif  // TESSEL_IR_BUFFER_H_
