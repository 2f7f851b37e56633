// reindex: a cache stage whose layout follows the block's iter vars, so the
// block reads (writes) a buffer indexed exactly by them -- the normal form
// tensorize and transform_layout match against.
//
// reindex(block=B, buffer_index=0, is_write=False) on
//
//   for i in range(0, 16) { for j in range(0, 8) {
//     block B(vi = i, vj = j) { reads(A[vj, vi]) writes(B[vi, vj])  B[vi, vj] = A[vj, vi] * 2.0f32
//     } } }
// gives
//   block root() {
//     alloc_buffer A_reindex: f32[16, 8]
//     for ax0 in range(0, 16) { for ax1 in range(0, 8) {
//       block A_reindex(v0 = ax0, v1 = ax1) { A_reindex[v0, v1] = A[v1, v0] } } }
//     for i { for j { block B(vi = i, vj = j) { B[vi, vj] = A_reindex[vi, vj] * 2.0f32 } } }
//   }
// and returns the new block. The new buffer has one dimension per iter var the
// accesses use, in the block's iter var order, over that var's domain. With
// is_write the block writes the new buffer and the new block, placed after it,
// copies it to the original.
//
// Rules: the index names a buffer the block reads (writes); every access of
// the buffer in the block has the same indices; a read buffer is not also
// written by the block; a written one is indexed by spatial iter vars only, the
// block has no predicate (reindex before tail splits: the copy covers the whole
// domain) and is the buffer's only writer in its scope; no other user of the
// buffer shares the block's statement in the scope.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_REINDEX_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_REINDEX_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the name of the new block.
absl::StatusOr<std::string> Reindex(ScheduleState* state, const std::string& block,
                                    int64_t buffer_index, bool is_write);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.reindex(...): Stages the block's read (or write) buffer `buffer_index` through a new buffer
// indexed by the block's iter vars; returns the copy block.
struct Reindex {
  using Self = Reindex;
  BlockRV block;
  int64_t buffer_index = 0;
  bool is_write = false;

  static constexpr PrimitiveInfo kInfo{
      .name = "reindex",
      .doc =
          "Stages the block's read (or write) buffer `buffer_index` through a new buffer indexed "
          "by the block's iter vars; returns the copy block."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(buffer_index), TESSEL_ARG(is_write)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const std::string& block,
                                           int64_t buffer_index, bool is_write) {
    return schedule::Reindex(ctx.state(), block, buffer_index, is_write);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_REINDEX_H_
