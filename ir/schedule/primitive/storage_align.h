// storage_align: asks for padding of a buffer's rows so that the stride of one
// dimension is `factor * k + offset` elements (shared-memory bank conflicts,
// vector-aligned rows). The schedule records it; lowering honours it
// (remove-blocks gives the buffer padded strides: passes/lowering/aligned_strides.h).
//
// storage_align(block=T, buffer_index=0, axis=0, factor=32, offset=1) on
//   block T(...) { writes(T_shared[vi, vj]) ... }          T_shared: f32[64, 64]
// gives
//   block T(...) attrs {buffer_dim_align = [[[0, 32, 1]]]} { ... }
//
// The annotation is TVM's: `buffer_dim_align` holds, per write buffer of the
// block (by index), a list of [axis, factor, offset]; a second call for the
// same buffer and axis replaces the first. When the block is removed, the
// stride of dimension `axis` (the distance between consecutive indices of that
// dimension) is rounded up from its compact value s to the least s' >= s with
// s' % factor == offset, and the outer strides are built on the padded one.
//
// Rules: the index names a buffer the block writes; the buffer is allocated in
// the function; -ndim <= axis < ndim (negative counts from the end); factor >= 1;
// 0 <= offset < factor.
//
// The entries follow their buffer: a primitive that hands the writing of a
// buffer to another block (cache_write: the copy block now writes it) moves
// them there, and one that removes the buffer (compute_inline, the producer's
// buffer of reverse_compute_inline) drops them with it (DimAlignsOf,
// WithDimAligns below).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_STORAGE_ALIGN_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_STORAGE_ALIGN_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

inline constexpr const char* kBufferDimAlign = "buffer_dim_align";

absl::Status StorageAlign(ScheduleState* state, const std::string& block, int64_t buffer_index,
                          int64_t axis, int64_t factor, int64_t offset);

// The [axis, factor, offset] entries `block` asks for its write buffer
// `index`; empty when it asks none (or its annotation is not a list).
AttrValue::List DimAlignsOf(const BlockNode& block, size_t index);
// `block`'s annotations with the entries of write buffer `index` set to
// `entries` (index-aligned with `block.writes`; the annotation goes when no
// buffer keeps an entry). A malformed annotation is left as it is, for
// lowering to report.
Attrs WithDimAligns(const BlockNode& block, size_t index, AttrValue::List entries);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.storage_align(...): Records that the stride of dimension `axis` of the block's write buffer
// `buffer_index` be padded to factor * k + offset elements when flattened.
struct StorageAlign {
  using Self = StorageAlign;
  BlockRV block;
  int64_t buffer_index = 0;
  int64_t axis = 0;
  int64_t factor = 0;
  int64_t offset = 0;

  static constexpr PrimitiveInfo kInfo{
      .name = "storage_align",
      .doc =
          "Records that the stride of dimension `axis` of the block's write buffer `buffer_index` "
          "be padded to factor * k + offset elements when flattened."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(buffer_index), TESSEL_ARG(axis), TESSEL_ARG(factor),
                 TESSEL_ARG(offset)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block, int64_t buffer_index,
                            int64_t axis, int64_t factor, int64_t offset) {
    return schedule::StorageAlign(ctx.state(), block, buffer_index, axis, factor, offset);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_STORAGE_ALIGN_H_
