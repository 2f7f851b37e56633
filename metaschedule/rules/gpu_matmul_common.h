// What the GPU matmul rules share (gpu_matmul.cc, gpu_matmul_mma.cc): the roles
// of a matmul-like block's iter vars, the rows assumed of a shape variable, its
// batch loops, where a block sits, unrolling a micro-tile, and spreading a
// shared-memory copy over the threads.
//
//   AnalyzeGpuMatmul(ctx, s, "C") on C[i, j] += A[i, k] * B[k, j] (64 x 32 x 16)
//     -> {reduce = 2, rows = 0, cols = 1, m = 64, n = 32, k = 16}
//   CooperativeCopy(s, A_shared, k_0, 8, 16, 4)
//     for ax0, ax1 below k_0 (a 128 x 8 slice) -> fused, split [rest, 8, 16, 4]:
//     threadIdx.y, threadIdx.x, 4 neighbouring elements vectorized (16 bytes of f32)
#ifndef TESSEL_METASCHEDULE_RULES_GPU_MATMUL_COMMON_H_
#define TESSEL_METASCHEDULE_RULES_GPU_MATMUL_COMMON_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/schedule.h"
#include "metaschedule/rules/block_analysis.h"

namespace tessel::metaschedule {

// A reduction into one buffer whose output's last dimension (columns) and another
// (rows, RowsIter) are indexed by spatial iter vars, alone in a trivial nest: the
// nest, the iter vars (indices into the block's iter_vars) and their extents.
struct MatmulNest {
  TrivialNest nest;
  int reduce = -1, rows = -1, cols = -1;
  int64_t m = 0, n = 0, k = 0;
};
// The roles, or why `block` is not such a reduction on a GPU target (one reduce
// iter var, an init, no opaque iter var; AnalyzeGpuNest's conditions). With
// `symbolic_rows` the rows' extent may be a shape variable's (m is then
// kSymbolicExtent); every other extent must be constant.
std::variant<MatmulNest, std::string> AnalyzeGpuMatmul(const RuleContext& ctx, sch::Schedule& s,
                                                       const std::string& block,
                                                       bool symbolic_rows = false);

// The rows the heuristics assume of a shape variable's extent (MatmulNest::m is
// kSymbolicExtent): a long prompt's tokens, where a dense layer's time goes. The
// grid is then taken to be full (no tile shrinks for it); one token's row leaves
// most of a 128-row tile idle.
inline constexpr int64_t kSymbolicRows = 1024;

// The loops of the other iter vars that run more than once (a batch), in iter
// var order; fused and bound to blockIdx.z by BindBatch.
std::vector<sch::LoopRV> BatchLoops(const MatmulNest& mm);
absl::Status BindBatch(sch::Schedule& s, const std::vector<sch::LoopRV>& batch);

// Whether the loop `l` is among the loops around `block`.
absl::StatusOr<bool> IsUnder(sch::Schedule& s, sch::BlockRV block, sch::LoopRV l);

// Unrolls each of `loops` that runs more than once.
absl::Status UnrollAll(sch::Schedule& s, const std::vector<sch::LoopRV>& loops);

// Spreads a copy's nest under `anchor` over ty x tx threads (threadIdx.y,
// threadIdx.x), the innermost elements in vectors of up to `max_vector` where
// the slice's rows hold whole ones and every thread gets the same number (1: no
// vectors, for a copy that transposes).
absl::Status CooperativeCopy(sch::Schedule& s, sch::BlockRV copy, sch::LoopRV anchor, int64_t ty,
                             int64_t tx, int64_t max_vector);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_RULES_GPU_MATMUL_COMMON_H_
