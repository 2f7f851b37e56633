// The fusion pattern of a PrimFunc, read off its blocks, and the pass that
// records it: `annotate-op-pattern` sets attr `op_pattern` on every PrimFunc a
// graph function calls.
//
//   T_relu[vi, vj] = max(h[vi, vj], 0.0f32)         elementwise (reads at its write's point)
//   T_add[vi, vj] = h[vi, vj] + b[vj]                broadcast (reads a subset of its indices)
//   T_transpose[vi, vj] = x[vj, vi]                  injective (any other spatial read)
//   T_sum[vi] = T_sum[vi] + x[vi, vk]                reduction (a reduce iter var)
//   C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]    output-fusable (contracts two inputs)
//   @"mkl_sgemm"(...) or no blocks at all            opaque
//
// A function's pattern is the strongest of its blocks' in that order, so softmax
// (max, exp, sum, divide) is a reduction and dense with a bias block is
// output-fusable. `fuse-ops` groups bindings by these patterns.
#ifndef TESSEL_PASSES_GRAPH_OP_PATTERN_H_
#define TESSEL_PASSES_GRAPH_OP_PATTERN_H_

#include <optional>
#include <string>

#include "ir/function.h"

namespace tessel::passes {

// Ordered from the most to the least fusable.
enum class OpPattern { kElementwise, kBroadcast, kInjective, kReduction, kOutputFusable, kOpaque };

const char* OpPatternName(OpPattern p);  // "elementwise", ..., "output-fusable", "opaque"
std::optional<OpPattern> OpPatternFromName(const std::string& name);

OpPattern AnalyzeOpPattern(const ir::PrimFunc& func);

// The `op_pattern` attr of `func` when set and valid, else the analysis.
OpPattern OpPatternOf(const ir::PrimFunc& func);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_OP_PATTERN_H_
