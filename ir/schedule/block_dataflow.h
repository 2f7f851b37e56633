// What the compute-location primitives (compute_at, reverse_compute_at,
// compute_inline, reverse_compute_inline) share: who writes and reads a buffer,
// whether a block covers its whole domain, and taking a block's nest out of the
// function.
//
//   block root() {
//     alloc_buffer B: f32[64]
//     for i in range(0, 64) { block B(...) }      // writes B
//     for i in range(0, 64) { block C(...) }      // reads B
//   }
//   WritersOf(index, B) -> ["B"]    ReadersOf(index, B) -> ["C"]    IsParam(func, B) -> false
//   RemoveStmt(func, BlockNestRoot(index, <B>))  -> root's body without `for i { block B }`
//   RemoveAlloc(func, B)                          -> without `alloc_buffer B`
//
// A block's reads and writes are taken from its declared regions (the verifier
// keeps them honest); stores and loads outside blocks are counted too, so a
// buffer touched by raw code is never treated as private to one block.
#ifndef TESSEL_IR_SCHEDULE_BLOCK_DATAFLOW_H_
#define TESSEL_IR_SCHEDULE_BLOCK_DATAFLOW_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/arith/region.h"
#include "ir/schedule/stmt_index.h"

namespace tessel::ir::schedule {

// Names of the blocks that declare a write (read) of `buffer`, in program order.
std::vector<std::string> WritersOf(const StmtIndex& index, const BufferNode* buffer);
std::vector<std::string> ReadersOf(const StmtIndex& index, const BufferNode* buffer);
// Stores to (loads of) `buffer` anywhere in `s`, blocks included.
int CountStores(const Stmt& s, const BufferNode* buffer);
int CountLoads(const Stmt& s, const BufferNode* buffer);
// True when `buffer` is a parameter of `func` (its contents are seen outside).
bool IsParam(const PrimFunc& func, const BufferNode* buffer);
// The block names inside `s`, at any depth.
absl::flat_hash_set<std::string> BlocksIn(const Stmt& s);
bool Touches(const std::vector<BufferRegion>& regions, const BufferNode* buffer);
// The write regions of `block` whose buffer its body loads and its reads do not
// name: the accumulator of a reduction. A block with an init may leave that read
// implicit (its update reads what its own init wrote); whatever takes the init
// away (decompose_reduction, blockize, lower-init-block) adds these to the
// reads, since every load of a block without an init lies in a read region.
std::vector<BufferRegion> AccumulatorReads(const BlockNode& block);

// "" when the block at sref `block` runs every point of its iter var domains
// (its bindings are an affine bijection of its loops under its predicate, and
// each binding spans its iter var's whole domain); else why not.
std::string CheckCoversDomain(const StmtIndex& index, int block);

// Binds in `ana` the loops from sref `loop` up to its scope block, and that
// block's iter vars over their domains: the context of the loop's body.
void BindLoopsAround(const StmtIndex& index, int loop, arith::Analyzer* ana);

// The outermost statement holding only the block at sref `block`: the block
// realize, or the loops around it that contain nothing else.
const StmtNode* BlockNestRoot(const StmtIndex& index, int block);
// `func` without the statement `root` (an element of a sequence); fails when
// `root` is not directly in a sequence (removing it would leave an empty body).
absl::StatusOr<PrimFunc> RemoveStmt(const PrimFunc& func, const StmtNode* root);
// `func` without the allocation of `buffer` (a block's alloc_buffers entry or
// an Allocate statement).
PrimFunc RemoveAlloc(const PrimFunc& func, const BufferNode* buffer);

// `r` intersected with its buffer's shape, where `ana` cannot prove it inside.
// An access outside the buffer cannot happen in a valid function, but the
// region of a guarded access (a padded window under an `if`) covers more than
// it touches, and relaxed over an outer block's inner loops it can hang over
// the buffer's edge.
BufferRegion ClipToShape(const BufferRegion& r, arith::Analyzer* ana);

// A block's declared reads after some of its loads changed: the regions of the
// buffers in `changed` are taken from `inferred` (what the block now accesses),
// `dropped` is left out, and every other declared region is kept as written.
std::vector<BufferRegion> MergeReads(const std::vector<BufferRegion>& declared,
                                     const std::vector<arith::AccessRegion>& inferred,
                                     const absl::flat_hash_set<const BufferNode*>& changed,
                                     const BufferNode* dropped);
// The buffers `e` loads.
absl::flat_hash_set<const BufferNode*> LoadedBuffers(const Expr& e);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_BLOCK_DATAFLOW_H_
