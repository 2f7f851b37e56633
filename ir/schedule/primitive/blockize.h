// blockize: the subtree under a loop becomes a new outer block; the block it
// held stays inside, its bindings split into an outer part (the new block's
// iter vars) and an inner part (the loops below).
//
//   for i_0 in range(0, 8) {                       blockize(i_1)
//     for j in range(0, 64) {                      ------------->
//       for i_1 in range(0, 16) {
//         block B(vi: spatial[0, 128] = i_0 * 16 + i_1, vj: spatial[0, 64] = j) {
//           reads(A[vi, vj]) writes(B[vi, vj]) ...
//
//   for i_0 in range(0, 8) {
//     for j in range(0, 64) {
//       block B_o(vi_o: spatial[0, 8] = i_0, vj_o: spatial[0, 64] = j) {
//         reads(A[vi_o * 16 +: 16, vj_o])
//         writes(B[vi_o * 16 +: 16, vj_o])
//         for i_1 in range(0, 16) {
//           block B(vi: spatial[0, 128] = vi_o * 16 + i_1, vj: spatial[0, 64] = vj_o) { ... }
//
// Each binding b of the block is divided (a subspace division of its iter map)
// as b = E * q + r: r is the part over the loops from `loop` down (the inner
// loops), taking each value of [0, E) once -- the inner terms form a dense
// mixed radix, scales 1, e_0, e_0 * e_1, ... -- and q is the rest over the
// loops above, divided by E. q becomes an outer iter var (the block's kind,
// domain the original's divided by E) unless it is a constant; the block keeps
// its iter vars, bound to `vi_o * E + r`. The outer block's regions are the
// inner block's relaxed over the inner loops (ir/arith/region.h).
//
// A reduction: when the outer block gets a reduce iter var, the init moves to
// the outer block (a nest over the inner loops of spatial bindings running the
// init in a block `<name>_init`), since an init left inside would run again at
// every outer reduction step. Otherwise the inner block keeps its init.
//
// The predicate: its conjuncts over the outer loops only go to the outer
// block; the others stay on the inner block, with each outer loop replaced by
// the outer iter var bound to exactly it.
//
// Rules: the subtree under `loop` is a chain of loops ending in one block (no
// other statement); the inner loops' bounds do not use the outer loops; each
// binding divides as above; each inner loop feeds at most one binding; the
// inner predicate can be written with the outer iter vars.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_BLOCKIZE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_BLOCKIZE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Returns the name of the new outer block.
absl::StatusOr<std::string> Blockize(ScheduleState* state, const Var& loop);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.blockize(...): Turns the subtree under `loop` into a new block whose iter vars are the outer
// parts of the bindings of the block below; returns the new block.
struct Blockize {
  using Self = Blockize;
  LoopRV loop;

  static constexpr PrimitiveInfo kInfo{
      .name = "blockize",
      .doc =
          "Turns the subtree under `loop` into a new block whose iter vars are the outer parts of "
          "the bindings of the block below; returns the new block."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(loop)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const Var& loop) {
    return schedule::Blockize(ctx.state(), loop);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_BLOCKIZE_H_
