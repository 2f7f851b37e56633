// cache_read and cache_write: stage a buffer through a new buffer of another
// storage scope, with a copy block between the two.
//
// cache_write(block=C, write_buffer_index=0, storage_scope="local") on
//
//   for i in range(0, 64) { for j in range(0, 64) { for k in range(0, 64) {
//     block C(vi = i, vj = j, vk = k) { init { C[vi, vj] = 0.0f32 }
//                                       C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] } } } }
// gives
//   block root() {
//     alloc_buffer C_local: f32[64, 64] (scope "local")
//     for i { for j { for k {
//       block C(vi = i, vj = j, vk = k) { init { C_local[vi, vj] = 0.0f32 }
//                                         C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
//                                         } } } }
//     for ax0 in range(0, 64) { for ax1 in range(0, 64) {
//       block C_local(v0 = ax0, v1 = ax1) { C[v0, v1] = C_local[v0, v1] } } }
//   }
// and returns the copy block C_local. Accumulating in a local buffer is what
// lets a later reverse_compute_at put the copy under a tile loop.
//
// cache_read(block=C, read_buffer_index=0, storage_scope="shared") copies the
// region of A that its readers need into A_shared by a block A_shared placed
// before the first reader, and makes every reader of A in the scope (the
// blocks that read it without writing it) read A_shared instead.
//
// The copy goes at the lowest position holding the block and the buffer's
// other users (cache_stage.h); its loops cover the region the block(s) below
// that position access, guarded by a predicate where that region overhangs the
// buffer. The cache buffer has the original's shape (compaction of allocations
// shrinks it after compute_at); a function without a root block gets one to
// allocate it.
//
// Rules: the index names a buffer the block reads (writes); the scope is
// known; cache_write: the block is the buffer's only writer in its scope, does
// not read it without an init (the cache would be read before written), writes
// an exact box below the position, and no reader shares its position;
// cache_read: the block does not also write the buffer, and every writer of it
// in the scope comes before the copy.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_CACHE_READ_WRITE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_CACHE_READ_WRITE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Both return the name of the new copy block.
absl::StatusOr<std::string> CacheRead(ScheduleState* state, const std::string& block,
                                      int64_t read_buffer_index, const std::string& storage_scope);
absl::StatusOr<std::string> CacheWrite(ScheduleState* state, const std::string& block,
                                       int64_t write_buffer_index,
                                       const std::string& storage_scope);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.cache_read(...): Copies the region the readers need of the block's read buffer
// `read_buffer_index` into a new buffer of `storage_scope` before them; returns the copy block.
struct CacheRead {
  using Self = CacheRead;
  BlockRV block;
  int64_t read_buffer_index = 0;
  std::string storage_scope;

  static constexpr PrimitiveInfo kInfo{
      .name = "cache_read",
      .doc =
          "Copies the region the readers need of the block's read buffer `read_buffer_index` into "
          "a new buffer of `storage_scope` before them; returns the copy block."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(read_buffer_index), TESSEL_ARG(storage_scope)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const std::string& block,
                                           int64_t read_buffer_index,
                                           const std::string& storage_scope) {
    return schedule::CacheRead(ctx.state(), block, read_buffer_index, storage_scope);
  }
};

// sch.cache_write(...): Makes the block write a new buffer of `storage_scope` and copies it back
// after; returns the copy block.
struct CacheWrite {
  using Self = CacheWrite;
  BlockRV block;
  int64_t write_buffer_index = 0;
  std::string storage_scope;

  static constexpr PrimitiveInfo kInfo{.name = "cache_write",
                                       .doc =
                                           "Makes the block write a new buffer of `storage_scope` "
                                           "and copies it back after; returns the copy block."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(write_buffer_index), TESSEL_ARG(storage_scope)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const std::string& block,
                                           int64_t write_buffer_index,
                                           const std::string& storage_scope) {
    return schedule::CacheWrite(ctx.state(), block, write_buffer_index, storage_scope);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_CACHE_READ_WRITE_H_
