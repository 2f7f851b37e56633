// BindParams: parameters of a graph function become constants of the module —
// a model's weights, given once, as TVM Relax's BindParams does. The parameter's
// value is then defined by a `const` binding at the top of the body, so every use
// reads the same value as before:
//
//   graph @main(x: f32[8, 16], w: f32[16, 4]) {      graph @main(x: f32[8, 16]) {
//     y: f32[8, 4] = matmul(x, w)              ->      w: f32[16, 4] = const @w
//     return y                                         y: f32[8, 4] = matmul(x, w)
//   }                                                  return y
//                                                    }
//                                                    const @w: f32[16, 4] = "0000..."
//
// A constant takes the parameter's name, or `<graph>_<param>` (then a numbered
// suffix) when the module already has that name. `fold-constants` then computes
// what depends on constants alone (a transposed weight, a packed panel) once.
#ifndef TESSEL_PASSES_GRAPH_BIND_PARAMS_H_
#define TESSEL_PASSES_GRAPH_BIND_PARAMS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/host_buffer.h"

namespace tessel::passes {

// `mod` with the named parameters of graph function `graph` bound to `values`.
// Refuses, changing nothing: a name that is not a parameter (or given twice), a
// value of another dtype or shape, and a parameter with a symbolic dimension (its
// size is the caller's, per call).
absl::StatusOr<ir::IRModule> BindParams(
    const ir::IRModule& mod, const std::string& graph,
    const std::vector<std::pair<std::string, ir::HostBuffer>>& values);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_BIND_PARAMS_H_
