// GraphProgram: a graph function as the runtime runs it — values with their
// shapes, the storage each intermediate shares, the kernels in order — and the
// text an exported library carries it in, after its functions' signatures.
// GraphRunner (graph_runner.h) runs it.
// Plain C++ (no Abseil): libtessel_runtime reads and runs it, for the C API
// (tessel_graph_run) and for graph functions built in-process (GraphExecutor).
//
//   graph ffn 4 1 2 3                 name, values, storages, kernels, inputs
//   value x f32 2 n 768 input         name dtype ndim dims... role
//   value w f32 2 768 3072 input
//   value b f32 1 3072 constant 0     a weight: bytes at offset 0 of the library's
//                                       constants (ConstantsSymbol)
//   value h f32 2 n 3072 storage 0    a dimension: a constant, a variable, or a
//   value y f32 2 n*2 3072 result       product of them ("n*2", "4*b*s")
//   kernel relu 2 2 1                 symbol, argument count, ids (args, then outputs), outputs
//   results 1 3
//
// A call passes one tensor per input and one per result (destination passing):
// the variables are bound by the first tensor dimension that is exactly the
// variable, every other dimension is checked, each storage is sized by its
// largest value, and the kernels run in order.
#ifndef TESSEL_CODEGEN_RUNTIME_GRAPH_PROGRAM_H_
#define TESSEL_CODEGEN_RUNTIME_GRAPH_PROGRAM_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {

// factor * vars[0] * vars[1] * ...
struct ProductDim {
  int64_t factor = 1;
  std::vector<std::string> vars;
};

struct GraphProgram {
  enum Role : int { kInput = -1, kResult = -2, kConstant = -3 };  // Else: a storage id.
  struct Value {
    std::string name;
    DLDataType dtype{kDLFloat, 32, 1};
    std::vector<ProductDim> shape;
    int role = kInput;
    // A constant's bytes, which nothing writes (set before GraphRunner::Create), and
    // where they are in a library's constants (the text form's offset; 0 in a
    // program built in-process until export's PackConstants places it).
    const void* data = nullptr;
    int64_t offset = 0;
  };
  struct Kernel {
    std::string function;   // The symbol of a compiled function of the same module.
    std::vector<int> args;  // Value ids: the call's arguments, then its outputs.
    int num_outputs = 1;
  };
  std::string name;
  std::vector<Value> values;  // The inputs first, in parameter order.
  int num_inputs = 0;
  int num_storages = 0;
  std::vector<Kernel> kernels;
  std::vector<int> results;
  // Whatever keeps the constants' `data` alive (in-process: the module's buffers).
  std::vector<std::shared_ptr<const void>> constant_owners;

  // What a call passes, inputs (read) then results (written): "ffn(x: f32[n, 768], ..., y: ...)".
  // A dimension that is not a single variable or constant is a fresh variable here,
  // checked once the variables are bound.
  FunctionSignature CallSignature() const;
};

// "" when `g` is well formed: value ids in range, inputs first and only there, each
// intermediate written by one kernel before any kernel reads it, constants of
// constant shape at aligned offsets and never written, storage ids in
// [0, num_storages), no two values live at once in one storage, at least one result.
std::string ValidateGraphProgram(const GraphProgram& g);

// The text form (top of this file), one section per program.
std::string SerializeGraphPrograms(const std::vector<GraphProgram>& graphs);
// Parses the graph sections of a library's metadata (lines from the first
// "graph" on; ParseSignatures reads the lines before it). False with `*error`
// naming the line.
bool ParseGraphPrograms(std::string_view metadata, std::vector<GraphProgram>* out,
                        std::string* error);

// A dimension as the text form writes it ("2*n", "768"), and a shape ("[2, 768]").
std::string DimText(const ProductDim& d);
std::string ShapeText(const std::vector<int64_t>& shape);

// A constant value's size in bytes (its shape is constant).
int64_t ConstantBytes(const GraphProgram::Value& v);
// Points the constants of `g` into `blob` (a library's constants, `size` bytes) by
// their offsets; "" or why not (one reaches past the end).
std::string PlaceConstants(GraphProgram* g, const void* blob, int64_t size);

// A dimension's value under the shape variables' bindings, or false when a variable
// is unbound or it overflows.
using ShapeBindings = std::map<std::string, int64_t>;
bool EvaluateDim(const ProductDim& d, const ShapeBindings& vars, int64_t* out);
// Each variable of `sig` bound to the first argument extent it names (a checked
// call's extents agree, so the first is the value).
ShapeBindings BindShapeVars(const FunctionSignature& sig, DLTensor* const* args);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_GRAPH_PROGRAM_H_
