// GraphFunc: a whole model as a function over tensors, beside the PrimFuncs
// (kernels) of an IRModule. Its body is a list of bindings of pure calls, each
// either a graph-level operator of the op library, by name with attributes, or a
// PrimFunc of the module in destination-passing style (`call_tir`):
//
//   graph @mlp(x: f32[8, 16]) {
//     w: f32[16, 4] = const @w
//     h: f32[8, 4] = matmul(x, w)
//     y: f32[8, 4] = call_tir @relu(h)
//     return y
//   }
//
// `call_tir @relu(h)` calls PrimFunc `relu(h, y)`: the arguments, then one
// buffer per value the binding defines, which the callee writes. `const @w`
// reads constant `w` of the module (a weight), which nothing writes.
//
// Every value (parameter or binding output) is a Buffer of global scope: its
// name, dtype and shape are the tensor's type, and once memory is planned it is
// the storage the kernels read and write. Shapes may use variables; a variable
// is defined by the first parameter whose shape names it, as in a PrimFunc.
// Every value is defined once, before its uses (the verifier checks it).
#ifndef TESSEL_IR_GRAPH_FUNCTION_H_
#define TESSEL_IR_GRAPH_FUNCTION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/buffer.h"

namespace tessel::ir {

struct GraphCall {
  enum class Kind {
    kOp,        // A graph-level operator: `callee` names an op of the op library.
    kCallTir,   // `callee` names a PrimFunc of the module.
    kConstant,  // `callee` names a constant of the module; no arguments, no attributes.
  };
  Kind kind = Kind::kOp;
  std::string callee;
  std::vector<Buffer> args;
  Attrs attrs;  // The operator's attributes; empty for call_tir.
};

struct GraphBinding {
  // The values this binding defines: one for an operator, one or more for call_tir.
  std::vector<Buffer> outputs;
  GraphCall call;
};

class GraphFuncNode : public Node {
 public:
  std::vector<Buffer> params;
  std::vector<GraphBinding> bindings;
  std::vector<Buffer> results;  // Parameters or binding outputs, in the caller's order.
  Attrs attrs;
  GraphFuncNode() : Node(NodeKind::kGraphFunc) {}
  static bool classof(NodeKind k) { return k == NodeKind::kGraphFunc; }
};
using GraphFunc = Ref<const GraphFuncNode>;

// Checks the shape of the function only (every buffer present, at least one
// result, one output per operator); the verifier checks the rest.
absl::StatusOr<GraphFunc> MakeGraphFuncChecked(std::vector<Buffer> params,
                                               std::vector<GraphBinding> bindings,
                                               std::vector<Buffer> results, Attrs attrs = {});

// A value's type as the text shows it: "f32[n, 4]".
std::string TensorTypeText(const Buffer& value);
std::string TensorTypeText(DataType dtype, const std::vector<int64_t>& shape);

// "op" or "call_tir", for messages.
const char* GraphCallKindName(GraphCall::Kind kind);

}  // namespace tessel::ir

#endif  // TESSEL_IR_GRAPH_FUNCTION_H_
