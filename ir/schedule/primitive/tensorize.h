// tensorize: replaces a block's computation by a registered intrinsic's
// implementation, after matching the block against its description
// (tensor_intrin.h).
//
//   block C_o(vi_o: spatial[0, 2] = i_0, vj_o: spatial[0, 2] = j_0, vk_o: reduce[0, 5] = k) {
//     reads(A[vi_o * 4 +: 4, vk_o], B[vk_o, vj_o * 16 +: 16]) writes(C[vi_o * 4 +: 4, vj_o * 16 +:
//     16]) init { ... C_init ... } for i_1 in range(0, 4) { for j_1 in range(0, 16) {
//       block C(vi = vi_o * 4 + i_1, vj = vj_o * 16 + j_1, vk = vk_o) {
//         C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] } } }
//   }
//   tensorize(C_o, "f32_fma_4x16") ->
//   block C_o(...) attrs {tensorized = "f32_fma_4x16"} {
//     reads(...) writes(...) init { ... }
//     for i in unrolled(0, 4) {
//       C[vi_o * 4 + i, ramp(vj_o * 16, 1, 16)] = fma(broadcast(A[vi_o * 4 + i, vk_o], 16),
//           B[vk_o, ramp(vj_o * 16, 1, 16)], C[vi_o * 4 + i, ramp(vj_o * 16, 1, 16)])
//   }
//
// Matching: the block's body must be a loop nest around one block (blockize
// makes that; given a loop, tensorize blockizes it first). Both that nest and
// the description are brought to one form: the inner block's bindings are
// substituted into its body, and each buffer access is taken relative to the
// start of the buffer's region in the outer block (the description's params
// start at 0). The buffers are paired in the order the two forms access them,
// each region becoming a parameter of its extents; the forms must then be
// structurally equal (alpha-equivalence: loop and iter var names do not matter,
// shapes, dtypes, loop extents and expressions do).
//
// Replacement by index rewriting, not buffer views: the implementation's
// access P[idx] to parameter P becomes X[min + idx] on the matched buffer X
// with region minimum `min` (a ramp's base moves, a broadcast's value moves),
// so the result is plain loads and stores on the function's own buffers, which
// every later pass and codegen already handle. The block keeps its iter vars,
// regions and init, and gets the annotation `tensorized = "<name>"`.
//
// Rules: the intrinsic exists; the body is a loop nest around one block without
// init (a reduction's init lives in the outer block: blockize inside the
// reduction), predicate or allocations; regions have constant extents; and the
// normalised forms are equal (the error shows the first mismatch).
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_TENSORIZE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_TENSORIZE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status Tensorize(ScheduleState* state, const std::string& block,
                       const std::string& intrin_name);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.tensorize(...): Replaces a blockized block (a loop is blockized first) by the implementation
// of the registered tensor intrinsic whose description it matches.
struct Tensorize {
  using Self = Tensorize;
  BlockOrLoop block_or_loop;
  std::string intrin_name;

  static constexpr PrimitiveInfo kInfo{
      .name = "tensorize",
      .doc =
          "Replaces a blockized block (a loop is blockized first) by the implementation of the "
          "registered tensor intrinsic whose description it matches."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block_or_loop), TESSEL_ARG(intrin_name)};
  static absl::Status Apply(PrimitiveContext& ctx,
                            const std::variant<std::string, Var>& block_or_loop,
                            const std::string& intrin_name);
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_TENSORIZE_H_
