// Recognising the elementwise blocks that follow a matmul as library post-ops, by
// what they compute rather than how they are written: a unary block is probed at
// a dozen points and compared with each post-op's definition, so
// `0.5 * x * (1 + erf(x * 0.70710677))`, `x * 0.5 * (erf(x / sqrt(2)) + 1)` and
// `max(x, 0)` / `select(x > 0, x, 0)` are recognised alike; a binary block must be
// x + y or x * y with y another buffer broadcast along some of the matmul's dims.
//
//   D[vi, vj] = C[vi, vj] + bias[vj]   -> {kAdd, operand bias, out_strides (0, 1)}
//   G[vi, vj] = 0.5 * D[vi, vj] * (1 + erf(D[vi, vj] * 0.70710677))  -> {kGeluErf}
#ifndef TESSEL_DISPATCH_EPILOGUE_H_
#define TESSEL_DISPATCH_EPILOGUE_H_

#include <string>
#include <variant>
#include <vector>

#include "dispatch/contraction.h"
#include "ir/stmt.h"

namespace tessel::dispatch {

// The values are the shims' TesselPostOpKind (dispatch/runtime/dispatch_runtime.h).
enum class PostOp {
  kRelu = 0,
  kGeluErf = 1,
  kGeluTanh = 2,
  kSigmoid = 3,
  kSilu = 4,
  kLinear = 5,  // alpha * x + beta (a scale, a shift)
  kTanh = 6,
  kAdd = 10,  // x + operand (bias, residual)
  kMul = 11,  // x * operand
};
const char* PostOpName(PostOp op);  // "relu", "gelu_erf", ..., "add", "mul"

struct EpilogueOp {
  PostOp kind;
  float alpha = 0.0f, beta = 0.0f;  // kLinear; 0 elsewhere (relu: no negative slope)
  ir::Buffer operand = {};          // kAdd, kMul.
  // The operand's element stride along each dimension of the output (0: broadcast).
  std::vector<int64_t> out_strides = {};
  ir::Buffer out = {};              // What the block writes.
  std::string ToString() const;     // "add(bias)", "gelu_erf", "linear(0.5, 0)"
};

// What `block` (all spatial) applies elementwise to `input`, or why it is not
// one post-op.
std::variant<EpilogueOp, std::string> MatchEpilogue(const ir::BlockNode* block,
                                                    const ir::Buffer& input);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_EPILOGUE_H_
