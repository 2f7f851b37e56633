// Reading block bindings as quasi-affine sums of loop-variable splits, for the
// legality rules of the loop primitives.
//
//   loops i_j_fused in [0, 4096), k_0 in [0, 8), k_1 in [0, 8)
//   vi = i_j_fused // 64           -> {split(i_j_fused, lower 64) * 1}
//   vj = i_j_fused %% 64           -> {split(i_j_fused, extent 64) * 1}
//   vk = k_0 * 8 + k_1             -> {k_0 * 8, k_1 * 1}
//   vk = (k_0 * 8 + k_1) // 8      -> {k_0 * 1}          (k_1 < 8 drops out)
//   vi = i * i                     -> not quasi-affine (nothing)
//
// ARITH-DEPENDENT: this is the schedule's own small stand-in for iter-map
// detection (affine bijective bindings), which ir/arith/ is building. It handles
// the forms split, fuse and reorder produce (sums of scaled splits, floordiv and
// floormod by constants over loops with constant bounds) and says "not affine"
// for anything else, so a legality rule built on it can refuse a legal schedule
// but never accept an illegal one. Replace ReadIterSum by the arith detector
// once it lands; the rules (CheckAffineBindings, CheckInjective) stay.
#ifndef TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_
#define TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/stmt.h"

namespace tessel::ir::schedule {

// floormod(floordiv(var, lower), extent) * scale; extent 0 means no floormod.
struct IterTerm {
  const VarNode* var = nullptr;
  int64_t lower = 1;
  int64_t extent = 0;
  int64_t scale = 1;
};

struct IterSum {
  std::vector<IterTerm> terms;
  int64_t base = 0;
};

// Constant ranges of loop variables: var -> {min, extent}.
using LoopRanges = absl::flat_hash_map<const VarNode*, std::pair<int64_t, int64_t>>;

// The loops enclosing `sref` up to the top (not only to the nearest block:
// bindings read every enclosing loop), with constant bounds.
class StmtIndex;
LoopRanges RangesAbove(const StmtIndex& index, int sref);

// Reads `e` as a quasi-affine sum, or nothing.
std::optional<IterSum> ReadIterSum(const Expr& e, const LoopRanges& ranges);

// For the iter vars of `realize` whose bindings use a variable of `loops`:
// each binding is quasi-affine, each iter var is spatial or reduce, reduce
// bindings grow with the loops (so the init instance still comes first), and
// the splits of one loop variable across the bindings do not overlap. Returns "" when the rules hold, else the reason.
std::string CheckAffineBindings(const BlockRealizeNode* realize,
                                const absl::flat_hash_map<const VarNode*, int>& loops,
                                const LoopRanges& ranges);

// True when distinct values of `loop` (the other loops fixed) give distinct
// values of the spatial bindings of `realize` (so its iterations touch
// distinct block instances). `extent` is the loop's constant extent, `min` its
// constant min (nothing when not constant).
bool IsInjectiveIn(const BlockRealizeNode* realize, const VarNode* loop,
                   std::optional<int64_t> min, std::optional<int64_t> extent,
                   const LoopRanges& ranges);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_BINDING_ANALYSIS_H_
