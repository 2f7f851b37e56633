// Replacing variables and buffers inside expressions, for the DSL's own rewrites:
// a reducer's combiner applied to actual values, compute bodies moved into the
// fresh variables and buffers of a PrimFunc.
//
//   VarMap vars = {{acc.get(), Load(C, {vi})}, {x.get(), Load(A, {vi, vk})}};
//   Expr e = Substitute(Add(acc, x), vars);      // C[vi] + A[vi, vk]
//
// Only what the maps name changes; an untouched subtree is returned as the same
// object (the IRMutator's copy-on-write).
#ifndef TESSEL_IR_TE_SUBSTITUTE_H_
#define TESSEL_IR_TE_SUBSTITUTE_H_

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"

namespace tessel::ir::te {

using VarMap = absl::flat_hash_map<const VarNode*, Expr>;
using BufferMap = absl::flat_hash_map<const BufferNode*, Buffer>;

Expr Substitute(const Expr& e, const VarMap& vars, const BufferMap& buffers = {});

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_SUBSTITUTE_H_
