// The pieces the cache stages (cache_read, cache_write, reindex, rfactor) share:
// which blocks of a scope touch a buffer, where a new stage goes, the copy
// loop nest it runs, and allocating its buffer in the scope block.
//
//   for i { for j { for k { block C(...) writes C } } }      scope: the function
//   CacheInsertPoint p = LowestCommonPosition(index, scope, {C});   // the scope
//   ChildUnder(index, p.sref, C)  -> the sref of `for i`, the statement the new
//                                    stage goes before or after
//   Stmt copy = MakeCopyNest("C_local", dims, ...);          // for ax0 { for ax1 {
//                                                             //   block C_local(v0 = ax0, v1 =
//                                                             ax1)
//                                                             //     C[v0, v1] = C_local[v0, v1] }
//                                                             }
//   PrimFunc g = InsertNextTo(f, <for i>, copy, /*before=*/false);
//   g = AllocateInScope(g, "", {C_local});   // no scope block: wraps the body in `block root()`
//
// A position is the lowest loop (or the scope) holding every related block
// whose body is a sequence: inside a perfect nest there is no place between
// two statements, so the position rises to where a new statement can go, as
// TVM's cache stages do.
#ifndef TESSEL_IR_SCHEDULE_CACHE_STAGE_H_
#define TESSEL_IR_SCHEDULE_CACHE_STAGE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/arith/analyzer.h"
#include "ir/function.h"
#include "ir/schedule/state.h"
#include "ir/schedule/stmt_index.h"

namespace tessel::ir::schedule {

// The blocks of scope `scope` (a block sref, or -1 for the function body) that
// read and that write `buffer` by their declared regions, in program order.
struct BufferAccessors {
  std::vector<int> readers;
  std::vector<int> writers;
};
BufferAccessors FindAccessors(const StmtIndex& index, int scope, const BufferNode* buffer);

// The lowest sref holding all of `srefs` (blocks of scope `scope`), risen past
// loops whose body is not a sequence; `scope` at the highest.
int LowestCommonPosition(const StmtIndex& index, int scope, const std::vector<int>& srefs);
// The sref directly below `pos` (a loop or the scope) that holds `sref`.
int ChildUnder(const StmtIndex& index, int pos, int sref);

// Binds in `ana` the loops at and above sref `pos` (and the bindings of the
// blocks above it), so regions below `pos` simplify under their ranges.
void BindPath(const StmtIndex& index, int pos, arith::Analyzer* ana);

// `func` with `stmt` inserted right before (or after) `target`, a statement of
// its body; sequences stay flat.
PrimFunc InsertNextTo(const PrimFunc& func, const StmtNode* target, const Stmt& stmt, bool before);
// `func` with every sequence nested directly in a sequence spliced into it.
PrimFunc FlattenSeqs(const PrimFunc& func);

// `func` with `buffers` allocated by block `scope_block`, or, for "", by a root
// block that then wraps the whole body (created under a name no block has).
PrimFunc AllocateInScope(const PrimFunc& func, const StmtIndex& index,
                         const std::string& scope_block, const std::vector<Buffer>& buffers);

// One dimension of a copy nest: a loop over [0, extent) whose spatial iter var
// v ranges over `dom` and takes `min + ax`.
struct CopyDim {
  Expr min;
  Expr extent;
  Range dom;
};
// for ax0 in range(0, extent0) { ... block name(v0 = min0 + ax0, ...) where <in dom> {
//   dst[dst_indices(v)] = src[src_indices(v)] } }
// The predicate keeps each v inside its dom, and each destination index inside
// dst, where `ana` cannot prove it is. A source index that may leave src (a
// padded read, guarded in the block) stores zero there instead:
//   if <src index inside src> { dst[...] = src[...] } else { dst[...] = 0 }
// so dst is written at every point the copy declares.
absl::StatusOr<Stmt> MakeCopyNest(
    const std::string& name, const std::vector<CopyDim>& dims, const Buffer& dst,
    const std::function<std::vector<Expr>(const std::vector<Expr>&)>& dst_indices,
    const Buffer& src,
    const std::function<std::vector<Expr>(const std::vector<Expr>&)>& src_indices,
    arith::Analyzer* ana);

// `base` if no block of `index` has that name, else base_1, base_2, ...
std::string UniqueBlockName(const StmtIndex& index, const std::string& base);

// A buffer like `like` named `name` in `scope`.
Buffer CacheBuffer(const Buffer& like, const std::string& name, const std::string& scope);

// The buffer of `block`'s reads (`is_write` false) or writes at `index`; an
// InvalidArgument naming the block's buffers when out of range.
absl::StatusOr<Buffer> BufferAtIndex(const ScheduleState& state, const BlockNode* block,
                                     int64_t index, bool is_write);

// "" unless `block` reads `buffer`, which it writes, and has no init; then the
// reason a new buffer (`what`: "its cache") in the buffer's place would be read
// before it is written. The loads count, declared or not (the update of a
// decomposed reduction reads its accumulator), except
// those inside a nested block with its own init.
std::string CheckReadBeforeWritten(const BlockNode* block, const Buffer& buffer,
                                   const std::string& what);

// "" for "global", "local", "shared"; else the reason.
std::string CheckStorageScope(const std::string& scope);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_CACHE_STAGE_H_
