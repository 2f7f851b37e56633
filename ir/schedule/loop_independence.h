// Whether the iterations of a loop may run at once: the rule parallel,
// vectorize and bind share (loop_kind.h), and that compute_at and
// reverse_compute_at recheck for the non-serial loops around a moved block.
//
//   for i_0 in range(0, 8) {                       tiled matmul, epilogue moved in
//     for j_0, k, i_1, j_1 { block C(vi = i_0 * 8 + i_1, ...) writes C[vi, vj] }
//     for j_0, ax0, ax1   { block D(vi = i_0 * 8 + ax0, ...) reads C[vi, vj] }
//   }
//   FindLoopDependence(i_0, parallel) -> none: per iteration v of i_0, C writes
//     C[v * 8 +: 8, 0 +: 80] and D reads C[v * 8 +: 8, 0 +: 80], and for v != v'
//     the rows [8 v, 8 v + 8) and [8 v', 8 v' + 8) are disjoint.
//   With D reading C[0 +: 64, vj] instead: "block D reads buffer C that block C
//     writes, at a place that may belong to another iteration of loop i_0 ...".
//
// The rule, for a loop f:
// - no statement outside blocks below f, and no load outside them (an `if`
//   condition, a bound) of a shared buffer a block below f writes;
// - no block below f binds f through a reduce or opaque iter var;
// - every block below f that writes a shared buffer (see below) runs a distinct
//   instance in each iteration and writes a place that depends on f;
// - for two different blocks below f and a shared buffer one of them writes
//   (or one block's reads of a buffer it writes), the places they touch (a
//   block's loads count, declared in its reads or not) are the same (in
//   terms of the loops), or the regions
//   they touch in one iteration, relaxed over the loops between f and the
//   block, are provably disjoint for any two different iterations.
// Each block is trusted for itself: distinct instances of a block with spatial
// iter vars write distinct places (TensorIR semantics; the verifier checks the
// regions).
//
// A buffer is private to f -- each iteration has its own copy, so it needs none
// of the rules above -- when a block below f allocates it, or, for a parallel
// loop, when a block around f allocates it, every access of it lies below f,
// no loop between that block and f is vectorized, and in each iteration every
// block below f reads of it only what a block before it wrote in the same
// iteration (the reader's region relaxed over the loops below f inside the
// writer's, both trimmed by their blocks' predicates, the writer's exactly
// inferred: a writer guarded on loops its bindings do not use may skip an
// iteration, whose reader would find its copy empty):
// remove-blocks then
// allocates it inside f's body (passes/lowering/allocation_place.h), which
// relies, as lowering does, on each iteration writing what it reads of it.
// Vectorized and thread-bound loops get no such copies (no allocation goes
// inside a vector loop; GPU storage scopes are not modelled), so for them
// only buffers allocated below the loop are private.
#ifndef TESSEL_IR_SCHEDULE_LOOP_INDEPENDENCE_H_
#define TESSEL_IR_SCHEDULE_LOOP_INDEPENDENCE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

// Why the iterations of loop sref `loop` of `func` cannot run at once.
struct LoopDependence {
  const Node* at = nullptr;  // The block or loop to mark.
  std::string why;           // "block D reads buffer C that block C writes, ..."
};

// nullopt when the rule above holds for loop sref `loop` made `kind`
// (kParallel, kVectorized or kThreadBinding, then bound to `thread_tag`); `word`
// names the kind in the reason ("parallel", "bound to threadIdx.x"). A buffer
// each iteration has its own copy of is exempt: one allocated below the loop,
// and one allocated above it that only this loop touches, every iteration
// writing what it reads -- for a parallel loop any such buffer, for a loop bound
// to blockIdx a "shared" or "local" one (a GPU block's own memory), for threadIdx
// a "local" one. Bound to threadIdx.x, a loop a lone reduction block reduces over
// is a cross-thread reduction, which lowering turns into a collective.
std::optional<LoopDependence> FindLoopDependence(const StmtIndex& index, int loop, ForKind kind,
                                                 const std::string& word,
                                                 const std::string& thread_tag = "");

// The loop variables of the parallel, vectorized and thread-bound loops at and
// around sref `s`, innermost first.
std::vector<const VarNode*> NonSerialLoopsAround(const StmtIndex& index, int s);

// For a primitive that has just replaced `before` by the state's function
// (moving a block): OK when the rule still holds for each of `loops` still in
// the function; else the state goes back to `before` and the error "<doing>
// would break the rule of loop i, which is vectorized: <why>" marks loop i there.
absl::Status KeepLoopKindsOrUndo(ScheduleState* state, const PrimFunc& before,
                                 const std::vector<const VarNode*>& loops,
                                 const std::string& doing);

// "parallel", "vectorized", "bound to threadIdx.x": how a loop's kind reads.
std::string LoopKindWord(const ForNode* loop);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_LOOP_INDEPENDENCE_H_
