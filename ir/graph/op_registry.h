// The graph-level operators: the op library's ops (ir/te/ops) by name, with
// attributes, as a graph function calls them.
//
//   y: f32[8, 4] = matmul(x, w) {transpose_b = true}
//   z: f32[8, 4] = gelu(y) {approximate = "tanh"}
//
//   absl::StatusOr<LegalizedOp> op = LegalizeGraphOp(binding);
//   // op->func: func(x: f32[8, 16], w: f32[4, 16], y: f32[8, 4]) in block form
//   // op->output: y: f32[8, 4], the value's type
//
// Each op lists the attributes it takes; an unknown one, a value of the wrong
// kind or inputs that the op's shape and dtype rules refuse are errors naming the
// op, never an abort. `docs/graph.md` lists the ops and their attributes.
#ifndef TESSEL_IR_GRAPH_OP_REGISTRY_H_
#define TESSEL_IR_GRAPH_OP_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/te/tensor.h"

namespace tessel::ir::graph {

// Whether `name` is a graph-level operator.
bool IsGraphOp(const std::string& name);
// Every operator name, sorted.
std::vector<std::string> GraphOpNames();

// The op applied to `inputs` (tensors of the DSL, usually placeholders).
absl::StatusOr<te::Tensor> BuildGraphOp(const std::string& op,
                                        const std::vector<te::Tensor>& inputs, const Attrs& attrs);

struct LegalizedOp {
  PrimFunc func;  // Parameters: one buffer per argument, then the output.
  // The value's type, under the name asked for; its shape uses the arguments' variables.
  Buffer output;
};
// The PrimFunc that computes an operator call on its arguments' types, and the
// type of its value, named `output_name` (what a builder binds).
absl::StatusOr<LegalizedOp> InferGraphOp(const GraphCall& call, const std::string& output_name);
// The same for a binding of the function, whose declared type must be the one
// the operator gives: "declared f32[8, 5]; matmul gives f32[8, 4]".
absl::StatusOr<LegalizedOp> LegalizeGraphOp(const GraphBinding& binding);

}  // namespace tessel::ir::graph

#endif  // TESSEL_IR_GRAPH_OP_REGISTRY_H_
