// From tensors to a PrimFunc in block form (TensorIR style).
//
//   Tensor A = *Placeholder({64, 64}, f32, "A"), B = ..., C = <A @ B with ReduceSum>;
//   absl::StatusOr<PrimFunc> f = CreatePrimFunc({A, B, C}, "matmul");
//
//   func @matmul(A: f32[64, 64], B: f32[64, 64], C: f32[64, 64]) {
//     for i in range(0, 64) { for j in range(0, 64) { for k in range(0, 64) {
//       block C(vi: spatial[0, 64] = i, vj: spatial[0, 64] = j, vk: reduce[0, 64] = k) {
//         reads A[vi, vk], B[vk, vj]  writes C[vi, vj]
//         init { C[vi, vj] = 0.0f32 }
//         C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
//   } } } } }
//
// The rules:
// - parameters are the arguments, in order: tensors become buffer parameters,
//   Vars scalar parameters. Every placeholder the outputs depend on must be one.
// - one loop nest and one block per compute, in dependence order, the block named
//   after the compute (suffixed _1, _2 ... if names repeat); spatial iter vars for
//   its indices, reduce iter vars for its reduce axes, each bound to its own loop.
// - a reduction's block has `init` storing the reducer's identity; reads are the
//   regions its source and condition read (not the output it accumulates into),
//   writes its output points. Elementwise producers stay separate blocks: inlining
//   is a scheduling decision.
// - tensors computed but not passed become buffers allocated by a root block
//   "root" (no iter vars) around the loop nests; without any, the loop nests are
//   the body.
// - every variable and buffer is fresh for the function, so functions made from
//   the same tensors share nothing. A size variable must appear as a whole extent
//   of some parameter's shape (that binds it) or be passed as a scalar parameter.
#ifndef TESSEL_IR_TE_CREATE_PRIM_FUNC_H_
#define TESSEL_IR_TE_CREATE_PRIM_FUNC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/te/tensor.h"

namespace tessel::ir::te {

// A parameter of the function: a tensor (a buffer parameter) or a scalar Var.
struct FuncArg {
  FuncArg(Tensor t) : tensor(std::move(t)) {}  // NOLINT: {A, B, C} reads best.
  FuncArg(Var v) : var(std::move(v)) {}        // NOLINT
  Tensor tensor;
  Var var;
};

absl::StatusOr<PrimFunc> CreatePrimFunc(const std::vector<FuncArg>& args,
                                        const std::string& name = "main");

// A module holding the one function CreatePrimFunc makes, under `name`.
absl::StatusOr<IRModule> CreateModule(const std::vector<FuncArg>& args, const std::string& name);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_CREATE_PRIM_FUNC_H_
