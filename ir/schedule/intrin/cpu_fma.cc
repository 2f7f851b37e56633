// Built-in CPU tensor intrinsics (see cpu_fma.h).
#include "ir/schedule/intrin/cpu_fma.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace tessel::ir::schedule::intrin {

namespace {

// C[R, 16] += A[R, 1] * B[1, 16], R rows.
std::string FmaOuterProduct(int rows) {
  constexpr const char* kText = R"(
func @f32_fma_Rx16_desc(A: f32[R, 1], B: f32[1, 16], C: f32[R, 16]) {
  for i in range(0, R) {
    for j in range(0, 16) {
      block update(vi: spatial[0, R] = i, vj: spatial[0, 16] = j) {
        reads(C[vi, vj], A[vi, 0], B[0, vj])
        writes(C[vi, vj])
        C[vi, vj] = C[vi, vj] + A[vi, 0] * B[0, vj]
      }
    }
  }
}

func @f32_fma_Rx16_impl(A: f32[R, 1], B: f32[1, 16], C: f32[R, 16]) {
  for i in unrolled(0, R) {
    C[i, ramp(0, 1, 16)] = fma(broadcast(A[i, 0], 16), B[0, ramp(0, 1, 16)], C[i, ramp(0, 1, 16)])
  }
}
)";
  return absl::StrReplaceAll(kText, {{"R", absl::StrCat(rows)}});
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CpuFmaIntrinsicTexts() {
  return {{"f32_fma_1x16", FmaOuterProduct(1)}, {"f32_fma_4x16", FmaOuterProduct(4)}};
}

}  // namespace tessel::ir::schedule::intrin
