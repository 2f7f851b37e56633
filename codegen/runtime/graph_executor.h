// GraphExecutor: runs a graph function of a built module: checks the inputs,
// allocates the planned storage (ir/graph_memory_plan.h) once, calls the compiled
// kernels in binding order and returns the results as new NDArrays.
//
//   graph @ffn(x: f32[128, 768], w1: ..., b1: ..., w2: ...) attrs {storage = [["h"], ["g"]]} {
//     h: f32[128, 3072] = call_tir @fused_matmul_add(x, w1, b1)
//     g: f32[128, 3072] = call_tir @gelu(h)
//     y: f32[128, 768] = call_tir @matmul(g, w2)
//     return y
//   }
//
//   absl::StatusOr<GraphExecutor> ex = GraphExecutor::Create(lowered, "ffn", *kernels);
//   absl::StatusOr<std::vector<NDArray>> y = ex->Run({x, w1, b1, w2});   // y[0]: 128 x 768
//   ex->Describe():
//     graph ffn: 3 kernels, 2 storages of 3145728 bytes (unplanned: 3145728)
//       0 fused_matmul_add  reads x, w1, b1  writes h: f32[128, 3072] @storage 0
//       ...
//
// Every binding must be a call_tir of a compiled PrimFunc (run `legalize` first),
// and every dimension a product of constants and shape variables (n, 4 * n, b * s).
// Values without a planned storage get one of their own. The graph runs as a
// GraphProgram (graph_program.h), the form an exported library carries it in:
// storage is kept from call to call and grows when the shapes need more. Calls on
// one executor are serialized.
#ifndef TESSEL_CODEGEN_RUNTIME_GRAPH_EXECUTOR_H_
#define TESSEL_CODEGEN_RUNTIME_GRAPH_EXECUTOR_H_

#include <dlpack/dlpack.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/graph_program.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/signature.h"
#include "ir/function.h"

namespace tessel::runtime {

// Graph function `name` of `mod` as a program over the compiled symbols of its
// PrimFuncs. Fails, naming the binding or value, on what a program cannot hold
// (an operator binding, a dimension that is not a product).
// Kernels name the compiled symbols of the PrimFuncs (FunctionSymbol), or with
// `callee_names` the PrimFuncs themselves (a GPU program's functions).
absl::StatusOr<GraphProgram> GraphProgramOf(const ir::IRModule& mod, const std::string& name,
                                            bool callee_names = false);

class GraphExecutor {
 public:
  // Graph function `name` of `mod` over the kernels compiled from `mod`'s PrimFuncs.
  // Fails, naming the binding, when the function is missing or does not verify,
  // a binding calls an operator or a PrimFunc `kernels` lacks, or the plan is invalid.
  static absl::StatusOr<GraphExecutor> Create(const ir::IRModule& mod, const std::string& name,
                                              Module kernels);
  // Graph function `name` of `mod` over the functions of a GPU program compiled from
  // `mod`'s PrimFuncs (codegen's BuildGpuProgram; cuda_graph.h): storage and
  // constants on cuda:0, results returned as device NDArrays; host inputs are copied
  // to the device first.
  static absl::StatusOr<GraphExecutor> CreateOnCuda(const ir::IRModule& mod,
                                                    const std::string& name,
                                                    std::shared_ptr<const CudaProgram> program);
  // Graph function `name` of a loaded library (Module::LoadLibrary), as exported.
  static absl::StatusOr<GraphExecutor> FromLibrary(Module library, const std::string& name);

  // The inputs as a call checks them: "ffn(x: f32[128, 768], w1: f32[768, 3072], ...)".
  const FunctionSignature& signature() const;
  const GraphProgram& program() const;
  // The names of the results, in order.
  std::vector<std::string> result_names() const;

  // Checks the inputs (InvalidArgument naming the input; nothing runs), runs the
  // kernels (Internal naming the binding when one fails) and returns the results.
  // With `kernel_seconds`, each kernel's wall time, in launch order (a profile).
  absl::StatusOr<std::vector<NDArray>> Run(absl::Span<DLTensor* const> inputs,
                                           std::vector<double>* kernel_seconds = nullptr) const;
  absl::StatusOr<std::vector<NDArray>> Run(absl::Span<const NDArray> inputs) const;

  // The launch sequence: each kernel with what it reads and writes and the storage
  // each intermediate got; sizes for the shapes of the last call (symbolic before one).
  std::string Describe() const;

  // Bytes of the storage the last call allocated for intermediates (0 before one), and
  // what one allocation per intermediate would have taken.
  int64_t planned_bytes() const;
  int64_t unplanned_bytes() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_GRAPH_EXECUTOR_H_
