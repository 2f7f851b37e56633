// Recognising a softmax or log-softmax along one axis by what its stages compute:
// a max reduction of X over the axis, then (optionally) an exp stage, a sum of
// exponentials, and the normalising stage. Each elementwise value is probed
// (probe.h) at points where the loads take consistent values (E = exp(X - M)),
// so `E / S`, `E * (1 / S)` and `exp(X - M) / S` are all softmax.
//
//   M[i] = max_k X[i, k]; E[i, k] = exp(X[i, k] - M[i]); S[i] = sum_k E[i, k];
//   Y[i, k] = E[i, k] * (1 / S[i])
//     -> {src X, dst Y, axis 1, log false, stages {s, s+1, s+2, s+3}}
//   M[i] = max_k X[i, k]; S[i] = sum_k exp(X[i, k] - M[i]); Y = X - M - log(S)
//     -> {..., log true, stages {s, s+1, s+2}}
//
// The intermediates (M, E, S) must be the function's own and read by nothing else.
#ifndef TESSEL_DISPATCH_SOFTMAX_H_
#define TESSEL_DISPATCH_SOFTMAX_H_

#include <string>
#include <variant>
#include <vector>

#include "dispatch/stages.h"

namespace tessel::dispatch {

struct Softmax {
  ir::Buffer src, dst;
  int axis = 0;
  bool log = false;
  std::vector<int64_t> dims;                   // X's extents.
  std::vector<size_t> stages;                  // The stages it spans, the first one s.
  std::vector<const ir::BufferNode*> dropped;  // The intermediates (M, E, S).
  std::string ToString() const;                // "softmax(X, axis 1)"
};

// The softmax whose max reduction is stage `s`, or why there is none.
std::variant<Softmax, std::string> MatchSoftmax(const ir::PrimFunc& func, const StageList& list,
                                                size_t s);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_SOFTMAX_H_
