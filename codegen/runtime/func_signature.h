// The bridge from IR to the runtime: a PrimFunc's calling signature and the mapping
// between ir::DataType and DLPack's DLDataType. Codegen records these signatures in
// what it compiles; the Python bindings describe functions with them.
//
//   func @scale[n](A: f32[n], s: f32) attrs {global_symbol = "scale"} { ... }
//   SignatureOf("scale", f) -> scale(A: f32[n], s: f32)
//       params: buffer A f32 [Dim::Var("n")], scalar s f32
//
// Only what a call can pass is accepted: buffer parameters with compact row-major
// layout (no explicit strides, zero elem_offset) and extents that are constants or
// variables; scalar parameters of a value type.
#ifndef TESSEL_CODEGEN_RUNTIME_FUNC_SIGNATURE_H_
#define TESSEL_CODEGEN_RUNTIME_FUNC_SIGNATURE_H_

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/runtime/signature.h"
#include "ir/dtype.h"
#include "ir/function.h"

namespace tessel::runtime {

// f32 -> {kDLFloat, 32, 1}, bool -> {kDLBoolCode, 8, 1}; vectors keep their lanes.
// Fails on handle and void.
absl::StatusOr<DLDataType> ToDLDataType(ir::DataType dtype);
// The inverse; fails on codes tessel has no type for (complex, opaque handles).
absl::StatusOr<ir::DataType> ToIRDataType(DLDataType dtype);

// The name compiled code exports `func` under: its "global_symbol" attribute when it
// has one, else its name in the module.
std::string FunctionSymbol(const std::string& module_name, const ir::PrimFunc& func);

// The calling signature of `func`, named FunctionSymbol(module_name, func). Fails, naming
// the function and the parameter, on what no call can pass (see the top of this file).
absl::StatusOr<FunctionSignature> SignatureOf(const std::string& module_name,
                                              const ir::PrimFunc& func);
// Every function of `mod`, in module order.
absl::StatusOr<std::vector<FunctionSignature>> SignaturesOf(const ir::IRModule& mod);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_FUNC_SIGNATURE_H_
