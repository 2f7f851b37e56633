// Tensor-core products: a block marked "warp_mma" whose three innermost loops are
// one lane's share of a 16 x 8 x 16 product becomes that lane's fragment loads and
// one warp-wide mma_m16n8k16 (ir/expr.h). remove-blocks runs it while the blocks
// still say which loops reduce.
//
//   for tx in thread_binding(0, 32, "threadIdx.x") {        (lane: g = tx // 4, t = tx % 4)
//     ... for ih in (0, 2) { for jl in (0, 2) { for kk in (0, 16) {
//       block C(...) "warp_mma" { C_l[R(tx, ih), Q(tx, jl)] += f32(A_s[R(tx, ih), kk]) *
//       f32(B_s[Q(tx, jl), kk]) }
//   ->
//     allocate C_l_a: f16[8], C_l_b: f16[4], C_l_d: f32[4] scope "local" {
//       for r in unrolled(0, 8) { C_l_a[r] = A_s[R(tx, r // 2 % 2), 2t + r % 2 + r // 4 * 8] }
//       for r in unrolled(0, 4) { C_l_b[r] = B_s[Q(g // 2, g % 2), 2t + r % 2 + r // 2 * 8] }
//         (r = 2p, 2p + 1 as one 2-lane load where they neighbour at an even offset)
//       for r in unrolled(0, 4) { C_l_d[r] = C_l[R(tx, r // 2), Q(tx, r % 2)] }
//       C_l_d[ramp(0, 1, 4)] = mma_m16n8k16(C_l_a[ramp(0, 1, 8)], C_l_b[ramp(0, 1, 4)],
//       C_l_d[ramp(0, 1, 4)]) for r in unrolled(0, 4) { C_l[R(tx, r // 2), Q(tx, r % 2)] = C_l_d[r]
//       }
//     }
//
// Why it is the same computation: lane (g, t) holds D[g + 8 ih, 2t + jl], which
// it stores where it stored its own C[R, Q]; row m = g + 8 ih of the product is A's
// row R(g, ih) in every lane that loads it, and column n = B's column Q(n // 2,
// n % 2), which is what lane (g = n, t) loads. So A's index may use the lane only
// through g (tx // 4) and B's only through t (tx % 4): both are proven, else
// the block is refused. The sum over kk runs in order, as the interpreter's mma
// does, so before and after are equal to the last bit there.
//
// Rules: the block (no init, no predicate, no allocations) is the whole body of
// three loops of extents 2, 2 and 16 (ih: used by A and C; jl: by B and C; kk: by A
// and B), under a loop of 32 bound to threadIdx.x starting at 0; its body is
// `C[c] = C[c] + f32(A[a]) * f32(B[b])` with A and B f16 and C f32; a lane's four
// (ih, jl) are provably four elements of C.
#ifndef TESSEL_PASSES_LOWERING_WARP_MMA_H_
#define TESSEL_PASSES_LOWERING_WARP_MMA_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes::lowering {

// The annotation a schedule puts on such a block (value: "m16n8k16").
inline constexpr char kWarpMmaAnnotation[] = "warp_mma";

// OK when `body` (a block's update) is `C[c] = C[c] + f32(A[a]) * f32(B[b])`
// with A and B f16 and C f32, else what it is not: what a rule asks before
// marking the block.
absl::Status CheckWarpMmaBody(const ir::Stmt& body);

// `func` with its marked blocks lowered; `lowered` (optional) counts them.
absl::StatusOr<ir::PrimFunc> LowerWarpMmas(const ir::PrimFunc& func, int* lowered = nullptr);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_WARP_MMA_H_
