// compute_at and reverse_compute_at: move a block under a loop of the block it
// feeds (compute_at) or is fed by (reverse_compute_at), with its loops
// regenerated to cover exactly the region needed (produced) per iteration.
//
//   block root() {                                     compute_at(B, i_0)
//     alloc_buffer B: f32[17]                          ----------------->
//     for i in range(0, 17) {                          for i_0 in range(0, 3) {
//       block B(vi: spatial[0, 17] = i) {                for ax0 in range(0, 8) {
//         B[vi] = A[vi] * 2.0f32 } }                       block B(vi: spatial[0, 17] = i_0 * 8 +
//         ax0)
//     for i_0 in range(0, 3) {                                 where i_0 * 8 + ax0 < 17 { ... } }
//       for i_1 in range(0, 8) {                         for i_1 in range(0, 8) {
//         block C(vi: spatial[0, 17] = i_0 * 8 + i_1)      block C(...) where i_0 * 8 + i_1 < 17 {
//             where i_0 * 8 + i_1 < 17 {                     C[vi] = B[vi] + 1.0f32 } } }
//           C[vi] = B[vi] + 1.0f32 } } }
//   }
//
// The region of each buffer the moved block writes (reads) comes from region
// inference over the loop's body (ir/arith/region.h), in terms of the loop and
// the loops around it; it maps back to the block's iter vars through its
// write (read) indices, each an iter var plus a constant, and is clipped to
// the iter vars' domains. A new loop per iter var (extent 1 loops dropped
// unless preserve_unit_loops) binds `v = lo + ax`; where the extent is not a
// constant, the loop takes its upper bound and the block a predicate
// `lo + ax <= hi` -- the tail of a tile that does not divide the extent.
//
// Rules of compute_at(P, L): L and P share a scope and P is not under L
// already; P's iter vars are spatial or reduce, its bindings cover its domain
// once, it is the only writer of what it writes and writes no parameter; P
// has consumers, all under L; no block after P up to and through L writes a
// buffer P reads; each written buffer's index is an iter var plus a constant.
// P lands just before the first statement of L's body that holds a consumer.
// Both primitives: every parallel, vectorized or thread-bound loop around P's
// old or new place still passes its rule (loop_independence.h) once P moved;
// under a parallel loop the moved block's buffer usually becomes private to
// an iteration, so the usual tile-then-fuse order passes.
//
// Rules of reverse_compute_at(C, L): L precedes C in C's scope; C has only
// spatial iter vars (a reduction would be split across iterations), covers
// its domain once and is the only writer of its outputs; at least one
// producer of C is under L, and no producer under L reduces over L or a loop
// around it (C would read partial results); the region produced under L is
// exact, and over all iterations of L it provably covers what C reads over
// its domain (else C's other instances would never run); no block under L or between L and C
// touches C's outputs or writes what C reads. C lands just after the last statement of L's body
// that holds a producer.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_AT_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_AT_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status ComputeAt(ScheduleState* state, const std::string& block, const Var& loop,
                       bool preserve_unit_loops);
absl::Status ReverseComputeAt(ScheduleState* state, const std::string& block, const Var& loop,
                              bool preserve_unit_loops);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.compute_at(...): Moves a producer block under `loop` of its consumers, computing per
// iteration exactly the region they read there.
struct ComputeAt {
  using Self = ComputeAt;
  BlockRV block;
  Location loop;
  bool preserve_unit_loops = false;

  static constexpr PrimitiveInfo kInfo{
      .name = "compute_at",
      .doc =
          "Moves a producer block under `loop` of its consumers, computing per iteration exactly "
          "the region they read there."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(loop), TESSEL_OPTIONAL_ARG(preserve_unit_loops)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block,
                            const ResolvedLocation& loop, bool preserve_unit_loops);
};

// sch.reverse_compute_at(...): Moves a consumer block under `loop` of its producers, computing per
// iteration exactly the region they wrote there.
struct ReverseComputeAt {
  using Self = ReverseComputeAt;
  BlockRV block;
  Location loop;
  bool preserve_unit_loops = false;

  static constexpr PrimitiveInfo kInfo{
      .name = "reverse_compute_at",
      .doc =
          "Moves a consumer block under `loop` of its producers, computing per iteration exactly "
          "the region they wrote there."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(loop), TESSEL_OPTIONAL_ARG(preserve_unit_loops)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block,
                            const ResolvedLocation& loop, bool preserve_unit_loops);
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_COMPUTE_AT_H_
