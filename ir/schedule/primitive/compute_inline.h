// compute_inline and reverse_compute_inline: fold an elementwise block into
// the block that reads (compute_inline) or writes (reverse_compute_inline) its
// buffer, so the intermediate buffer disappears.
//
//   block root() {                                       compute_inline(B)
//     alloc_buffer B: f32[64]                            ----------------->
//     for i in range(0, 64) {                            for i in range(0, 64) {
//       block B(vi: spatial[0, 64] = i) {                  block C(vi: spatial[0, 64] = i) {
//         reads(A[vi]) writes(B[vi])                         reads(A[vi]) writes(C[vi])
//         B[vi] = A[vi] * 2.0f32 } }                         C[vi] = A[vi] * 2.0f32 + 1.0f32 } }
//     for i in range(0, 64) {
//       block C(vi: spatial[0, 64] = i) {
//         reads(B[vi]) writes(C[vi])
//         C[vi] = B[vi] + 1.0f32 } }
//   }
//
// reverse_compute_inline(C) on the "before" gives block B computing
// C[vi] = A[vi] * 2.0f32 + 1.0f32 under B's loops, named B.
//
// Rules of compute_inline(B): B is a leaf block with only spatial iter vars
// and no init; its body is one store whose indices are distinct iter vars of
// B and whose value uses no other iter var and does not read the stored
// buffer; the buffer is not a function parameter (its contents would be lost)
// and B is its only writer. Every load of the buffer becomes B's value with
// B's iter vars replaced by the load's indices; the readers' declared reads
// are updated (the inlined value's buffers from region inference).
//
// Rules of reverse_compute_inline(C): C is a leaf, spatial, single-store
// block with one producer block P, itself inlinable as above, and C is the
// only reader of P's buffer; every load of it in C has the same indices,
// distinct iter vars of C that cover all of C's iter vars and span the whole
// buffer, as P's store does; C runs every point of its domain once (no
// predicate) and no block between P and C touches what C reads or writes.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_INLINE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_INLINE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status ComputeInline(ScheduleState* state, const std::string& block);
absl::Status ReverseComputeInline(ScheduleState* state, const std::string& block);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.compute_inline(...): Inlines an elementwise block into the blocks that read its buffer; the
// buffer goes.
struct ComputeInline {
  using Self = ComputeInline;
  BlockRV block;

  static constexpr PrimitiveInfo kInfo{
      .name = "compute_inline",
      .doc = "Inlines an elementwise block into the blocks that read its buffer; the buffer goes."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block) {
    return schedule::ComputeInline(ctx.state(), block);
  }
};

// sch.reverse_compute_inline(...): Inlines an elementwise block into the one block that produces
// what it reads.
struct ReverseComputeInline {
  using Self = ReverseComputeInline;
  BlockRV block;

  static constexpr PrimitiveInfo kInfo{
      .name = "reverse_compute_inline",
      .doc = "Inlines an elementwise block into the one block that produces what it reads."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block) {
    return schedule::ReverseComputeInline(ctx.state(), block);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_INLINE_H_
