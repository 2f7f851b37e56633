// Built-in CPU tensor intrinsics: 16-lane f32 FMA outer-product updates, the
// micro-kernel of a register-tiled matmul (one k step of an R x 16 tile).
//
//   description (f32_fma_4x16)                 implementation
//   for i in range(0, 4) {                      for i in unrolled(0, 4) {
//     for j in range(0, 16) {                     C[i, ramp(0, 1, 16)] =
//       block update(vi = i, vj = j) {              fma(broadcast(A[i, 0], 16),
//         C[vi, vj] = C[vi, vj]                         B[0, ramp(0, 1, 16)],
//                     + A[vi, 0] * B[0, vj]             C[i, ramp(0, 1, 16)])
//                                               }
//
// A row of C is one 16-lane vector (512 bits: one AVX-512 register, two AVX2
// ones): A's element is broadcast, B's row loaded contiguously, and fma fuses
// the multiply-add (which rounds once: results agree with the description
// within floating-point tolerance). Tensorize a matmul to it by tiling i by R
// and j by 16, moving k outside the tile and blockizing the tile:
//   i_0, j_0, k, i_1 [R], j_1 [16]; sch.tensorize(block_or_loop=i_1, intrin_name="f32_fma_4x16")
#ifndef TESSEL_IR_SCHEDULE_INTRIN_CPU_FMA_H_
#define TESSEL_IR_SCHEDULE_INTRIN_CPU_FMA_H_

#include <string>
#include <utility>
#include <vector>

namespace tessel::ir::schedule::intrin {

// (name, .tsl text of the description and the implementation).
std::vector<std::pair<std::string, std::string>> CpuFmaIntrinsicTexts();

}  // namespace tessel::ir::schedule::intrin

#endif  // TESSEL_IR_SCHEDULE_INTRIN_CPU_FMA_H_
