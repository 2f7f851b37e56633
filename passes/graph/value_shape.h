// A graph value's shape as numbers, for the graph passes that need it constant
// (a weight to bind, a value to fold, a reshape's `shape` attribute).
//
//   ConstantShape(w)   // w: f32[768, 3072] -> {768, 3072}; x: f32[n, 768] -> nullopt
#ifndef TESSEL_PASSES_GRAPH_VALUE_SHAPE_H_
#define TESSEL_PASSES_GRAPH_VALUE_SHAPE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace tessel::passes {

// The shape of `v` when every dimension is a constant; nullopt otherwise.
inline std::optional<std::vector<int64_t>> ConstantShape(const ir::Buffer& v) {
  std::vector<int64_t> shape;
  for (const ir::Expr& d : v->shape) {
    const auto* c = ir::dyn_cast<ir::IntImmNode>(d);
    if (c == nullptr) return std::nullopt;
    shape.push_back(c->value);
  }
  return shape;
}

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_GRAPH_VALUE_SHAPE_H_
