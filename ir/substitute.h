// Substitution in the IR: variables by expressions, buffers by other buffers,
// in expressions and in statements. The schedule primitives, the te DSL, the
// arithmetic analyses and the passes all use this one walk.
//
//   // for i in range(0, 64) { block C(vi = i) { C[vi] = A[vi] } },  i -> i_0 * 16 + i_1:
//   Stmt s = Substitute(loop->body, {{i.get(), Add(Mul(i_0, IntImm32(16)), i_1)}});
//   //   block C(vi = i_0 * 16 + i_1) { C[vi] = A[vi] }
//
//   // block C(...) { reads(A[vi]) writes(C[vi])  C[vi] = C[vi] + A[vi] },  C -> C_local:
//   Stmt t = ReplaceBuffers(block, {{C.get(), C_local}});
//   //   block C(...) { reads(A[vi]) writes(C_local[vi])  C_local[vi] = C_local[vi] + A[vi] }
//
// A variable is replaced at every use: indices and values, loop bounds, block
// bindings and predicates, iter var domains, region bounds. Binding sites (a
// loop's or let's variable, an iter var) and buffer shapes are left alone: every
// variable is bound once in a function (the verifier's rule), so a substituted
// variable is never shadowed and no binder needs renaming.
//
// A buffer is replaced everywhere it is named: loads, stores, allocate, both
// sides of a decl_buffer (the view and the buffer it views), block read and write
// regions and alloc_buffers, so the replacement is also defined where the
// original was. Loads and stores keep their dtype and indices: the replacement
// has the original's rank and element type.
//
// Replacement values are inserted as given, not substituted again ({x -> y,
// y -> x} swaps x and y). Untouched subtrees are returned as the same objects
// (the IRMutator's copy-on-write), so `same_as` tells whether anything changed.
#ifndef TESSEL_IR_SUBSTITUTE_H_
#define TESSEL_IR_SUBSTITUTE_H_

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"
#include "ir/mutator.h"

namespace tessel::ir {

using VarMap = absl::flat_hash_map<const VarNode*, Expr>;
using BufferMap = absl::flat_hash_map<const BufferNode*, Buffer>;

Expr Substitute(const Expr& e, const VarMap& vars);
Stmt Substitute(const Stmt& s, const VarMap& vars);
// Variables and buffers in one walk.
Expr Substitute(const Expr& e, const VarMap& vars, const BufferMap& buffers);
Stmt Substitute(const Stmt& s, const VarMap& vars, const BufferMap& buffers);

Expr ReplaceBuffers(const Expr& e, const BufferMap& buffers);
Stmt ReplaceBuffers(const Stmt& s, const BufferMap& buffers);

// The mutator behind the functions above, for a rewrite that changes more on
// the same walk (canonicalize-names also renames blocks). The maps are held by
// reference and must outlive it.
class Substituter : public IRMutator {
 public:
  Substituter(const VarMap& vars, const BufferMap& buffers) : vars_(vars), buffers_(buffers) {}
  // Buffers only.
  explicit Substituter(const BufferMap& buffers);

  // `b`'s replacement, or `b` itself.
  Buffer Replace(const Buffer& b) const;

  Expr VisitVar(const VarNode* op) override;
  Expr VisitBufferLoad(const BufferLoadNode* op) override;
  Stmt VisitBufferStore(const BufferStoreNode* op) override;
  Stmt VisitAllocate(const AllocateNode* op) override;
  Stmt VisitDeclBuffer(const DeclBufferNode* op) override;
  Stmt VisitBlock(const BlockNode* op) override;

 private:
  const VarMap& vars_;
  const BufferMap& buffers_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_SUBSTITUTE_H_
