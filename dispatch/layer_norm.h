// Recognising a layer normalisation over the last axis by what its stages compute:
// a reduction into row sums of x and of x * x (one block, or two), then a stage
// that reads X, the sums and at most two vectors along the axis. The last stage is
// probed (probe.h) at points with known mean and variance: it must equal
// (x - mean) / sqrt(var + eps) * gamma + beta for one eps, read off the probe,
// with gamma and beta each a vector or absent.
//
//   S1[i] = sum_k X[i, k]; S2[i] = sum_k X[i, k] * X[i, k]   (one block, as ops.layer_norm)
//   Y[i, k] = (X[i, k] - S1[i] / 768) * rsqrt(S2[i] / 768 - (S1[i] / 768)^2 + 1e-5) * G[k] + B[k]
//     -> {src X, dst Y, gamma G, beta B, eps 1e-5, stages {s, s+1}}
#ifndef TESSEL_DISPATCH_LAYER_NORM_H_
#define TESSEL_DISPATCH_LAYER_NORM_H_

#include <string>
#include <variant>
#include <vector>

#include "dispatch/stages.h"

namespace tessel::dispatch {

struct LayerNorm {
  ir::Buffer src, dst;
  ir::Buffer gamma, beta;  // Null when absent.
  float eps = 0.0f;
  std::vector<int64_t> dims;                   // X's extents; normalised over the last.
  std::vector<size_t> stages;                  // The stages it spans, the first one s.
  std::vector<const ir::BufferNode*> dropped;  // The row sums.
  std::string ToString() const;                // "layer_norm(X, eps 1e-05, gamma G, beta B)"
};

// The layer normalisation whose sums are stage `s`, or why there is none.
std::variant<LayerNorm, std::string> MatchLayerNorm(const ir::PrimFunc& func, const StageList& list,
                                                    size_t s);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_LAYER_NORM_H_
