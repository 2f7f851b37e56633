// sink-reshapes: moves a reshape below the elementwise and broadcast operators
// that consume it, so that reshapes meet and cancel, and an operator chain is
// left next to the matmul it follows — where `fuse-ops` can make it the
// matmul's epilogue. ONNX's MatMul of a [1, S, D] activation is imported as
// reshape, matmul, reshape; an FFN's bias and GELU then sit between two reshapes:
//
//   m: f32[128, 3072] = matmul(a, w1)                m: f32[128, 3072] = matmul(a, w1)
//   r: f32[1, 128, 3072] = reshape(m) {...}          hb: f32[128, 3072] = add(m, b1)
//   h: f32[1, 128, 3072] = add(r, b1)          ->    g: f32[128, 3072] = gelu(hb)
//   g3: f32[1, 128, 3072] = gelu(h)                  y: f32[128, 768] = matmul(g, w2)
//   f: f32[128, 3072] = reshape(g3) {...}
//   y: f32[128, 768] = matmul(f, w2)
//
// A reshape `r = reshape(m)` moves below an operator that reads it when the
// operator is elementwise or broadcast (its legalized PrimFunc's pattern), its
// value has r's shape, the reshape keeps the last dimension, and every other
// argument is a scalar, a vector over that dimension (a bias) or a reshape of the
// same kind: op(m, b) has m's shape, and reshaping it gives what op(r, b) gave. A
// reshape read several times moves only when every reader lets it, so none is
// left behind (GELU reads its input twice). Then a reshape of a reshape reads the
// first one's argument, a reshape to its argument's own shape goes, and so does a
// reshape nothing reads. Values keep their names and types; those it adds are
// named after the value they stand for (`h_flat`). Run it before `legalize`.
// The log counts what it did: "sink-reshapes: main: 2 reshapes moved, 1 removed".
#ifndef TESSEL_PASSES_GRAPH_SINK_RESHAPES_H_
#define TESSEL_PASSES_GRAPH_SINK_RESHAPES_H_

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::passes {

struct SinkReshapesStats {
  int moved = 0;    // Reshapes moved below an operator.
  int removed = 0;  // Reshapes merged into another or removed as no-ops.
};

// `g` with its reshapes sunk and cancelled.
absl::StatusOr<ir::GraphFunc> SinkReshapes(const ir::GraphFunc& g, SinkReshapesStats* stats);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_SINK_RESHAPES_H_
