// What a cost model sees of a candidate: a fixed-length vector of numbers read
// from its lowered function (after `lower`: flat loops, explicit vector lanes,
// 1-D buffers), summed over its stores. docs/metaschedule.md lists them.
//
//   for i in parallel(0, 2):                     C_local[ramp(0, 1, 16)] =
//     for k in range(0, 64):                       fma(broadcast(A[i * 64 + k], 16),
//       C_local[ramp(..16)] = fma(...)                 B[ramp(k * 32, 1, 16)], C_local[...])
//   -> per store: trip 128, lanes 16, fma 128 x 16, loads 3 (A stride 1 along k,
//      B stride 32 along k), bytes read 128 x (4 + 64 + 64), unique bytes of B
//      64 x 64, under a parallel loop of 2 ...
//   Features(lowered)[kFloatOps] = log2(1 + total float operations) ...
//
// Counts are log2(1 + x) (times and sizes span decades); shares are in [0, 1].
#ifndef TESSEL_METASCHEDULE_COST_MODEL_FEATURES_H_
#define TESSEL_METASCHEDULE_COST_MODEL_FEATURES_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/trace.h"

namespace tessel::metaschedule {

enum Feature {
  kFloatOps,         // Every floating-point operation (fma counts 2), over all trips.
  kFmaOps,           // fma.
  kAddOps,           // add, sub.
  kMulOps,           // mul.
  kDivOps,           // div, mod.
  kMathCalls,        // exp, erf, sqrt, tanh, ... (elementwise calls).
  kCompareOps,       // min, max, comparisons, select.
  kIntOps,           // Integer arithmetic (indices).
  kLoads,            // Load instructions executed (a vector load is one).
  kStores,           // Store instructions executed.
  kBytesRead,        // Bytes loaded, over all trips.
  kBytesWritten,     // Bytes stored.
  kUniqueGlobal,     // Distinct bytes touched in the function's parameters.
  kUniqueLocal,      // Distinct bytes touched in buffers the function allocates.
  kVectorLanes,      // Mean lanes of a store, weighted by trips.
  kVectorShare,      // Share of float operations done in vectors.
  kParallelExtent,   // Largest product of parallel loop extents around a store.
  kParallelShare,    // Share of float operations under a parallel loop.
  kStaticStores,     // Stores in the code.
  kStaticLoops,      // Loops in the code.
  kMaxDepth,         // Deepest loop nest.
  kInnerExtent,      // Mean extent of a store's innermost loop, weighted by trips.
  kContiguousShare,  // Share of accesses whose innermost-loop stride is 0 or 1 element.
  kStridedShare,     // Share with a stride above 16 elements (a new line each step).
  kIntensity,        // Float operations per distinct byte touched.
  kOpsPerByteRead,   // Float operations per byte loaded.
  kAllocatedBytes,   // Bytes the function allocates.
  kReuse,            // Mean accesses per distinct element, weighted by trips.
  kTrips,            // Store executions (scalar or vector), over all trips.
  kNumFeatures,
};

const char* FeatureName(Feature f);  // "float_ops", "fma_ops", ...

using FeatureVector = std::array<float, kNumFeatures>;

// The features of a lowered function (codegen's input form); fails on one that
// still has blocks.
absl::StatusOr<FeatureVector> ExtractFeatures(const ir::PrimFunc& lowered);

// Every floating-point operation a lowered function executes (fma counts 2),
// with unknown extents taken as 16: what GFLOP/s figures divide.
absl::StatusOr<double> FloatOperations(const ir::PrimFunc& lowered);
// FloatOperations of `func` of `mod` lowered as written (no schedule).
absl::StatusOr<double> WorkloadFloatOperations(const ir::IRModule& mod, const std::string& func);

// `trace` replayed onto `func` of `mod`, lowered, then ExtractFeatures.
absl::StatusOr<FeatureVector> CandidateFeatures(const ir::IRModule& mod, const std::string& func,
                                                const ir::schedule::Trace& trace);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_COST_MODEL_FEATURES_H_
