// Statements: stores, loops, conditionals, lets, sequences, allocations and blocks.
//
// A matmul in block form (DESIGN.md decision 1: blocks are the unit of scheduling):
//
//   for i in 0..128 { for j in 0..128 { for k in 0..128 {
//     block C(vi: spatial[0, 128] = i, vj: spatial[0, 128] = j, vk: reduce[0, 128] = k) {
//       reads A[vi, vk], B[vk, vj]  writes C[vi, vj]
//       init { C[vi, vj] = 0 }
//       C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
//   } } } }
//
// `BlockRealize` binds a block's iter vars to expressions of the enclosing loops and
// guards it with a predicate; `Block` holds the iter vars, regions, init and body.
#ifndef TESSEL_IR_STMT_H_
#define TESSEL_IR_STMT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/buffer.h"
#include "ir/expr.h"

namespace tessel::ir {

class StmtNode : public Node {
 public:
  static bool classof(NodeKind k) { return k >= kFirstStmt && k <= kLastStmt; }

 protected:
  explicit StmtNode(NodeKind kind) : Node(kind) {}
};
using Stmt = Ref<const StmtNode>;

// [min, min + extent).
struct Range {
  Expr min;
  Expr extent;
};

// A sub-region of a buffer, one range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

enum class IterKind : uint8_t {
  kSpatial,  // Each value is written independently.
  kReduce,   // Values are combined into the same output (the block has `init`).
  kOpaque,   // Anything else: no reordering assumed.
};
const char* IterKindName(IterKind kind);  // "spatial", "reduce", "opaque"

struct IterVar {
  Var var;
  Range dom;
  IterKind kind;
};

class BufferStoreNode : public StmtNode {
 public:
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  BufferStoreNode(Buffer b, Expr v, std::vector<Expr> i)
      : StmtNode(NodeKind::kBufferStore), buffer(std::move(b)), value(std::move(v)),
        indices(std::move(i)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kBufferStore; }
};

enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding };
const char* ForKindName(ForKind kind);  // "serial", "parallel", "vectorized", "unrolled", "thread"

class ForNode : public StmtNode {
 public:
  Var loop_var;
  Expr min, extent;
  ForKind for_kind;
  std::string thread_tag;  // Only for kThreadBinding: "blockIdx.x", "threadIdx.y", "vthread", ...
  Stmt body;
  Attrs annotations;
  ForNode() : StmtNode(NodeKind::kFor) {}
  static bool classof(NodeKind k) { return k == NodeKind::kFor; }
};

class IfThenElseNode : public StmtNode {
 public:
  Expr condition;
  Stmt then_case;
  Stmt else_case;  // May be null.
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(NodeKind::kIfThenElse), condition(std::move(c)), then_case(std::move(t)),
        else_case(std::move(e)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kIfThenElse; }
};

class LetStmtNode : public StmtNode {
 public:
  Var var;
  Expr value;
  Stmt body;
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(NodeKind::kLetStmt), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kLetStmt; }
};

class SeqStmtNode : public StmtNode {
 public:
  std::vector<Stmt> seq;
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(NodeKind::kSeqStmt), seq(std::move(s)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kSeqStmt; }
};

class EvaluateNode : public StmtNode {
 public:
  Expr value;
  explicit EvaluateNode(Expr v) : StmtNode(NodeKind::kEvaluate), value(std::move(v)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kEvaluate; }
};

// Allocates fresh storage for `buffer` (in its scope) and binds it in `body`.
class AllocateNode : public StmtNode {
 public:
  Buffer buffer;
  Stmt body;
  AllocateNode(Buffer b, Stmt s) : StmtNode(NodeKind::kAllocate), buffer(std::move(b)), body(std::move(s)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kAllocate; }
};

// Binds `buffer` in `body` as another view (shape, strides, offset) of the storage
// of `source`, e.g. the 1-D form of an N-D buffer after flattening.
class DeclBufferNode : public StmtNode {
 public:
  Buffer buffer;
  Buffer source;
  Stmt body;
  DeclBufferNode(Buffer b, Buffer src, Stmt s)
      : StmtNode(NodeKind::kDeclBuffer), buffer(std::move(b)), source(std::move(src)), body(std::move(s)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kDeclBuffer; }
};

class BlockNode : public StmtNode {
 public:
  std::string name;  // Unique in its function.
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  Stmt init;  // May be null; runs when all reduce iter vars are at their minimum.
  Stmt body;
  std::vector<Buffer> alloc_buffers;
  Attrs annotations;
  BlockNode() : StmtNode(NodeKind::kBlock) {}
  static bool classof(NodeKind k) { return k == NodeKind::kBlock; }
};
using Block = Ref<const BlockNode>;

class BlockRealizeNode : public StmtNode {
 public:
  std::vector<Expr> iter_values;  // One per iter var of `block`.
  Expr predicate;                 // bool; the block runs only where it is true.
  Block block;
  BlockRealizeNode(std::vector<Expr> v, Expr p, Block b)
      : StmtNode(NodeKind::kBlockRealize), iter_values(std::move(v)), predicate(std::move(p)),
        block(std::move(b)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kBlockRealize; }
};

// ---- Checked factories (see expr.h for the two ways to build) ----------------------

absl::StatusOr<Stmt> MakeBufferStore(Buffer buffer, Expr value, std::vector<Expr> indices);
absl::StatusOr<Stmt> MakeFor(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
                             std::string thread_tag = "", Attrs annotations = {});
absl::StatusOr<Stmt> MakeIfThenElse(Expr condition, Stmt then_case, Stmt else_case = nullptr);
absl::StatusOr<Stmt> MakeLetStmt(Var var, Expr value, Stmt body);
absl::StatusOr<Stmt> MakeSeqStmt(std::vector<Stmt> seq);
absl::StatusOr<Stmt> MakeEvaluate(Expr value);
absl::StatusOr<Stmt> MakeAllocate(Buffer buffer, Stmt body);
absl::StatusOr<Stmt> MakeDeclBuffer(Buffer buffer, Buffer source, Stmt body);
absl::StatusOr<Block> MakeBlock(std::string name, std::vector<IterVar> iter_vars,
                                std::vector<BufferRegion> reads, std::vector<BufferRegion> writes,
                                Stmt body, Stmt init = nullptr,
                                std::vector<Buffer> alloc_buffers = {}, Attrs annotations = {});
absl::StatusOr<Stmt> MakeBlockRealize(std::vector<Expr> iter_values, Expr predicate, Block block);

// Aborting forms for C++ code.
Stmt Store(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt For(Var loop_var, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::kSerial);
Stmt Seq(std::vector<Stmt> seq);

// A BufferRegion covering a single point: buffer[i, j] as ranges [i, i+1), [j, j+1).
BufferRegion PointRegion(Buffer buffer, const std::vector<Expr>& indices);
// A BufferRegion covering the whole buffer.
BufferRegion FullRegion(Buffer buffer);

}  // namespace tessel::ir

#endif  // TESSEL_IR_STMT_H_
